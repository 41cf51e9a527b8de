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
 * base: a sweep over the base is reported (kbtables.h).
 * Writes: key_bias.csv, key_bias_draws.csv, key_bias_base.csv, key_bias_shift.csv.
 */
#include "prelude.h"
#include "bias.h"
#include "kbtables.h"

#define FD_STEP 1e-5
#define FD_TOL "1e-6"   /* backprop against central differences: the rule keyBiasFDErrMax applies */
#define ZERO "1e-10"   /* without RoPE, b_K's gradient ratio is rounding: far below this */
#define STATS(X) X(S_OUT, "out", SW_MC_ROUND(ZERO)) X(S_TOL, "tol", SW_MC) X(S_RATIO, "ratio", SW_MC_ROUND(ZERO)) \
    X(S_GRAD_REL, "grad_rel", SW_MC_ROUND("1e3")) X(S_NQ, "dbq", SW_MC) X(S_NK, "dbk", SW_MC_ROUND(ZERO))        \
    X(S_FD, "fd", SW_ROUND(FD_TOL)) X(S_FD0, "fd_b_Q", SW_ROUND(FD_TOL)) X(S_FD1, "fd_b_K", SW_ROUND(FD_TOL))           \
    X(S_FD2, "fd_b_V", SW_ROUND(FD_TOL)) X(S_FD3, "fd_W_Q", SW_ROUND(FD_TOL)) X(S_FD4, "fd_W_K", SW_ROUND(FD_TOL))       \
    X(S_FD5, "fd_W_V", SW_ROUND(FD_TOL))
SWEEP_STATS(STATS);

/* One head at point pt (rope = pt->kase; bias_work_draw): X (T, d), W_Q, W_K (d, d_k),
 * W_V (d, d_v), b_Q, b_K (d_k), b_V (d_v), G (T, d_v), run with and without b_K; the
 * backprop gradients of L = sum(G .* O) with b_K in. */
static int draw(gsl_rng *rng, double *out, const sweep_point *pt, void *work, const void *ctx)
{
    (void)ctx;
    bias_work *w = work;
    // O with and without b_K (head_forward), dL/db_K by backprop (head_backward): bias_work_draw,
    // lib/claims/bias.c; RoPE, when on, at its default base 1e4
    int rc = bias_work_draw(rng, w, (int)pt->kase, 0.0);
    if (rc) return rc;
    bias_key_bounds b = bias_key_rounding(&w->h);
    // ||O(b_K) - O(0)||_F / ||O(0)||_F against its bound 16 (d_k + T) eps (1 + P) sqrt(T) vmax / ||O||_F
    out[S_OUT] = mat_rel_diff(w->h.with.O, w->h.without.O);
    out[S_TOL] = b.out / mat_frob(w->h.without.O);
    out[S_NQ] = gsl_blas_dnrm2(w->g.db_Q);
    out[S_NK] = gsl_blas_dnrm2(w->g.db_K);
    // ||dL/db_K|| / ||dL/db_Q||, and ||dL/db_K|| in units of 8 T eps sum_i ||q_i|| ||g_i|| vmax
    out[S_RATIO] = out[S_NK] / out[S_NQ];
    out[S_GRAD_REL] = out[S_NK] / b.grad;
    // every gradient against central differences; the worst of the six groups
    if ((rc = bias_head_fd_errors(&out[S_FD0], &w->fd, &w->h, &w->g, (int)pt->kase, FD_STEP))) return rc;
    out[S_FD] = 0.0;
    for (int k = 0; k < BIAS_NPARAM; k++) out[S_FD] = fmax(out[S_FD], out[S_FD0 + k]);
    return ATT_OK;
}

