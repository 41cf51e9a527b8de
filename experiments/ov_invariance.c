/* ov_invariance - "The similarity is learned, and it is low rank"
 *
 * Claim: only the product W_OV = W_V W_O matters: the values move, the head's
 * output does not. For any invertible R (d_v x d_v), W_V R and R^{-1} W_O give
 * the same W_OV, hence the same contribution of the head, A X W_OV = O W_O,
 * while the value vectors V = X W_V change. Stronger: a head is fully
 * described by its circuits, (W_QK, u = W_K b_Q, W_OV, c = b_V W_O + b_O) with
 * biases; b_K is irrelevant, and W_Q, W_K, W_V, W_O, b_Q, b_V, b_O are not
 * determined individually.
 *
 * Measured (T = 16, d = 64, d_k = d_v = 16, X ~ N(0, 1), weights ~ N(0, 1/d);
 * 400 draws per point):
 *   1. cond(R) = 1 (Haar orthogonal), 10^0.5, .., 1e8 (circuitinv.h): the
 *      relative change of V (the claim: the values move; sqrt(2) predicted for
 *      an orthogonal R, as in qk_invariance) and of W_OV and Y = O W_O
 *      (identities: at most C cond(R) eps, C = 4 (T + d + 2 d_v); R^{-1} W_O
 *      by LU solves, qkov_reparam_ov).
 *   2. Two heads with the same circuits, without and with biases: the same
 *      output, other factors, and a negative control (twoheads.h).
 * Writes ov_invariance.csv (a row per cond(R)), ov_invariance_heads.csv (per case).
 */
#include "prelude.h"
#include "circuitinv.h"
#include "qkov.h"
#include "randmat.h"
#include "twoheads.h"

/* per draw, at a cond point */
#define STATS(X) X(C_V, "v", SW_MC) X(C_WOV, "wov", SW_ROUND(NULL)) X(C_Y, "y", SW_ROUND(NULL)) \
    X(C_UWOV, "wov_units", SW_ROUND("allowed_units")) X(C_UY, "y_units", SW_ROUND("allowed_units"))
SWEEP_STATS(STATS);

/* the allowed error C = 4 (T + d + 2 d_v), in units of cond(R) eps */
static double allowed(const sweep_point *pt) { return 4.0 * (double)(pt->T + pt->d + 2 * pt->dv); }
static const circuitinv_allowed_fn allowed_fn = allowed;

/* a draw's buffers (workset.h): X (T, d); W_Q, W_K (d, d_k); W_V (d, d_v); W_O (d_v, d);
 * R (d_v, d_v); WV2 (d, d_v); WO2 (d_v, d); WOV, WOV2 (d, d); Y1, Y2 (T, d); two head states */
enum { X, W_Q, W_K, W_V, W_O, R, WV2, WO2, WOV, WOV2, Y1, Y2, NMAT };

/* the head, then W_V -> W_V R, W_O -> R^{-1} W_O with cond(R) = pt->x */
static int draw(gsl_rng *rng, double *out, const sweep_point *pt, void *ws, const void *ctx)
{
    (void)ctx;
    workset *s = ws;
    gsl_matrix **m = s->m;
    double cond = pt->x;
    // the head: X ~ N(0, 1), W_Q, W_K, W_V, W_O ~ N(0, 1/d)
    randmat_head(rng, m[X], m[W_Q], m[W_K], m[W_V], m[W_O]);
    int rc = randmat_with_cond(rng, m[R], cond);
    // W_V' = W_V R,  W_O' = R^{-1} W_O  (LU solves, no explicit inverse)
    if (!rc) rc = qkov_reparam_ov(m[WV2], m[WO2], m[W_V], m[W_O], m[R]);
    // W_OV = W_V W_O  and  W_OV' = W_V' W_O'
    if (!rc) rc = qkov_ov(m[WOV], m[W_V], m[W_O]);
    if (!rc) rc = qkov_ov(m[WOV2], m[WV2], m[WO2]);
    // the head, before and after (no biases, scale 1): V = X W_V, O = A V
    head_params p1 = head_params_make(m[W_Q], m[W_K], m[W_V]);
    head_params p2 = head_params_make(m[W_Q], m[W_K], m[WV2]);
    if (!rc) rc = head_forward(&s->h[0], &p1, m[X], m[X]);
    if (!rc) rc = head_forward(&s->h[1], &p2, m[X], m[X]);
    // Y = O W_O, the head's contribution, before and after
    if (!rc) rc = mat_gemm(m[Y1], 1.0, s->h[0].O, 0, m[W_O], 0, 0.0);
    if (!rc) rc = mat_gemm(m[Y2], 1.0, s->h[1].O, 0, m[WO2], 0, 0.0);
    if (rc) return rc;
    // e = ||M' - M||_F / ||M||_F, and e / (cond(R) eps)
    double unit = cond * DBL_EPSILON;
    out[C_V] = mat_rel_diff(s->h[1].V, s->h[0].V);
    out[C_WOV] = mat_rel_diff(m[WOV2], m[WOV]);
    out[C_Y] = mat_rel_diff(m[Y2], m[Y1]);
    out[C_UWOV] = out[C_WOV] / unit;
    out[C_UY] = out[C_Y] / unit;
    return ATT_OK;
}

