/* ov_invariance - "The similarity is learned, and it is low rank"
 *
 * Claim: only the product W_OV = W_V W_O matters: the values move, the
 * head's output does not. For any invertible R (d_v x d_v), W_V R and
 * R^{-1} W_O give the same W_OV, hence the same contribution of the head,
 * A X W_OV = O W_O, while the value vectors V = X W_V themselves change. Stronger: a head
 * is fully described by its two circuits, so two heads with different W_Q,
 * W_K, W_V, W_O but the same W_QK and W_OV give the same output on any input.
 * With biases (q = x W_Q + b_Q, k = x W_K + b_K, v = x W_V + b_V, output
 * y_i = o_i W_O + b_O) the scores are s_ij = x_i W_QK x_j^T + x_j . u + (terms
 * constant in j, which the softmax removes) and, rows of A summing to 1,
 *   y_i = (A X W_OV)_i + c,   u = W_K b_Q (d),  c = b_V W_O + b_O (d).
 * So the output is determined by (W_QK, u, W_OV, c), and b_K is irrelevant;
 * W_Q, W_K, W_V, W_O, b_Q, b_V, b_O are not determined individually.
 *
 * Measured (T = 16, d = 64, d_k = d_v = 16, X ~ N(0, 1), weights ~ N(0, 1/d),
 * biases ~ N(0, 1); 400 draws per point):
 *   1. R with cond(R) = 1 (Haar orthogonal), 10^0.5, ..., 1e8: the relative
 *      change of V (the claim: the values move) and of W_OV and Y = O W_O
 *      (identities: 0 up to C cond(R) eps, C = 4 (T + d + 2 d_v); R^{-1} W_O
 *      by LU solves, qkov_reparam_ov).
 *   2. Two heads: head 2 rebuilt from head 1's (W_QK, u, W_OV, c) alone by the
 *      SVD (qkov_factor), with a fresh b_K, a fresh b_V and b_O = c - b_V W_O;
 *      without and with biases. Relative change of the output (identity, in
 *      units of eps), of W_Q and W_V (the factors differ), and a negative
 *      control: head 2 with head 1's b_Q untransformed (u not kept) moves.
 *
 * Writes (sweep.h: every quantity's mean, CI, min, max, n): ov_invariance.csv
 * (one row per cond(R)), ov_invariance_heads.csv (one row per two-heads case).
 */
#include "prelude.h"
#include "qkov.h"
#include "randmat.h"

enum { NCOND = 17, NHEADS = 2 };   /* cond 10^(k/2); two heads without, with biases */
/* per draw, at a cond point */
#define COND_STATS(X) X(C_V, "v", SW_MC) X(C_WOV, "wov", SW_ROUND(NULL)) X(C_Y, "y", SW_ROUND(NULL)) \
    X(C_UWOV, "wov_units", SW_ROUND("allowed_units")) X(C_UY, "y_units", SW_ROUND("allowed_units"))
SWEEP_STATS_AS(COND_STATS, NCOND_STAT, cond_names);
/* per draw, at a two-heads point */
/* the control: without biases it equals y (zero up to rounding, below 1e-10);
 * with them it depends on head 2's SVD, whose signs the BLAS kernel picks:
 * compared as a trained result (verifyany's measurement) */
#define HEAD_STATS(X) X(H_Y, "y", SW_ROUND(NULL)) X(H_UY, "y_units", SW_ROUND("allowed_units")) \
    X(H_WQ, "wq", SW_MC) X(H_WV, "wv", SW_MC) X(H_CTRL, "control", SW_TRAIN_ROUND("1e-10"))
SWEEP_STATS_AS(HEAD_STATS, NHEAD_STAT, head_names);
static const char *const head_cases[NHEADS] = {"none", "b_Q b_K b_V b_O"};

/* the allowed errors beside every point: C = 4 (T + d + 2 d_v) in units of
 * cond(R) eps, C2 = 16 (T + 2d + d_k + d_v) in units of eps */
