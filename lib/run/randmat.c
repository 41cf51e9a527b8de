/* randmat.c - Haar orthogonal matrices and matrices with a given condition
 * number.
 *
 * Haar orthogonal (Mezzadri, "How to generate random matrices from the
 * classical compact groups", Notices AMS 54, 2007): take G (n, n) with i.i.d.
 * N(0, 1) entries, factor G = Q R by Householder QR, and multiply column j of
 * Q by sign(r_jj). Without the sign fix the distribution of Q depends on the
 * QR routine's sign convention and is not Haar.
 */
#include "randmat.h"
#include "mat.h"
#include "status.h"

#include <math.h>
#include <gsl/gsl_linalg.h>

int randmat_orthogonal(gsl_rng *rng, gsl_matrix *Q)
{
    size_t n = Q->size1;
    if (Q->size2 != n)
        return att_fail(ATT_EUSAGE, "randmat_orthogonal: Q (%zu x %zu) must be square",
                        Q->size1, Q->size2);
    gsl_matrix *G = mat_new(n, n), *R = mat_new(n, n);
    gsl_vector *tau = mat_vec_new(n);
    int rc = ATT_OK;
    if (!G || !R || !tau) { rc = att_alloc_status(); goto done; }

    // G_ij ~ N(0, 1);  G = Q R  (Householder)
    mat_randn(rng, G, 1.0);
    if (gsl_linalg_QR_decomp(G, tau) || gsl_linalg_QR_unpack(G, tau, Q, R)) {
        rc = att_fail(ATT_ERUNTIME, "randmat_orthogonal: QR of a %zu x %zu Gaussian matrix failed",
                      n, n);
        goto done;
    }
    // q_j <- sign(r_jj) q_j   (makes the factorization unique, Q Haar)
    for (size_t j = 0; j < n; j++) {
        if (gsl_matrix_get(R, j, j) < 0.0) {
            gsl_vector_view col = gsl_matrix_column(Q, j);
            gsl_vector_scale(&col.vector, -1.0);
        }
    }
done:
    mat_free(G); mat_free(R); mat_vec_free(tau);
    return rc;
}

int randmat_with_cond(gsl_rng *rng, gsl_matrix *R, double cond)
{
    size_t n = R->size1;
    if (R->size2 != n)
        return att_fail(ATT_EUSAGE, "randmat_with_cond: R (%zu x %zu) must be square",
                        R->size1, R->size2);
    if (!isfinite(cond) || cond < 1.0)
        return att_fail(ATT_EUSAGE,
                        "randmat_with_cond: condition number %g must be finite and >= 1", cond);
    if (n == 1 && cond != 1.0)
        return att_fail(ATT_EUSAGE,
                        "randmat_with_cond: a 1 x 1 matrix has condition number 1, not %g", cond);

    gsl_matrix *U = mat_new(n, n), *V = mat_new(n, n);
    int rc = ATT_OK;
    if (!U || !V) { rc = att_alloc_status(); goto done; }
    if ((rc = randmat_orthogonal(rng, U)) || (rc = randmat_orthogonal(rng, V))) goto done;

    // U <- U diag(s),  s_i = cond^(1/2 - i/(n-1))
    for (size_t i = 0; i < n; i++) {
        double e = n == 1 ? 0.0 : 0.5 - (double)i / (double)(n - 1);
        gsl_vector_view col = gsl_matrix_column(U, i);
        gsl_vector_scale(&col.vector, pow(cond, e));
    }
    // R = (U diag(s)) V^T
    rc = mat_gemm(R, 1.0, U, 0, V, 1, 0.0);
done:
    mat_free(U); mat_free(V);
    return rc;
}

void randmat_head(gsl_rng *rng, gsl_matrix *X, gsl_matrix *W_Q, gsl_matrix *W_K, gsl_matrix *W_V,
                  gsl_matrix *W_O)
{
    gsl_matrix *W[4] = {W_Q, W_K, W_V, W_O};
    double sw = 1.0 / sqrt((double)X->size2);
    mat_randn(rng, X, 1.0);
    for (int k = 0; k < 4; k++)
        if (W[k]) mat_randn(rng, W[k], sw);
}
