/* head.c - one attention head: projections, scores, softmax, weighted sum,
 * and the backward pass written from it (shapes in head.h). */
#include "head.h"
#include "fused.h"
#include "mat.h"
#include "rope.h"
#include "softmax.h"
#include "status.h"

#include <math.h>
#include <stdint.h>
#include <string.h>
#include <gsl/gsl_blas.h>

head_params head_params_make(const gsl_matrix *W_Q, const gsl_matrix *W_K,
                             const gsl_matrix *W_V)
{
    head_params p = { W_Q, W_K, W_V, NULL, NULL, NULL, 1.0, 0, 10000.0, 0 };
    return p;
}

/* ---- shape checks -------------------------------------------------------- */

/* The parameters against themselves and against Xq (T_q, d), Xkv (T_k, d)
 * (head.h; the tiled head calls it too). Every message names the two matrices
 * that disagree and their shapes. */
int head_check_params(const head_params *p, const gsl_matrix *Xq, const gsl_matrix *Xkv)
{
    if (p == NULL || p->W_Q == NULL || p->W_K == NULL || p->W_V == NULL)
        return att_fail(ATT_EUSAGE, "head: the weights W_Q, W_K, W_V must be set");
    const gsl_matrix *WQ = p->W_Q, *WK = p->W_K, *WV = p->W_V;
    if (!mat_same_shape(WQ, WK))
        return att_fail(ATT_EUSAGE,
                        "head: W_Q (%zu x %zu) and W_K (%zu x %zu) must both be (d x d_k)",
                        WQ->size1, WQ->size2, WK->size1, WK->size2);
    if (WV->size1 != WQ->size1)
        return att_fail(
            ATT_EUSAGE,
            "head: W_Q (%zu x %zu) and W_V (%zu x %zu) must have the same number of rows d",
            WQ->size1, WQ->size2, WV->size1, WV->size2);
    if (Xq->size2 != WQ->size1)
        return att_fail(ATT_EUSAGE, "head: X_q (%zu x %zu) and W_Q (%zu x %zu) do not conform: "
                        "X_q has %zu columns, W_Q has %zu rows",
                        Xq->size1, Xq->size2, WQ->size1, WQ->size2, Xq->size2, WQ->size1);
    if (Xkv->size2 != WK->size1)
        return att_fail(ATT_EUSAGE, "head: X_kv (%zu x %zu) and W_K (%zu x %zu) do not conform: "
                        "X_kv has %zu columns, W_K has %zu rows",
                        Xkv->size1, Xkv->size2, WK->size1, WK->size2, Xkv->size2, WK->size1);
    // a bias has one entry per column of its weight: b_Q, b_K (d_k), b_V (d_v)
    const struct { const gsl_vector *b; const gsl_matrix *W; const char *name, *dim; } bias[3] =
        {{p->b_Q, WQ, "Q", "d_k"}, {p->b_K, WK, "K", "d_k"}, {p->b_V, WV, "V", "d_v"}};
    for (int i = 0; i < 3; i++)
        if (bias[i].b && bias[i].b->size != bias[i].W->size2)
            return att_fail(ATT_EUSAGE, "head: b_%s (%zu) and W_%s (%zu x %zu): b_%s needs length "
                            "%s = %zu", bias[i].name, bias[i].b->size, bias[i].name,
                            bias[i].W->size1, bias[i].W->size2, bias[i].name, bias[i].dim,
                            bias[i].W->size2);
    if (!isfinite(p->scale))
        return att_fail(ATT_EUSAGE, "head: the score scale %g must be finite", p->scale);
    if (p->rope && WQ->size2 % 2 != 0)
        return att_fail(ATT_EUSAGE, "head: RoPE needs an even d_k, W_Q (%zu x %zu) has d_k = %zu",
                        WQ->size1, WQ->size2, WQ->size2);
    if (p->rope && !(p->rope_base > 0.0 && isfinite(p->rope_base)))
        return att_fail(ATT_EUSAGE, "head: RoPE base %g must be finite and > 0", p->rope_base);
    return ATT_OK;
}

