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
 *   1. cond(R) = 1 (Haar orthogonal), 10^0.5, .., 1e8 (invariance.h): the
 *      relative change of V (the claim: the values move; sqrt(2) predicted for
 *      an orthogonal R, as in qk_invariance) and of W_OV and Y = O W_O
 *      (identities: at most C cond(R) eps, C = 4 (T + d + 2 d_v); R^{-1} W_O
 *      by LU solves, qkov_reparam_ov).
 *   2. Two heads with the same circuits, without and with biases: the same
 *      output, other factors, and a negative control (two_heads below).
 * Writes ov_invariance.csv (a row per cond(R)), ov_invariance_heads.csv (per case).
 */
#include "prelude.h"
#include "invariance.h"
#include "qkov.h"
#include "randmat.h"

/* per draw, at a cond point */
#define STATS(X) X(C_V, "v") X(C_WOV, "wov") X(C_Y, "y") X(C_UWOV, "wov_units") \
    X(C_UY, "y_units")
SWEEP_STATS(STATS);

/* the allowed error C = 4 (T + d + 2 d_v), in units of cond(R) eps */
static double allowed(const sweep_point *pt) { return 4.0 * (double)(pt->T + pt->d + 2 * pt->dv); }
static const invariance_allowed_fn allowed_fn = allowed;

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

/* ---- 2. a head is its circuits (W_QK, u = W_K b_Q, W_OV, c = b_V W_O + b_O) ---- */

enum { NHEADS = 2 };   /* two heads without, with biases */
/* per draw: the control: without biases it equals y (zero up to rounding,
 * below 1e-10); with them it depends on head 2's SVD, whose signs the BLAS
 * kernel picks: compared as a training result (SW_TRAIN_ROUND) */
#define HEAD_STATS(X) X(H_Y, "y") X(H_UY, "y_units") X(H_WQ, "wq") X(H_WV, "wv") \
    X(H_CTRL, "control")
SWEEP_STATS_AS(HEAD_STATS, NHSTAT, head_stat_names);
static const char *const head_cases[NHEADS] = {"none", "b_Q b_K b_V b_O"};

/* the allowed error C2 = 16 (T + 2d + d_k + d_v), in units of eps */
static double heads_allowed(const sweep_point *pt)
{
    return 16.0 * (double)(pt->T + 2 * pt->d + pt->dk + pt->dv);
}
static const invariance_allowed_fn heads_allowed_fn = heads_allowed;

/* a draw's buffers (workset.h): X (T, d); W_Q, W_K (d, d_k); W_V (d, d_v); W_O (d_v, d);
 * WQ2, WK2 (d, d_k); WV2 (d, d_v); WO2 (d_v, d); Y1, Y2 (T, d); b_Q, b_K (d_k), b_V (d_v),
 * b_O (d), and the same for head 2; two head states */
enum { HX, HW_Q, HW_K, HW_V, HW_O, HWQ2, HWK2, HWV2, HWO2, HY1, HY2, NHMAT };
enum { bQ, bK, bV, bO, bQ2, bK2, bV2, bO2, NVEC };

/* the head, then head 2 rebuilt from head 1's (W_QK, u, W_OV, c) alone; biases in case 1 */
static int heads_draw(gsl_rng *rng, double *out, const sweep_point *pt, void *ws, const void *ctx)
{
    (void)ctx;
    workset *s = ws;
    gsl_matrix **m = s->m;
    gsl_vector **v = s->v;
    int bias = pt->kase == 1;
    // the head: X ~ N(0, 1), W_Q, W_K, W_V, W_O ~ N(0, 1/d)
    randmat_head(rng, m[HX], m[HW_Q], m[HW_K], m[HW_V], m[HW_O]);
    for (int k = 0; k < NVEC; k++) mat_vec_randn(rng, v[k], 1.0);   /* b_K2, b_V2: free choices */
    qkov_head h1 = {m[HW_Q], m[HW_K], m[HW_V], m[HW_O], v[bQ], v[bK], v[bV], v[bO]};
    qkov_head h2 = {m[HWQ2], m[HWK2], m[HWV2], m[HWO2], v[bQ2], v[bK2], v[bV2], v[bO2]};
    if (!bias) {
        h1.b_Q = h1.b_K = h1.b_V = h1.b_O = NULL;
        h2.b_Q = h2.b_K = h2.b_V = h2.b_O = NULL;
    }
    // W_Q2 W_K2^T = W_QK, W_V2 W_O2 = W_OV (SVD), W_K2 b_Q2 = W_K b_Q, b_V2 W_O2 + b_O2 = c
    int rc = qkov_rebuild(&h2, &h1);
    // y_i = o_i W_O + b_O of both heads
    if (!rc) rc = qkov_head_output(m[HY1], &h1, m[HX], &s->h[0]);
    if (!rc) rc = qkov_head_output(m[HY2], &h2, m[HX], &s->h[1]);
    if (rc) return rc;
    out[H_Y] = mat_rel_diff(m[HY2], m[HY1]);
    out[H_UY] = out[H_Y] / DBL_EPSILON;
    out[H_WQ] = mat_rel_diff(m[HWQ2], m[HW_Q]);
    out[H_WV] = mat_rel_diff(m[HWV2], m[HW_V]);
    // negative control: head 2 with b_Q untransformed (W_K b_Q not kept)
    h2.b_Q = h1.b_Q;
    if ((rc = qkov_head_output(m[HY2], &h2, m[HX], &s->h[1]))) return rc;
    out[H_CTRL] = mat_rel_diff(m[HY2], m[HY1]);
    return ATT_OK;
}