static const table_col derived[] = {SWEEP_DERIVED(0, "allowed_units", NAT_COMPUTED, NULL, NULL, NULL)};
static void derive_c(double *col, const sweep_point *pt, const stat_acc *a, const void *ctx)
{
    (void)a, (void)ctx;
    col[0] = 4.0 * (double)(pt->T + pt->d + 2 * pt->dv);
}
static void derive_c2(double *col, const sweep_point *pt, const stat_acc *a, const void *ctx)
{
    (void)a, (void)ctx;
    col[0] = 16.0 * (double)(pt->T + 2 * pt->d + pt->dk + pt->dv);
}

/* a draw's buffers (workset.h): X (T, d); W_Q, W_K (d, d_k); W_V (d, d_v); W_O (d_v, d);
 * R (d_v, d_v); WV2 (d, d_v); WO2 (d_v, d); WOV, WOV2 (d, d); WQ2, WK2 (d, d_k); Y1, Y2
 * (T, d); b_Q, b_K (d_k), b_V (d_v), b_O (d), and the same for head 2; two head states */
enum { X, W_Q, W_K, W_V, W_O, R, WV2, WO2, WOV, WOV2, WQ2, WK2, Y1, Y2, NMAT };
enum { bQ, bK, bV, bO, bQ2, bK2, bV2, bO2, NVEC };
#define WORK_MATS "T.d d.dk d.dk d.dv dv.d dv.dv d.dv dv.d d.d d.d d.dk d.dk T.d T.d"
#define WORK_VECS "dk dk dv d dk dk dv d"
#define WORK_HEADS "T.T.d.dk.dv T.T.d.dk.dv"

/* 1. the head, then W_V -> W_V R, W_O -> R^{-1} W_O with cond(R) = cond = pt->x */
static int draw_cond(gsl_rng *rng, double *out, const sweep_point *pt, void *ws, const void *ctx)
{
    (void)ctx;
    workset *s = ws;
    gsl_matrix **m = s->m;
    double cond = pt->x;
    // the head: X ~ N(0, 1), W_Q, W_K, W_V, W_O ~ N(0, 1/d)
    randmat_head(rng, m[X], m[W_Q], m[W_K], m[W_V], m[W_O]);
    int rc = randmat_with_cond(rng, m[R], cond);
    if (!rc) rc = qkov_reparam_ov(m[WV2], m[WO2], m[W_V], m[W_O], m[R]);
    if (!rc) rc = qkov_ov(m[WOV], m[W_V], m[W_O]);
    if (!rc) rc = qkov_ov(m[WOV2], m[WV2], m[WO2]);
    head_params p1 = head_params_make(m[W_Q], m[W_K], m[W_V]);
    head_params p2 = head_params_make(m[W_Q], m[W_K], m[WV2]);
    if (!rc) rc = head_forward(&s->h[0], &p1, m[X], m[X]);
    if (!rc) rc = head_forward(&s->h[1], &p2, m[X], m[X]);
    // Y = O W_O, the head's contribution, before and after
    if (!rc) rc = mat_gemm(m[Y1], 1.0, s->h[0].O, 0, m[W_O], 0, 0.0);
    if (!rc) rc = mat_gemm(m[Y2], 1.0, s->h[1].O, 0, m[WO2], 0, 0.0);
    if (rc) return rc;
    double unit = cond * DBL_EPSILON;
    out[C_V] = mat_rel_diff(s->h[1].V, s->h[0].V);
    out[C_WOV] = mat_rel_diff(m[WOV2], m[WOV]);
    out[C_Y] = mat_rel_diff(m[Y2], m[Y1]);
    out[C_UWOV] = out[C_WOV] / unit;
    out[C_UY] = out[C_Y] / unit;
    return ATT_OK;
}