/* The parameters and inputs against the sizes a state was allocated for. */
static int head_check_state(const head_state *st, const head_params *p,
                            const gsl_matrix *Xq, const gsl_matrix *Xkv)
{
    int rc = head_check_params(p, Xq, Xkv);
    if (rc) return rc;
    if (st->Q == NULL)
        return att_fail(ATT_EUSAGE, "head: the state is not allocated");
    if (Xq->size1 != st->T_q || Xq->size2 != st->d)
        return att_fail(ATT_EUSAGE, "head: X_q (%zu x %zu) and the state's Q (%zu x %zu): "
                        "X_q must be (T_q x d) = (%zu x %zu)", Xq->size1, Xq->size2,
                        st->T_q, st->d_k, st->T_q, st->d);
    if (Xkv->size1 != st->T_k || Xkv->size2 != st->d)
        return att_fail(ATT_EUSAGE, "head: X_kv (%zu x %zu) and the state's K (%zu x %zu): "
                        "X_kv must be (T_k x d) = (%zu x %zu)", Xkv->size1, Xkv->size2,
                        st->T_k, st->d_k, st->T_k, st->d);
    if (p->W_Q->size2 != st->d_k)
        return att_fail(ATT_EUSAGE,
                        "head: W_Q (%zu x %zu) and the state's Q (%zu x %zu) disagree on d_k",
                        p->W_Q->size1, p->W_Q->size2, st->T_q, st->d_k);
    if (p->W_V->size2 != st->d_v)
        return att_fail(ATT_EUSAGE,
                        "head: W_V (%zu x %zu) and the state's V (%zu x %zu) disagree on d_v",
                        p->W_V->size1, p->W_V->size2, st->T_k, st->d_v);
    return ATT_OK;
}

/* ---- state ---------------------------------------------------------------- */

int head_state_alloc(head_state *st, size_t T_q, size_t T_k, size_t d,
                     size_t d_k, size_t d_v)
{
    *st = (head_state){ 0 };
    if (T_q == 0 || T_k == 0 || d == 0 || d_k == 0 || d_v == 0)
        return att_fail(ATT_EUSAGE,
                        "head: every size must be >= 1 (T_q=%zu T_k=%zu d=%zu d_k=%zu d_v=%zu)",
                        T_q, T_k, d, d_k, d_v);
    if (mat_bytes(T_q, T_k) == 0 || mat_bytes(T_k, d_k > d_v ? d_k : d_v) == 0
        || mat_bytes(T_q, d_k > d_v ? d_k : d_v) == 0)
        return att_fail(ATT_EUSAGE, "head: sizes T_q=%zu T_k=%zu d_k=%zu d_v=%zu overflow size_t",
                        T_q, T_k, d_k, d_v);
    st->T_q = T_q; st->T_k = T_k; st->d = d; st->d_k = d_k; st->d_v = d_v;
    st->Qb = mat_new(T_q, d_k);
    st->Kb = mat_new(T_k, d_k);
    st->Q = mat_new(T_q, d_k);
    st->K = mat_new(T_k, d_k);
    st->V = mat_new(T_k, d_v);
    st->S = mat_new(T_q, T_k);
    st->A = mat_new(T_q, T_k);
    st->O = mat_new(T_q, d_v);
    if (!st->Qb || !st->Kb || !st->Q || !st->K || !st->V || !st->S || !st->A || !st->O) {
        head_state_free(st);
        return att_alloc_status();    /* mat_new recorded the reason (EUSAGE: --max-memory) */
    }
    return ATT_OK;
}

void head_state_free(head_state *st)
{
    mat_free(st->Qb); mat_free(st->Kb);
    mat_free(st->Q); mat_free(st->K); mat_free(st->V);
    mat_free(st->S); mat_free(st->A); mat_free(st->O);
    *st = (head_state){ 0 };
}

/* ---- the forward steps --------------------------------------------------- */

/* Y (N, n) += 1 b^T: add b (n) to every row. */
static void head_add_bias(gsl_matrix *Y, const gsl_vector *b)
{
    for (size_t i = 0; i < Y->size1; i++) {
        gsl_vector_view row = gsl_matrix_row(Y, i);
        gsl_vector_add(&row.vector, b);
    }
}

