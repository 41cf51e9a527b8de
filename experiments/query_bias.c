/* query_bias - the query bias is a preference over keys that every query shares.
 *
 * Claim (query_bias): with q_i = W_Q^T x_i + b_Q the score becomes
 *   s_ij = (q_i + b_Q) . k_j = q_i . k_j + b_Q . k_j,
 * and the added term b_Q . k_j depends on the key j but not on the query i:
 * S(b_Q) - S(0) = 1 (K b_Q)^T has identical rows. Unlike b_K (whose term is
 * constant along a row and cancels in the softmax), it changes the weights.
 * With W_Q = 0 every query is b_Q, so every row of A equals softmax(K b_Q).
 *
 * Measured on --draws random heads (sizes T_q, T_k, d, d_k drawn per head;
 * self-attention in half of them; X ~ N(0, 1), weights ~ N(0, 1/d) with W_Q
 * scaled by a sharpness in [0.1, 10], b_Q ~ N(0, sigma^2) with sigma
 * log-uniform in [0.01, 100]):
 *   - row spread of D = S(b_Q) - S(0), max_ij |D_ij - D_0j|, relative to the
 *     rounding scale r = max_ij sum_l |q_il| |k_jl| of both score matrices,
 *     against 4 d_k eps (Higham's dot-product bound), head by head;
 *   - max_ij |D_ij - (K b_Q)_j| relative to the same scale plus that of K b_Q;
 *   - W_Q = 0: max_ij |a_ij - softmax(K b_Q)_j| against
 *     8 d_k eps r(K b_Q) + 4 T_k eps, head by head;
 *   - the preference b_Q creates: the total-variation distance of the shared
 *     row softmax(K b_Q) from uniform, 1/2 sum_j |a*_j - 1/T_k| (mean, 95% CI);
 *   - the effect: ||A(b_Q) - A(0)||_F / ||A(0)||_F (mean and 95% CI).
 * And one example head (T = 6, d = 16, d_k = 8, sigma = 1) for the figure.
 *
 * Writes into --out:
 *   query_bias.csv          one row per head: draw,T_q,T_k,d,d_k,self,b_sigma,
 *                           rel_row_spread,tol_row_spread,rel_shift_err,
 *                           zero_wq_err,zero_wq_tol,rel_change_A,pref_tv
 *   query_bias_example.csv  i,j,query,key,score_shift (D = S(b_Q) - S(0)),
 *                           weight_zero_query (A with W_Q = 0)
 *   query_bias.meta, query_bias.verdicts.csv
 */
#include "bias.h"
#include "experiment.h"
#include "head.h"
#include "mat.h"
#include "mem.h"
#include "rng.h"
#include "softmax.h"
#include "status.h"
#include "table.h"
#include "tol.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <gsl/gsl_blas.h>

enum { MAX_T = 48, MAX_D = 48, MAX_DK = 32 };
enum { EX_T = 6, EX_D = 16, EX_DK = 8 };
static const char *const example_tokens[EX_T] = {"a", "cat", "sat", "on", "the", "mat"};

/* per-draw values, in the order of query_bias.csv */
enum { V_TQ, V_TK, V_D, V_DK, V_SELF, V_SIGMA, V_SPREAD, V_SPREAD_TOL, V_SHIFT, V_ZERO,
       V_ZERO_TOL, V_CHANGE, V_PREF, NV };

/* One random head: every matrix at its maximum size, used through views. */
typedef struct {
    gsl_matrix *Xq, *Xkv, *W_Q, *W_K, *W_V, *Z;
    gsl_vector *b, *kb, *astar;
} scratch;

static void scratch_free(void *p)
{
    scratch *s = p;
    if (s == NULL) return;
    mat_free(s->Xq); mat_free(s->Xkv); mat_free(s->W_Q); mat_free(s->W_K);
    mat_free(s->W_V); mat_free(s->Z);
    vec_free(s->b); vec_free(s->kb); vec_free(s->astar);
    free(s);
}