/* 2. Head 2 rebuilt from head 1's (W_QK, u, W_OV, c) alone by the SVD (qkov_rebuild), with a
 * fresh b_K, a fresh b_V and b_O = c - b_V W_O; at the head sizes of invariance_grid_head
 * (--T, --d, --dk, --dv), without and with biases, X ~ N(0, 1), weights ~ N(0, 1/d), biases
 * ~ N(0, 1): ov_invariance_heads.csv (a row per case). */
static int two_heads(experiment *e)
{
    sweep_grid gh;
    invariance_grid_head(&gh);
    sweep_axis_cases(&gh, "biases", NHEADS, head_cases);
    sweep_def def = SWEEP_DEF_AS(heads_draw, NHSTAT, head_stat_names);
    def.work_mats = "T.d d.dk d.dk d.dv dv.d d.dk d.dk d.dv dv.d T.d T.d";
    def.work_vecs = "dk dk dv d dk dk dv d";
    def.work_heads = "T.T.d.dk.dv T.T.d.dk.dv";
    def.csv = "ov_invariance_heads.csv";
    invariance_def_allowed(&def, &heads_allowed_fn);
    sweep_result r = {0};
    int st = ATT_OK;
    if ((st = sweep_run(e, &gh, &def, &r))) goto done;
    double C2 = heads_allowed(&r.pt[0]);
    const char *macro_y[NHEADS] = {"ovInvHeadsErr", "ovInvHeadsBiasErr"};
    const char *what[NHEADS] = {"without biases",
                                "with biases (u = W_K b_Q and c = b_V W_O + b_O kept)"};
    for (size_t h = 0; h < NHEADS; h++) {
        const stat_acc *a = sweep_acc(&r, h, 0);
        verdict_identity(e, macro_y[h], 0.0, verdict_measure_exact(a[H_UY].max, a[H_UY].n),
                     verdict_rule_at_most(C2),
                     "two heads with the same W_QK and W_OV, %s: largest relative output "
                     "difference in units of eps (C2 = 16 (T + 2d + d_k + d_v))", what[h]);
        verdict_control(e, h ? "ovInvHeadsBiasFactorChange" : "ovInvHeadsFactorChange", NAN,
                    verdict_measure_exact(fmin(a[H_WQ].min, a[H_WV].min), a[H_WQ].n),
                    verdict_rule_at_least(0.1),
                    "the two heads' factors differ, %s: smallest relative difference of W_Q or W_V",
                    what[h]);
    }
    experiment_summary(
        e,
        "a head is its W_QK and W_OV: two heads with other factors differ by at most "
        "%.3g eps in output (allowed %g)",
        fmax(sweep_acc(&r, 0, H_UY)->max, sweep_acc(&r, 1, H_UY)->max), C2);
    if (r.pt[0].T >= 2)   /* with one key the softmax ignores every score: nothing to tell */
        verdict_control(e, "ovInvBiasControl", NAN,
                    verdict_measure_as(sweep_measure(&r, 1, H_CTRL), NAT_TRAINING),
                    verdict_rule_ci_above(0.01),
                    "control: head 2 keeps b_Q untransformed (W_K b_Q not kept): mean relative "
                    "output difference");
done:
    sweep_result_free(&r);
    return st;
}

/* ---- the run: 1. the sweep over cond(R), then 2. the two heads ---- */

