/* fused.c - one projection for Q, K and V together (shapes in fused.h). Column block j of
 * a product X W is X times column block j of W, so one product followed by a split equals
 * the three separate products. */
#include "fused.h"
#include "mat.h"
#include "status.h"

/* W (d, 2 d_k + d_v) = [W_Q (d, d_k) | W_K (d, d_k) | W_V (d, d_v)] */
int fused_pack(gsl_matrix *W, const gsl_matrix *W_Q, const gsl_matrix *W_K,
               const gsl_matrix *W_V)
{
    size_t d = W_Q->size1, d_k = W_Q->size2, d_v = W_V->size2;
    if (!mat_same_shape(W_Q, W_K))
        return att_fail(ATT_EUSAGE,
                        "fused_pack: W_Q (%zu x %zu) and W_K (%zu x %zu) must have the same shape",
                        W_Q->size1, W_Q->size2, W_K->size1, W_K->size2);
    if (W_V->size1 != d)
        return att_fail(
            ATT_EUSAGE,
            "fused_pack: W_Q (%zu x %zu) and W_V (%zu x %zu) must have the same number of rows d",
            W_Q->size1, W_Q->size2, W_V->size1, W_V->size2);
    if (W->size1 != d || W->size2 != 2 * d_k + d_v)
        return att_fail(ATT_EUSAGE,
                        "fused_pack: W_QKV (%zu x %zu) and W_Q (%zu x %zu), W_V (%zu x %zu): "
                        "W_QKV must be (%zu x %zu)",
                        W->size1, W->size2, W_Q->size1, W_Q->size2, W_V->size1, W_V->size2, d,
                        2 * d_k + d_v);
    gsl_matrix_view q = gsl_matrix_submatrix(W, 0, 0, d, d_k);
    gsl_matrix_view k = gsl_matrix_submatrix(W, 0, d_k, d, d_k);
    gsl_matrix_view v = gsl_matrix_submatrix(W, 0, 2 * d_k, d, d_v);
    gsl_matrix_memcpy(&q.matrix, W_Q);
    gsl_matrix_memcpy(&k.matrix, W_K);
    gsl_matrix_memcpy(&v.matrix, W_V);
    return ATT_OK;
}

/* A (n, d_k) | B (n, d_k) | C (n, d_v) = the column blocks of M (n, 2 d_k + d_v):
 *   A = M[:, 0:d_k]   B = M[:, d_k:2 d_k]   C = M[:, 2 d_k:]
 * `name` is M's name for the message ("W_QKV" for the weights, "QKV" for the
 * projected rows); the one split behind fused_unpack and fused_project. */
static int fused_split(gsl_matrix *A, gsl_matrix *B, gsl_matrix *C, const gsl_matrix *M,
                       const char *name)
{
    size_t n = M->size1, d_k = A->size2, d_v = C->size2;
    if (A->size1 != n || !mat_same_shape(A, B) || C->size1 != n || M->size2 != 2 * d_k + d_v)
        return att_fail(
            ATT_EUSAGE,
            "fused split of %s: %s (%zu x %zu) and its blocks (%zu x %zu), "
            "(%zu x %zu), (%zu x %zu): need the first two (n x d_k), the third (n x d_v), "
            "%s (n x 2 d_k + d_v)",
            name, name, M->size1, M->size2, A->size1, A->size2, B->size1, B->size2, C->size1,
            C->size2, name);
    gsl_matrix_const_view a = gsl_matrix_const_submatrix(M, 0, 0, n, d_k);
    gsl_matrix_const_view b = gsl_matrix_const_submatrix(M, 0, d_k, n, d_k);
    gsl_matrix_const_view c = gsl_matrix_const_submatrix(M, 0, 2 * d_k, n, d_v);
    gsl_matrix_memcpy(A, &a.matrix);
    gsl_matrix_memcpy(B, &b.matrix);
    gsl_matrix_memcpy(C, &c.matrix);
    return ATT_OK;
}

/* W_Q (d, d_k) | W_K (d, d_k) | W_V (d, d_v) = W (d, 2 d_k + d_v): since
 * column block j of X W is X times column block j of W, running the head with
 * these three is the fused projection followed by its split. */
int fused_unpack(gsl_matrix *W_Q, gsl_matrix *W_K, gsl_matrix *W_V, const gsl_matrix *W)
{
    return fused_split(W_Q, W_K, W_V, W, "W_QKV");
}

/* QKV (N, 2d_k+d_v) = X (N, d) W (d, 2d_k+d_v); then the split. */
int fused_project(gsl_matrix *Q, gsl_matrix *K, gsl_matrix *V,
                  gsl_matrix *QKV, const gsl_matrix *X, const gsl_matrix *W)
{
    if (X->size2 != W->size1)
        return att_fail(ATT_EUSAGE, "fused_project: X (%zu x %zu) and W_QKV (%zu x %zu): "
                        "X has %zu columns, W_QKV %zu rows", X->size1, X->size2,
                        W->size1, W->size2, X->size2, W->size1);
    if (QKV->size1 != X->size1 || QKV->size2 != W->size2)
        return att_fail(ATT_EUSAGE, "fused_project: QKV (%zu x %zu) and X W_QKV (%zu x %zu) differ",
                        QKV->size1, QKV->size2, X->size1, W->size2);
    // QKV = X W_QKV   (one product)
    int st = mat_gemm(QKV, 1.0, X, 0, W, 0, 0.0);
    if (st) return st;
    return fused_split(Q, K, V, QKV, "QKV");
}

/* Same with Wt (2d_k+d_v, d) stored (out, in):  QKV = X Wt^T. */
int fused_project_out_in(gsl_matrix *Q, gsl_matrix *K, gsl_matrix *V,
                         gsl_matrix *QKV, const gsl_matrix *X,
                         const gsl_matrix *Wt)
{
    if (X->size2 != Wt->size2)
        return att_fail(ATT_EUSAGE,
                        "fused_project_out_in: X (%zu x %zu) and W (out, in) (%zu x %zu): "
                        "X has %zu columns, W has %zu (in)",
                        X->size1, X->size2, Wt->size1, Wt->size2, X->size2, Wt->size2);
    if (QKV->size1 != X->size1 || QKV->size2 != Wt->size1)
        return att_fail(ATT_EUSAGE,
                        "fused_project_out_in: QKV (%zu x %zu) and X W^T (%zu x %zu) differ",
                        QKV->size1, QKV->size2, X->size1, Wt->size1);
    // QKV = X Wt^T   (one product, the transpose taken by BLAS, no copy)
    int st = mat_gemm(QKV, 1.0, X, 0, Wt, 1, 0.0);
    if (st) return st;
    return fused_split(Q, K, V, QKV, "QKV");
}
