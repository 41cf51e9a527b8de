/* qkov.c - the QK and OV circuits of a head, their spectra, and the
 * W_Q -> W_Q R, W_K -> W_K R^{-T} reparametrization.
 *
 * Shape legend: d = model width, d_k = query/key width, d_v = value width,
 * T_q, T_k = query and key counts. Tokens are rows.
 */
#include "qkov.h"
#include "mat.h"
#include "status.h"

#include <math.h>
#include <gsl/gsl_linalg.h>
#include <gsl/gsl_permutation.h>

/* W_QK (d, d) = W_Q (d, d_k) W_K (d, d_k)^T */
int qkov_qk(gsl_matrix *W_QK, const gsl_matrix *W_Q, const gsl_matrix *W_K)
{
    if (!mat_same_shape(W_Q, W_K))
        return att_fail(ATT_EUSAGE, "qkov_qk: W_Q (%zu x %zu) and W_K (%zu x %zu) must both be (d x d_k)",
                        W_Q->size1, W_Q->size2, W_K->size1, W_K->size2);
    // (W_QK)_ab = sum_c (W_Q)_ac (W_K)_bc
    return mat_gemm(W_QK, 1.0, W_Q, 0, W_K, 1, 0.0);
}

/* W_OV (d, d) = W_V (d, d_v) W_O (d_v, d) */
int qkov_ov(gsl_matrix *W_OV, const gsl_matrix *W_V, const gsl_matrix *W_O)
{
    // (W_OV)_ab = sum_c (W_V)_ac (W_O)_cb
    return mat_gemm(W_OV, 1.0, W_V, 0, W_O, 0, 0.0);
}

/* S (T_q, T_k) = Xq (T_q, d) W (d, d) Xkv (T_k, d)^T */
int qkov_bilinear_scores(gsl_matrix *S, const gsl_matrix *Xq, const gsl_matrix *W,
                            const gsl_matrix *Xkv)
{
    if (Xq->size2 != W->size1 || Xkv->size2 != W->size2)
        return att_fail(ATT_EUSAGE, "bilinear scores: Xq (%zu x %zu), W (%zu x %zu), Xkv (%zu x %zu) "
                        "do not conform", Xq->size1, Xq->size2, W->size1, W->size2,
                        Xkv->size1, Xkv->size2);
    gsl_matrix *XW = mat_new(Xq->size1, W->size2);
    if (XW == NULL) return ATT_ERUNTIME;
    // XW = Xq W ;  s_ij = (x_i^T W) x_j
    int rc = mat_gemm(XW, 1.0, Xq, 0, W, 0, 0.0);
    if (!rc) rc = mat_gemm(S, 1.0, XW, 0, Xkv, 1, 0.0);
    mat_free(XW);
    return rc;
}

/* s (n) = singular values of A (m, n), descending */
int qkov_singular_values(gsl_vector *s, const gsl_matrix *A)
{
    size_t m = A->size1, n = A->size2;
    if (m < n || s->size != n)
        return att_fail(ATT_EUSAGE, "singular values: A (%zu x %zu) needs rows >= columns and s of "
                        "length %zu (got %zu)", m, n, n, s->size);
    gsl_matrix *U = mat_dup(A), *V = mat_new(n, n);
    gsl_vector *work = vec_new(n);
    int rc = ATT_OK;
    if (!U || !V || !work) rc = ATT_ERUNTIME;
    // A = U diag(s) V^T  (Golub-Reinsch; GSL returns s sorted descending)
    else if (gsl_linalg_SV_decomp(U, V, s, work))
        rc = att_fail(ATT_ERUNTIME, "singular values: SVD of a %zu x %zu matrix did not converge", m, n);
    mat_free(U); mat_free(V); vec_free(work);
    return rc;
}

size_t qkov_numerical_rank(const gsl_vector *s, double rel_tol)
{
    double s0 = s->size ? gsl_vector_get(s, 0) : 0.0;
    size_t r = 0;
    for (size_t i = 0; i < s->size; i++)
        if (gsl_vector_get(s, i) > rel_tol * s0) r++;
    return s0 > 0.0 ? r : 0;
}

