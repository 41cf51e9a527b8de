/* twoheads.c - two heads with the same circuits give the same output (twoheads.h). */
#include "twoheads.h"

#include <float.h>
#include <math.h>
#include "att.h"
#include "circuitinv.h"
#include "mat.h"
#include "qkov.h"
#include "randmat.h"

enum { NHEADS = 2 };   /* two heads without, with biases */
/* per draw: the control: without biases it equals y (zero up to rounding,
 * below 1e-10); with them it depends on head 2's SVD, whose signs the BLAS
 * kernel picks: compared as a training result (SW_TRAIN_ROUND) */
#define HEAD_STATS(X) X(H_Y, "y", SW_ROUND(NULL)) X(H_UY, "y_units", SW_ROUND("allowed_units")) \
    X(H_WQ, "wq", SW_MC) X(H_WV, "wv", SW_MC) X(H_CTRL, "control", SW_TRAIN_ROUND("1e-10"))
SWEEP_STATS(HEAD_STATS);
static const char *const head_cases[NHEADS] = {"none", "b_Q b_K b_V b_O"};

/* the allowed error C2 = 16 (T + 2d + d_k + d_v), in units of eps */
static double allowed(const sweep_point *pt) { return 16.0 * (double)(pt->T + 2 * pt->d + pt->dk + pt->dv); }
static const circuitinv_allowed_fn allowed_fn = allowed;

/* a draw's buffers (workset.h): X (T, d); W_Q, W_K (d, d_k); W_V (d, d_v); W_O (d_v, d);
 * WQ2, WK2 (d, d_k); WV2 (d, d_v); WO2 (d_v, d); Y1, Y2 (T, d); b_Q, b_K (d_k), b_V (d_v),
 * b_O (d), and the same for head 2; two head states */
enum { X, W_Q, W_K, W_V, W_O, WQ2, WK2, WV2, WO2, Y1, Y2, NMAT };
enum { bQ, bK, bV, bO, bQ2, bK2, bV2, bO2, NVEC };

/* the head, then head 2 rebuilt from head 1's (W_QK, u, W_OV, c) alone; biases in case 1 */
static int draw(gsl_rng *rng, double *out, const sweep_point *pt, void *ws, const void *ctx)
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

int twoheads_check(experiment *e)
{
    sweep_grid gh;
    circuitinv_grid_head(&gh);
    sweep_axis_cases(&gh, "biases", NHEADS, head_cases);
    sweep_def def = SWEEP_DEF(draw);
    def.work_mats = "T.d d.dk d.dk d.dv dv.d d.dk d.dk d.dv dv.d T.d T.d";
    def.work_vecs = "dk dk dv d dk dk dv d", def.work_heads = "T.T.d.dk.dv T.T.d.dk.dv";
    def.csv = "ov_invariance_heads.csv";
    circuitinv_def_allowed(&def, &allowed_fn);
    sweep_result r;
    int st = sweep_run(e, &gh, &def, &r);
    if (st) return st;
    double C2 = allowed(&r.pt[0]);
    const char *macro_y[NHEADS] = {"ovInvHeadsErr", "ovInvHeadsBiasErr"};
    const char *what[NHEADS] = {"without biases", "with biases (u = W_K b_Q and c = b_V W_O + b_O kept)"};
    for (size_t h = 0; h < NHEADS; h++) {
        const stat_acc *a = sweep_acc(&r, h, 0);
        exp_identity(e, macro_y[h], 0.0, verdict_measure_exact(a[H_UY].max, a[H_UY].n), verdict_rule_at_most(C2),
                     "two heads with the same W_QK and W_OV, %s: largest relative output "
                     "difference in units of eps (C2 = 16 (T + 2d + d_k + d_v))", what[h]);
        exp_control(e, h ? "ovInvHeadsBiasFactorChange" : "ovInvHeadsFactorChange", NAN,
                    verdict_measure_exact(fmin(a[H_WQ].min, a[H_WV].min), a[H_WQ].n), verdict_rule_at_least(0.1),
                    "the two heads' factors differ, %s: smallest relative difference of W_Q or W_V",
                    what[h]);
    }
    exp_summary(e, "a head is its W_QK and W_OV: two heads with other factors differ by at most "
                "%.3g eps in output (allowed %g)", fmax(sweep_acc(&r, 0, H_UY)->max,
                sweep_acc(&r, 1, H_UY)->max), C2);
    if (r.pt[0].T >= 2)   /* with one key the softmax ignores every score: nothing to tell */
        exp_control(e, "ovInvBiasControl", NAN, verdict_measure_as(sweep_measure(&r, 1, H_CTRL), NAT_TRAINING),
                    verdict_rule_ci_above(0.01),
                    "control: head 2 keeps b_Q untransformed (W_K b_Q not kept): mean relative "
                    "output difference");
    sweep_result_free(&r);
    return ATT_OK;
}