/* 2. the head, then head 2 rebuilt from head 1's (W_QK, u, W_OV, c) alone; biases in case 1 */
static int draw_heads(gsl_rng *rng, double *out, const sweep_point *pt, void *ws, const void *ctx)
{
    (void)ctx;
    workset *s = ws;
    gsl_matrix **m = s->m;
    gsl_vector **v = s->v;
    int bias = pt->kase == 1;
    // the head: X ~ N(0, 1), W_Q, W_K, W_V, W_O ~ N(0, 1/d)
    randmat_head(rng, m[X], m[W_Q], m[W_K], m[W_V], m[W_O]);
    for (int k = 0; k < NVEC; k++) mat_vec_randn(rng, v[k], 1.0);   /* b_K2, b_V2: free choices */
    qkov_head h1 = {m[W_Q], m[W_K], m[W_V], m[W_O], v[bQ], v[bK], v[bV], v[bO]};
    qkov_head h2 = {m[WQ2], m[WK2], m[WV2], m[WO2], v[bQ2], v[bK2], v[bV2], v[bO2]};
    if (!bias) h1.b_Q = h1.b_K = h1.b_V = h1.b_O = h2.b_Q = h2.b_K = h2.b_V = h2.b_O = NULL;
    // W_Q2 W_K2^T = W_QK, W_V2 W_O2 = W_OV (SVD), W_K2 b_Q2 = W_K b_Q, b_V2 W_O2 + b_O2 = c
    int rc = qkov_rebuild(&h2, &h1);
    // y_i = o_i W_O + b_O of both heads
    if (!rc) rc = qkov_head_output(m[Y1], &h1, m[X], &s->h[0]);
    if (!rc) rc = qkov_head_output(m[Y2], &h2, m[X], &s->h[1]);
    if (rc) return rc;
    out[H_Y] = mat_rel_diff(m[Y2], m[Y1]);
    out[H_UY] = out[H_Y] / DBL_EPSILON;
    out[H_WQ] = mat_rel_diff(m[WQ2], m[W_Q]);
    out[H_WV] = mat_rel_diff(m[WV2], m[W_V]);
    // negative control: head 2 with b_Q untransformed (W_K b_Q not kept)
    h2.b_Q = h1.b_Q;
    if ((rc = qkov_head_output(m[Y2], &h2, m[X], &s->h[1]))) return rc;
    out[H_CTRL] = mat_rel_diff(m[Y2], m[Y1]);
    return ATT_OK;
}

