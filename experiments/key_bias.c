/* key_bias - "Biases, and the one that does nothing"
 *
 * Claim: the key bias shifts every score of a row by one constant, so softmax
 * ignores it and its gradient is exactly zero (not with RoPE after the bias).
 * With k_j = W_K^T x_j + b_K,  s_ij = q_i . (W_K^T x_j) + q_i . b_K, and the
 * second term is the same for every key j of row i. With rotary embeddings
 * after the bias, key j sees R_j b_K, a different vector per position.
 *
 * Measured, at T = 8, d = 16, d_k = d_v = 8 (--T/--d/--dk/--dv replace them),
 * --draws heads per case, rope = 0 (none) and rope = 1 (base 1e4), each head
 * as bias_head_draw draws it with L = sum(G .* O): ||dL/db_K|| / ||dL/db_Q||,
 * ||dL/db_K|| in units of its rounding bound and the change of O when b_K is
 * removed (bias_key_rounding), every backprop gradient against central
 * differences, h = 1e-5. Headline: the largest ||dL/db_K|| without RoPE in
 * units of its bound (the claim: zero). The contrast with RoPE depends on the
 * base: a sweep over the base is reported (base_run below). --no-fd skips the central
 * differences (90% of a run's CPU; they use no random draw, so every other number is the
 * same): their columns are NaN and keyBiasFDErrMax is not written (tools/report/robustness.sh).
 * Writes: key_bias.csv, key_bias_draws.csv, key_bias_base.csv, key_bias_shift.csv.
 */
#include "prelude.h"
#include "bias.h"
#include "mem.h"

#define FD_STEP 1e-5
#define FD_TOL 1e-6    /* backprop against central differences: the rule keyBiasFDErrMax applies */
#define ZERO 1e-10   /* without RoPE, b_K's gradient ratio is rounding: far below this */
#define STATS(X) X(S_OUT, "out") X(S_TOL, "tol") X(S_RATIO, "ratio") X(S_GRAD_REL, "grad_rel") \
    X(S_NQ, "dbq") X(S_NK, "dbk") X(S_FD, "fd") X(S_FD0, "fd_b_Q") X(S_FD1, "fd_b_K")          \
    X(S_FD2, "fd_b_V") X(S_FD3, "fd_W_Q") X(S_FD4, "fd_W_K") X(S_FD5, "fd_W_V")
SWEEP_STATS(STATS);

/* The RoPE base sweep (key_bias_base.csv): with RoPE after the bias at base 100 .. 1e5,
 * BASE_DRAWS heads each at the grid's sizes, ||dL/db_K|| / ||dL/db_Q||. */
#define BASE_STATS(X) X(B_RATIO, "ratio")
SWEEP_STATS_AS(BASE_STATS, NBSTAT, base_names);
enum { NBASE = 4, BASE_DRAWS = 200 };
static int no_fd = 0;   /* --no-fd: no central differences */
static const double BASES[NBASE] = {100.0, 1000.0, 10000.0, 100000.0};

/* A draw's work: the head (bias.h), the finite differences' forward state and the
 * gradients, for sizes up to (T, d, d_k, d_v). */
typedef struct {
    bias_head h;
    head_state fd;
    head_grads g;
} work;

static void work_free(void *p)
{
    work *w = p;
    if (w == NULL) return;
    bias_head_free(&w->h);
    head_state_free(&w->fd);
    head_grads_free(&w->g);
    mem_free(w, 1, sizeof *w);
}

/* the work at g's largest T, d, d_k, d_v: a sweep's work_alloc */
static void *work_alloc(const sweep_grid *g, const void *ctx)
{
    (void)ctx;
    size_t T = sweep_max(g, AX_T), d = sweep_max(g, AX_D);
    size_t d_k = sweep_max(g, AX_DK), d_v = sweep_max(g, AX_DV);
    work *w = mem_calloc(1, sizeof *w, "bias work");
    if (w == NULL) return NULL;
    if (bias_head_alloc(&w->h, T, d, d_k, d_v) || head_state_alloc(&w->fd, T, T, d, d_k, d_v)
        || head_grads_alloc(&w->g, T, T, d, d_k, d_v)) {
        work_free(w);
        return NULL;
    }
    return w;
}

/* One head into w: bias_head_draw (RoPE after the bias when rope or base > 0), the
 * forward pass with b_K rerun at RoPE base `base` when base > 0, then the backprop
 * gradients of L = sum(G .* O) with b_K in, into w->g. */
