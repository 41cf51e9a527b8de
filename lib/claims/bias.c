/* bias.c - folding b_V, the sigmoid control, row spreads (formulas in bias.h). */
#include "bias.h"
#include "gradcheck.h"
#include "mat.h"
#include "mem.h"
#include "status.h"
#include "tol.h"

#include <math.h>
#include <gsl/gsl_blas.h>

/* b_out (d) = b_O (d) + W_O^T (d_v x d)^T b_V (d_v) */
int bias_fold_value(gsl_vector *b_out, const gsl_vector *b_O, const gsl_vector *b_V,
                    const gsl_matrix *W_O)
{
    if (b_V->size != W_O->size1 || b_O->size != W_O->size2 || b_out->size != b_O->size)
        return att_fail(ATT_EUSAGE, "fold value bias: b_V (%zu), W_O (%zu x %zu), b_O (%zu), "
                        "b_out (%zu): need b_V (d_v), W_O (d_v x d), b_O and b_out (d)",
                        b_V->size, W_O->size1, W_O->size2, b_O->size, b_out->size);
    if (b_out != b_O) gsl_vector_memcpy(b_out, b_O);
    // b_out = b_O + W_O^T b_V
    int rc = gsl_blas_dgemv(CblasTrans, 1.0, W_O, b_V, 1.0, b_out);
    return rc ? att_fail(ATT_ERUNTIME, "dgemv failed (GSL error %d)", rc) : ATT_OK;
}

/* a_ij = 1 / (1 + e^{-s_ij}) */
int bias_sigmoid_weights(gsl_matrix *A, const gsl_matrix *S)
{
    if (!mat_same_shape(A, S))
        return att_fail(ATT_EUSAGE, "sigmoid weights: A (%zu x %zu) and S (%zu x %zu) differ",
                        A->size1, A->size2, S->size1, S->size2);
    for (size_t i = 0; i < S->size1; i++)
        for (size_t j = 0; j < S->size2; j++)
            gsl_matrix_set(A, i, j, 1.0 / (1.0 + exp(-gsl_matrix_get(S, i, j))));
    return ATT_OK;
}

/* max_ij |D_ij - D_0j| */
double bias_row_spread(const gsl_matrix *D)
{
    double spread = 0.0;
    for (size_t i = 1; i < D->size1; i++)
        for (size_t j = 0; j < D->size2; j++) {
            double e = fabs(gsl_matrix_get(D, i, j) - gsl_matrix_get(D, 0, j));
            if (e > spread || isnan(e)) spread = e;
        }
    return spread;
}

/* max_i |sum_j a_ij - 1| */
double bias_row_sum_defect(const gsl_matrix *A)
{
    double defect = 0.0;
    for (size_t i = 0; i < A->size1; i++) {
        double sum = 0.0;
        for (size_t j = 0; j < A->size2; j++) sum += gsl_matrix_get(A, i, j);
        defect = fmax(defect, fabs(sum - 1.0));
    }
    return defect;
}

/* err = ||D - D_fd|| / max(||D||, ||D_fd||, floor), D_fd by central differences
 * (gradcheck_head, the suite's one checker), P (r, c) and D (r, c) */
int bias_fd_error(double *err, head_state *work, const head_params *p, const gsl_matrix *Xq,
                  const gsl_matrix *Xkv, const gsl_matrix *G, gsl_matrix *P, const gsl_matrix *D,
                  double h, double floor)
{
    if (!mat_same_shape(P, D))
        return att_fail(ATT_EUSAGE,
                        "fd check: parameter (%zu x %zu) and gradient (%zu x %zu) differ", P->size1,
                        P->size2, D->size1, D->size2);
    double diff2 = 0.0, bp2 = 0.0, fd2 = 0.0;
    for (size_t i = 0; i < P->size1; i++) {
        double fd[P->size2];
        int rc =
            gradcheck_head(fd, work, p, Xq, Xkv, G, gsl_matrix_ptr(P, i, 0), P->size2, 1, h, 0);
        if (rc) return rc;
        for (size_t j = 0; j < P->size2; j++) {
            double bp = gsl_matrix_get(D, i, j);
            diff2 += (bp - fd[j]) * (bp - fd[j]);
            bp2 += bp * bp;
            fd2 += fd[j] * fd[j];
        }
    }
    double den = fmax(fmax(sqrt(bp2), sqrt(fd2)), floor);
    *err = den > 0.0 ? sqrt(diff2) / den : sqrt(diff2);
    return ATT_OK;
}