static int run(experiment *e)
{
    const opts *o = &e->o;
    if (o->draws < 2) return exp_usage("--draws %zu: a 95%% CI needs at least 2 draws", o->draws);
    if (o->dk % 2 != 0) return exp_usage("--dk %zu: RoPE rotates pairs, d_k must be even", o->dk);
    if (o->T == 1)
        return exp_usage("--T 1: the claim needs T >= 2 keys (with one key its weight is 1 whatever the scores, "
                         "and every score gradient is zero)");
    sweep_grid g;
    sweep_grid_head(&g, 8, 16, 8, 8);
    sweep_axis_cases(&g, "rope", 2, NULL);
    sweep_def def = SWEEP_DEF(draw);
    def.work_alloc = kbtables_work, def.work_free = bias_work_free, def.draws_csv = "key_bias_draws.csv";
    sweep_result r, rb;
    int st = sweep_run(e, &g, &def, &r);
    if (st) return st;
    if ((st = kbtables_base_run(e, &g, &rb))) { sweep_result_free(&r); return st; }
    // the figure: rope = 0's draw 0 again, query row 0: s_0j with and without b_K (kbtables.h)
    const sweep_point pt = r.pt[0];
    double shift = NAN;
    if ((st = kbtables_shift(e, &pt, &shift))) { sweep_result_free(&r); sweep_result_free(&rb); return st; }
    exp_meta(e, "T: %zu\nd: %zu\nd_k: %zu\nd_v: %zu\nrope_base: 10000\nfd_step: %g\nshift_example: %.17g", pt.T, pt.d,
             pt.dk, pt.dv, FD_STEP, shift);

    const stat_acc *a0 = sweep_acc(&r, 0, 0), *a1 = sweep_acc(&r, 1, 0), *b0 = sweep_acc(&rb, 0, KBTABLES_RATIO);
    size_t n = o->draws, wk = 0;
    double worst = fmax(a0[S_FD].max, a1[S_FD].max);
    for (size_t k = 0; k < BIAS_NPARAM; k++)
        if (fmax(a0[S_FD0 + k].max, a1[S_FD0 + k].max) == worst) wk = k;
    // the headline: without RoPE the key bias's gradient is zero, to rounding, in every draw
    exp_identity(e, "keyBiasGradRoundingMax", 0.0, verdict_measure_exact(a0[S_GRAD_REL].max, n), verdict_rule_at_most(1.0),
                 "largest ||dL/db_K|| without RoPE over all %zu draws, in units of its per-draw rounding bound "
                 "8 T eps sum_i ||q_i|| ||g_i|| max_j ||v_j|| (zero gradient: at most 1)", n);
    exp_headline(e);
    exp_summary(e, "||dL/db_K|| without RoPE: at most %.3g of its rounding bound over %zu draws (the section: "
                "exactly zero); with RoPE after the bias, ||dL/db_K|| / ||dL/db_Q|| = %.3g on average",
                a0[S_GRAD_REL].max, n, a1[S_RATIO].mean);
    exp_reported(e, "keyBiasGradRatioMax", NAN, verdict_measure_as(verdict_measure_exact(a0[S_RATIO].max, n), NAT_ROUNDING),
                 "largest ||dL/db_K|| / ||dL/db_Q|| without RoPE (zero up to rounding)");
    exp_claim(e, "keyBiasGradRatioRope", NAN, sweep_measure(&r, 1, S_RATIO), verdict_rule_ci_above(1e-3),
              "the contrast: mean ||dL/db_K|| / ||dL/db_Q|| with RoPE after the bias, base 10000 (of order one, "
              "not zero; its value depends on the base, T, the scales: key_bias_base.csv) (T = %zu, d = %zu, "
              "d_k = %zu, d_v = %zu)", pt.T, pt.d, pt.dk, pt.dv);
    exp_identity(e, "keyBiasOutChangeMax", 0.0, verdict_measure_exact(a0[S_OUT].max, n), verdict_rule_at_most(a0[S_TOL].min),
                 "largest relative change of O when b_K is removed, without RoPE (bound: the smallest per-draw "
                 "rounding tolerance)");
    exp_claim(e, "keyBiasOutChangeRope", NAN, sweep_measure(&r, 1, S_OUT), verdict_rule_ci_above(1e-3),
              "mean relative change of O when b_K is removed, with RoPE");
    exp_reported(e, "keyBiasGradRatioRopeMin", NAN, verdict_measure_exact(a1[S_RATIO].min, n),
                 "smallest ||dL/db_K|| / ||dL/db_Q|| with RoPE over the draws");
    exp_identity(e, "keyBiasFDErrMax", 0.0, verdict_measure_exact(worst, 2 * n), verdict_rule_at_most(atof(FD_TOL)),
                 "worst disagreement of backprop and central differences (h = %g: error O(h^2) + O(eps/h)), "
                 "relative to the draw's gradient, over b_Q b_K b_V W_Q W_K W_V, with and without RoPE (worst: %s)",
                 FD_STEP, bias_param_names[wk]);
    const stat_acc *b3 = sweep_acc(&rb, KBTABLES_NBASE - 1, KBTABLES_RATIO);
    exp_reported(e, "keyBiasRopeBaseSpread", NAN, verdict_measure_exact(b3->mean - b0->mean, rb.pt[0].draws),
                 "change of the mean RoPE ratio ||dL/db_K|| / ||dL/db_Q|| from base %g (%.3f) to base %g (%.3f), "
                 "%zu heads each: a number of the set-up, not of the claim", kbtables_bases[0], b0->mean,
                 kbtables_bases[KBTABLES_NBASE - 1], b3->mean, rb.pt[0].draws);
    sweep_result_free(&r);
    sweep_result_free(&rb);
    return ATT_OK;
}

int main(int argc, char **argv)
{
    static const experiment_def def = {"key_bias", NULL, OPT_MC | OPT_T | OPT_D | OPT_DK | OPT_DV, 20261129UL, 400,
                                       NULL, run};
    return exp_main(&def, argc, argv);
}
