/* query_bias - "Biases, and the one that does nothing"
 *
 * Claim: the query bias adds b_Q . k_j to s_ij: a preference for some keys
 * whatever the query. With q_i = W_Q^T x_i + b_Q,
 *   s_ij = q_i . k_j = (W_Q^T x_i) . k_j + b_Q . k_j,
 * and the added term depends on the key j, not on the query i: S(b_Q) - S(0)
 * = 1 (K b_Q)^T has identical rows. Unlike b_K's term (constant along a row,
 * cancelled by softmax) it changes the weights; with W_Q = 0 every query is
 * b_Q, so every row of A is softmax(K b_Q).
 *
 * Measured on --draws random heads (draw: sizes, self-attention in half, W_Q
 * sharpness in [0.1, 10], sigma(b_Q) log-uniform in [0.01, 100]; the
 * Gaussians: qhead_draw), each identity in units of its own rounding
 * bound, head by head: the row spread of S(b_Q) - S(0), its distance from
 * 1 (K b_Q)^T and, with W_Q = 0, every row of A against softmax(K b_Q) (the
 * headline); the effect ||A(b_Q) - A(0)||_F / ||A(0)||_F (mean, 95% CI). The
 * preference TV(softmax(K b_Q), uniform) is a curve of u = sigma(b_Q) ||W_K||_F
 * (pref_run), cited at u = 1; its mean over the random heads is set by
 * the sigma range (reported only).
 * Writes: query_bias.csv, query_bias_draws.csv, query_bias_pref.csv,
 * query_bias_example.csv (one head, T = 6: figure_example), query_bias.meta.
 */
#include "prelude.h"
#include "bias.h"
#include "mem.h"
#include "softmax.h"

enum { MAX_T = 48, MAX_D = 48, MAX_DK = 32 };

#define STATS(X) X(S_TQ, "T_q") X(S_TK, "T_k") X(S_D, "d") X(S_DK, "d_k") X(S_SELF, "self") \
    X(S_SIGMA, "b_sigma") X(S_SPREAD, "row_spread") X(S_SHIFT, "shift_err")                 \
    X(S_ZERO, "zero_wq_err") X(S_CHANGE, "change_A") X(S_PREF, "pref_tv")
SWEEP_STATS(STATS);

/* The preference curve (query_bias_pref.csv): with W_Q = 0 every row of A is
 * softmax(K b_Q); how far that is from uniform is set by the scale of the added
 * scores b_Q . k_j, u = sigma(b_Q) ||W_K||_F: at u = 0.1, 0.3, 1, 3, 10 (T_k = 8,
 * d = 16, d_k = 8, PREF_DRAWS heads each), TV(softmax(K b_Q), uniform). */
#define PREF_STATS(X) X(P_TV, "tv")
SWEEP_STATS_AS(PREF_STATS, NPSTAT, pref_names);
enum { PREF_T = 8, PREF_D = 16, PREF_DK = 8, PREF_DRAWS = 2000 };
enum { PREF_U1 = 2, PREF_NU = 5 };   /* point PREF_U1 is u = 1 */

/* The figure's head: T = 6 self-attention over "a cat sat on the mat", d = 16, d_k = 8 */
enum { EX_T = 6, EX_D = 16, EX_DK = 8 };

/* A random head run three times: without b_Q (s0), with it (sb), and with
 * W_Q = 0 and b_Q (sz), so that every query is b_Q. Its matrices have the
 * largest sizes (T, d, d_k) and are used through views; d_v = d_k. After a
 * draw: Xq (T_q, d), Xkv (T_k, d), W (d, d_k), b_Q (d_k) in b, and the three
 * forward passes (S, A: T_q x T_k; K: T_k x d_k) at the draw's sizes. */
typedef struct {
    gsl_matrix *Xq, *Xkv, *W_Q, *W_K, *W_V, *Z;
    gsl_vector *b_max;
    gsl_vector_view b;             /* b_Q of the last draw (d_k) */
    head_state s0, sb, sz;
} qhead;

static void qhead_free(void *p)
{
    qhead *q = p;
    if (q == NULL) return;
    mat_free(q->Xq);
    mat_free(q->Xkv);
    mat_free(q->W_Q);
    mat_free(q->W_K);
    mat_free(q->W_V);
    mat_free(q->Z);
    mat_vec_free(q->b_max);
    head_state_free(&q->s0);
    head_state_free(&q->sb);
    head_state_free(&q->sz);
    mem_free(q, 1, sizeof *q);
}