/* Y_u = (A V1) W_O + 1 b_O^T,  Y_f = (A V0) W_O + 1 b_fold^T,  err = max |Y_u - Y_f| */
int bias_fold_error(double *err, gsl_matrix *O1, gsl_matrix *O0, const gsl_matrix *A,
                    const gsl_matrix *V1, const gsl_matrix *V0, const gsl_matrix *W_O,
                    const gsl_vector *b_O, const gsl_vector *b_fold)
{
    size_t T_q = A->size1, d_v = V1->size2, d = W_O->size2;
    gsl_matrix *P1 = mat_new(T_q, d_v), *P0 = mat_new(T_q, d_v);
    gsl_matrix *Yu = mat_new(T_q, d), *Yf = mat_new(T_q, d);
    int rc = (!P1 || !P0 || !Yu || !Yf) ? att_last_code() : ATT_OK;
    if (!rc) rc = head_weighted_sum(P1, A, V1);
    if (!rc) rc = head_weighted_sum(P0, A, V0);
    if (!rc) rc = head_project(Yu, P1, W_O, b_O);
    if (!rc) rc = head_project(Yf, P0, W_O, b_fold);
    if (!rc) *err = mat_max_abs_diff(Yu, Yf);
    if (!rc && O1) gsl_matrix_memcpy(O1, P1);
    if (!rc && O0) gsl_matrix_memcpy(O0, P0);
    mat_free(P1); mat_free(P0); mat_free(Yu); mat_free(Yf);
    return rc;
}

int bias_head_alloc(bias_head *h, size_t T, size_t d, size_t d_k, size_t d_v)
{
    *h = (bias_head){0};
    h->X = mat_new(T, d); h->G = mat_new(T, d_v);
    h->W_Q = mat_new(d, d_k); h->W_K = mat_new(d, d_k); h->W_V = mat_new(d, d_v);
    h->b_Q = mat_vec_new(d_k); h->b_K = mat_vec_new(d_k); h->b_V = mat_vec_new(d_v);
    if (!h->X || !h->G || !h->W_Q || !h->W_K || !h->W_V || !h->b_Q || !h->b_K || !h->b_V) {
        int rc = att_last_code();
        bias_head_free(h);
        return rc ? rc : ATT_ERUNTIME;
    }
    int rc = head_state_alloc(&h->with, T, T, d, d_k, d_v);
    if (!rc) rc = head_state_alloc(&h->without, T, T, d, d_k, d_v);
    if (rc) bias_head_free(h);
    return rc;
}

void bias_head_free(bias_head *h)
{
    mat_free(h->X); mat_free(h->G); mat_free(h->W_Q); mat_free(h->W_K); mat_free(h->W_V);
    mat_vec_free(h->b_Q); mat_vec_free(h->b_K); mat_vec_free(h->b_V);
    head_state_free(&h->with); head_state_free(&h->without);
    *h = (bias_head){0};
}

head_params bias_head_params(const bias_head *h, int rope, int with_bk)
{
    head_params p = head_params_make(h->W_Q, h->W_K, h->W_V);
    p.b_Q = h->b_Q;
    p.b_K = with_bk ? h->b_K : NULL;
    p.b_V = h->b_V;
    p.rope = rope;
    return p;
}

int bias_head_draw(gsl_rng *rng, bias_head *h, int rope)
{
    double sw = 1.0 / sqrt((double)h->X->size2);
    mat_randn(rng, h->X, 1.0);
    mat_randn(rng, h->W_Q, sw); mat_randn(rng, h->W_K, sw); mat_randn(rng, h->W_V, sw);
    mat_vec_randn(rng, h->b_Q, 1.0);
    mat_vec_randn(rng, h->b_K, 1.0);
    mat_vec_randn(rng, h->b_V, 1.0);
    mat_randn(rng, h->G, 1.0);
    head_params p = bias_head_params(h, rope, 1), p0 = bias_head_params(h, rope, 0);
    int rc = head_forward(&h->with, &p, h->X, h->X);
    return rc ? rc : head_forward(&h->without, &p0, h->X, h->X);
}

const char *const bias_param_names[BIAS_NPARAM] = {"b_Q", "b_K", "b_V", "W_Q", "W_K", "W_V"};

