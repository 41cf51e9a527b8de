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
 * Gaussians: bias_qhead_draw), each identity in units of its own rounding
 * bound, head by head: the row spread of S(b_Q) - S(0), its distance from
 * 1 (K b_Q)^T and, with W_Q = 0, every row of A against softmax(K b_Q) (the
 * headline); the effect ||A(b_Q) - A(0)||_F / ||A(0)||_F (mean, 95% CI). The
 * preference TV(softmax(K b_Q), uniform) is a curve of u = sigma(b_Q) ||W_K||_F
 * (querypref.h), cited at u = 1; its mean over the random heads is set by
 * the sigma range (reported only).
 * Writes: query_bias.csv, query_bias_draws.csv, query_bias_pref.csv,
 * query_bias_example.csv (one head, T = 6: bias_query_example), query_bias.meta.
 */
#include "prelude.h"
#include "bias.h"
#include "querypref.h"
#include "softmax.h"

enum { MAX_T = 48, MAX_D = 48, MAX_DK = 32 };

#define STATS(X) X(S_TQ, "T_q", SW_MC) X(S_TK, "T_k", SW_MC) X(S_D, "d", SW_MC) X(S_DK, "d_k", SW_MC)    \
    X(S_SELF, "self", SW_MC) X(S_SIGMA, "b_sigma", SW_MC) X(S_SPREAD, "row_spread", SW_ROUND("1"))               \
    X(S_SHIFT, "shift_err", SW_ROUND("1")) X(S_ZERO, "zero_wq_err", SW_ROUND("1")) X(S_CHANGE, "change_A", SW_MC) \
    X(S_PREF, "pref_tv", SW_MC)
SWEEP_STATS(STATS);

static void *work_alloc(const sweep_grid *g, const void *c)
{
    (void)g, (void)c;
    return bias_qhead_new(MAX_T, MAX_D, MAX_DK);
}

/* One random head (sizes drawn first, then the head, bias.h): S, A (T_q, T_k) of the
 * three runs, K b_Q and a* = softmax(K b_Q) (T_k). */
static int draw(gsl_rng *rng, double *out, const sweep_point *pt, void *work, const void *c)
{
    bias_qhead *h = work;
    (void)c, (void)pt;
    // sizes, then the head at these sizes
    int self = gsl_rng_uniform(rng) < 0.5;
    size_t T_q = rng_uniform_size(rng, 1, MAX_T), T_k = self ? T_q : rng_uniform_size(rng, 2, MAX_T);
    if (self && T_q < 2) T_q = T_k = 2;
    size_t d = rng_uniform_size(rng, 1, MAX_D), d_k = rng_uniform_size(rng, 1, MAX_DK);
    double sharp = rng_log_uniform(rng, -1, 1), sigma = rng_log_uniform(rng, -2, 2), kbv[MAX_T], astarv[MAX_T];
    int rc = bias_qhead_draw(rng, h, T_q, T_k, d, d_k, self, sharp, sigma);
    if (rc) return rc;
    gsl_vector_view kb = gsl_vector_view_array(kbv, T_k), astar = gsl_vector_view_array(astarv, T_k);

    // D = S(b_Q) - S(0), in place of S(b_Q); exactly D = 1 (K b_Q)^T
    double r0 = tol_product_scale(h->s0.Q, h->s0.K), rb = tol_product_scale(h->sb.Q, h->sb.K);
    gsl_matrix_sub(h->sb.S, h->s0.S);
    double rel_spread = bias_row_spread(h->sb.S) / fmax(rb + r0, DBL_MIN);

    // kb = K b_Q by dgemv, its rounding scale max_j sum_l |k_jl| |b_l|; rows of D against kb^T
    gsl_blas_dgemv(CblasNoTrans, 1.0, h->s0.K, &h->b.vector, 0.0, &kb.vector);
    gsl_matrix_const_view b_row = gsl_matrix_const_view_vector(&h->b.vector, 1, d_k);
    double rkb = tol_product_scale(&b_row.matrix, h->s0.K), shift = bias_rows_from(h->sb.S, &kb.vector);

    // W_Q = 0: every row of A against a* = softmax(K b_Q)
    if ((rc = softmax_vec(astarv, kbv, T_k))) return rc;
    double zero = bias_rows_from(h->sz.A, &astar.vector);

    const double size[] = {(double)T_q, (double)T_k, (double)d, (double)d_k, (double)self, sigma};
    for (int k = 0; k < 6; k++) out[S_TQ + k] = size[k];
    // each identity's error in units of its rounding bound: 4 d_k eps, and 8 d_k eps r(K b_Q) + 4 T_k eps
    out[S_SPREAD] = rel_spread / tol_eps(4, d_k, 1.0);
    out[S_SHIFT] = shift / fmax(rb + r0 + rkb, DBL_MIN) / tol_eps(4, d_k, 1.0);
    out[S_ZERO] = zero / (tol_eps(8, d_k, rkb) + tol_eps(4, T_k, 1.0));
    // the effect: ||A(b_Q) - A(0)||_F / ||A(0)||_F
    out[S_CHANGE] = mat_rel_diff(h->sb.A, h->s0.A);
    // the preference: TV(softmax(K b_Q), uniform) = 1/2 sum_j |a*_j - 1/T_k|
    out[S_PREF] = bias_preference(&astar.vector);
    return ATT_OK;
}

