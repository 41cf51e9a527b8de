/* random_projections - "The naive version, where each token is its own query, key, and value"
 *
 * Claim: with two different random projections a token keeps only about 1/T of its weight
 * for itself: Q = X W_Q, K = X W_K, W_Q, W_K independent: T E[a_ii] in [0.95, 1.05] at every T.
 * About, not exactly: s_ii uses one token twice, E[s_ii^2] = (1 + 2/d) E[s_ij^2] (the excess's
 * soft-softmax law: lib/claims/rpexcess.h, measured in rptables.h). X (T, d) ~ N(0, 1), W (d, d_k)
 * ~ N(0, c^2/d), S = Q K^T; per draw T a_ii, T [argmax is self], s_ii^2 and s_ij^2 over d_k c^4,
 * the control T a'_ii (own key replaced by a fresh token's: exactly 1/T). Sweeps (sweep.h):
 *   main   d = 64, d_k = 16, c = --scale, T = 2 .. 256, draws per T for the CI the precision
 *          control needs (sweep_ci_target; exactly --draws when given); --T --d --dk --scale
 *          --control run it alone (T_control, T_excess columns only with --control)
 *   width  T = 16, d_k = 4, d = 4 .. 256;  scale  d = 16, 64, c^2 = 1/4 .. 8: control on, --draws / 2
 */
#include "exp.h"
#include "sweep.h"
#include "rptables.h"
#include "selfweight.h"
#include "att.h"

#include <math.h>

/* the control's two statistics last: a sweep without the control has NSTAT - 2 columns */
#define STATS(X) X(S_TSELF, "T_self", SW_MC) X(S_TARGMAX, "T_argmax", SW_MC) X(S_DIAG, "diag_sq_norm", SW_MC) \
                 X(S_OFF, "off_sq_norm", SW_MC) X(S_TCONTROL, "T_control", SW_MC) X(S_TEXCESS, "T_excess", SW_MC)
SWEEP_STATS(STATS);

/* a sweep's own settings: the fresh-token control on or off, the draws per point, the last T */
typedef struct { int control; size_t draws, last_T; } rp_ctx;
/* the width and scale sweeps' T, d_k; the precision asked of T E[a_ii] at every main-sweep T */
enum { SIDE_T = 16, SIDE_DK = 4, PILOT = 1024 };
static const double PRECISION = 0.01;

/* one draw at (T, d, d_k, x = c): X, W_Q, W_K (and X'); S = (X W_Q)(X W_K)^T */
static int draw(gsl_rng *rng, double *out, const sweep_point *pt, void *work, const void *ctx)
{
    double T = (double)pt->T, v = (double)pt->dk * pow(pt->x, 4);   /* score variance d_k c^4 */
    selfweight_config c = {pt->T, pt->d, pt->dk, pt->x / sqrt((double)pt->d), ((const rp_ctx *)ctx)->control};
    double sw[SW_NSTAT];
    int st = selfweight_draw(rng, &c, work, sw);
    out[S_TSELF] = T * sw[SW_SELF];            // T (1/T) sum_i a_ii
    out[S_TARGMAX] = T * sw[SW_ARGMAX];        // T (1/T) #{i: s_ii > s_ij for all j != i}
    out[S_DIAG] = sw[SW_DIAG_SQ] / v;          // (1/T) sum_i s_ii^2 / (d_k c^4)
    out[S_OFF] = sw[SW_OFF_SQ] / v;            // mean_{i != j} s_ij^2 / (d_k c^4)
    if (!c.control) return st;
    out[S_TCONTROL] = T * sw[SW_CONTROL];      // T (1/T) sum_i a'_ii (own key k_i -> k'_i)
    out[S_TEXCESS] = sw[SW_EXCESS];            // T (self_weight - control)
    return st;
}