/* Y (N, n) = X (N, d) W (d, n) + 1 b^T */
int head_project(gsl_matrix *Y, const gsl_matrix *X, const gsl_matrix *W,
                 const gsl_vector *b)
{
    if (X->size2 != W->size1 || Y->size1 != X->size1 || Y->size2 != W->size2)
        return att_fail(ATT_EUSAGE,
                        "projection: X (%zu x %zu) times W (%zu x %zu) into (%zu x %zu) "
                        "does not conform",
                        X->size1, X->size2, W->size1, W->size2, Y->size1, Y->size2);
    if (b && b->size != W->size2)
        return att_fail(ATT_EUSAGE,
                        "projection: bias (%zu) and W (%zu x %zu) disagree on the width", b->size,
                        W->size1, W->size2);
    // Y = X W
    int rc = mat_gemm(Y, 1.0, X, 0, W, 0, 0.0);
    if (rc) return rc;
    // Y += 1 b^T
    if (b) head_add_bias(Y, b);
    return ATT_OK;
}

/* S (T_q, T_k) = scale Q (T_q, d_k) K (T_k, d_k)^T */
int head_scores(gsl_matrix *S, const gsl_matrix *Q, const gsl_matrix *K, double scale)
{
    if (Q->size2 != K->size2)
        return att_fail(ATT_EUSAGE,
                        "scores: Q (%zu x %zu) and K (%zu x %zu) must have the same width d_k",
                        Q->size1, Q->size2, K->size1, K->size2);
    if (S->size1 != Q->size1 || S->size2 != K->size1)
        return att_fail(ATT_EUSAGE, "scores: S (%zu x %zu) and Q K^T (%zu x %zu) differ",
                        S->size1, S->size2, Q->size1, K->size1);
    // s_ij = scale q_i . k_j
    return mat_gemm(S, scale, Q, 0, K, 1, 0.0);
}

/* S (T_q, T_k): s_ij = -inf for j > i (query i sees keys 0..i). */
void head_causal_mask(gsl_matrix *S)
{
    // s_ij = -inf  for j > i
    for (size_t i = 0; i < S->size1; i++)
        for (size_t j = i + 1; j < S->size2; j++) mat_row(S, i)[j] = -INFINITY;
}

/* S = scale Q K^T ; (causal) s_ij = -inf for j > i ; A = softmax(S) ; O = A V */
static int head_attend_masked(gsl_matrix *S, gsl_matrix *A, gsl_matrix *O, const gsl_matrix *Q,
                              const gsl_matrix *K, const gsl_matrix *V, const head_params *p)
{
    if (!p->causal) return head_attend(S, A, O, Q, K, V, p->scale);
    int rc = head_scores(S, Q, K, p->scale);
    if (rc) return rc;
    head_causal_mask(S);
    if ((rc = softmax_rows(A, S))) return rc;
    return head_weighted_sum(O, A, V);
}

/* O (T_q, d_v) = A (T_q, T_k) V (T_k, d_v) */
int head_weighted_sum(gsl_matrix *O, const gsl_matrix *A, const gsl_matrix *V)
{
    if (A->size2 != V->size1)
        return att_fail(ATT_EUSAGE, "weighted sum: A (%zu x %zu) and V (%zu x %zu): "
                        "A has %zu columns (keys), V has %zu rows (values)",
                        A->size1, A->size2, V->size1, V->size2, A->size2, V->size1);
    if (O->size1 != A->size1 || O->size2 != V->size2)
        return att_fail(ATT_EUSAGE, "weighted sum: O (%zu x %zu) and A V (%zu x %zu) differ",
                        O->size1, O->size2, A->size1, V->size2);
    // o_i = sum_j a_ij v_j
    return mat_gemm(O, 1.0, A, 0, V, 0, 0.0);
}

/* S = scale Q K^T ; A = row softmax(S) ; O = A V */
int head_attend(gsl_matrix *S, gsl_matrix *A, gsl_matrix *O,
                const gsl_matrix *Q, const gsl_matrix *K, const gsl_matrix *V,
                double scale)
{
    int rc = head_scores(S, Q, K, scale);
    if (!rc) rc = softmax_rows(A, S);
    if (!rc) rc = head_weighted_sum(O, A, V);
    return rc;
}