static int run(experiment *e)
{
    size_t d_v = e->o.dv ? e->o.dv : 16, d_k = e->o.dk ? e->o.dk : 16, d = e->o.d ? e->o.d : 64;
    if (d_k > d || d_v > d)
        return usage_error("--dk %zu, --dv %zu: the circuits have rank d_k, d_v <= d = %zu", d_k,
                         d_v, d);
    sweep_result r = {0};
    int st = ATT_OK;
    sweep_grid g;
    if ((st = invariance_grid(&g, d_v, 0.0))) goto done;
    sweep_def def = SWEEP_DEF(draw);
    def.work_mats = "T.d d.dk d.dk d.dv dv.d dv.dv d.dv dv.d d.d d.d T.d T.d";
    def.work_heads = "T.T.d.dk.dv T.T.d.dk.dv";
    invariance_def_allowed(&def, &allowed_fn);
    if ((st = sweep_run(e, &g, &def, &r))) goto done;
    const sweep_point *p0 = &r.pt[0];
    double C = allowed(p0), cmax = r.pt[r.npoints - 1].x;
    experiment_meta(e, "allowed_units: %g", C);

    /* the values move (every draw with a non-orthogonal R; an orthogonal one too) ... */
    const stat_acc vm = sweep_merged_x_above(&r, C_V, 1.0);   /* cond(R) > 1 */
    double vmin = vm.min;
    double worst[2] = {sweep_merged(&r, C_UWOV).max, sweep_merged(&r, C_UY).max};
    size_t total = sweep_merged(&r, C_V).n, moved = vm.n;
    if (moved) {
        verdict_claim(e, "ovInvValueChangeMin", NAN, verdict_measure_exact(vmin, moved),
                  verdict_rule_at_least(0.1),
                  "smallest relative change ||V' - V||_F / ||V||_F of the values over the draws "
                  "with cond(R) = %g .. %g", r.pt[1].x, cmax);
        experiment_summary(e,
                           "the values move: smallest ||V' - V|| / ||V|| %.4g over %zu draws with "
                           "cond(R) > 1 (the section: they change)",
                           vmin, moved);
    }
    if (p0->dv >= 2 && p0->x == 1.0) {   /* sqrt(2) needs E tr R = 0: a Haar R of size >= 2 */
        verdict_claim(e, "ovInvValueChangeOrth", M_SQRT2, sweep_measure(&r, 0, C_V),
                  verdict_rule_ci_within(0.98 * M_SQRT2, 1.02 * M_SQRT2),
                  "mean relative change of the values for a Haar orthogonal R, against the "
                  "prediction sqrt(2), within 2%%");
        experiment_summary_measure(e, "orthogonal R: mean value change", sweep_measure(&r, 0, C_V),
                            "prediction sqrt(2) = %.4f", M_SQRT2);
    }
    /* ... while W_OV and the head's output stay put up to C cond(R) eps */
    verdict_identity(e, "ovInvWovErrMax", 0.0, verdict_measure_exact(worst[0], total),
                 verdict_rule_at_most(C),
                 "largest relative change of W_OV, in units of cond(R) eps, over "
                 "cond(R) = %g .. %g (C = 4 (T + d + 2 d_v))", p0->x, cmax);
    char vmove[96];
    invariance_moved(vmove, sizeof vmove, "values", vmin, moved);
    verdict_identity(e, "ovInvOutErrMax", 0.0, verdict_measure_exact(worst[1], total),
                 verdict_rule_at_most(C),
                 "largest relative change of the head's output O W_O, in units of cond(R) eps%s",
                 vmove);
    experiment_headline(e);    /* the output stays put while the values move */
    experiment_summary(e,
                       "W_OV and the output stay put: worst %.3g and %.3g cond(R) eps (allowed %g)",
                       worst[0], worst[1], C);
    sweep_result_free(&r);   /* before the second sweep (done frees it on a failure) */
    /* 2. two heads, the same circuits: the same output, with and without biases */
    if ((st = two_heads(e))) goto done;
done:
    sweep_result_free(&r);
    return st;
}

/* how make verify compares the statistics: Monte Carlo (SW_MC, sweep.h) but these */
SWEEP_VERIFY(stat_names, {"wov", SW_ROUND}, {"y", SW_ROUND},
             {"wov_units", SW_ROUND_COL("allowed_units")},
             {"y_units", SW_ROUND_COL("allowed_units")})
SWEEP_VERIFY(head_stat_names, {"y", SW_ROUND}, {"y_units", SW_ROUND_COL("allowed_units")},
             {"control", SW_TRAIN_ROUND_MAX(1e-10)})

int main(int argc, char **argv)
{
    static const experiment_def def = {"ov_invariance", NULL,
                                       OPT_MC | OPT_T | OPT_D | OPT_DK | OPT_DV, 20261129UL, 400,
                                       NULL, run};
    return experiment_main(&def, argc, argv);
}
