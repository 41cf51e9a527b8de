/* random_projections - "The naive version, where each token is its own query, key, and value"
 *
 * Claim: with two different random projections a token keeps only about 1/T
 * of its weight for itself: with Q = X W_Q, K = X W_K for independent random
 * W_Q, W_K, T E[a_ii] lies within [0.95, 1.05] at every T. About, or exactly?
 * The own score s_ii = x_i^T W_Q W_K^T x_i uses one token twice: E[s_ii^2] =
 * (1 + 2/d) E[s_ij^2], which for a soft softmax (second order) predicts
 *   T E[a_ii] - 1 = (1 - 1/T)(1 - 2/T) d_k c^4 / d + O(sd^4)   (lib/claims/rpexcess.h),
 * the sd -> 0 limit: measured to +-1% with control variates at score sd 0.5 .. 0.0625
 * (random_projections_soft.csv), claimed at the smallest, the departure reported.
 * Measured: X (T, d) ~ N(0, 1), W_Q, W_K (d, d_k) ~ N(0, c^2/d), S = Q K^T (no
 * 1/sqrt(d_k): score sd c^2 sqrt(d_k)); per draw, over the T rows, T a_ii,
 * T [argmax is self], s_ii^2 and s_ij^2 over d_k c^4, and the control T a'_ii
 * (own key replaced by a fresh token's: exactly 1/T). Three sweeps (sweep.h):
 *   main   d = 64, d_k = 16, c = --scale, T = 2, 3, 4, 8, ..., 256; --draws each
 *   width  T = 16, d_k = 4, c = 1, d = 4 .. 256, with control; --draws / 2
 *   scale  T = 16, d_k = 4, d = 16, 64, c^2 = 1/4 .. 8, with control; --draws / 2
 * and one heatmap draw: the main point (T, d, d_k, c = 1)'s draw 0, T = the
 * run's (first) T, at most 32 (default 12: the section's GPT-2 tokens).
 * --T --d --dk --scale --control run the main sweep only (T_control, T_excess
 * are 0 at points without the control).
 * Writes: random_projections.csv (main), _width.csv, _scale.csv (sweep.h
 * columns; then score_sd), _A.csv (panel,i,j,a,query,key), _soft.csv.
 */
#include "experiment.h"
#include "sweep.h"
#include "mat.h"
#include "rng.h"
#include "cvreg.h"
#include "rpexcess.h"
#include "selfweight.h"
#include "status.h"
#include "table.h"

#include <math.h>
#include <stdio.h>

#define STATS(X) X(S_TSELF, "T_self", SW_MC) X(S_TARGMAX, "T_argmax", SW_MC) X(S_TCONTROL, "T_control", SW_MC) \
                 X(S_TEXCESS, "T_excess", SW_MC) X(S_DIAG, "diag_sq_norm", SW_MC) X(S_OFF, "off_sq_norm", SW_MC)
SWEEP_STATS(STATS);

/* a sweep's own settings: the fresh-token control on or off, the draws per point */
typedef struct { int control; size_t draws; } rp_ctx;

/* one draw at (T, d, d_k, x = c): X, W_Q, W_K (and X'); S = (X W_Q)(X W_K)^T */
static int draw(double *out, gsl_rng *rng, const sweep_point *pt, void *work, const void *ctx)
{
    double T = (double)pt->T, v = (double)pt->dk * pow(pt->x, 4);   /* score variance d_k c^4 */
    selfweight_config c = {pt->T, pt->d, pt->dk, pt->x / sqrt((double)pt->d), ((const rp_ctx *)ctx)->control};
    double sw[SW_NSTAT];
    int st = selfweight_draw(&c, work, rng, sw);
    out[S_TSELF] = T * sw[SW_SELF];            // T (1/T) sum_i a_ii
    out[S_TARGMAX] = T * sw[SW_ARGMAX];        // T (1/T) #{i: s_ii > s_ij for all j != i}
    out[S_TCONTROL] = T * sw[SW_CONTROL];      // T (1/T) sum_i a'_ii (own key k_i -> k'_i)
    out[S_TEXCESS] = sw[SW_EXCESS];            // T (self_weight - control)
    out[S_DIAG] = sw[SW_DIAG_SQ] / v;          // (1/T) sum_i s_ii^2 / (d_k c^4)
    out[S_OFF] = sw[SW_OFF_SQ] / v;            // mean_{i != j} s_ij^2 / (d_k c^4)
    return st;
}