int bias_head_fd_errors(double err[BIAS_NPARAM], head_state *work, bias_head *h,
                        const head_grads *g, int rope, double step)
{
    size_t d_k = h->b_Q->size, d_v = h->b_V->size;
    // vectors as 1 x n views, so every group is a matrix
    gsl_matrix_view bq = gsl_matrix_view_vector(h->b_Q, 1, d_k),
                    bk = gsl_matrix_view_vector(h->b_K, 1, d_k);
    gsl_matrix_view bv = gsl_matrix_view_vector(h->b_V, 1, d_v);
    gsl_matrix_view gq = gsl_matrix_view_vector(g->db_Q, 1, d_k),
                    gk = gsl_matrix_view_vector(g->db_K, 1, d_k);
    gsl_matrix_view gv = gsl_matrix_view_vector(g->db_V, 1, d_v);
    gsl_matrix *param[BIAS_NPARAM] = {&bq.matrix, &bk.matrix, &bv.matrix, h->W_Q, h->W_K, h->W_V};
    const gsl_matrix *grad[BIAS_NPARAM] = {&gq.matrix, &gk.matrix, &gv.matrix,
                                           g->dW_Q,    g->dW_K,    g->dW_V};
    double floor = 0.0;
    for (int k = 0; k < BIAS_NPARAM; k++) floor = fmax(floor, mat_frob(grad[k]));
    head_params p = bias_head_params(h, rope, 1);
    for (int k = 0; k < BIAS_NPARAM; k++) {
        int rc = bias_fd_error(&err[k], work, &p, h->X, h->X, h->G, param[k], grad[k], step, floor);
        if (rc) return rc;
    }
    return ATT_OK;
}

/* out  = 16 (d_k + T) eps (1 + P) sqrt(T) max_j ||v_j||
 * grad = 8 T eps sum_i ||q_i|| ||g_i|| max_j ||v_j||   (bias.h) */
bias_key_bounds bias_key_rounding(const bias_head *h)
{
    size_t T = h->X->size1, d_k = h->W_K->size2;
    double P = fmax(tol_product_scale(h->with.Q, h->with.K),
                    tol_product_scale(h->without.Q, h->without.K));
    double vmax = mat_max_row_norm(h->with.V), qg = 0.0;
    for (size_t i = 0; i < T; i++) {
        gsl_vector_const_view q = gsl_matrix_const_row(h->with.Q, i),
                              g = gsl_matrix_const_row(h->G, i);
        qg += gsl_blas_dnrm2(&q.vector) * gsl_blas_dnrm2(&g.vector);
    }
    return (bias_key_bounds){tol_eps(16, d_k + T, (1.0 + P) * sqrt((double)T) * vmax),
                             tol_eps(8, T, qg * vmax)};
}

/* Xq (T_q, d), Xkv (T_k, d), W_Q, W_K (d, d_k), W_V (d, d_v) */
void bias_draw_inputs(gsl_rng *rng, gsl_matrix *Xq, gsl_matrix *Xkv, gsl_matrix *W_Q,
                      gsl_matrix *W_K, gsl_matrix *W_V, int self, double sharp)
{
    double d = (double)Xq->size2;
    mat_randn(rng, Xq, 1.0);
    if (!self) mat_randn(rng, Xkv, 1.0);
    mat_randn(rng, W_Q, sharp / sqrt(d));
    mat_randn(rng, W_K, 1.0 / sqrt(d));
    mat_randn(rng, W_V, 1.0 / sqrt(d));
}

void bias_vhead_free(void *p)
{
    bias_vhead *v = p;
    if (v == NULL) return;
    mat_free(v->Xq);
    mat_free(v->Xkv);
    mat_free(v->W_Q);
    mat_free(v->W_K);
    mat_free(v->W_V);
    mat_free(v->W_O);
    mat_free(v->E_max); mat_free(v->Ac_max);
    for (int k = 0; k < 4; k++) mat_free(v->O_max[k]);
    mat_vec_free(v->bv_max); mat_vec_free(v->bo_max); mat_vec_free(v->bf_max);
    head_state_free(&v->s0); head_state_free(&v->s1);
    mem_free(v, 1, sizeof *v);
}

bias_vhead *bias_vhead_new(size_t T, size_t d, size_t d_k, size_t d_v)
{
    bias_vhead *v = mem_calloc(1, sizeof *v, "value-bias head");
    if (v == NULL) return NULL;
    v->Xq = mat_new(T, d);
    v->Xkv = mat_new(T, d);
    v->W_Q = mat_new(d, d_k);
    v->W_K = mat_new(d, d_k);
    v->W_V = mat_new(d, d_v);
    v->W_O = mat_new(d_v, d);
    v->E_max = mat_new(T, d_v);
    v->Ac_max = mat_new(T, T);
    v->bv_max = mat_vec_new(d_v); v->bo_max = mat_vec_new(d); v->bf_max = mat_vec_new(d);
    int ok = 1;
    for (int k = 0; k < 4; k++) ok = ok && (v->O_max[k] = mat_new(T, d_v)) != NULL;
    if (!ok || !v->Xq || !v->Xkv || !v->W_Q || !v->W_K || !v->W_V || !v->W_O || !v->E_max ||
        !v->Ac_max || !v->bv_max || !v->bo_max || !v->bf_max) {
        bias_vhead_free(v);
        return NULL;
    }
    return v;
}

