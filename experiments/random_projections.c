/* random_projections - "The naive version, where each token is its own query, key, and value"
 *
 * Claim: with two different random projections a token keeps only about 1/T of its weight
 * for itself: Q = X W_Q, K = X W_K, W_Q, W_K independent: T E[a_ii] in [0.95, 1.05] at every T.
 * About, not exactly: s_ii uses one token twice, E[s_ii^2] = (1 + 2/d) E[s_ij^2] (the excess's
 * soft-softmax law: lib/claims/rpexcess.h, measured in rptables.h). X (T, d) ~ N(0, 1), W (d, d_k)
 * ~ N(0, c^2/d), S = Q K^T; per draw T a_ii, T [argmax is self], s_ii^2 and s_ij^2 over d_k c^4,
 * the control T a'_ii (own key replaced by a fresh token's: exactly 1/T). T a_ii is averaged with
 * its antithetic draw -W_K (every score flipped, same law: selfweight_self_flipped), which
 * cuts the draws the precision target needs about 2.8-fold at T = 256 (T = 2 plain: the pair is
 * exactly 1 there); T_excess stays the plain T (a_ii - a'_ii). Sweeps (rpsweep.h): main
 * (T = 2 .. 256; draws per T for the CI the precision control needs, exactly --draws when given;
 * --T --d --dk --scale --control run it alone), width (d) and scale (c), both with the control.
 */
#include "prelude.h"
#include "rpsweep.h"
#include "rptables.h"
#include "selfweight.h"

/* the control's two statistics last: a sweep without the control has NSTAT - 2 columns */
#define STATS(X) X(S_TSELF, "T_self", SW_MC) X(S_TARGMAX, "T_argmax", SW_MC) X(S_DIAG, "diag_sq_norm", SW_MC) \
                 X(S_OFF, "off_sq_norm", SW_MC) X(S_TCONTROL, "T_control", SW_MC) X(S_TEXCESS, "T_excess", SW_MC)
SWEEP_STATS(STATS);

static const double PRECISION = 0.01;   /* asked of T E[a_ii] at every main-sweep T */

/* one draw at (T, d, d_k, x = c): X, W_Q, W_K (and X'); S = (X W_Q)(X W_K)^T, computed by
 * selfweight_projected (lib/claims/selfweight.c) */
static int draw(gsl_rng *rng, double *out, const sweep_point *pt, void *work, const void *ctx)
{
    double T = (double)pt->T, v = (double)pt->dk * pow(pt->x, 4);   /* score variance d_k c^4 */
    selfweight_config c = {pt->T, pt->d, pt->dk, pt->x / sqrt((double)pt->d), ((const rpsweep_ctx *)ctx)->control};
    double sw[SW_NSTAT];
    int st = selfweight_draw(rng, &c, work, sw);
    /* the antithetic pair: -W_K flips every score, same law; T (a_ii(S) + a_ii(-S)) / 2.
     * Not at T = 2, where the pair is exactly 1 (a_11(S) + a_11(-S) = 1): the plain draw
     * keeps that point a Monte Carlo check */
    double flip = NAN;
    if (!st && pt->T != 2) st = selfweight_self_flipped(((const selfweight_work *)work)->S, &flip);
    if (st) return st;
    out[S_TSELF] = T * (pt->T == 2 ? sw[SW_SELF] : 0.5 * (sw[SW_SELF] + flip));   // T mean a_ii
    out[S_TARGMAX] = T * sw[SW_ARGMAX];        // T (1/T) #{i: s_ii > s_ij for all j != i}
    out[S_DIAG] = sw[SW_DIAG_SQ] / v;          // (1/T) sum_i s_ii^2 / (d_k c^4)
    out[S_OFF] = sw[SW_OFF_SQ] / v;            // mean_{i != j} s_ij^2 / (d_k c^4)
    if (!c.control) return st;
    out[S_TCONTROL] = T * sw[SW_CONTROL];      // T (1/T) sum_i a'_ii (own key k_i -> k'_i)
    out[S_TEXCESS] = sw[SW_EXCESS];            // T (self_weight - control)
    return st;
}

static double scale = 1.0;   /* --scale */
static int control = 0;      /* --control */
static const opt_spec options[] = {
    {"scale", OPT_DOUBLE, &scale, "C", "weights N(0, C^2/d): scores have sd C^2 sqrt(d_k) (default 1; 1e-50 .. 1e50)"},
    {"control", OPT_FLAG, &control, NULL, "also compute the fresh-token control (main sweep)"},
    {"draws", OPT_SIZE, NULL, NULL, "per T, the draws the CI targets need after a 1024-draw pilot,\n"
     "                     at most 4 x 24576 = 98304 (the CSV's draws column); the width and\n"
     "                     scale sweeps 12288; --draws N: N per T (N/2 in the other sweeps)"},
    {NULL, 0, NULL, NULL, NULL}};

static int run(experiment *e)
{
    /* scores have sd C^2 sqrt(d_k): keep them, their squares and N(0, C^2/d) finite */
    if (!(scale >= 1e-50 && scale <= 1e50))
        return exp_usage("--scale: must lie in [1e-50, 1e50], got %g", scale);
    const opts *o = &e->o;
    int restricted = o->T || o->d || o->dk || scale != 1.0 || control;
    sweep_grid g[RPSWEEP_N];
    rpsweep_ctx ctx[2];
    rpsweep_init(g, ctx, o, scale, control);
    sweep_result r[RPSWEEP_N] = {{0}};
    int st = ATT_OK;
    for (int k = 0; k < (restricted ? 1 : RPSWEEP_N) && !st; k++) {   /* main, width, scale */
        sweep_def def = SWEEP_DEF(draw);
        rpsweep_def(&def, k, ctx);
        def.nstats = ctx[k ? 1 : 0].control ? NSTAT : NSTAT - 2;
        /* main: T E[a_ii] to 0.9 x its precision bound; E[s_ii^2] / (d_k c^4) to 0.004 (its window 0.0103) */
        sweep_ci_target ci = {RPSWEEP_PILOT, 4 * o->draws, {{S_TSELF, 0.9 * PRECISION}, {S_DIAG, 0.004}}, rpsweep_target_at};
        if (k == 0) def.ci = ci;
        st = sweep_run(e, &g[k], &def, &r[k]);
    }
    const sweep_result *m = &r[0];
    if (st) goto done;
    if ((st = rpsweep_side_tables(e, m, scale, PRECISION))) goto done;
    size_t d = m->pt[0].d, dk = m->pt[0].dk;

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
    measure aw = sweep_measure(m, worst, S_TSELF);    /* the same mean, / T: a_ii itself */
    double Tw = (double)m->pt[worst].T;
    aw.value /= Tw, aw.ci_low /= Tw, aw.ci_high /= Tw;
    exp_summary_measure(e, "mean self-weight a_ii", aw, "1/T = %.4g", 1.0 / Tw);
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
    for (int k = 1; k < RPSWEEP_N; k++)
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
              "c = 1): not exactly 1/T", r[1].pt[0].d, RPSWEEP_SIDE_T, RPSWEEP_SIDE_DK);
    /* the excess is second order in the scores: the soft-softmax law, measured / law -> 1 (rptables.h) */
    st = rptables_soft_verdicts(e);
done:
    for (int k = 0; k < RPSWEEP_N; k++) sweep_result_free(&r[k]);
    return st;
}

int main(int argc, char **argv)
{
    static const experiment_def def = {"random_projections", NULL, OPT_MC | OPT_T | OPT_D | OPT_DK | OPT_LISTS,
                                       20261129UL, 24576, options, run};
    return exp_main(&def, argc, argv);
}