/* Q (T, d_k) = rope(Qb) when on, else a copy. */
static int head_rope(gsl_matrix *Q, const gsl_matrix *Qb, const head_params *p)
{
    if (p->rope) return rope_apply(Q, Qb, p->rope_base);
    for (size_t i = 0; i < Q->size1; i++)   /* row by row (gsl_matrix_memcpy: a BLAS call) */
        memcpy(mat_row(Q, i), mat_crow(Qb, i), Q->size2 * sizeof(double));
    return ATT_OK;
}

/* ---- forward ------------------------------------------------------------- */

int head_forward(head_state *st, const head_params *p,
                 const gsl_matrix *Xq, const gsl_matrix *Xkv)
{
    int rc = head_check_state(st, p, Xq, Xkv);
    if (rc) return rc;
    // Qb = Xq W_Q + 1 b_Q^T ;  Kb = Xkv W_K + 1 b_K^T ;  V = Xkv W_V + 1 b_V^T
    if ((rc = head_project(st->Qb, Xq, p->W_Q, p->b_Q))) return rc;
    if ((rc = head_project(st->Kb, Xkv, p->W_K, p->b_K))) return rc;
    if ((rc = head_project(st->V, Xkv, p->W_V, p->b_V))) return rc;
    return head_forward_projected(st, p);
}

int head_forward_projected(head_state *st, const head_params *p)
{
    // Q = rope(Qb) ;  K = rope(Kb)   (copies when RoPE is off)
    int rc = head_rope(st->Q, st->Qb, p);
    if (!rc) rc = head_rope(st->K, st->Kb, p);
    if (rc) return rc;
    // S = scale Q K^T ;  (causal) s_ij = -inf for j > i ;  A = softmax(S) ;  O = A V
    return head_attend_masked(st->S, st->A, st->O, st->Q, st->K, st->V, p);
}

/* ---- backward ------------------------------------------------------------ */

int head_grads_alloc(head_grads *g, size_t T_q, size_t T_k, size_t d,
                     size_t d_k, size_t d_v)
{
    *g = (head_grads){ 0 };
    if (T_q == 0 || T_k == 0 || d == 0 || d_k == 0 || d_v == 0)
        return att_fail(
            ATT_EUSAGE,
            "head grads: every size must be >= 1 (T_q=%zu T_k=%zu d=%zu d_k=%zu d_v=%zu)", T_q, T_k,
            d, d_k, d_v);
    g->dXq = mat_new(T_q, d);
    g->dXkv = mat_new(T_k, d);
    g->dW_Q = mat_new(d, d_k);
    g->dW_K = mat_new(d, d_k);
    g->dW_V = mat_new(d, d_v);
    g->db_Q = mat_vec_new(d_k);
    g->db_K = mat_vec_new(d_k);
    g->db_V = mat_vec_new(d_v);
    if (!g->dXq || !g->dXkv || !g->dW_Q || !g->dW_K || !g->dW_V || !g->db_Q || !g->db_K ||
        !g->db_V) {
        head_grads_free(g);
        return att_alloc_status();
    }
    return ATT_OK;
}

void head_grads_free(head_grads *g)
{
    mat_free(g->dXq); mat_free(g->dXkv);
    mat_free(g->dW_Q); mat_free(g->dW_K); mat_free(g->dW_V);
    mat_vec_free(g->db_Q); mat_vec_free(g->db_K); mat_vec_free(g->db_V);
    *g = (head_grads){ 0 };
}