static void *work_alloc(const sweep_grid *g, const void *ctx)
{
    selfweight_config max = {sweep_max(g, AX_T), sweep_max(g, AX_D), sweep_max(g, AX_DK), 0.0, ((const rp_ctx *)ctx)->control};
    return selfweight_scratch_new(&max);
}
static size_t draws_of(const sweep_point *pt, const void *ctx)
{
    (void)pt;
    return ((const rp_ctx *)ctx)->draws;
}

static const table_col sd_col[] = {SWEEP_DERIVED(0, "score_sd", NAT_COMPUTED, NULL, NULL, NULL)};
/* score sd c^2 sqrt(d_k) */
static void derive(double *col, const sweep_point *pt, const stat_acc *a, const void *ctx)
{
    (void)a, (void)ctx;
    col[0] = pt->x * pt->x * sqrt((double)pt->dk);
}

/* the section's opening sentence in GPT-2's 12 tokens, then t13, t14, ...: names for random vectors */
static const char *const TOKENS[] = {"The", "animal", "didn", "'t", "cross", "the", "street",
                                     "because", "it", "was", "too", "tired"};
enum { HEAT_MAX = 32 };
typedef struct { const char *panel; size_t i, j; double a; const char *query, *key; } heat_row;
static const table_col heat_cols[] = {COL(heat_row, panel), COL(heat_row, i), COL(heat_row, j),
                                      COL(heat_row, a), COL(heat_row, query), COL(heat_row, key)};

/* A (T, T) raw and projected for the same X: the point (T, d, d_k, c = 1)'s draw 0 */
static int heatmap(const experiment *e, size_t T, size_t d, size_t dk)
{
    static heat_row rows[2 * HEAT_MAX * HEAT_MAX];
    static char names[HEAT_MAX][8];
    for (size_t i = 0; i < T; i++)
        if (i < 12) snprintf(names[i], sizeof names[i], "%s", TOKENS[i]);
        else snprintf(names[i], sizeof names[i], "t%zu", i + 1);
    sweep_point pt = {.T = T, .d = d, .dk = dk, .x = 1.0};
    gsl_rng *rng = sweep_rng(e, &pt);
    gsl_matrix *A[2] = {mat_new(T, T), mat_new(T, T)};
    int st = rng && A[0] && A[1] ? selfweight_heatmaps(rng, d, dk, A[0], A[1])
                                       : att_last_code() == ATT_EUSAGE ? ATT_EUSAGE : ATT_ERUNTIME;
    for (size_t n = 0; n < 2 * T * T && !st; n++) {
        size_t i = n % (T * T) / T, j = n % T;
        rows[n] = (heat_row){n < T * T ? "raw" : "projected", i + 1, j + 1, gsl_matrix_get(A[n / (T * T)], i, j),
                             names[i], names[j]};
    }
    if (!st) st = TABLE_WRITE(e->o.out_dir, "random_projections_A.csv", heat_cols, rows, 2 * T * T);
    mat_free(A[0]);
    mat_free(A[1]);
    if (rng) gsl_rng_free(rng);
    return st;
}

/* ---- the soft-softmax law of the excess (lib/claims/rpexcess.h) ----
 * T E[a_ii] - 1 = (1 - 1/T)(1 - 2/T) d_k c^4 / d + O(sd^4) at T = 16, d = 16, d_k = 4,
 * score sd = c^2 sqrt(d_k) = 0.5, 0.25, 0.125, 0.0625; measured with control variates
 * of known mean (first and third order: 0; the second-order term: the law). */
