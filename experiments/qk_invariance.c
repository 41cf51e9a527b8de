/* qk_invariance - "The similarity is learned, and it is low rank"
 *
 * Claim: only the product W_QK = W_Q W_K^T matters. For any invertible R
 * (d_k x d_k), W_Q R and W_K R^{-T} give the same W_QK, hence the same scores
 * and output, while the queries (and keys) change: they carry no meaning of
 * their own, only their pairing with the keys does.
 *
 * Measured (invariance.h: T = 16, d = 64, d_k = d_v = 16, cond(R) = 1, 10^0.5,
 * .., 1e8; 400 draws each), relative changes: e_WQK, e_S, e_O of W_QK, S = Q K^T,
 * O = softmax(S) V (identities: <= C cond(R) eps, C = 4 (d + 2 d_k)); e_Q of the
 * queries (the claim: they move); e_G of Q Q^T (kept by an orthogonal R, where
 * E e_Q^2 = E||R - I||_F^2 / d_k = 2: e_Q ~ sqrt(2)). --cond X: cond(R) = X alone.
 */
#include "prelude.h"
#include "invariance.h"
#include "qkov.h"
#include "randmat.h"

/* relative changes (rounding-level but for the queries'), and in units of cond(R) eps */
#define STATS(X) X(E_WQK, "wqk") X(E_S, "s") X(E_O, "o") X(E_Q, "q") X(E_G, "gram") \
    X(U_WQK, "wqk_units") X(U_S, "s_units") X(U_O, "o_units")
SWEEP_STATS(STATS);

/* the allowed error C = 4 (d + 2 d_k), in units of cond(R) eps */
static double allowed(const sweep_point *pt) { return 4.0 * (double)(pt->d + 2 * pt->dk); }
static const invariance_allowed_fn allowed_fn = allowed;

/* a draw's buffers (workset.h): X (T, d), W_Q, W_K (d, d_k), W_V (d, d_v), R (d_k, d_k),
 * WQ2, WK2 (d, d_k), WQK, WQK2 (d, d), G1, G2 (T, T); two head states */
enum { X, W_Q, W_K, W_V, R, WQ2, WK2, WQK, WQK2, G1, G2, NMAT };
#define WORK_MATS "T.d d.dk d.dk d.dv dk.dk d.dk d.dk d.d d.d T.T T.T"
#define WORK_HEADS "T.T.d.dk.dv T.T.d.dk.dv"

/* one draw: the head before and after W_Q -> W_Q R, W_K -> W_K R^{-T}, cond(R) = pt->x */
static int draw(gsl_rng *rng, double *out, const sweep_point *pt, void *sp, const void *ctx)
{
    (void)ctx;
    workset *w = sp;
    gsl_matrix **m = w->m;
    head_state *st1 = &w->h[0], *st2 = &w->h[1];
    // X ~ N(0, 1), W_Q, W_K, W_V ~ N(0, 1/d)
    randmat_head(rng, m[X], m[W_Q], m[W_K], m[W_V], NULL);
    int rc = randmat_with_cond(rng, m[R], pt->x);
    // W_Q' = W_Q R,  W_K' = W_K R^{-T}  (LU solves, no explicit inverse)
    if (!rc) rc = qkov_reparam(m[WQ2], m[WK2], m[W_Q], m[W_K], m[R]);
    // W_QK = W_Q W_K^T  and  W_QK' = W_Q' W_K'^T
    if (!rc) rc = qkov_qk(m[WQK], m[W_Q], m[W_K]);
    if (!rc) rc = qkov_qk(m[WQK2], m[WQ2], m[WK2]);
    // the head, before and after (no biases, scale 1)
    head_params p1 = head_params_make(m[W_Q], m[W_K], m[W_V]);
    head_params p2 = head_params_make(m[WQ2], m[WK2], m[W_V]);
    if (!rc) rc = head_forward(st1, &p1, m[X], m[X]);
    if (!rc) rc = head_forward(st2, &p2, m[X], m[X]);
    // Gram matrices of the queries, Q Q^T and Q' Q'^T
    if (!rc) rc = mat_gemm(m[G1], 1.0, st1->Q, 0, st1->Q, 1, 0.0);
    if (!rc) rc = mat_gemm(m[G2], 1.0, st2->Q, 0, st2->Q, 1, 0.0);
    if (rc) return rc;
    // e = ||M' - M||_F / ||M||_F, and e / (cond(R) eps)
    double unit = pt->x * DBL_EPSILON;
    out[E_WQK] = mat_rel_diff(m[WQK2], m[WQK]);
    out[E_S] = mat_rel_diff(st2->S, st1->S);
    out[E_O] = mat_rel_diff(st2->O, st1->O);
    out[E_Q] = mat_rel_diff(st2->Q, st1->Q);
    out[E_G] = mat_rel_diff(m[G2], m[G1]);
    out[U_WQK] = out[E_WQK] / unit;
    out[U_S] = out[E_S] / unit;
    out[U_O] = out[E_O] / unit;
    return ATT_OK;
}

static double cond_opt = 0.0;   /* --cond X, 0: the whole grid */
static const opt_spec extra[] = {
    {"cond", OPT_DOUBLE, &cond_opt, "X",
     "run only condition number cond(R) = X, 1 <= X <= 1e15 (default: 1 .. 1e8, 17 points)"},
    {NULL, 0, NULL, NULL, NULL}};

