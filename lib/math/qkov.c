/* qkov.c - the QK and OV circuits of a head, their spectra, and the
 * W_Q -> W_Q R, W_K -> W_K R^{-T} reparametrization (shapes in qkov.h). */
#include "qkov.h"
#include "mat.h"
#include "status.h"
#include "tol.h"

#include <math.h>
#include <gsl/gsl_blas.h>
#include <gsl/gsl_linalg.h>
#include <gsl/gsl_permutation.h>

/* W_QK (d, d) = W_Q (d, d_k) W_K (d, d_k)^T */
int qkov_qk(gsl_matrix *W_QK, const gsl_matrix *W_Q, const gsl_matrix *W_K)
{
    if (!mat_same_shape(W_Q, W_K))
        return att_fail(ATT_EUSAGE,
                        "qkov_qk: W_Q (%zu x %zu) and W_K (%zu x %zu) must both be (d x d_k)",
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
        return att_fail(ATT_EUSAGE,
                        "bilinear scores: Xq (%zu x %zu), W (%zu x %zu), Xkv (%zu x %zu) "
                        "do not conform",
                        Xq->size1, Xq->size2, W->size1, W->size2, Xkv->size1, Xkv->size2);
    gsl_matrix *XW = mat_new(Xq->size1, W->size2);
    if (XW == NULL) return att_alloc_status();
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
    gsl_vector *work = mat_vec_new(n);
    int rc = ATT_OK;
    if (!U || !V || !work) rc = att_alloc_status();
    // A = U diag(s) V^T  (Golub-Reinsch; GSL returns s sorted descending)
    else if (gsl_linalg_SV_decomp(U, V, s, work))
        rc = att_fail(ATT_ERUNTIME, "singular values: SVD of a %zu x %zu matrix did not converge",
                      m, n);
    mat_free(U); mat_free(V); mat_vec_free(work);
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

/* Y = R^{-1} B, column by column, for R (n, n) and B, Y (n, m): each column y
 * of Y solves R y = b (b the column of B), with P R = L U (Golub & Van Loan
 * 3.4.1) computed once. `what` names the caller in messages. */
static int solve_with(gsl_matrix *Y, const gsl_matrix *R, const gsl_matrix *B, const char *what)
{
    size_t n = R->size1;
    gsl_matrix *LU = mat_dup(R);
    gsl_permutation *p = gsl_permutation_alloc(n);
    int rc = ATT_OK, signum;
    if (!LU || !p) { rc = att_fail(ATT_ERUNTIME, "%s: out of memory", what); goto done; }
    if (gsl_linalg_LU_decomp(LU, p, &signum)) {
        rc = att_fail(ATT_ERUNTIME, "%s: LU of R (%zu x %zu) failed", what, n, n);
        goto done;
    }
    for (size_t i = 0; i < n; i++)
        if (gsl_matrix_get(LU, i, i) == 0.0) {
            rc = att_fail(ATT_ERUNTIME, "%s: R is singular (u_%zu%zu = 0)", what, i, i);
            goto done;
        }
    for (size_t c = 0; c < B->size2; c++) {
        gsl_vector_const_view b = gsl_matrix_const_column(B, c);
        gsl_vector_view y = gsl_matrix_column(Y, c);
        if (gsl_linalg_LU_solve(LU, p, &b.vector, &y.vector)) {
            rc = att_fail(ATT_ERUNTIME, "%s: LU solve with R failed (column %zu)", what, c);
            goto done;
        }
    }
done:
    mat_free(LU);
    if (p) gsl_permutation_free(p);
    return rc;
}

/* WQ2 = W_Q R ;  WK2 = W_K R^{-T}, R (d_k, d_k) */
int qkov_reparam(gsl_matrix *WQ2, gsl_matrix *WK2, const gsl_matrix *W_Q,
                       const gsl_matrix *W_K, const gsl_matrix *R)
{
    size_t d_k = W_Q->size2;
    if (!mat_same_shape(W_Q, W_K) || !mat_same_shape(WQ2, W_Q) || !mat_same_shape(WK2, W_K)
        || R->size1 != d_k || R->size2 != d_k)
        return att_fail(ATT_EUSAGE,
                        "reparametrization: W_Q (%zu x %zu), W_K (%zu x %zu), R (%zu x %zu), "
                        "outputs (%zu x %zu), (%zu x %zu): need (d x d_k) and R (d_k x d_k)",
                        W_Q->size1, W_Q->size2, W_K->size1, W_K->size2, R->size1, R->size2,
                        WQ2->size1, WQ2->size2, WK2->size1, WK2->size2);
    // W_Q R
    int rc = mat_gemm(WQ2, 1.0, W_Q, 0, R, 0, 0.0);
    if (rc) return rc;
    // W_K R^{-T} = (R^{-1} W_K^T)^T: row a solves R y = w (w = row a of W_K)
    gsl_matrix *Bt = mat_new(d_k, W_K->size1), *Yt = mat_new(d_k, W_K->size1);
    rc = Bt && Yt ? gsl_matrix_transpose_memcpy(Bt, W_K) : att_alloc_status();
    if (!rc) rc = solve_with(Yt, R, Bt, "reparametrization");
    if (!rc) gsl_matrix_transpose_memcpy(WK2, Yt);
    mat_free(Bt); mat_free(Yt);
    return rc;
}



/* C (m, n) = |A| (m, p) |B| (p, n) */
int qkov_abs_product(gsl_matrix *C, const gsl_matrix *A, const gsl_matrix *B)
{
    gsl_matrix *aA = mat_dup(A), *aB = mat_dup(B);
    int rc = aA && aB ? ATT_OK : att_alloc_status();
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

/* WV2 = W_V R ;  WO2 = R^{-1} W_O, R (d_v, d_v) */
int qkov_reparam_ov(gsl_matrix *WV2, gsl_matrix *WO2, const gsl_matrix *W_V,
                    const gsl_matrix *W_O, const gsl_matrix *R)
{
    size_t d = W_V->size1, d_v = W_V->size2;
    if (W_O->size1 != d_v || W_O->size2 != d || !mat_same_shape(WV2, W_V)
        || !mat_same_shape(WO2, W_O) || R->size1 != d_v || R->size2 != d_v)
        return att_fail(ATT_EUSAGE, "OV reparametrization: W_V (%zu x %zu), W_O (%zu x %zu), "
                        "R (%zu x %zu): need W_V (d x d_v), W_O (d_v x d), R (d_v x d_v)",
                        W_V->size1, W_V->size2, W_O->size1, W_O->size2, R->size1, R->size2);
    // W_V R
    int rc = mat_gemm(WV2, 1.0, W_V, 0, R, 0, 0.0);
    // R^{-1} W_O: column b solves R y = w (w = column b of W_O)
    return rc ? rc : solve_with(WO2, R, W_O, "OV reparametrization");
}

/* Wa = U_r S_r^{1/2}, Wb = V_r S_r^{1/2} from W = U S V^T, W (d, d), Wa, Wb (d, r) */
int qkov_factor(gsl_matrix *Wa, gsl_matrix *Wb, const gsl_matrix *W)
{
    size_t d = W->size1, r = Wa->size2;
    if (W->size2 != d || !mat_same_shape(Wa, Wb) || Wa->size1 != d || r == 0 || r > d)
        return att_fail(ATT_EUSAGE, "factor: W (%zu x %zu), Wa (%zu x %zu), Wb (%zu x %zu): need "
                        "W (d x d) and Wa, Wb (d x r), 1 <= r <= d", W->size1, W->size2,
                        Wa->size1, Wa->size2, Wb->size1, Wb->size2);
    gsl_matrix *U = mat_dup(W), *V = mat_new(d, d);
    gsl_vector *s = mat_vec_new(d), *work = mat_vec_new(d);
    int rc = U && V && s && work ? ATT_OK : att_alloc_status();
    // W = U diag(s) V^T, s descending
    if (!rc && gsl_linalg_SV_decomp(U, V, s, work))
        rc = att_fail(ATT_ERUNTIME, "factor: SVD of a %zu x %zu matrix did not converge", d, d);
    for (size_t c = 0; c < r && !rc; c++) {
        double h = sqrt(gsl_vector_get(s, c));
        for (size_t a = 0; a < d; a++) {
            gsl_matrix_set(Wa, a, c, gsl_matrix_get(U, a, c) * h);
            gsl_matrix_set(Wb, a, c, gsl_matrix_get(V, a, c) * h);
        }
    }
    mat_free(U); mat_free(V); mat_vec_free(s); mat_vec_free(work);
    return rc;
}

/* Y = A (X W_V + 1 b_V^T) W_O + 1 b_O^T, A = softmax((X W_Q + 1 b_Q^T)(X W_K + 1 b_K^T)^T) */
int qkov_head_output(gsl_matrix *Y, const qkov_head *h, const gsl_matrix *X, head_state *st)
{
    head_params p = head_params_make(h->W_Q, h->W_K, h->W_V);
    p.b_Q = h->b_Q; p.b_K = h->b_K; p.b_V = h->b_V;
    int rc = head_forward(st, &p, X, X);
    // Y = O W_O + 1 b_O^T
    if (!rc) rc = mat_gemm(Y, 1.0, st->O, 0, h->W_O, 0, 0.0);
    for (size_t i = 0; i < Y->size1 && !rc && h->b_O; i++) {
        gsl_vector_view y = gsl_matrix_row(Y, i);
        gsl_vector_add(&y.vector, h->b_O);
    }
    return rc;
}

/* h2 from (W_QK, u, W_OV, c) of h1 */
int qkov_rebuild(qkov_head *h2, const qkov_head *h1)
{
    size_t d = h1->W_Q->size1, dv = h1->W_V->size2;
    int bias = h1->b_Q != NULL;
    if ((h1->b_V != NULL) != bias || (h1->b_O != NULL) != bias || (h2->b_Q != NULL) != bias
        || (h2->b_V != NULL) != bias || (h2->b_O != NULL) != bias)
        return att_fail(ATT_EUSAGE, "rebuild: the biases b_Q, b_V, b_O of both heads must be all "
                        "present or all absent");
    gsl_matrix *WQK = mat_new(d, d), *WOV = mat_new(d, d), *WOt = mat_new(d, dv);
    gsl_vector *u = mat_vec_new(d);
    int rc = WQK && WOV && WOt && u ? ATT_OK : att_alloc_status();
    // W_QK = W_Q W_K^T, W_OV = W_V W_O; factors W_Q2 W_K2^T = W_QK, W_V2 (W_O2^T)^T = W_OV
    if (!rc) rc = qkov_qk(WQK, h1->W_Q, h1->W_K);
    if (!rc) rc = qkov_ov(WOV, h1->W_V, h1->W_O);
    if (!rc) rc = qkov_factor(h2->W_Q, h2->W_K, WQK);
    if (!rc) rc = qkov_factor(h2->W_V, WOt, WOV);
    if (!rc) gsl_matrix_transpose_memcpy(h2->W_O, WOt);
    if (!rc && bias) {
        // u = W_K b_Q; W_K2's columns k_c are orthogonal: b_Q2[c] = (k_c . u) / |k_c|^2
        gsl_blas_dgemv(CblasNoTrans, 1.0, h1->W_K, h1->b_Q, 0.0, u);
        for (size_t col = 0; col < h2->W_K->size2; col++) {
            gsl_vector_const_view k = gsl_matrix_const_column(h2->W_K, col);
            double kk, ku;
            gsl_blas_ddot(&k.vector, &k.vector, &kk);
            gsl_blas_ddot(&k.vector, u, &ku);
            gsl_vector_set(h2->b_Q, col, kk > 0.0 ? ku / kk : 0.0);
        }
        // b_O2 = c - W_O2^T b_V2,  c = W_O^T b_V + b_O
        gsl_vector_memcpy(h2->b_O, h1->b_O);
        gsl_blas_dgemv(CblasTrans, 1.0, h1->W_O, h1->b_V, 1.0, h2->b_O);
        gsl_blas_dgemv(CblasTrans, -1.0, h2->W_O, h2->b_V, 1.0, h2->b_O);
    }
    mat_free(WQK); mat_free(WOV); mat_free(WOt); mat_vec_free(u);
    return rc;
}

/* ||S - S^T||_F / ||S||_F */
double qkov_asymmetry(const gsl_matrix *S)
{
    if (S->size1 != S->size2) return NAN;
    gsl_matrix *D = mat_new(S->size1, S->size2);
    if (D == NULL) return NAN;
    gsl_matrix_transpose_memcpy(D, S);
    double a = mat_diff_frob(S, D) / mat_frob(S);
    mat_free(D);
    return a;
}

/* tol = 16 n eps || |Q| |K|^T ||_F / ||S||_F, Q (T, n'), K (T, n'), S (T, T) */
double qkov_asymmetry_tol(size_t n, const gsl_matrix *Q, const gsl_matrix *K, const gsl_matrix *S)
{
    return tol_eps(16.0, n, tol_product_scale_frob(Q, K) / mat_frob(S));
}