static int work_draw(gsl_rng *rng, work *w, int rope, double base)
{
    rope = rope || base > 0.0;
    int rc = bias_head_draw(rng, &w->h, rope);
    head_params p = bias_head_params(&w->h, rope, 1);
    if (base > 0.0) p.rope_base = base;
    if (!rc && base > 0.0) rc = head_forward(&w->h.with, &p, w->h.X, w->h.X);
    return rc ? rc : head_backward(&w->g, &w->h.with, &p, w->h.X, w->h.X, w->h.G);
}

/* One head at point pt (rope = pt->kase; work_draw): X (T, d), W_Q, W_K (d, d_k),
 * W_V (d, d_v), b_Q, b_K (d_k), b_V (d_v), G (T, d_v), run with and without b_K; the
 * backprop gradients of L = sum(G .* O) with b_K in. */
static int draw(gsl_rng *rng, double *out, const sweep_point *pt, void *wp, const void *ctx)
{
    (void)ctx;
    work *w = wp;
    // O with and without b_K (head_forward), dL/db_K by backprop (head_backward);
    // RoPE, when on, at its default base 1e4
    int rc = work_draw(rng, w, (int)pt->kase, 0.0);
    if (rc) return rc;
    bias_key_bounds b = bias_key_rounding(&w->h);
    // ||O(b_K) - O(0)||_F / ||O(0)||_F against its bound
    // 16 (d_k + T) eps (1 + P) sqrt(T) vmax / ||O||_F
    out[S_OUT] = mat_rel_diff(w->h.with.O, w->h.without.O);
    out[S_TOL] = b.out / mat_frob(w->h.without.O);
    out[S_NQ] = gsl_blas_dnrm2(w->g.db_Q);
    out[S_NK] = gsl_blas_dnrm2(w->g.db_K);
    // ||dL/db_K|| / ||dL/db_Q||, and ||dL/db_K|| in units of 8 T eps sum_i ||q_i|| ||g_i|| vmax
    out[S_RATIO] = out[S_NK] / out[S_NQ];
    out[S_GRAD_REL] = out[S_NK] / b.grad;
    if (no_fd) {   /* the columns S_FD, S_FD0 .. S_FD5 */
        for (int k = S_FD; k < S_FD0 + BIAS_NPARAM; k++) out[k] = NAN;
        return ATT_OK;
    }
    // every gradient against central differences; the worst of the six groups
    rc = bias_head_fd_errors(&out[S_FD0], &w->fd, &w->h, &w->g, (int)pt->kase, FD_STEP);
    if (rc) return rc;
    out[S_FD] = 0.0;
    for (int k = 0; k < BIAS_NPARAM; k++) out[S_FD] = fmax(out[S_FD], out[S_FD0 + k]);
    return ATT_OK;
}

/* the base sweep's draw (RoPE, base pt->x): ||dL/db_K|| / ||dL/db_Q|| */
static int draw_base(gsl_rng *rng, double *out, const sweep_point *pt, void *wp, const void *ctx)
{
    (void)ctx;
    work *w = wp;
    int rc = work_draw(rng, w, (int)pt->kase, pt->x);
    out[B_RATIO] = rc ? NAN : gsl_blas_dnrm2(w->g.db_K) / gsl_blas_dnrm2(w->g.db_Q);
    return rc;
}

static sweep_def base_def(void)
{
    sweep_def def = SWEEP_DEF_AS(draw_base, NBSTAT, base_names);
    def.work_alloc = work_alloc;
    def.work_free = work_free;
    def.csv = "key_bias_base.csv";
    def.draws = BASE_DRAWS;
    return def;
}

/* The base sweep over g's sizes (its case axis dropped, a base axis added). */
static int base_run(experiment *e, const sweep_grid *g, sweep_result *r)
{
    sweep_grid gb = *g;
    gb.declared[AX_CASE] = 0;
    sweep_axis_x(&gb, "base", NBASE, BASES);
    sweep_def def = base_def();
    return sweep_run(e, &gb, &def, r);
}

typedef struct {
    size_t j;
    double score_without, score_with, weight_without, weight_with;
} shift_row;

/* The figure (key_bias_shift.csv): point pt's draw 0 again without RoPE, query row 0,
 * per key j < T (at most 64) s_0j and a_0j without and with b_K, which differ in s_0j
 * by *shift = q_0 . b_K for every key j. */