/* scratch for the grid's largest point; the sweep's draws per point (when no CI target applies) */
static void *work_alloc(const sweep_grid *g, const void *ctx)
{
    selfweight_config max = {sweep_max(g, AX_T), sweep_max(g, AX_D), sweep_max(g, AX_DK), 0.0, ((const rp_ctx *)ctx)->control};
    return selfweight_scratch_new(&max);
}
static size_t draws_of(const sweep_point *pt, const void *ctx) { return (void)pt, ((const rp_ctx *)ctx)->draws; }
/* the CI targets: T E[a_ii] at every T, E[s_ii^2] / (d_k c^4) at the last T (its control's point) */
static double target_at(const sweep_point *pt, size_t k, double hw, const void *ctx)
{
    return k == 0 || pt->T == ((const rp_ctx *)ctx)->last_T ? hw : 0.0;
}

static const table_col sd_col[] = {SWEEP_DERIVED(0, "score_sd", NAT_COMPUTED, NULL, NULL, NULL)};
/* score sd c^2 sqrt(d_k) */
static void derive(double *col, const sweep_point *pt, const stat_acc *a, const void *ctx)
{
    (void)a, (void)ctx, col[0] = pt->x * pt->x * sqrt((double)pt->dk);
}

/* the soft-softmax law (rptables.h): measured / law -> 1 as the score sd -> 0 */
static int soft_law(experiment *e)
{
    rpt_soft_row sr[RPT_SOFT_N];
    int st;
    if ((st = rptables_soft_law(e, sr))) return st;
    const rpt_soft_row *a = &sr[0], *z = &sr[RPT_SOFT_N - 1];
    exp_reported(e, "rpSoftExcess", 1.0, verdict_measure_ci(a->ratio, a->ratio_lo, a->ratio_hi, a->draws),
                 "measured excess T E[a_ii] - 1 over the soft-softmax law (1 - 1/T)(1 - 2/T) d_k c^4 / d = %.4g at "
                 "score sd %g (T = %d, d = 16, d_k = %d; control variates): the law is the sd -> 0 limit", a->law,
                 a->sd, RPT_SOFT_T, RPT_SOFT_DK);
    exp_claim(e, "rpSoftLimit", 1.0, verdict_measure_ci(z->ratio, z->ratio_lo, z->ratio_hi, z->draws),
              verdict_rule_ci_within(0.98, 1.02), "the same ratio at score sd %g: -> 1 as sd -> 0 (a law off by 5%% would "
              "fail)", z->sd);
    exp_reported(e, "rpSoftDeparture", NAN, verdict_measure_exact(sr[RPT_SOFT_N - 2].departure, 1),
                 "fourth-order departure (ratio - 1) / sd^2 at score sd %g (%.3f at %g, %.3f at %g): the ratio is "
                 "1 + this sd^2 + ...", sr[RPT_SOFT_N - 2].sd, sr[1].departure, sr[1].sd, z->departure, z->sd);
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
    rp_ctx mctx = {control, o->draws, o->T_list.n ? o->T_list.v[o->T_list.n - 1] : MAIN_T[8]},
           sctx = {1, o->draws / 2 ? o->draws / 2 : 1, 0};
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
    for (int k = 0; k < (restricted ? 1 : 3) && !st; k++) {   /* main, width, scale */
        sweep_def def = SWEEP_DEF(draw);
        def.work_alloc = work_alloc, def.work_free = selfweight_scratch_delete, def.draws_of = draws_of;
        def.ctx = k ? &sctx : &mctx, def.csv = csv[k];
        def.nderived = 1, def.derived = sd_col, def.derive = derive;
        def.nstats = (k ? &sctx : &mctx)->control ? NSTAT : NSTAT - 2;
        /* main: T E[a_ii] to 0.9 x its precision bound; E[s_ii^2] / (d_k c^4) to 0.004 (its window 0.0103) */
        sweep_ci_target ci = {PILOT, 4 * o->draws, {{S_TSELF, 0.9 * PRECISION}, {S_DIAG, 0.004}}, target_at};
        if (k == 0) def.ci = ci;
        st = sweep_run(e, &g[k], &def, &r[k]);
    }
    const sweep_result *m = &r[0];
    if (st) goto done;
    size_t d = m->pt[0].d, dk = m->pt[0].dk, heat_T = m->pt[0].T < RPT_HEAT_MAX ? m->pt[0].T : RPT_HEAT_MAX;
    if ((st = rptables_heatmap(e, o->T ? heat_T : 12, d, dk))) goto done;
    exp_meta(e, "main sweep: d = %zu, d_k = %zu, W ~ N(0, %g^2/d); draws per T: the draws column (--draws %zu when "
             "given, else for 95%% CI half-widths %g of T E[a_ii] and 0.004 of E[s_ii^2] / (d_k c^4) from a %d-draw "
             "pilot, at most %zu)", d, dk, scale, o->draws, 0.9 * PRECISION, PILOT, 4 * o->draws);
    exp_meta(e, "d: %zu\nd_k: %zu\nscale: %g\nheatmap_T: %zu", d, dk, scale, o->T ? heat_T : 12);

    /* main sweep: T E[a_ii] within [0.95, 1.05] at every T; the macro on the T farthest from 1 */
    size_t worst = 0, wide = 0;
    for (size_t p = 0; p < m->npoints; p++) {
        measure a = sweep_measure(m, p, S_TSELF), w = sweep_measure(m, worst, S_TSELF), h = sweep_measure(m, wide, S_TSELF);
        if (fabs(a.value - 1.0) > fabs(w.value - 1.0)) worst = p;
        if (a.ci_high - a.ci_low > h.ci_high - h.ci_low) wide = p;
    }
    for (size_t p = 0; p < m->npoints; p++) {
        exp_claim(e, p == worst ? "rpTMeanWorst" : "", 1.0, sweep_measure(m, p, S_TSELF), verdict_rule_ci_within(0.95, 1.05),
                  "T times the mean self-weight at T = %zu%s (d = %zu, d_k = %zu, W ~ N(0, %g/d))", m->pt[p].T,
                  p == worst ? ", the T farthest from 1" : "", d, dk, scale * scale);
        if (p == worst) exp_headline(e);
    }
    exp_summary_measure(e, "T x mean self-weight", sweep_measure(m, worst, S_TSELF), "the section: about 1/T, i.e. 1; "
                        "T = %zu, %s", m->pt[worst].T, m->npoints > 1 ? "the farthest from 1 of the T run" : "the only T run");
    exp_control(e, "rpRelHalfWidth", NAN, sweep_measure(m, wide, S_TSELF), verdict_rule_precision(PRECISION),
                "precision: largest CI half-width of T times the mean self-weight (at T = %zu), "
                "i.e. relative to 1/T", m->pt[wide].T);
    size_t last = m->npoints - 1;
    double e2 = 1.0 + 2.0 / (double)d;   /* E[s_ii^2] / (d_k c^4) */
    exp_control(e, "rpSelfScoreSpread", e2, sweep_measure(m, last, S_DIAG), verdict_rule_ci_within(0.99 * e2, 1.01 * e2),
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
    exp_control(e, "rpControlZ", 0.0, verdict_measure_ci(zmax, NAN, NAN, zp->draws), verdict_rule_at_most(4.0),
                "control (own key replaced by a fresh token's key, exactly 1/T): largest |T mean a'_ii - 1| / se "
                "over the %zu width and scale points (at d = %zu, c^2 = %g)", r[1].npoints + r[2].npoints, zp->d,
                zp->x * zp->x);
    exp_claim(e, "rpExcessSmallD", NAN, sweep_measure(&r[1], 0, S_TEXCESS), verdict_rule_ci_above(0.0),
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
    return exp_main(&def, argc, argv);
}