/* The gradients' shapes against the state. */
static int head_check_grads(const head_grads *g, const head_state *st, const gsl_matrix *G)
{
    if (G->size1 != st->T_q || G->size2 != st->d_v)
        return att_fail(ATT_EUSAGE,
                        "head backward: G (%zu x %zu) and O (%zu x %zu) must have the same shape",
                        G->size1, G->size2, st->T_q, st->d_v);
    if (!g->dXq || !g->dXkv || !g->dW_Q || !g->dW_K || !g->dW_V || !g->db_Q || !g->db_K || !g->db_V)
        return att_fail(ATT_EUSAGE, "head backward: the gradients are not allocated");
    if (g->dXq->size1 != st->T_q || g->dXq->size2 != st->d
        || g->dXkv->size1 != st->T_k || g->dXkv->size2 != st->d)
        return att_fail(ATT_EUSAGE, "head backward: dX_q (%zu x %zu) and dX_kv (%zu x %zu) must be "
                        "(%zu x %zu) and (%zu x %zu)", g->dXq->size1, g->dXq->size2,
                        g->dXkv->size1, g->dXkv->size2, st->T_q, st->d, st->T_k, st->d);
    if (g->dW_Q->size1 != st->d || g->dW_Q->size2 != st->d_k || !mat_same_shape(g->dW_Q, g->dW_K)
        || g->dW_V->size1 != st->d || g->dW_V->size2 != st->d_v)
        return att_fail(ATT_EUSAGE,
                        "head backward: dW_Q (%zu x %zu), dW_K (%zu x %zu), dW_V (%zu x %zu) "
                        "must be (%zu x %zu), (%zu x %zu), (%zu x %zu)",
                        g->dW_Q->size1, g->dW_Q->size2, g->dW_K->size1, g->dW_K->size2,
                        g->dW_V->size1, g->dW_V->size2, st->d, st->d_k, st->d, st->d_k, st->d,
                        st->d_v);
    if (g->db_Q->size != st->d_k || g->db_K->size != st->d_k || g->db_V->size != st->d_v)
        return att_fail(ATT_EUSAGE, "head backward: db_Q (%zu), db_K (%zu), db_V (%zu) must have "
                        "lengths %zu, %zu, %zu", g->db_Q->size, g->db_K->size, g->db_V->size,
                        st->d_k, st->d_k, st->d_v);
    return ATT_OK;
}

/* db (n) = dY^T 1: the column sums of dY (N, n), each summed over i = 0 .. N-1
 * in order (a fixed order: the same bits under every BLAS kernel, mat.h) */
static void head_colsum(gsl_vector *db, const gsl_matrix *dY)
{
    // db_j = sum_i dY_ij
    for (size_t j = 0; j < dY->size2; j++) {
        double s = 0.0;
        for (size_t i = 0; i < dY->size1; i++) s += gsl_matrix_get(dY, i, j);
        gsl_vector_set(db, j, s);
    }
}

int head_backward_projected(gsl_matrix *dS, gsl_matrix *dQ, gsl_matrix *dK, gsl_matrix *dV,
                            const head_state *st, const head_params *p, const gsl_matrix *G)
{
    size_t T_q = st->T_q, T_k = st->T_k, d_k = st->d_k, d_v = st->d_v;
    if (dS->size1 != T_q || dS->size2 != T_k || dQ->size1 != T_q || dQ->size2 != d_k
        || dK->size1 != T_k || dK->size2 != d_k || dV->size1 != T_k || dV->size2 != d_v)
        return att_fail(ATT_EUSAGE, "head backward: dS (%zu x %zu), dQ (%zu x %zu), "
                        "dK (%zu x %zu), dV (%zu x %zu) must be (%zu x %zu), (%zu x %zu), "
                        "(%zu x %zu), (%zu x %zu)",
                        dS->size1, dS->size2, dQ->size1, dQ->size2, dK->size1, dK->size2,
                        dV->size1, dV->size2, T_q, T_k, T_q, d_k, T_k, d_k, T_k, d_v);
    if (G->size1 != T_q || G->size2 != d_v)
        return att_fail(ATT_EUSAGE,
                        "head backward: G (%zu x %zu) and O (%zu x %zu) must have the same shape",
                        G->size1, G->size2, T_q, d_v);
    int rc;

    // forward: O = A V
    //   dA = G V^T        (T_q, T_k)
    //   dV = A^T G        (T_k, d_v)
    if ((rc = mat_gemm(dS, 1.0, G, 0, st->V, 1, 0.0))) return rc;
    if ((rc = mat_gemm(dV, 1.0, st->A, 1, G, 0, 0.0))) return rc;

    // forward: A = row softmax(S),  a_ij = e^{s_ij} / sum_l e^{s_il}
    //   da_ij/ds_im = a_ij (delta_jm - a_im), so
    //   dS_im = a_im (dA_im - sum_j dA_ij a_ij)      (dS overwrites dA)
    for (size_t i = 0; i < T_q; i++) {
        const double *a = mat_crow(st->A, i);
        double *ds = mat_row(dS, i), r = 0.0;
        for (size_t j = 0; j < T_k; j++)
            r += ds[j] * a[j]; /* r = sum_j dA_ij a_ij, j in order */
        for (size_t m = 0; m < T_k; m++) ds[m] = a[m] * (ds[m] - r);
    }

    // forward: S = scale Q K^T
    //   dQ = scale dS K     (T_q, d_k)
    //   dK = scale dS^T Q   (T_k, d_k)
    if ((rc = mat_gemm(dQ, p->scale, dS, 0, st->K, 0, 0.0))) return rc;
    if ((rc = mat_gemm(dK, p->scale, dS, 1, st->Q, 0, 0.0))) return rc;

    // forward: Q = rope(Qb), K = rope(Kb)   (identity when RoPE is off)
    //   dQb = rope^T(dQ),  dKb = rope^T(dK)   (the inverse rotation, in place)
    if (p->rope) {
        if ((rc = rope_backward(dQ, dQ, p->rope_base))) return rc;
        if ((rc = rope_backward(dK, dK, p->rope_base))) return rc;
    }

    return ATT_OK;
}