static void *scratch_alloc(void *c)
{
    (void)c;
    scratch *s = calloc(1, sizeof *s);
    if (s == NULL) return NULL;
    s->Xq = mat_new(MAX_T, MAX_D); s->Xkv = mat_new(MAX_T, MAX_D);
    s->W_Q = mat_new(MAX_D, MAX_DK); s->W_K = mat_new(MAX_D, MAX_DK);
    s->W_V = mat_new(MAX_D, MAX_DK); s->Z = mat_new(MAX_D, MAX_DK);
    s->b = vec_new(MAX_DK); s->kb = vec_new(MAX_T); s->astar = vec_new(MAX_T);
    if (!s->Xq || !s->Xkv || !s->W_Q || !s->W_K || !s->W_V || !s->Z || !s->b || !s->kb || !s->astar) {
        scratch_free(s);
        return NULL;
    }
    return s;
}

/* The three heads of one draw: without b_Q (s0), with it (sb), and with
 * W_Q = 0 (sz). Xq (T_q, d), Xkv (T_k, d), W (d, d_k), b (d_k). */
typedef struct { head_state s0, sb, sz; } three_heads;

static void three_free(three_heads *h) { head_state_free(&h->s0); head_state_free(&h->sb); head_state_free(&h->sz); }

/* A random head of sizes (T_q, T_k, d, d_k) in the scratch's views, run three
 * times into h: Xq (T_q, d), Xkv (T_k, d, = Xq when self), W_Q ~ N(0, sharp^2/d),
 * W_K, W_V ~ N(0, 1/d) (d, d_k), b_Q ~ N(0, sigma^2) (d_k), drawn in this order. */
static int run_heads(three_heads *h, scratch *s, gsl_rng *rng, size_t T_q, size_t T_k, size_t d, size_t d_k,
                     int self, double sharp, double sigma)
{
    gsl_matrix_view Xq = gsl_matrix_submatrix(s->Xq, 0, 0, T_q, d);
    gsl_matrix_view Xkv = gsl_matrix_submatrix(self ? s->Xq : s->Xkv, 0, 0, T_k, d);
    gsl_matrix_view W_Q = gsl_matrix_submatrix(s->W_Q, 0, 0, d, d_k);
    gsl_matrix_view W_K = gsl_matrix_submatrix(s->W_K, 0, 0, d, d_k);
    gsl_matrix_view W_V = gsl_matrix_submatrix(s->W_V, 0, 0, d, d_k);
    gsl_matrix_view Z = gsl_matrix_submatrix(s->Z, 0, 0, d, d_k);
    gsl_vector_view b = gsl_vector_subvector(s->b, 0, d_k);
    mat_randn(&Xq.matrix, rng, 1.0);
    if (!self) mat_randn(&Xkv.matrix, rng, 1.0);
    mat_randn(&W_Q.matrix, rng, sharp / sqrt((double)d));
    mat_randn(&W_K.matrix, rng, 1.0 / sqrt((double)d));
    mat_randn(&W_V.matrix, rng, 1.0 / sqrt((double)d));
    vec_randn(&b.vector, rng, sigma);
    gsl_matrix_set_zero(&Z.matrix);
    *h = (three_heads){{0}, {0}, {0}};
    int rc = head_state_alloc(&h->s0, T_q, T_k, d, d_k, d_k);
    if (!rc) rc = head_state_alloc(&h->sb, T_q, T_k, d, d_k, d_k);
    if (!rc) rc = head_state_alloc(&h->sz, T_q, T_k, d, d_k, d_k);
    head_params p0 = head_params_make(&W_Q.matrix, &W_K.matrix, &W_V.matrix), pb = p0;
    head_params pz = head_params_make(&Z.matrix, &W_K.matrix, &W_V.matrix);
    pb.b_Q = &b.vector;
    pz.b_Q = &b.vector;
    if (!rc) rc = head_forward(&h->s0, &p0, &Xq.matrix, &Xkv.matrix);
    if (!rc) rc = head_forward(&h->sb, &pb, &Xq.matrix, &Xkv.matrix);
    if (!rc) rc = head_forward(&h->sz, &pz, &Xq.matrix, &Xkv.matrix);
    return rc;
}