static int run(experiment *e)
{
    size_t d_v = e->o.dv ? e->o.dv : 16, d_k = e->o.dk ? e->o.dk : 16, d = e->o.d ? e->o.d : 64;
    if (d_k > d || d_v > d)
        return exp_usage("--dk %zu, --dv %zu: the circuits have rank d_k, d_v <= d = %zu", d_k, d_v, d);
    sweep_grid g;
    int st = circuitinv_grid(&g, d_v, 0.0);
    if (st) return st;
    sweep_def def = SWEEP_DEF(draw);
    def.work_mats = "T.d d.dk d.dk d.dv dv.d dv.dv d.dv dv.d d.d d.d T.d T.d", def.work_heads = "T.T.d.dk.dv T.T.d.dk.dv";
    circuitinv_def_allowed(&def, &allowed_fn);
    sweep_result r;
    if ((st = sweep_run(e, &g, &def, &r))) return st;
    const sweep_point *p0 = &r.pt[0];
    double C = allowed(p0), cmax = r.pt[r.npoints - 1].x;
    exp_meta(e, "allowed_units: %g", C);

    /* the values move (every draw with a non-orthogonal R; an orthogonal one too) ... */
    const stat_acc vm = sweep_merged_x_above(&r, C_V, 1.0);   /* cond(R) > 1 */
    double vmin = vm.min, worst[2] = {sweep_merged(&r, C_UWOV).max, sweep_merged(&r, C_UY).max};
    size_t total = sweep_merged(&r, C_V).n, moved = vm.n;
    if (moved) {
        exp_claim(e, "ovInvValueChangeMin", NAN, verdict_measure_exact(vmin, moved), verdict_rule_at_least(0.1),
                  "smallest relative change ||V' - V||_F / ||V||_F of the values over the draws "
                  "with cond(R) = %g .. %g", r.pt[1].x, cmax);
        exp_summary(e, "the values move: smallest ||V' - V|| / ||V|| %.4g over %zu draws with "
                    "cond(R) > 1 (the section: they change)", vmin, moved);
    }
    if (p0->dv >= 2 && p0->x == 1.0) {   /* sqrt(2) needs E tr R = 0: a Haar R of size >= 2 */
        exp_claim(e, "ovInvValueChangeOrth", M_SQRT2, sweep_measure(&r, 0, C_V),
                  verdict_rule_ci_within(0.98 * M_SQRT2, 1.02 * M_SQRT2), "mean relative change of the "
                  "values for a Haar orthogonal R, against the prediction sqrt(2), within 2%%");
        exp_summary_measure(e, "orthogonal R: mean value change", sweep_measure(&r, 0, C_V),
                            "prediction sqrt(2) = %.4f", M_SQRT2);
    }
    /* ... while W_OV and the head's output stay put up to C cond(R) eps */
    exp_identity(e, "ovInvWovErrMax", 0.0, verdict_measure_exact(worst[0], total), verdict_rule_at_most(C),
                 "largest relative change of W_OV, in units of cond(R) eps, over "
                 "cond(R) = %g .. %g (C = 4 (T + d + 2 d_v))", p0->x, cmax);
    char vmove[96];
    circuitinv_moved(vmove, sizeof vmove, "values", vmin, moved);
    exp_identity(e, "ovInvOutErrMax", 0.0, verdict_measure_exact(worst[1], total), verdict_rule_at_most(C),
                 "largest relative change of the head's output O W_O, in units of cond(R) eps%s", vmove);
    exp_headline(e);    /* the output stays put while the values move */
    exp_summary(e, "W_OV and the output stay put: worst %.3g and %.3g cond(R) eps (allowed %g)",
                worst[0], worst[1], C);
    sweep_result_free(&r);
    /* 2. two heads, the same circuits: the same output, with and without biases */
    return twoheads_check(e);
}

int main(int argc, char **argv)
{
    static const experiment_def def = {"ov_invariance", NULL,
                                       OPT_MC | OPT_T | OPT_D | OPT_DK | OPT_DV, 20261129UL, 400, NULL, run};
    return exp_main(&def, argc, argv);
}