/* Xq, Xkv (T, d); W_Q, W_K, W_V, Z (d, d_k); b_Q (d_k). NULL + error on no memory */
static qhead *qhead_new(size_t T, size_t d, size_t d_k)
{
    qhead *q = mem_calloc(1, sizeof *q, "query-bias head");
    if (q == NULL) return NULL;
    q->Xq = mat_new(T, d);
    q->Xkv = mat_new(T, d);
    q->W_Q = mat_new(d, d_k);
    q->W_K = mat_new(d, d_k);
    q->W_V = mat_new(d, d_k);
    q->Z = mat_new(d, d_k);
    q->b_max = mat_vec_new(d_k);
    if (!q->Xq || !q->Xkv || !q->W_Q || !q->W_K || !q->W_V || !q->Z || !q->b_max) {
        qhead_free(q);
        return NULL;
    }
    return q;
}

/* Draw, in this order, Xq ~ N(0, 1), Xkv ~ N(0, 1) (Xkv = Xq when self),
 * W_Q ~ N(0, sharp^2 / d), W_K, W_V ~ N(0, 1 / d) (bias_draw_inputs), b_Q ~ N(0, sigma^2);
 * run the three heads. Xq (T_q, d), Xkv (T_k, d), W_Q, W_K, W_V, Z = 0 (d, d_k),
 * b_Q (d_k). Sizes above the allocated ones: ATT_EUSAGE. */
static int qhead_draw(gsl_rng *rng, qhead *q, size_t T_q, size_t T_k, size_t d, size_t d_k,
                      int self, double sharp, double sigma)
{
    if (T_q > q->Xq->size1 || T_k > q->Xq->size1 || d > q->Xq->size2 || d_k > q->W_Q->size2
        || (self && T_q != T_k))
        return att_fail(ATT_EUSAGE, "query-bias head: sizes T_q %zu, T_k %zu, d %zu, d_k %zu "
                        "beyond (%zu, %zu, %zu)", T_q, T_k, d, d_k, q->Xq->size1, q->Xq->size2,
                        q->W_Q->size2);
    gsl_matrix_view Xq = gsl_matrix_submatrix(q->Xq, 0, 0, T_q, d);
    gsl_matrix_view Xkv = gsl_matrix_submatrix(self ? q->Xq : q->Xkv, 0, 0, T_k, d);
    gsl_matrix_view W_Q = gsl_matrix_submatrix(q->W_Q, 0, 0, d, d_k);
    gsl_matrix_view W_K = gsl_matrix_submatrix(q->W_K, 0, 0, d, d_k);
    gsl_matrix_view W_V = gsl_matrix_submatrix(q->W_V, 0, 0, d, d_k);
    gsl_matrix_view Z = gsl_matrix_submatrix(q->Z, 0, 0, d, d_k);
    q->b = gsl_vector_subvector(q->b_max, 0, d_k);
    bias_draw_inputs(rng, &Xq.matrix, &Xkv.matrix, &W_Q.matrix, &W_K.matrix, &W_V.matrix, self,
                     sharp);
    mat_vec_randn(rng, &q->b.vector, sigma);
    gsl_matrix_set_zero(&Z.matrix);
    head_state_free(&q->s0);
    head_state_free(&q->sb);
    head_state_free(&q->sz);
    int rc = head_state_alloc(&q->s0, T_q, T_k, d, d_k, d_k);
    if (!rc) rc = head_state_alloc(&q->sb, T_q, T_k, d, d_k, d_k);
    if (!rc) rc = head_state_alloc(&q->sz, T_q, T_k, d, d_k, d_k);
    // p0: no b_Q; pb: b_Q; pz: W_Q = 0 with b_Q (every query is b_Q)
    head_params p0 = head_params_make(&W_Q.matrix, &W_K.matrix, &W_V.matrix);
    head_params pb = p0;
    head_params pz = head_params_make(&Z.matrix, &W_K.matrix, &W_V.matrix);
    pb.b_Q = &q->b.vector;
    pz.b_Q = &q->b.vector;
    if (!rc) rc = head_forward(&q->s0, &p0, &Xq.matrix, &Xkv.matrix);
    if (!rc) rc = head_forward(&q->sb, &pb, &Xq.matrix, &Xkv.matrix);
    if (!rc) rc = head_forward(&q->sz, &pz, &Xq.matrix, &Xkv.matrix);
    return rc;
}