static const double SOFT_SD[] = {0.5, 0.25, 0.125, 0.0625};
enum { SIDE_T = 16, SIDE_DK = 4, SOFT_N = 4, SOFT_DRAWS = 50000 };
typedef struct { double sd, c, law, ratio, ratio_lo, ratio_hi, excess, excess_lo, excess_hi, departure; size_t draws; } soft_row;
static const table_col soft_cols[] = {
    COL(soft_row, sd), COL(soft_row, c), COL(soft_row, draws), COL(soft_row, law), COL_MC(soft_row, excess, "excess_lo", "excess_hi"),
    COL_MC(soft_row, excess_lo, "excess_lo", "excess_hi"), COL_MC(soft_row, excess_hi, "excess_lo", "excess_hi"), COL_MC(soft_row, ratio, "ratio_lo", "ratio_hi"), COL_MC(soft_row, ratio_lo, "ratio_lo", "ratio_hi"),
    COL_MC(soft_row, ratio_hi, "ratio_lo", "ratio_hi"), COL_MC(soft_row, departure, "ratio_lo", "ratio_hi")};

static int soft_law(experiment *e)
{
    static soft_row sr[SOFT_N];
    static double Y[SOFT_DRAWS], X[SOFT_DRAWS * 4];
    gsl_rng *rng = rng_new(e->o.rng_name, 0);
    if (!rng) return ATT_EUSAGE;
    int st = ATT_OK;
    for (size_t k = 0; k < SOFT_N && !st; k++) {
        double c = sqrt(SOFT_SD[k] / sqrt((double)SIDE_DK)), law = rpexcess_law(SIDE_T, 16, SIDE_DK, c), yh, V;
        gsl_rng_set(rng, rng_stream_seed(e->o.seed, 0x50F7, k));
        for (size_t n = 0; n < SOFT_DRAWS; n++) {
            double o[RPX_NOUT];
            rpexcess_draw(rng, SIDE_T, 16, SIDE_DK, c, o);
            Y[n] = o[0];
            X[4 * n] = o[1], X[4 * n + 1] = o[2] - law, X[4 * n + 2] = o[3], X[4 * n + 3] = o[4];
        }
        if ((st = cvreg_fit(Y, SOFT_DRAWS, 1, X, 4, &yh, &V))) break;
        double h = STAT_Z95 * sqrt(V);
        sr[k] = (soft_row){SOFT_SD[k], c, law, yh / law, (yh - h) / law, (yh + h) / law, yh, yh - h, yh + h,
                           (yh / law - 1.0) / (SOFT_SD[k] * SOFT_SD[k]), SOFT_DRAWS};
    }
    gsl_rng_free(rng);
    if (!st) st = TABLE_WRITE(e->o.out_dir, "random_projections_soft.csv", soft_cols, sr, SOFT_N);
    if (st) return st;
    const soft_row *a = &sr[0], *z = &sr[SOFT_N - 1];
    exp_reported(e, "rpSoftExcess", 1.0, measure_ci(a->ratio, a->ratio_lo, a->ratio_hi, a->draws),
                 "measured excess T E[a_ii] - 1 over the soft-softmax law (1 - 1/T)(1 - 2/T) d_k c^4 / d = %.4g at "
                 "score sd %g (T = %d, d = 16, d_k = %d; control variates): the law is the sd -> 0 limit", a->law,
                 a->sd, SIDE_T, SIDE_DK);
    exp_claim(e, "rpSoftLimit", 1.0, measure_ci(z->ratio, z->ratio_lo, z->ratio_hi, z->draws),
              rule_ci_within(0.98, 1.02), "the same ratio at score sd %g: -> 1 as sd -> 0 (a law off by 5%% would "
              "fail)", z->sd);
    exp_reported(e, "rpSoftDeparture", NAN, measure_exact(sr[SOFT_N - 2].departure, 1),
                 "fourth-order departure (ratio - 1) / sd^2 at score sd %g (%.3f at %g, %.3f at %g): the ratio is "
                 "1 + this sd^2 + ...", sr[SOFT_N - 2].sd, sr[1].departure, sr[1].sd, z->departure, z->sd);
    exp_summary(e, "the excess over 1/T is second order in the scores: measured / law %.4f at score sd %g "
                "(the section: about 1/T)", z->ratio, z->sd);
    return ATT_OK;
}

