/* head_ref.c - the loop-level head (see head_ref.h). */
#include "head_ref.h"
#include "mat.h"
#include "status.h"

#include <math.h>

/* y_i = W^T x_i + b for every row i: Y (N, n), X (N, d), W (d, n), b (n) or NULL */
static void project(gsl_matrix *Y, const gsl_matrix *X, const gsl_matrix *W, const gsl_vector *b)
{
    for (size_t i = 0; i < X->size1; i++)
        for (size_t c = 0; c < W->size2; c++) {
            double y = b ? gsl_vector_get(b, c) : 0.0;
            for (size_t k = 0; k < X->size2; k++)
                y += gsl_matrix_get(X, i, k) * gsl_matrix_get(W, k, c);
            gsl_matrix_set(Y, i, c, y);
        }
}

int head_ref_forward(gsl_matrix *O, gsl_matrix *A, const head_params *p,
                     const gsl_matrix *Xq, const gsl_matrix *Xkv)
{
    size_t T_q = Xq->size1, T_k = Xkv->size1, d = Xq->size2;
    size_t d_k = p->W_Q->size2, d_v = p->W_V->size2;
    if (p->rope) return att_fail(ATT_EUSAGE, "head_ref_forward: the loop-level head has no RoPE");
    if (Xkv->size2 != d || p->W_Q->size1 != d || p->W_K->size1 != d || p->W_V->size1 != d
        || p->W_K->size2 != d_k || O->size1 != T_q || O->size2 != d_v
        || (A && (A->size1 != T_q || A->size2 != T_k)))
        return att_fail(ATT_EUSAGE,
                        "head_ref_forward: shapes do not fit (Xq %zux%zu, Xkv %zux%zu, "
                        "W_Q %zux%zu, W_K %zux%zu, W_V %zux%zu, O %zux%zu)",
                        T_q, d, T_k, Xkv->size2, p->W_Q->size1, d_k, p->W_K->size1, p->W_K->size2,
                        p->W_V->size1, d_v, O->size1, O->size2);
    gsl_matrix *Q = mat_new(T_q, d_k), *K = mat_new(T_k, d_k), *V = mat_new(T_k, d_v);
    gsl_vector *s = mat_vec_new(T_k);
    if (!Q || !K || !V || !s) {
        mat_free(Q), mat_free(K), mat_free(V), mat_vec_free(s);
        return att_alloc_status();
    }
    // q_i = W_Q^T x_i + b_Q,  k_j = W_K^T x_j + b_K,  v_j = W_V^T x_j + b_V
    project(Q, Xq, p->W_Q, p->b_Q);
    project(K, Xkv, p->W_K, p->b_K);
    project(V, Xkv, p->W_V, p->b_V);
    for (size_t i = 0; i < T_q; i++) {
        // s_ij = scale (q_i . k_j), and m_i = max_j s_ij over the keys query i sees
        size_t seen = p->causal && i + 1 < T_k ? i + 1 : T_k;
        double m = -INFINITY;
        for (size_t j = 0; j < seen; j++) {
            double dot = 0.0;
            for (size_t c = 0; c < d_k; c++)
                dot += gsl_matrix_get(Q, i, c) * gsl_matrix_get(K, j, c);
            gsl_vector_set(s, j, p->scale * dot);
            m = fmax(m, p->scale * dot);
        }
        // a_ij = exp(s_ij - m_i) / sum_l exp(s_il - m_i)   (a masked key: 0)
        double z = 0.0;
        for (size_t j = 0; j < seen; j++) z += exp(gsl_vector_get(s, j) - m);
        for (size_t j = 0; j < T_k; j++)
            gsl_vector_set(s, j, j < seen ? exp(gsl_vector_get(s, j) - m) / z : 0.0);
        // o_i = sum_j a_ij v_j
        for (size_t c = 0; c < d_v; c++) {
            double o = 0.0;
            for (size_t j = 0; j < seen; j++) o += gsl_vector_get(s, j) * gsl_matrix_get(V, j, c);
            gsl_matrix_set(O, i, c, o);
        }
        if (A) for (size_t j = 0; j < T_k; j++) gsl_matrix_set(A, i, j, gsl_vector_get(s, j));
    }
    mat_free(Q), mat_free(K), mat_free(V), mat_vec_free(s);
    return ATT_OK;
}