static int shift_write(const experiment *e, const sweep_point *pt, double *shift)
{
    static const table_col cols[] = {
        COL(shift_row, j), COL(shift_row, score_without), COL(shift_row, score_with),
        COL(shift_row, weight_without), COL(shift_row, weight_with)};
    sweep_grid g0;
    sweep_grid_head(&g0, pt->T, pt->d, pt->dk, pt->dv);
    sweep_def def = base_def();
    example x = {0};
    double out0[NBSTAT];
    int st = ATT_OK;
    if ((st = example_draw(&x, e, &g0, &def, out0))) goto done;
    const bias_head *h = &((work *)x.work)->h;
    shift_row rows[64];
    size_t T = pt->T < 64 ? pt->T : 64;
    for (size_t j = 0; j < T; j++)
        rows[j] = (shift_row){j, gsl_matrix_get(h->without.S, 0, j),
                              gsl_matrix_get(h->with.S, 0, j),
                              gsl_matrix_get(h->without.A, 0, j),
                              gsl_matrix_get(h->with.A, 0, j)};
    // the shift of every s_0j: q_0 . b_K
    gsl_vector_const_view q = gsl_matrix_const_row(h->with.Q, 0);
    gsl_blas_ddot(&q.vector, h->b_K, shift);
    if ((st = TABLE_WRITE(e->o.out_dir, "key_bias_shift.csv", cols, rows, T))) goto done;
done:
    example_end(&x);
    return st;
}

static int run(experiment *e)
{
    const opts *o = &e->o;
    if (o->draws < 2) return usage_error("--draws %zu: a 95%% CI needs at least 2 draws", o->draws);
    if (o->dk % 2 != 0) return usage_error("--dk %zu: RoPE rotates pairs, d_k must be even", o->dk);
    if (o->T == 1)
        return usage_error("--T 1: the claim needs T >= 2 keys (with one key its weight is 1 "
                         "whatever the scores, and every score gradient is zero)");
    sweep_grid g;
    sweep_grid_head(&g, 8, 16, 8, 8);
    sweep_axis_cases(&g, "rope", 2, NULL);
    sweep_def def = SWEEP_DEF(draw);
    def.work_alloc = work_alloc;
    def.work_free = work_free;
    def.draws_csv = "key_bias_draws.csv";
    sweep_result r = {0}, rb = {0};
    int st = ATT_OK;
    if ((st = sweep_run(e, &g, &def, &r))) goto done;
    if ((st = base_run(e, &g, &rb))) goto done;
    // the figure: rope = 0's draw 0 again, query row 0: s_0j with and without b_K
    const sweep_point pt = r.pt[0];
    double shift = NAN;
    if ((st = shift_write(e, &pt, &shift))) goto done;
    experiment_meta(e, "T: %zu\nd: %zu\nd_k: %zu\nd_v: %zu\nrope_base: 10000\nfd_step: %g\n"
             "shift_example: %.17g", pt.T, pt.d, pt.dk, pt.dv, FD_STEP, shift);

    // rope = 0 and rope = 1; the smallest and the largest base
    const stat_acc *none = sweep_acc(&r, 0, 0), *rope = sweep_acc(&r, 1, 0);
    const stat_acc *base_lo = sweep_acc(&rb, 0, B_RATIO);
    const stat_acc *base_hi = sweep_acc(&rb, NBASE - 1, B_RATIO);
    size_t n = o->draws, wk = 0;
    double worst = fmax(none[S_FD].max, rope[S_FD].max);
    for (size_t k = 0; k < BIAS_NPARAM; k++)
        if (fmax(none[S_FD0 + k].max, rope[S_FD0 + k].max) == worst) wk = k;
    // the headline: without RoPE the key bias's gradient is zero, to rounding, in every draw
    verdict_identity(
        e, "keyBiasGradRoundingMax", 0.0, verdict_measure_exact(none[S_GRAD_REL].max, n),
        verdict_rule_at_most(1.0),
        "largest ||dL/db_K|| without RoPE over all %zu draws, in units of its per-draw "
        "rounding bound 8 T eps sum_i ||q_i|| ||g_i|| max_j ||v_j|| (zero gradient: at "
        "most 1)",
        n);
    experiment_headline(e);
    experiment_summary(
        e,
        "||dL/db_K|| without RoPE: at most %.3g of its rounding bound over %zu draws "
        "(the section: exactly zero); with RoPE after the bias, ||dL/db_K|| / ||dL/db_Q|| "
        "= %.3g on average",
        none[S_GRAD_REL].max, n, rope[S_RATIO].mean);
    verdict_reported(e, "keyBiasGradRatioMax", NAN,
                 verdict_measure_as(verdict_measure_exact(none[S_RATIO].max, n), NAT_ROUNDING),
                 "largest ||dL/db_K|| / ||dL/db_Q|| without RoPE (zero up to rounding)");
    verdict_claim(e, "keyBiasGradRatioRope", NAN, sweep_measure(&r, 1, S_RATIO),
              verdict_rule_ci_above(1e-3),
              "the contrast: mean ||dL/db_K|| / ||dL/db_Q|| with RoPE after the bias, base 10000 "
              "(of order one, not zero; its value depends on the base, T, the scales: "
              "key_bias_base.csv) (T = %zu, d = %zu, d_k = %zu, d_v = %zu)",
              pt.T, pt.d, pt.dk, pt.dv);
    verdict_identity(e, "keyBiasOutChangeMax", 0.0, verdict_measure_exact(none[S_OUT].max, n),
                 verdict_rule_at_most(none[S_TOL].min),
                 "largest relative change of O when b_K is removed, without RoPE (bound: the "
                 "smallest per-draw rounding tolerance)");
    verdict_claim(e, "keyBiasOutChangeRope", NAN, sweep_measure(&r, 1, S_OUT),
              verdict_rule_ci_above(1e-3),
              "mean relative change of O when b_K is removed, with RoPE");
    verdict_reported(e, "keyBiasGradRatioRopeMin", NAN, verdict_measure_exact(rope[S_RATIO].min, n),
                 "smallest ||dL/db_K|| / ||dL/db_Q|| with RoPE over the draws");
    if (!no_fd)
        verdict_identity(e, "keyBiasFDErrMax", 0.0, verdict_measure_exact(worst, 2 * n),
                     verdict_rule_at_most(FD_TOL),
                     "worst disagreement of backprop and central differences (h = %g: error "
                     "O(h^2) + O(eps/h)), relative to the draw's gradient, over b_Q b_K b_V W_Q "
                     "W_K W_V, with and without RoPE (worst: %s)", FD_STEP, bias_param_names[wk]);
    verdict_reported(e, "keyBiasRopeBaseSpread", NAN,
                 verdict_measure_exact(base_hi->mean - base_lo->mean, rb.pt[0].draws),
                 "change of the mean RoPE ratio ||dL/db_K|| / ||dL/db_Q|| from base %g (%.3f) to "
                 "base %g (%.3f), %zu heads each: a number of the set-up, not of the claim",
                 BASES[0], base_lo->mean, BASES[NBASE - 1], base_hi->mean, rb.pt[0].draws);
done:
    sweep_result_free(&r);
    sweep_result_free(&rb);
    return st;
}