/* Xq (T_q, d), Xkv (T_k, d), W_Q, W_K (d, d_k), W_V (d, d_v), W_O (d_v, d), b_V (d_v), b_O (d) */
int bias_vhead_draw(gsl_rng *rng, bias_vhead *v, size_t T_q, size_t T_k, size_t d, size_t d_k,
                    size_t d_v, int self, double sharp, double sigma)
{
    if (T_q > v->Xq->size1 || T_k > v->Xq->size1 || d > v->Xq->size2 || d_k > v->W_Q->size2
        || d_v > v->W_V->size2 || (self && T_q != T_k))
        return att_fail(ATT_EUSAGE,
                        "value-bias head: sizes T_q %zu, T_k %zu, d %zu, d_k %zu, d_v %zu beyond "
                        "(%zu, %zu, %zu, %zu)",
                        T_q, T_k, d, d_k, d_v, v->Xq->size1, v->Xq->size2, v->W_Q->size2,
                        v->W_V->size2);
    gsl_matrix_view Xq = gsl_matrix_submatrix(v->Xq, 0, 0, T_q, d);
    gsl_matrix_view Xkv = gsl_matrix_submatrix(self ? v->Xq : v->Xkv, 0, 0, T_k, d);
    gsl_matrix_view W_Q = gsl_matrix_submatrix(v->W_Q, 0, 0, d, d_k),
                    W_K = gsl_matrix_submatrix(v->W_K, 0, 0, d, d_k);
    gsl_matrix_view W_V = gsl_matrix_submatrix(v->W_V, 0, 0, d, d_v);
    v->W_O_view = gsl_matrix_submatrix(v->W_O, 0, 0, d_v, d);
    v->E = gsl_matrix_submatrix(v->E_max, 0, 0, T_q, d_v);
    v->Ac = gsl_matrix_submatrix(v->Ac_max, 0, 0, T_q, T_k);
    for (int k = 0; k < 4; k++) {
        v->O_view[k] = gsl_matrix_submatrix(v->O_max[k], 0, 0, T_q, d_v);
        v->O[k] = &v->O_view[k].matrix;
    }
    v->b_V = gsl_vector_subvector(v->bv_max, 0, d_v);
    v->b_O = gsl_vector_subvector(v->bo_max, 0, d);
    v->b_f = gsl_vector_subvector(v->bf_max, 0, d);
    bias_draw_inputs(rng, &Xq.matrix, &Xkv.matrix, &W_Q.matrix, &W_K.matrix, &W_V.matrix, self,
                     sharp);
    mat_randn(rng, &v->W_O_view.matrix, 1.0 / sqrt((double)d_v));
    mat_vec_randn(rng, &v->b_V.vector, sigma);
    mat_vec_randn(rng, &v->b_O.vector, 1.0);
    // the head without and with b_V: O(0) = A V, O(b_V) = A (V + 1 b_V^T)
    head_state_free(&v->s0); head_state_free(&v->s1);
    head_params p0 = head_params_make(&W_Q.matrix, &W_K.matrix, &W_V.matrix), p1 = p0;
    p1.b_V = &v->b_V.vector;
    int rc = head_state_alloc(&v->s0, T_q, T_k, d, d_k, d_v);
    if (!rc) rc = head_state_alloc(&v->s1, T_q, T_k, d, d_k, d_v);
    if (!rc) rc = head_forward(&v->s0, &p0, &Xq.matrix, &Xkv.matrix);
    if (!rc) rc = head_forward(&v->s1, &p1, &Xq.matrix, &Xkv.matrix);
    return rc;
}

double bias_rows_from(const gsl_matrix *D, const gsl_vector *v)
{
    double m = 0.0;
    for (size_t i = 0; i < D->size1; i++)
        for (size_t j = 0; j < D->size2; j++)
            m = fmax(m, fabs(gsl_matrix_get(D, i, j) - gsl_vector_get(v, j)));
    return m;
}