/* Gradients of L = sum(G .* O), G (T_q, d_v), by reverse-mode differentiation
 * of head_forward, one forward line at a time from the last to the first.
 * Xq and Xkv may be the same matrix (self-attention): dXq and dXkv are then
 * the two separate paths, and dL/dX = dXq + dXkv. */
int head_backward(head_grads *g, const head_state *st, const head_params *p,
                  const gsl_matrix *Xq, const gsl_matrix *Xkv,
                  const gsl_matrix *G)
{
    int rc = head_check_state(st, p, Xq, Xkv);
    if (!rc) rc = head_check_grads(g, st, G);
    if (rc) return rc;
    size_t T_q = st->T_q, T_k = st->T_k, d_k = st->d_k, d_v = st->d_v;

    gsl_matrix *dS = mat_new(T_q, T_k);     /* holds dA, then dS in place */
    gsl_matrix *dV = mat_new(T_k, d_v);
    gsl_matrix *dQ = mat_new(T_q, d_k);     /* dQ, then dQb in place       */
    gsl_matrix *dK = mat_new(T_k, d_k);     /* dK, then dKb in place       */
    if (!dS || !dV || !dQ || !dK) { rc = att_alloc_status(); goto done; }
    if ((rc = head_backward_projected(dS, dQ, dK, dV, st, p, G))) goto done;

    // forward: Qb = Xq W_Q + 1 b_Q^T
    //   db_Q = dQb^T 1   dW_Q = Xq^T dQb   dXq = dQb W_Q^T
    head_colsum(g->db_Q, dQ);
    if ((rc = mat_gemm(g->dW_Q, 1.0, Xq, 1, dQ, 0, 0.0))) goto done;
    if ((rc = mat_gemm(g->dXq, 1.0, dQ, 0, p->W_Q, 1, 0.0))) goto done;

    // forward: Kb = Xkv W_K + 1 b_K^T
    //   db_K = dKb^T 1   dW_K = Xkv^T dKb   dXkv = dKb W_K^T
    head_colsum(g->db_K, dK);
    if ((rc = mat_gemm(g->dW_K, 1.0, Xkv, 1, dK, 0, 0.0))) goto done;
    if ((rc = mat_gemm(g->dXkv, 1.0, dK, 0, p->W_K, 1, 0.0))) goto done;

    // forward: V = Xkv W_V + 1 b_V^T
    //   db_V = dV^T 1    dW_V = Xkv^T dV    dXkv += dV W_V^T  (second path into Xkv)
    head_colsum(g->db_V, dV);
    if ((rc = mat_gemm(g->dW_V, 1.0, Xkv, 1, dV, 0, 0.0))) goto done;
    if ((rc = mat_gemm(g->dXkv, 1.0, dV, 0, p->W_V, 1, 1.0))) goto done;

done:
    mat_free(dS); mat_free(dV); mat_free(dQ); mat_free(dK);
    return rc;
}

/* ---- conveniences -------------------------------------------------------- */