/* how far p (n) is from the uniform distribution: TV(p, uniform) = 1/2 sum_j |p_j - 1/n| */
static double preference(const gsl_vector *p)
{
    double tv = 0.0;
    for (size_t j = 0; j < p->size; j++) tv += fabs(gsl_vector_get(p, j) - 1.0 / (double)p->size);
    return 0.5 * tv;
}

static void *work_alloc(const sweep_grid *g, const void *c)
{
    (void)g;
    (void)c;
    return qhead_new(MAX_T, MAX_D, MAX_DK);
}

/* One random head (sizes drawn first, then the head): S, A (T_q, T_k) of the
 * three runs, K b_Q and a* = softmax(K b_Q) (T_k). */
static int draw(gsl_rng *rng, double *out, const sweep_point *pt, void *work, const void *c)
{
    qhead *h = work;
    (void)c;
    (void)pt;
    // sizes, then the head at these sizes
    int self = gsl_rng_uniform(rng) < 0.5;
    size_t T_q = rng_uniform_size(rng, 1, MAX_T);
    size_t T_k = self ? T_q : rng_uniform_size(rng, 2, MAX_T);
    if (self && T_q < 2) {
        T_q = 2;
        T_k = 2;
    }
    size_t d = rng_uniform_size(rng, 1, MAX_D), d_k = rng_uniform_size(rng, 1, MAX_DK);
    double sharp = rng_log_uniform(rng, -1, 1), sigma = rng_log_uniform(rng, -2, 2);
    double kbv[MAX_T], astarv[MAX_T];
    int rc = qhead_draw(rng, h, T_q, T_k, d, d_k, self, sharp, sigma);
    if (rc) return rc;
    gsl_vector_view kb = gsl_vector_view_array(kbv, T_k);
    gsl_vector_view astar = gsl_vector_view_array(astarv, T_k);

    // D = S(b_Q) - S(0), in place of S(b_Q); exactly D = 1 (K b_Q)^T
    double r0 = tol_product_scale(h->s0.Q, h->s0.K), rb = tol_product_scale(h->sb.Q, h->sb.K);
    gsl_matrix_sub(h->sb.S, h->s0.S);
    double rel_spread = bias_row_spread(h->sb.S) / fmax(rb + r0, DBL_MIN);

    // kb = K b_Q by dgemv, its rounding scale max_j sum_l |k_jl| |b_l|; rows of D against kb^T
    gsl_blas_dgemv(CblasNoTrans, 1.0, h->s0.K, &h->b.vector, 0.0, &kb.vector);
    gsl_matrix_const_view b_row = gsl_matrix_const_view_vector(&h->b.vector, 1, d_k);
    double rkb = tol_product_scale(&b_row.matrix, h->s0.K);
    double shift = bias_rows_from(h->sb.S, &kb.vector);

    // W_Q = 0: every row of A against a* = softmax(K b_Q)
    if ((rc = softmax_vec(astarv, kbv, T_k))) return rc;
    double zero = bias_rows_from(h->sz.A, &astar.vector);

    const double size[] = {(double)T_q, (double)T_k, (double)d, (double)d_k, (double)self, sigma};
    for (int k = 0; k < 6; k++) out[S_TQ + k] = size[k];
    // each identity's error in units of its rounding bound: 4 d_k eps,
    // and 8 d_k eps r(K b_Q) + 4 T_k eps
    out[S_SPREAD] = rel_spread / tol_eps(4, d_k, 1.0);
    out[S_SHIFT] = shift / fmax(rb + r0 + rkb, DBL_MIN) / tol_eps(4, d_k, 1.0);
    out[S_ZERO] = zero / (tol_eps(8, d_k, rkb) + tol_eps(4, T_k, 1.0));
    // the effect: ||A(b_Q) - A(0)||_F / ||A(0)||_F
    out[S_CHANGE] = mat_rel_diff(h->sb.A, h->s0.A);
    // the preference: TV(softmax(K b_Q), uniform) = 1/2 sum_j |a*_j - 1/T_k|
    out[S_PREF] = preference(&astar.vector);
    return ATT_OK;
}

/* One head of the curve at u = pt->x: X (T_k, d) ~ N(0, 1), W_K (d, d_k) ~ N(0, 1/d),
 * z (d_k) ~ N(0, 1); W_Q = 0, so every query is b_Q: TV(softmax(K b_Q), uniform). */
