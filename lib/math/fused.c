/* fused.c - one projection for Q, K and V together.
 *
 * N = rows (tokens, possibly B sequences stacked), d = model width.
 *   W_QKV (d, 2 d_k + d_v) = [W_Q | W_K | W_V]
 *   QKV (N, 2 d_k + d_v)   = X W_QKV = [X W_Q | X W_K | X W_V]
 * Column block j of a product X W is X times column block j of W, so one
 * product followed by a split equals the three separate products.
 */
#include "fused.h"
#include "mat.h"
#include "status.h"

/* W (d, 2 d_k + d_v) = [W_Q (d, d_k) | W_K (d, d_k) | W_V (d, d_v)] */
int fused_pack(gsl_matrix *W, const gsl_matrix *W_Q, const gsl_matrix *W_K,
               const gsl_matrix *W_V)
{
    size_t d = W_Q->size1, d_k = W_Q->size2, d_v = W_V->size2;
    if (!mat_same_shape(W_Q, W_K))
        return att_fail(ATT_EUSAGE, "fused_pack: W_Q (%zu x %zu) and W_K (%zu x %zu) must have the same shape",
                        W_Q->size1, W_Q->size2, W_K->size1, W_K->size2);
    if (W_V->size1 != d)
        return att_fail(ATT_EUSAGE, "fused_pack: W_Q (%zu x %zu) and W_V (%zu x %zu) must have the same number of rows d",
                        W_Q->size1, W_Q->size2, W_V->size1, W_V->size2);
    if (W->size1 != d || W->size2 != 2 * d_k + d_v)
        return att_fail(ATT_EUSAGE, "fused_pack: W_QKV (%zu x %zu) and W_Q (%zu x %zu), W_V (%zu x %zu): "
                        "W_QKV must be (%zu x %zu)", W->size1, W->size2, W_Q->size1, W_Q->size2,
                        W_V->size1, W_V->size2, d, 2 * d_k + d_v);
    gsl_matrix_view q = gsl_matrix_submatrix(W, 0, 0, d, d_k);
    gsl_matrix_view k = gsl_matrix_submatrix(W, 0, d_k, d, d_k);
    gsl_matrix_view v = gsl_matrix_submatrix(W, 0, 2 * d_k, d, d_v);
    gsl_matrix_memcpy(&q.matrix, W_Q);
    gsl_matrix_memcpy(&k.matrix, W_K);
    gsl_matrix_memcpy(&v.matrix, W_V);
    return ATT_OK;
}

/* W_Q (d, d_k) | W_K (d, d_k) | W_V (d, d_v) = W (d, 2 d_k + d_v): since
 * column block j of X W is X times column block j of W, running the head with
 * these three is the fused projection followed by its split. */
int fused_unpack(gsl_matrix *W_Q, gsl_matrix *W_K, gsl_matrix *W_V, const gsl_matrix *W)
{
    size_t d = W->size1, d_k = W_Q->size2, d_v = W_V->size2;
    if (!mat_same_shape(W_Q, W_K) || W_Q->size1 != d || W_V->size1 != d || W->size2 != 2 * d_k + d_v)
        return att_fail(ATT_EUSAGE, "fused_unpack: W_QKV (%zu x %zu) and W_Q (%zu x %zu), W_K (%zu x %zu), "
                        "W_V (%zu x %zu): need W_Q, W_K (d x d_k), W_V (d x d_v), W_QKV (d x 2 d_k + d_v)",
                        W->size1, W->size2, W_Q->size1, W_Q->size2, W_K->size1, W_K->size2,
                        W_V->size1, W_V->size2);
    gsl_matrix_const_view q = gsl_matrix_const_submatrix(W, 0, 0, d, d_k);
    gsl_matrix_const_view k = gsl_matrix_const_submatrix(W, 0, d_k, d, d_k);
    gsl_matrix_const_view v = gsl_matrix_const_submatrix(W, 0, 2 * d_k, d, d_v);
    gsl_matrix_memcpy(W_Q, &q.matrix);
    gsl_matrix_memcpy(W_K, &k.matrix);
    gsl_matrix_memcpy(W_V, &v.matrix);
    return ATT_OK;
}

/* Q (N, d_k), K (N, d_k), V (N, d_v) = the column blocks of QKV (N, 2 d_k + d_v). */
static int fused_split(gsl_matrix *Q, gsl_matrix *K, gsl_matrix *V, const gsl_matrix *QKV)
{
    size_t N = QKV->size1, d_k = Q->size2, d_v = V->size2;
    if (Q->size1 != N || !mat_same_shape(Q, K) || V->size1 != N || QKV->size2 != 2 * d_k + d_v)
        return att_fail(ATT_EUSAGE, "fused split: QKV (%zu x %zu) and Q (%zu x %zu), K (%zu x %zu), "
                        "V (%zu x %zu): need Q, K (N x d_k), V (N x d_v), QKV (N x 2 d_k + d_v)",
                        QKV->size1, QKV->size2, Q->size1, Q->size2, K->size1, K->size2,
                        V->size1, V->size2);
    gsl_matrix_const_view q = gsl_matrix_const_submatrix(QKV, 0, 0, N, d_k);
    gsl_matrix_const_view k = gsl_matrix_const_submatrix(QKV, 0, d_k, N, d_k);
    gsl_matrix_const_view v = gsl_matrix_const_submatrix(QKV, 0, 2 * d_k, N, d_v);
    gsl_matrix_memcpy(Q, &q.matrix);
    gsl_matrix_memcpy(K, &k.matrix);
    gsl_matrix_memcpy(V, &v.matrix);
    return ATT_OK;
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
    return fused_split(Q, K, V, QKV);
}

/* Same with Wt (2d_k+d_v, d) stored (out, in):  QKV = X Wt^T. */
int fused_project_out_in(gsl_matrix *Q, gsl_matrix *K, gsl_matrix *V,
                         gsl_matrix *QKV, const gsl_matrix *X,
                         const gsl_matrix *Wt)
{
    if (X->size2 != Wt->size2)
        return att_fail(ATT_EUSAGE, "fused_project_out_in: X (%zu x %zu) and W (out, in) (%zu x %zu): "
                        "X has %zu columns, W has %zu (in)", X->size1, X->size2,
                        Wt->size1, Wt->size2, X->size2, Wt->size2);
    if (QKV->size1 != X->size1 || QKV->size2 != Wt->size1)
        return att_fail(ATT_EUSAGE, "fused_project_out_in: QKV (%zu x %zu) and X W^T (%zu x %zu) differ",
                        QKV->size1, QKV->size2, X->size1, Wt->size1);
    // QKV = X Wt^T   (one product, the transpose taken by BLAS, no copy)
    int st = mat_gemm(QKV, 1.0, X, 0, Wt, 1, 0.0);
    if (st) return st;
    return fused_split(Q, K, V, QKV);
}