/* WQ2 = W_Q R ;  WK2 = W_K R^{-T}, R (d_k, d_k) */
int qkov_reparam(gsl_matrix *WQ2, gsl_matrix *WK2, const gsl_matrix *W_Q,
                       const gsl_matrix *W_K, const gsl_matrix *R)
{
    size_t d = W_Q->size1, d_k = W_Q->size2;
    if (!mat_same_shape(W_Q, W_K) || !mat_same_shape(WQ2, W_Q) || !mat_same_shape(WK2, W_K)
        || R->size1 != d_k || R->size2 != d_k)
        return att_fail(ATT_EUSAGE, "reparametrization: W_Q (%zu x %zu), W_K (%zu x %zu), R (%zu x %zu), "
                        "outputs (%zu x %zu), (%zu x %zu): need (d x d_k) and R (d_k x d_k)",
                        W_Q->size1, W_Q->size2, W_K->size1, W_K->size2, R->size1, R->size2,
                        WQ2->size1, WQ2->size2, WK2->size1, WK2->size2);
    gsl_matrix *LU = mat_dup(R);
    gsl_permutation *p = gsl_permutation_alloc(d_k);
    int rc = ATT_OK, signum;
    if (!LU || !p) { rc = att_fail(ATT_ERUNTIME, "reparametrization: out of memory"); goto done; }

    // W_Q R
    if ((rc = mat_gemm(WQ2, 1.0, W_Q, 0, R, 0, 0.0))) goto done;

    // P R = L U  (Golub & Van Loan 3.4.1)
    if (gsl_linalg_LU_decomp(LU, p, &signum)) {
        rc = att_fail(ATT_ERUNTIME, "reparametrization: LU of R (%zu x %zu) failed", d_k, d_k);
        goto done;
    }
    for (size_t i = 0; i < d_k; i++)
        if (gsl_matrix_get(LU, i, i) == 0.0) {
            rc = att_fail(ATT_ERUNTIME, "reparametrization: R is singular (u_%zu%zu = 0)", i, i);
            goto done;
        }
    // row a of W_K R^{-T}:  y^T = w^T R^{-T}  <=>  R y = w   (w = row a of W_K)
    for (size_t a = 0; a < d; a++) {
        gsl_vector_const_view w = gsl_matrix_const_row(W_K, a);
        gsl_vector_view y = gsl_matrix_row(WK2, a);
        if (gsl_linalg_LU_solve(LU, p, &w.vector, &y.vector)) {
            rc = att_fail(ATT_ERUNTIME, "reparametrization: LU solve with R failed (row %zu)", a);
            goto done;
        }
    }
done:
    mat_free(LU);
    if (p) gsl_permutation_free(p);
    return rc;
}



/* C (m, n) = |A| (m, p) |B| (p, n) */
int qkov_abs_product(gsl_matrix *C, const gsl_matrix *A, const gsl_matrix *B)
{
    gsl_matrix *aA = mat_dup(A), *aB = mat_dup(B);
    int rc = aA && aB ? ATT_OK : ATT_ERUNTIME;
    gsl_matrix *m[2] = {aA, aB};
    for (int k = 0; k < 2 && !rc; k++)
        for (size_t i = 0; i < m[k]->size1; i++)
            for (size_t j = 0; j < m[k]->size2; j++)
                gsl_matrix_set(m[k], i, j, fabs(gsl_matrix_get(m[k], i, j)));
    // C = |A| |B|
    if (!rc) rc = mat_gemm(C, 1.0, aA, 0, aB, 0, 0.0);
    mat_free(aA); mat_free(aB);
    return rc;
}

/* sigma_i / sigma_1 of W (d, d), and the gap at rank r */
int qkov_rank_profile(const gsl_matrix *W, size_t r, double rel_tol, gsl_vector *sv,
                      double *spec, double *mismatch, double *kept, double *next)
{
    if (r < 1 || r > sv->size)
        return att_fail(ATT_EUSAGE, "rank profile: rank %zu outside 1 .. %zu", r, sv->size);
    int rc = qkov_singular_values(sv, W);
    if (rc) return rc;
    double s1 = gsl_vector_get(sv, 0);
    *mismatch = qkov_numerical_rank(sv, rel_tol) != r;
    *kept = gsl_vector_get(sv, r - 1) / s1;
    *next = r < sv->size ? gsl_vector_get(sv, r) / s1 : 0.0;
    for (size_t i = 0; i < sv->size; i++) spec[i] = gsl_vector_get(sv, i) / s1;
    return ATT_OK;
}