static int run(experiment *e)
{
    sweep_result r = {0};
    int st = ATT_OK;
    sweep_grid g;
    if ((st = invariance_grid(&g, e->o.dk ? e->o.dk : 16, cond_opt))) goto done;
    sweep_def def = SWEEP_DEF(draw);
    def.work_mats = WORK_MATS;
    def.work_heads = WORK_HEADS;
    def.work_per_point = 1;   /* each point at its sizes */
    invariance_def_allowed(&def, &allowed_fn);
    if ((st = sweep_run(e, &g, &def, &r))) goto done;

    /* worst cases over every draw and every point; the allowed C = 4 (d + 2 d_k) */
    stat_acc w[NSTAT];
    sweep_merge_all(&r, w);
    const stat_acc qm = sweep_merged_x_above(&r, E_Q, 1.0);   /* cond(R) > 1 */
    double worst[3] = {w[U_WQK].max, w[U_S].max, w[U_O].max};
    double qmin = qm.min, C = 0.0, cmin = INFINITY, cmax = 0.0;
    double cnext = INFINITY;   /* the smallest cond(R) > 1 */
    size_t total = w[0].n, nonorth = qm.n, orth = r.npoints, h = 0;
    for (size_t p = 0; p < r.npoints; p++) {
        const sweep_point *pt = &r.pt[p];
        C = fmax(C, allowed(pt));
        if (pt->x == 1.0 && pt->dk >= 2 && orth == r.npoints) orth = p;
        if (pt->x >= r.pt[h].x) h = p;
        cmin = fmin(cmin, pt->x);
        cmax = fmax(cmax, pt->x);
        if (pt->x > 1.0) cnext = fmin(cnext, pt->x);
    }
    experiment_meta(e, "allowed_units: %g", C);
    char qmove[96];
    invariance_moved(qmove, sizeof qmove, "queries", qmin, nonorth);
    /* the claim: the queries move (every non-orthogonal draw) ... */
    if (nonorth > 0) {
        verdict_claim(e, "qkInvQueryChangeMin", NAN, verdict_measure_exact(qmin, nonorth),
                  verdict_rule_at_least(0.1),
                  "smallest relative change ||Q' - Q||_F / ||Q||_F of the queries over %zu draws "
                  "with cond(R) = %g .. %g", nonorth, cnext, cmax);
        experiment_summary(e,
                           "the queries move: smallest ||Q' - Q|| / ||Q|| %.4g over %zu draws with "
                           "cond(R) > 1 (the section: they change)",
                           qmin, nonorth);
    }
    /* ... even for an orthogonal R, by about sqrt(2), keeping lengths and angles */
    if (orth < r.npoints) {   /* sqrt(2) needs E tr R = 0: Haar R of size >= 2 */
        verdict_claim(e, "qkInvQueryChangeOrth", M_SQRT2, sweep_measure(&r, orth, E_Q),
                  verdict_rule_ci_within(0.98 * M_SQRT2, 1.02 * M_SQRT2),
                  "mean relative change of the queries for a Haar orthogonal R, against the "
                  "prediction sqrt(2), within 2%%");
        double gmax = sweep_acc(&r, orth, E_G)->max;
        verdict_identity(e, "qkInvGramOrthMax", 0.0, verdict_measure_exact(gmax, r.pt[orth].draws),
                     verdict_rule_at_most(C * DBL_EPSILON),
                     "largest relative change of the Gram matrix Q Q^T for an orthogonal R");
        experiment_summary_measure(e, "orthogonal R: mean query change",
                                   sweep_measure(&r, orth, E_Q), "prediction sqrt(2) = %.4f",
                                   M_SQRT2);
    }
    /* ... while W_QK, S and O stay put up to C cond(R) eps */
    const char *what[3] = {"W_QK", "the scores S", "the output O"};
    const char *macro[3] = {"qkInvWqkErrMax", "qkInvScoreErrMax", "qkInvOutErrMax"};
    for (int k = 0; k < 3; k++) {
        verdict_identity(e, macro[k], 0.0, verdict_measure_exact(worst[k], total),
                     verdict_rule_at_most(C),
                     "largest relative change of %s, in units of cond(R) eps, over %zu draws, "
                     "cond(R) = %g .. %g (C = 4 (d + 2 d_k))%s", what[k], total, cmin, cmax,
                     k == 1 ? qmove : "");
        if (k == 1) experiment_headline(e);    /* the scores stay put while the queries move */
    }
    verdict_identity(e, "qkInvScoreErr", 0.0, sweep_measure(&r, h, E_S),
                 verdict_rule_ci_below(C * r.pt[h].x * DBL_EPSILON),
                 "mean relative change of the scores at the largest cond(R) = %g", r.pt[h].x);
    experiment_summary(e, "W_QK, scores and output stay put: worst %.3g, %.3g, %.3g cond(R) eps "
                "(allowed %g)", worst[0], worst[1], worst[2], C);
done:
    sweep_result_free(&r);
    return st;
}

/* how make verify compares the statistics: Monte Carlo (SW_MC, sweep.h) but these */
SWEEP_VERIFY(stat_names, {"wqk", SW_ROUND}, {"s", SW_ROUND}, {"o", SW_ROUND}, {"gram", SW_ROUND},
             {"wqk_units", SW_ROUND_COL("allowed_units")},
             {"s_units", SW_ROUND_COL("allowed_units")},
             {"o_units", SW_ROUND_COL("allowed_units")})

int main(int argc, char **argv)
{
    static const experiment_def def = {"qk_invariance", NULL,
                                       OPT_MC | OPT_T | OPT_D | OPT_DK | OPT_DV | OPT_LISTS,
                                       20261129UL, 400, extra, run};
    return experiment_main(&def, argc, argv);
}