static int run(experiment *e)
{
    const size_t T = 16, d = 64, dk = 16, dv = 16;
    size_t d_v = e->o.dv ? e->o.dv : dv, d_k = e->o.dk ? e->o.dk : dk, dd = e->o.d ? e->o.d : d;
    if (d_k > dd || d_v > dd)
        return exp_usage("--dk %zu, --dv %zu: the circuits have rank d_k, d_v <= d = %zu", d_k, d_v, dd);
    double cond[NCOND];
    size_t ncond = 0;
    for (int k = 0; k < NCOND && !(d_v == 1 && k > 0); k++) cond[ncond++] = pow(10.0, 0.5 * k);
    sweep_grid g;
    sweep_grid_head(&g, T, d, dk, dv);
    sweep_grid gh = g;
    sweep_axis_x(&g, "cond", ncond, cond);
    sweep_axis_cases(&gh, "biases", NHEADS, head_cases);
    sweep_def dc = SWEEP_DEF_AS(draw_cond, NCOND_STAT, cond_names);
    sweep_def dh = SWEEP_DEF_AS(draw_heads, NHEAD_STAT, head_names);
    dc.work_mats = dh.work_mats = WORK_MATS, dc.work_vecs = dh.work_vecs = WORK_VECS;
    dc.work_heads = dh.work_heads = WORK_HEADS;
    dc.nderived = 1, dc.derived = derived, dc.derive = derive_c;
    dh.csv = "ov_invariance_heads.csv";
    dh.nderived = 1, dh.derived = derived, dh.derive = derive_c2;
    sweep_result r, rh;
    int st = sweep_run(e, &g, &dc, &r);
    if (st) return st;
    if ((st = sweep_run(e, &gh, &dh, &rh))) { sweep_result_free(&r); return st; }
    const sweep_point *p0 = &r.pt[0];
    double C = 4.0 * (double)(p0->T + p0->d + 2 * p0->dv);              /* units of cond(R) eps */
    double C2 = 16.0 * (double)(p0->T + 2 * p0->d + p0->dk + p0->dv);   /* units of eps         */
    exp_meta(e, "allowed_units: %g", C);

    /* the values move (every draw with a non-orthogonal R; an orthogonal one too) ... */
    const stat_acc vm = sweep_merged_x_above(&r, C_V, 1.0);   /* cond(R) > 1 */
    double vmin = vm.min, worst[2] = {sweep_merged(&r, C_UWOV).max, sweep_merged(&r, C_UY).max};
    size_t total = sweep_merged(&r, C_V).n, moved = vm.n;
    if (moved) {
        exp_claim(e, "ovInvValueChangeMin", NAN, verdict_measure_exact(vmin, moved), verdict_rule_at_least(0.1),
                  "smallest relative change ||V' - V||_F / ||V||_F of the values over the draws "
                  "with cond(R) = %g .. %g", cond[1], cond[ncond - 1]);
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
                 "cond(R) = %g .. %g (C = 4 (T + d + 2 d_v))", cond[0], cond[ncond - 1]);
    char vmove[96] = "";
    if (moved) snprintf(vmove, sizeof vmove, ", while the values moved by at least %.0f%%", 100.0 * vmin);
    exp_identity(e, "ovInvOutErrMax", 0.0, verdict_measure_exact(worst[1], total), verdict_rule_at_most(C),
                 "largest relative change of the head's output O W_O, in units of cond(R) eps%s", vmove);
    exp_headline(e);    /* the output stays put while the values move */
    exp_summary(e, "W_OV and the output stay put: worst %.3g and %.3g cond(R) eps (allowed %g)",
                worst[0], worst[1], C);
    /* two heads, the same circuits: the same output, with and without biases */
    const char *macro_y[NHEADS] = {"ovInvHeadsErr", "ovInvHeadsBiasErr"};
    const char *what[NHEADS] = {"without biases", "with biases (u = W_K b_Q and c = b_V W_O + b_O kept)"};
    for (size_t h = 0; h < NHEADS; h++) {
        const stat_acc *a = sweep_acc(&rh, h, 0);
        exp_identity(e, macro_y[h], 0.0, verdict_measure_exact(a[H_UY].max, a[H_UY].n), verdict_rule_at_most(C2),
                     "two heads with the same W_QK and W_OV, %s: largest relative output "
                     "difference in units of eps (C2 = 16 (T + 2d + d_k + d_v))", what[h]);
        exp_control(e, h ? "ovInvHeadsBiasFactorChange" : "ovInvHeadsFactorChange", NAN,
                    verdict_measure_exact(fmin(a[H_WQ].min, a[H_WV].min), a[H_WQ].n), verdict_rule_at_least(0.1),
                    "the two heads' factors differ, %s: smallest relative difference of W_Q or W_V",
                    what[h]);
    }
    exp_summary(e, "a head is its W_QK and W_OV: two heads with other factors differ by at most "
                "%.3g eps in output (allowed %g)", fmax(sweep_acc(&rh, 0, H_UY)->max,
                sweep_acc(&rh, 1, H_UY)->max), C2);
    if (p0->T >= 2)   /* with one key the softmax ignores every score: nothing to tell */
        exp_control(e, "ovInvBiasControl", NAN, verdict_measure_as(sweep_measure(&rh, 1, H_CTRL), NAT_TRAINING),
                    verdict_rule_ci_above(0.01),
                    "control: head 2 keeps b_Q untransformed (W_K b_Q not kept): mean relative "
                    "output difference");
    sweep_result_free(&r);
    sweep_result_free(&rh);
    return ATT_OK;
}

int main(int argc, char **argv)
{
    static const experiment_def def = {"ov_invariance", NULL,
                                       OPT_MC | OPT_T | OPT_D | OPT_DK | OPT_DV, 20261129UL, 400, NULL, run};
    return exp_main(&def, argc, argv);
}