/* 1/2 sum_j |p_j - 1/n|: how far p (n) is from the uniform distribution */
static double preference(const gsl_vector *p)
{
    double tv = 0.0;
    for (size_t j = 0; j < p->size; j++) tv += fabs(gsl_vector_get(p, j) - 1.0 / (double)p->size);
    return 0.5 * tv;
}

/* One random head (sizes drawn first, then run_heads): S, A (T_q, T_k),
 * K b_Q and a* = softmax(K b_Q) (T_k); out[] in the order of query_bias.csv. */
static int draw(void *c, void *vs, gsl_rng *rng, size_t di, double *out)
{
    scratch *s = vs;
    (void)c; (void)di;
    // sizes, then the head at these sizes
    int self = gsl_rng_uniform(rng) < 0.5;
    size_t T_q = rng_uniform_size(rng, 1, MAX_T), T_k = self ? T_q : rng_uniform_size(rng, 2, MAX_T);
    if (self && T_q < 2) T_q = T_k = 2;
    size_t d = rng_uniform_size(rng, 1, MAX_D), d_k = rng_uniform_size(rng, 1, MAX_DK);
    double sharp = rng_log_uniform(rng, -1, 1), sigma = rng_log_uniform(rng, -2, 2);
    gsl_vector_view b = gsl_vector_subvector(s->b, 0, d_k);
    gsl_vector_view kb = gsl_vector_subvector(s->kb, 0, T_k);
    gsl_vector_view astar = gsl_vector_subvector(s->astar, 0, T_k);
    three_heads h;
    int rc = run_heads(&h, s, rng, T_q, T_k, d, d_k, self, sharp, sigma);
    if (rc) goto done;

    // D = S(b_Q) - S(0), in place of S(b_Q); exactly D = 1 (K b_Q)^T
    double r0 = tol_product_scale(h.s0.Q, h.s0.K), rb = tol_product_scale(h.sb.Q, h.sb.K);
    gsl_matrix_sub(h.sb.S, h.s0.S);
    double rel_spread = bias_row_spread(h.sb.S) / fmax(rb + r0, DBL_MIN);

    // kb = K b_Q by dgemv, its rounding scale max_j sum_l |k_jl| |b_l|; rows of D against kb^T
    gsl_blas_dgemv(CblasNoTrans, 1.0, h.s0.K, &b.vector, 0.0, &kb.vector);
    gsl_matrix_const_view b_row = gsl_matrix_const_view_vector(&b.vector, 1, d_k);
    double rkb = tol_product_scale(&b_row.matrix, h.s0.K), shift = 0.0, zero = 0.0;
    for (size_t i = 0; i < T_q; i++)
        for (size_t j = 0; j < T_k; j++)
            shift = fmax(shift, fabs(gsl_matrix_get(h.sb.S, i, j) - gsl_vector_get(&kb.vector, j)));

    // W_Q = 0: every row of A against a* = softmax(K b_Q)
    if ((rc = softmax_vec(astar.vector.data, kb.vector.data, T_k))) goto done;
    for (size_t i = 0; i < T_q; i++)
        for (size_t j = 0; j < T_k; j++)
            zero = fmax(zero, fabs(gsl_matrix_get(h.sz.A, i, j) - gsl_vector_get(&astar.vector, j)));

    const double v[NV] = {(double)T_q, (double)T_k, (double)d, (double)d_k, (double)self, sigma,
                          rel_spread, tol_eps(4, d_k, 1.0), shift / fmax(rb + r0 + rkb, DBL_MIN), zero,
                          tol_eps(8, d_k, rkb) + tol_eps(4, T_k, 1.0),
                          // the effect: ||A(b_Q) - A(0)||_F / ||A(0)||_F
                          mat_rel_diff(h.sb.A, h.s0.A),
                          // the preference: TV(softmax(K b_Q), uniform) = 1/2 sum_j |a*_j - 1/T_k|
                          preference(&astar.vector)};
    for (int k = 0; k < NV; k++) out[k] = v[k];
done:
    three_free(&h);
    return rc;
}