static int draw_pref(gsl_rng *rng, double *out, const sweep_point *pt, void *work, const void *c)
{
    enum { T = PREF_T, D = PREF_D, DK = PREF_DK };
    (void)work;
    (void)c;
    double X[T][D], W[D][DK], z[DK], kb[T], p[T], fr = 0.0, tv = 0.0;
    for (size_t j = 0; j < T; j++)
        for (size_t m = 0; m < D; m++) X[j][m] = gsl_ran_gaussian(rng, 1.0);
    for (size_t m = 0; m < D; m++)
        for (size_t l = 0; l < DK; l++) {
            W[m][l] = gsl_ran_gaussian(rng, 1.0 / sqrt((double)D));
            fr += W[m][l] * W[m][l];
        }
    for (size_t l = 0; l < DK; l++) z[l] = gsl_ran_gaussian(rng, 1.0);
    // b_Q = sigma z with sigma = u / ||W_K||_F; (K b_Q)_j = x_j^T W_K b_Q
    double sigma = pt->x / sqrt(fr);
    for (size_t j = 0; j < T; j++) {
        kb[j] = 0.0;
        for (size_t m = 0; m < D; m++)
            for (size_t l = 0; l < DK; l++) kb[j] += X[j][m] * W[m][l] * sigma * z[l];
    }
    int rc = softmax_vec(p, kb, T);
    // TV(p, uniform) = 1/2 sum_j |p_j - 1/T_k|
    for (size_t j = 0; j < T; j++) tv += 0.5 * fabs(p[j] - 1.0 / T);
    out[P_TV] = tv;
    return rc;
}

/* The curve's sweep: one point per u, the point's own stream. */
static int pref_run(experiment *e, sweep_result *r)
{
    static const double us[PREF_NU] = {0.1, 0.3, 1.0, 3.0, 10.0};
    sweep_grid g;
    sweep_grid_init(&g);
    sweep_axis_x(&g, "u", PREF_NU, us);
    sweep_def def = SWEEP_DEF_AS(draw_pref, NPSTAT, pref_names);
    def.csv = "query_bias_pref.csv";
    def.draws = PREF_DRAWS;
    return sweep_run(e, &g, &def, r);
}

typedef struct {
    size_t i, j;
    const char *query, *key;
    double score_shift, weight_zero_query;
} qex_row;

/* The figure's head (its own stream): T = 6 self-attention over "a cat sat on the mat",
 * d = 16, d_k = 8, W_Q sharpness 1, b_Q ~ N(0, 1). Writes query_bias_example.csv (i, j,
 * query, key, score_shift = S(b_Q) - S(0), weight_zero_query = A with W_Q = 0); row 0 of
 * the W_Q = 0 weights: its preference and its largest weight into the .meta. */
/* the example's stream, outside the sweep (experiment_rng) */
enum { STREAM_EXAMPLE = 1 };

static int figure_example(experiment *e)
{
    enum { T = EX_T };
    static const char *const tokens[T] = {"a", "cat", "sat", "on", "the", "mat"};
    static const table_col cols[] = {
        COL(qex_row, i), COL(qex_row, j), COL(qex_row, query), COL(qex_row, key),
        COL(qex_row, score_shift), COL(qex_row, weight_zero_query)};
    gsl_rng *rng = experiment_rng(e, STREAM_EXAMPLE, 0);
    qhead *h = rng ? qhead_new(T, EX_D, EX_DK) : NULL;
    int st = ATT_OK;
    if ((st = h ? ATT_OK : att_alloc_status())) goto done;
    if ((st = qhead_draw(rng, h, T, T, EX_D, EX_DK, 1, 1.0, 1.0))) goto done;
    qex_row rows[T * T];
    for (size_t i = 0; i < T; i++)
        for (size_t j = 0; j < T; j++)
            rows[i * T + j] = (qex_row){
                i, j, tokens[i], tokens[j],
                gsl_matrix_get(h->sb.S, i, j) - gsl_matrix_get(h->s0.S, i, j),   /* S(b_Q) - S(0) */
                gsl_matrix_get(h->sz.A, i, j)};                                  /* A, W_Q = 0 */
    if ((st = TABLE_WRITE(e->o.out_dir, "query_bias_example.csv", cols, rows, T * T))) goto done;
    gsl_vector_view a0 = gsl_matrix_row(h->sz.A, 0);
    experiment_meta(e, "example_pref_tv: %.17g\nexample_top_weight: %.17g",
                    preference(&a0.vector), gsl_vector_max(&a0.vector));
done:
    qhead_free(h);
    if (rng) gsl_rng_free(rng);
    return st;
}