/* O (T_q, d_v) of one forward pass. */
int head_output(gsl_matrix *O, const head_params *p,
                const gsl_matrix *Xq, const gsl_matrix *Xkv)
{
    int rc = head_check_params(p, Xq, Xkv);
    if (rc) return rc;
    size_t d_k = p->W_Q->size2, d_v = p->W_V->size2;
    if (O->size1 != Xq->size1 || O->size2 != d_v)
        return att_fail(ATT_EUSAGE, "head: O (%zu x %zu) and X_q (%zu x %zu), W_V (%zu x %zu): "
                        "O must be (T_q x d_v) = (%zu x %zu)", O->size1, O->size2,
                        Xq->size1, Xq->size2, p->W_V->size1, p->W_V->size2, Xq->size1, d_v);
    head_state st;
    if ((rc = head_state_alloc(&st, Xq->size1, Xkv->size1, Xq->size2, d_k, d_v))) return rc;
    rc = head_forward(&st, p, Xq, Xkv);
    if (!rc) gsl_matrix_memcpy(O, st.O);
    head_state_free(&st);
    return rc;
}

/* X (B*T, d): B sequences of T rows stacked; O (B*T, d_v).
 * The three projections are ONE product over all B*T rows with the fused
 * weight; scores, softmax and the weighted sum run per sequence (positions,
 * for RoPE, restart at 0 in every sequence). */
int head_forward_batched(gsl_matrix *O, const head_params *p,
                         const gsl_matrix *X, size_t B, size_t T)
{
    int rc = head_check_params(p, X, X);
    if (rc) return rc;
    if (B == 0 || T == 0 || T > SIZE_MAX / B || X->size1 != B * T)
        return att_fail(ATT_EUSAGE, "batched head: X (%zu x %zu) must hold B * T = %zu * %zu rows",
                        X->size1, X->size2, B, T);
    size_t d = X->size2, d_k = p->W_Q->size2, d_v = p->W_V->size2, n = 2 * d_k + d_v;
    if (O->size1 != B * T || O->size2 != d_v)
        return att_fail(ATT_EUSAGE,
                        "batched head: O (%zu x %zu) and X (%zu x %zu), W_V (%zu x %zu): "
                        "O must be (B*T x d_v) = (%zu x %zu)",
                        O->size1, O->size2, X->size1, X->size2, p->W_V->size1, p->W_V->size2, B * T,
                        d_v);

    gsl_matrix *W = mat_new(d, n), *QKV = mat_new(B * T, n);
    gsl_matrix *Q = mat_new(T, d_k), *K = mat_new(T, d_k), *S = mat_new(T, T);
    if (!W || !QKV || !Q || !K || !S) { rc = att_alloc_status(); goto done; }

    // W_QKV (d, 2d_k+d_v) = [W_Q | W_K | W_V]
    if ((rc = fused_pack(W, p->W_Q, p->W_K, p->W_V))) goto done;
    // QKV (B*T, 2d_k+d_v) = X W_QKV + 1 [b_Q | b_K | b_V]^T   (one product)
    if ((rc = mat_gemm(QKV, 1.0, X, 0, W, 0, 0.0))) goto done;
    const gsl_vector *bias[3] = { p->b_Q, p->b_K, p->b_V };
    size_t col[3] = { 0, d_k, 2 * d_k }, width[3] = { d_k, d_k, d_v };
    for (int k = 0; k < 3; k++)
        if (bias[k]) {
            gsl_matrix_view blk = gsl_matrix_submatrix(QKV, 0, col[k], B * T, width[k]);
            head_add_bias(&blk.matrix, bias[k]);
        }

    for (size_t b = 0; b < B; b++) {
        gsl_matrix_view Qb = gsl_matrix_submatrix(QKV, b * T, 0, T, d_k);
        gsl_matrix_view Kb = gsl_matrix_submatrix(QKV, b * T, d_k, T, d_k);
        gsl_matrix_view Vb = gsl_matrix_submatrix(QKV, b * T, 2 * d_k, T, d_v);
        gsl_matrix_view Ob = gsl_matrix_submatrix(O, b * T, 0, T, d_v);
        // Q = rope(Qb), K = rope(Kb) per sequence
        if ((rc = head_rope(Q, &Qb.matrix, p))) goto done;
        if ((rc = head_rope(K, &Kb.matrix, p))) goto done;
        // S = scale Q K^T ; (causal) mask ; A = softmax(S) (in place) ; O_b = A V_b
        if ((rc = head_attend_masked(S, S, &Ob.matrix, Q, K, &Vb.matrix, p))) goto done;
    }

done:
    mat_free(W); mat_free(QKV); mat_free(Q); mat_free(K); mat_free(S);
    return rc;
}