static double scale = 1.0;
static int control = 0;

static int run(experiment *e)
{
    /* scores have sd C^2 sqrt(d_k): keep them, their squares and N(0, C^2/d) finite */
    if (!(scale >= 1e-50 && scale <= 1e50))
        return exp_usage("--scale: must lie in [1e-50, 1e50], got %g", scale);
    const opts *o = &e->o;
    int restricted = o->T || o->d || o->dk || scale != 1.0 || control;
    static const size_t MAIN_T[] = {2, 3, 4, 8, 16, 32, 64, 128, 256}, WIDTH_D[] = {4, 8, 16, 32, 64, 128, 256},
                        SIDE_D[] = {16, 64}, ONE_T[] = {SIDE_T}, ONE_DK[] = {SIDE_DK}, MAIN_D[] = {64}, MAIN_DK[] = {16};
    const double C[] = {sqrt(0.25), sqrt(0.5), 1.0, sqrt(2.0), 2.0, sqrt(8.0)}, ONE[] = {1.0};
    rp_ctx mctx = {control, o->draws}, sctx = {1, o->draws / 2 ? o->draws / 2 : 1};
    sweep_grid g[3];
    for (int k = 0; k < 3; k++) sweep_grid_init(&g[k]);
    sweep_axis(&g[0], AX_T, 9, MAIN_T), sweep_axis(&g[0], AX_D, 1, MAIN_D), sweep_axis(&g[0], AX_DK, 1, MAIN_DK);
    sweep_axis_x(&g[0], "scale", 1, &scale);
    sweep_axis(&g[1], AX_T, 1, ONE_T), sweep_axis(&g[1], AX_D, 7, WIDTH_D), sweep_axis(&g[1], AX_DK, 1, ONE_DK);
    sweep_axis_x(&g[1], "scale", 1, ONE);
    sweep_axis(&g[2], AX_T, 1, ONE_T), sweep_axis(&g[2], AX_D, 2, SIDE_D), sweep_axis(&g[2], AX_DK, 1, ONE_DK);
    sweep_axis_x(&g[2], "scale", 6, C);
    static const char *const csv[3] = {"random_projections.csv", "random_projections_width.csv",
                                       "random_projections_scale.csv"};
    sweep_result r[3] = {{0}};
    int st = ATT_OK;
    for (int k = 0; k < (restricted ? 1 : 3) && !st; k++) {
        sweep_def def = SWEEP_DEF(draw);
        def.work_alloc = work_alloc, def.work_free = selfweight_scratch_delete, def.draws_of = draws_of;
        def.ctx = k ? &sctx : &mctx, def.csv = csv[k];
        def.nderived = 1, def.derived = sd_col, def.derive = derive;
        st = sweep_run(e, &g[k], &def, &r[k]);
    }
    if (st) goto done;
    const sweep_result *m = &r[0];
    size_t d = m->pt[0].d, dk = m->pt[0].dk, heat_T = m->pt[0].T < HEAT_MAX ? m->pt[0].T : HEAT_MAX;
    if (!st) st = heatmap(e, o->T ? heat_T : 12, d, dk);
    if (st) goto done;
    exp_meta(e, "main sweep: d = %zu, d_k = %zu, W ~ N(0, %g^2/d), draws %zu per T", d, dk, scale, o->draws);
    exp_meta(e, "d: %zu\nd_k: %zu\nscale: %g\nheatmap_T: %zu", d, dk, scale, o->T ? heat_T : 12);

    /* main sweep: T E[a_ii] within [0.95, 1.05] at every T; the macro on the T farthest from 1 */
    size_t worst = 0, wide = 0;
    for (size_t p = 0; p < m->npoints; p++) {
        measure a = sweep_measure(m, p, S_TSELF), w = sweep_measure(m, worst, S_TSELF), h = sweep_measure(m, wide, S_TSELF);
        if (fabs(a.value - 1.0) > fabs(w.value - 1.0)) worst = p;
        if (a.ci_high - a.ci_low > h.ci_high - h.ci_low) wide = p;
    }
    for (size_t p = 0; p < m->npoints; p++) {
        exp_claim(e, p == worst ? "rpTMeanWorst" : "", 1.0, sweep_measure(m, p, S_TSELF), rule_ci_within(0.95, 1.05),
                  "T times the mean self-weight at T = %zu%s (d = %zu, d_k = %zu, W ~ N(0, %g/d))", m->pt[p].T,
                  p == worst ? ", the T farthest from 1" : "", d, dk, scale * scale);
        if (p == worst) exp_headline(e);
    }
    if (m->npoints > 1)
        exp_summary_measure(e, "T x mean self-weight", sweep_measure(m, worst, S_TSELF), "the section: about 1/T, "
                            "i.e. 1; T = %zu, the farthest from 1 of the %zu T run", m->pt[worst].T, m->npoints);
    else
        exp_summary_measure(e, "T x mean self-weight", sweep_measure(m, worst, S_TSELF),
                            "the section: about 1/T, i.e. 1; T = %zu, the only T run", m->pt[worst].T);
    exp_control(e, "rpRelHalfWidth", NAN, sweep_measure(m, wide, S_TSELF), rule_precision(0.01),
                "precision: largest CI half-width of T times the mean self-weight (at T = %zu), "
                "i.e. relative to 1/T", m->pt[wide].T);
    size_t last = m->npoints - 1;
    double e2 = 1.0 + 2.0 / (double)d;   /* E[s_ii^2] / (d_k c^4) */
    exp_control(e, "rpSelfScoreSpread", e2, sweep_measure(m, last, S_DIAG), rule_ci_within(0.99 * e2, 1.01 * e2),
                "E[s_ii^2] / (d_k c^4), exactly 1 + 2/d = %.5g (the others' E[s_ij^2] / (d_k c^4) "
                "= 1), within 1%% (T = %zu, d = %zu)", e2, m->pt[last].T, d);
    if (restricted) goto done;

    /* the control is exactly 1/T: the largest |T mean a'_ii - 1| in standard errors */
    double zmax = 0.0;
    const sweep_point *zp = &r[1].pt[0];
    for (int k = 1; k < 3; k++)
        for (size_t p = 0; p < r[k].npoints; p++) {
            const stat_acc *a = sweep_acc(&r[k], p, S_TCONTROL);
            double z = fabs(a->mean - 1.0) / stat_se(a);
            if (z > zmax) zmax = z, zp = &r[k].pt[p];
        }
    exp_control(e, "rpControlZ", 0.0, measure_ci(zmax, NAN, NAN, zp->draws), rule_at_most(4.0),
                "control (own key replaced by a fresh token's key, exactly 1/T): largest |T mean a'_ii - 1| / se "
                "over the %zu width and scale points (at d = %zu, c^2 = %g)", r[1].npoints + r[2].npoints, zp->d,
                zp->x * zp->x);
    exp_claim(e, "rpExcessSmallD", NAN, sweep_measure(&r[1], 0, S_TEXCESS), rule_ci_above(0.0),
              "excess T mean (a_ii - a'_ii) over the exact-1/T control at d = %zu (T = %d, d_k = %d, "
              "c = 1): not exactly 1/T", r[1].pt[0].d, SIDE_T, SIDE_DK);
    st = soft_law(e);
done:
    for (int k = 0; k < 3; k++) sweep_result_free(&r[k]);
    return st;
}

int main(int argc, char **argv)
{
    static const opt_spec extra[] = {
        {"scale", OPT_DOUBLE, &scale, "C", "weights N(0, C^2/d): scores have sd C^2 sqrt(d_k) (default 1; 1e-50 .. 1e50)"},
        {"control", OPT_FLAG, &control, NULL, "also compute the fresh-token control (main sweep)"},
        {NULL, 0, NULL, NULL, NULL}};
    static const experiment_def def = {"random_projections", NULL,
                                       OPT_MC | OPT_T | OPT_D | OPT_DK | OPT_LISTS, 20261129UL, 24576, extra, run};
    return experiment_main(&def, argc, argv);
}