/* The figure's head (its own stream; bias_query_example): T = 6 self-attention, d = 16,
 * d_k = 8, W_Q sharpness 1, b_Q ~ N(0, 1). */
static int figure_example(experiment *e)
{
    gsl_rng *rng = rng_new(e->o.rng_name, rng_stream_seed(e->o.seed, 1, 0));
    double tv = NAN, top = NAN;
    int rc = rng ? bias_query_example(rng, e->o.out_dir, "query_bias_example.csv", &tv, &top) : att_alloc_status();
    if (!rc) exp_meta(e, "example_pref_tv: %.17g\nexample_top_weight: %.17g", tv, top);
    if (rng) gsl_rng_free(rng);
    return rc;
}

static int run(experiment *e)
{
    size_t n = e->o.draws;
    if (n < 2) return exp_usage("--draws %zu: a 95%% CI needs at least 2 draws", n);
    sweep_grid g;
    sweep_grid_init(&g);
    sweep_def def = SWEEP_DEF(draw);
    def.work_alloc = work_alloc, def.work_free = bias_qhead_free, def.draws_csv = "query_bias_draws.csv";
    sweep_result r, rp;
    int st = figure_example(e);      /* its allocations before anything is written */
    if (st || (st = sweep_run(e, &g, &def, &r))) return st;
    if ((st = querypref_run(e, &rp))) { sweep_result_free(&r); return st; }
    exp_meta(e, "heads: %zu\nmax_T: %d\nmax_d: %d\nmax_d_k: %d\nexample_T: %d\nexample_d: %d\nexample_d_k: %d",
             n, MAX_T, MAX_D, MAX_DK, BIAS_QEX_T, BIAS_QEX_D, BIAS_QEX_DK);
    const stat_acc *a = sweep_acc(&r, 0, 0);

    // the headline: the exact statement, W_Q = 0 gives every row the same weights
    exp_identity(e, "queryBiasZeroQuery", 0.0, verdict_measure_exact(a[S_ZERO].max, n), verdict_rule_at_most(1.0),
                 "W_Q = 0: every row of A is softmax(K b_Q): max |a_ij - softmax(K b_Q)_j| over every row of %zu heads, "
                 "in units of 8 d_k eps |K||b_Q| + 4 T_k eps", n);
    exp_headline(e);
    exp_identity(e, "queryBiasRowSpread", 0.0, verdict_measure_exact(a[S_SPREAD].max, n), verdict_rule_at_most(1.0),
                 "row spread of S(b_Q) - S(0) (rows identical), relative to the rounding scale, in units of 4 d_k eps; "
                 "largest over the heads");
    exp_identity(e, "queryBiasShift", 0.0, verdict_measure_exact(a[S_SHIFT].max, n), verdict_rule_at_most(1.0),
                 "max |S(b_Q) - S(0) - 1 (K b_Q)^T| (the added score is b_Q . k_j), relative to the rounding scale, in "
                 "units of 4 d_k eps");
    exp_claim(e, "queryBiasEffect", NAN, sweep_measure(&r, 0, S_CHANGE), verdict_rule_ci_above(1e-3),
              "relative change of A caused by b_Q, ||A(b_Q) - A(0)|| / ||A(0)|| (b_K would cause none), over %zu random "
              "heads", n);
    exp_reported(e, "queryBiasPreferenceMixed", NAN, sweep_measure(&r, 0, S_PREF),
                 "W_Q = 0: mean total-variation distance of softmax(K b_Q) from uniform over %zu heads with sigma(b_Q) "
                 "log-uniform in [0.01, 100] (a number the chosen range sets; the curve is query_bias_pref.csv)", n);
    measure m1 = sweep_measure(&rp, QUERYPREF_U1, QUERYPREF_TV);   /* u = 1 */
    exp_claim(e, "queryBiasPreference", NAN, m1, verdict_rule_ci_above(0.01),
              "W_Q = 0: b_Q prefers some keys: mean total-variation distance of softmax(K b_Q) from uniform at "
              "sigma(b_Q) ||W_K||_F = 1 (T_k = %d, d = %d, d_k = %d; %.3f at 0.1, %.3f at 10: query_bias_pref.csv)",
              QUERYPREF_T, QUERYPREF_D, QUERYPREF_DK, sweep_acc(&rp, 0, QUERYPREF_TV)->mean,
              sweep_acc(&rp, QUERYPREF_NU - 1, QUERYPREF_TV)->mean);
    exp_summary(e, "W_Q = 0: every row has the weights softmax(K b_Q) to %.3g of rounding (the section: exactly the "
                "same weights for every query); their distance from uniform is %.3f at sigma(b_Q) ||W_K||_F = 1 "
                "(95%% CI [%.3f, %.3f])", a[S_ZERO].max, m1.value, m1.ci_low, m1.ci_high);
    sweep_result_free(&r);
    sweep_result_free(&rp);
    return ATT_OK;
}

int main(int argc, char **argv)
{
    static const experiment_def def = {"query_bias", NULL, OPT_MC, 42, 5000, NULL, run};
    return exp_main(&def, argc, argv);
}