static int run(experiment *e)
{
    size_t n = e->o.draws;
    if (n < 2) return usage_error("--draws %zu: a 95%% CI needs at least 2 draws", n);
    sweep_grid g;
    sweep_grid_init(&g);
    sweep_def def = SWEEP_DEF(draw);
    def.work_alloc = work_alloc;
    def.work_free = qhead_free;
    def.draws_csv = "query_bias_draws.csv";
    sweep_result r = {0}, rp = {0};
    int st = ATT_OK;
    if ((st = figure_example(e))) goto done;      /* its allocations before anything is written */
    if ((st = sweep_run(e, &g, &def, &r))) goto done;
    if ((st = pref_run(e, &rp))) goto done;
    experiment_meta(e,
                    "heads: %zu\nmax_T: %d\nmax_d: %d\nmax_d_k: %d\nexample_T: %d\nexample_d: %d\n"
                    "example_d_k: %d",
                    n, MAX_T, MAX_D, MAX_DK, EX_T, EX_D, EX_DK);
    const stat_acc *a = sweep_acc(&r, 0, 0);

    // the headline: the exact statement, W_Q = 0 gives every row the same weights
    verdict_identity(e, "queryBiasZeroQuery", 0.0, verdict_measure_exact(a[S_ZERO].max, n),
                 verdict_rule_at_most(1.0),
                 "W_Q = 0: every row of A is softmax(K b_Q): max |a_ij - softmax(K b_Q)_j| over "
                 "every row of %zu heads, in units of 8 d_k eps |K||b_Q| + 4 T_k eps", n);
    experiment_headline(e);
    verdict_identity(e, "queryBiasRowSpread", 0.0, verdict_measure_exact(a[S_SPREAD].max, n),
                 verdict_rule_at_most(1.0),
                 "row spread of S(b_Q) - S(0) (rows identical), relative to the rounding scale, in "
                 "units of 4 d_k eps; largest over the heads");
    verdict_identity(e, "queryBiasShift", 0.0, verdict_measure_exact(a[S_SHIFT].max, n),
                 verdict_rule_at_most(1.0),
                 "max |S(b_Q) - S(0) - 1 (K b_Q)^T| (the added score is b_Q . k_j), relative to "
                 "the rounding scale, in units of 4 d_k eps");
    verdict_claim(e, "queryBiasEffect", NAN, sweep_measure(&r, 0, S_CHANGE),
              verdict_rule_ci_above(1e-3),
              "relative change of A caused by b_Q, ||A(b_Q) - A(0)|| / ||A(0)|| (b_K would cause "
              "none), over %zu random heads", n);
    verdict_reported(e, "queryBiasPreferenceMixed", NAN, sweep_measure(&r, 0, S_PREF),
                 "W_Q = 0: mean total-variation distance of softmax(K b_Q) from uniform over %zu "
                 "heads with sigma(b_Q) log-uniform in [0.01, 100] (a number the chosen range "
                 "sets; the curve is query_bias_pref.csv)", n);
    measure m1 = sweep_measure(&rp, PREF_U1, P_TV);   /* u = 1 */
    verdict_claim(e, "queryBiasPreference", NAN, m1, verdict_rule_ci_above(0.01),
              "W_Q = 0: b_Q prefers some keys: mean total-variation distance of softmax(K b_Q) "
              "from uniform at sigma(b_Q) ||W_K||_F = 1 (T_k = %d, d = %d, d_k = %d; %.3f at 0.1, "
              "%.3f at 10: query_bias_pref.csv)", PREF_T, PREF_D, PREF_DK,
              sweep_acc(&rp, 0, P_TV)->mean, sweep_acc(&rp, PREF_NU - 1, P_TV)->mean);
    experiment_summary(
        e,
        "W_Q = 0: every row has the weights softmax(K b_Q) to %.3g of rounding (the "
        "section: exactly the same weights for every query); their distance from uniform "
        "is %.3f at sigma(b_Q) ||W_K||_F = 1 (95%% CI [%.3f, %.3f])",
        a[S_ZERO].max, m1.value, m1.ci_low, m1.ci_high);
done:
    sweep_result_free(&r);
    sweep_result_free(&rp);
    return st;
}

/* how make verify compares the statistics: Monte Carlo (SW_MC, sweep.h) but these */
SWEEP_VERIFY(stat_names, {"row_spread", SW_ROUND_MAX(1)}, {"shift_err", SW_ROUND_MAX(1)},
             {"zero_wq_err", SW_ROUND_MAX(1)})
SWEEP_VERIFY_MC(pref_names)

int main(int argc, char **argv)
{
    static const experiment_def def = {"query_bias", NULL, OPT_MC, 42, 5000, NULL, run};
    return experiment_main(&def, argc, argv);
}