typedef struct {
    size_t draw, T_q, T_k, d, d_k;
    int self;
    double b_sigma, rel_row_spread, tol_row_spread, rel_shift_err, zero_wq_err, zero_wq_tol, rel_change_A, pref_tv;
} head_row;
typedef struct { size_t i, j; const char *query, *key; double score_shift, weight_zero_query; } example_row;

static const table_col head_cols[] = {
    COL(head_row, draw), COL(head_row, T_q), COL(head_row, T_k), COL(head_row, d), COL(head_row, d_k),
    COL(head_row, self), COL(head_row, b_sigma), COL_ROUND(head_row, rel_row_spread, "tol_row_spread"), COL(head_row, tol_row_spread),
    COL_ROUND(head_row, rel_shift_err, "1e-10"), COL_ROUND(head_row, zero_wq_err, "zero_wq_tol"), COL(head_row, zero_wq_tol),
    COL(head_row, rel_change_A), COL(head_row, pref_tv)};
static const table_col example_cols[] = {
    COL(example_row, i), COL(example_row, j), COL(example_row, query), COL(example_row, key),
    COL(example_row, score_shift), COL(example_row, weight_zero_query)};

/* The figure's head (its own stream): T = 6 self-attention, d = 16, d_k = 8,
 * W_Q sharpness 1, b_Q ~ N(0, 1). */
static int example(experiment *e)
{
    gsl_rng *rng = rng_new(e->o.rng_name, rng_stream_seed(e->o.seed, 1, 0));
    scratch *s = scratch_alloc(NULL);
    three_heads h = {{0}, {0}, {0}};
    int rc = (rng && s) ? run_heads(&h, s, rng, EX_T, EX_T, EX_D, EX_DK, 1, 1.0, 1.0) : att_alloc_status();
    example_row rows[EX_T * EX_T];
    for (size_t i = 0; i < EX_T && !rc; i++)
        for (size_t j = 0; j < EX_T; j++)
            rows[i * EX_T + j] = (example_row){i, j, example_tokens[i], example_tokens[j],
                gsl_matrix_get(h.sb.S, i, j) - gsl_matrix_get(h.s0.S, i, j), gsl_matrix_get(h.sz.A, i, j)};
    if (!rc) rc = TABLE_WRITE(e->o.out_dir, "query_bias_example.csv", example_cols, rows, EX_T * EX_T);
    if (!rc) {
        gsl_vector_view a0 = gsl_matrix_row(h.sz.A, 0);
        exp_meta(e, "example_pref_tv: %.17g\nexample_top_weight: %.17g", preference(&a0.vector),
                 gsl_vector_max(&a0.vector));
    }
    three_free(&h);
    scratch_free(s);
    if (rng) gsl_rng_free(rng);
    return rc;
}