/* how make verify compares the statistics: Monte Carlo (SW_MC, sweep.h) but these */
SWEEP_VERIFY(stat_names, {"out", SW_MC_ROUND_MAX(ZERO)}, {"ratio", SW_MC_ROUND_MAX(ZERO)},
             {"grad_rel", SW_MC_ROUND_MAX(1e3)}, {"dbk", SW_MC_ROUND_MAX(ZERO)},
             {"fd", SW_ROUND_MAX(FD_TOL)}, {"fd_b_Q", SW_ROUND_MAX(FD_TOL)},
             {"fd_b_K", SW_ROUND_MAX(FD_TOL)}, {"fd_b_V", SW_ROUND_MAX(FD_TOL)},
             {"fd_W_Q", SW_ROUND_MAX(FD_TOL)}, {"fd_W_K", SW_ROUND_MAX(FD_TOL)},
             {"fd_W_V", SW_ROUND_MAX(FD_TOL)})
SWEEP_VERIFY_MC(base_names)

int main(int argc, char **argv)
{
    static const opt_spec extra[] = {
        {"no-fd", OPT_FLAG, &no_fd, NULL,
         "skip the central-difference check of the gradients (keyBiasFDErrMax); the same draws"},
        {NULL, 0, NULL, NULL, NULL}};
    static const experiment_def def = {"key_bias", NULL, OPT_MC | OPT_T | OPT_D | OPT_DK | OPT_DV,
                                       20261129UL, 400, extra, run};
    return experiment_main(&def, argc, argv);
}