static int run(experiment *e)
{
    size_t n = e->o.draws;
    if (n < 2) return exp_usage("--draws %zu: a 95%% CI needs at least 2 draws", n);
    mc_config cfg = exp_mc(e, "query_bias");
    cfg.nstats = NV, cfg.draw = draw, cfg.alloc = scratch_alloc, cfg.free = scratch_free;
    cfg.values = mem_calloc(n * NV, sizeof(double), "query_bias per-draw values");
    head_row *rows = cfg.values ? mem_calloc(n, sizeof *rows, "query_bias rows") : NULL;
    stat_acc acc[NV];
    int rc = rows ? mc_run(&cfg, acc) : att_alloc_status();
    // each identity head by head: its error in units of its own tolerance
    double spread = 0.0, shift = 0.0, zero = 0.0;
    for (size_t i = 0; i < n && !rc; i++) {
        const double *v = cfg.values + i * NV;
        rows[i] = (head_row){i, (size_t)v[V_TQ], (size_t)v[V_TK], (size_t)v[V_D], (size_t)v[V_DK], (int)v[V_SELF],
                             v[V_SIGMA], v[V_SPREAD], v[V_SPREAD_TOL], v[V_SHIFT], v[V_ZERO], v[V_ZERO_TOL],
                             v[V_CHANGE], v[V_PREF]};
        spread = fmax(spread, v[V_SPREAD] / v[V_SPREAD_TOL]);
        shift = fmax(shift, v[V_SHIFT] / v[V_SPREAD_TOL]);
        zero = fmax(zero, v[V_ZERO] / v[V_ZERO_TOL]);
    }
    if (!rc) rc = example(e);      /* its allocations before anything is written */
    if (!rc) rc = TABLE_WRITE(e->o.out_dir, "query_bias.csv", head_cols, rows, n);
    mem_free(rows, n, sizeof *rows);
    mem_free(cfg.values, n * NV, sizeof(double));
    if (rc) return rc;
    exp_meta(e, "heads: %zu\nmax_T: %d\nmax_d: %d\nmax_d_k: %d\nexample_T: %d\nexample_d: %d\nexample_d_k: %d",
             n, MAX_T, MAX_D, MAX_DK, EX_T, EX_D, EX_DK);

    if ((rc = verdict_add(&e->v, KIND_CLAIM, "queryBiasPreference", NAN, measure_stat(&acc[V_PREF]),
                          rule_ci_above(0.01), "W_Q = 0: total-variation distance of the rows' shared "
                          "distribution softmax(K b_Q) from uniform (b_Q prefers some keys), over %zu heads "
                          "with sigma(b_Q) log-uniform in [0.01, 100]", n))
        || (rc = verdict_add(&e->v, KIND_CLAIM, "queryBiasEffect", NAN, measure_stat(&acc[V_CHANGE]),
                          rule_ci_above(1e-3), "relative change of A caused by b_Q, ||A(b_Q) - A(0)|| / ||A(0)|| "
                          "(b_K would cause none), over %zu random heads", n))
        || (rc = verdict_add(&e->v, KIND_IDENTITY, "queryBiasRowSpread", 0.0, measure_exact(spread, n),
                             rule_at_most(1.0), "row spread of S(b_Q) - S(0) (rows identical), relative to the "
                             "rounding scale, in units of 4 d_k eps; largest over the heads"))
        || (rc = verdict_add(&e->v, KIND_IDENTITY, "queryBiasShift", 0.0, measure_exact(shift, n),
                             rule_at_most(1.0), "max |S(b_Q) - S(0) - 1 (K b_Q)^T| (the added score is "
                             "b_Q . k_j), relative to the rounding scale, in units of 4 d_k eps"))
        || (rc = verdict_add(&e->v, KIND_IDENTITY, "queryBiasZeroQuery", 0.0, measure_exact(zero, n),
                             rule_at_most(1.0), "W_Q = 0: max |a_ij - softmax(K b_Q)_j| over every row, in "
                             "units of 8 d_k eps |K||b_Q| + 4 T_k eps")))
        return rc;
    return ATT_OK;
}

int main(int argc, char **argv)
{
    static const experiment_def def = {"query_bias", "the query bias adds a preference over keys that every "
                                       "query shares: S(b_Q) - S(0) has identical rows", OPT_MC, 42, 5000, NULL, run};
    return experiment_main(&def, argc, argv);
}
