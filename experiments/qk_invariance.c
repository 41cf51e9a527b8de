/* qk_invariance - only the product W_QK = W_Q W_K^T matters.
 *
 * Claim (qk_invariance): for any invertible R (d_k x d_k), the weights
 * W_Q R and W_K R^{-T} give the same W_QK, hence the same scores and the same
 * output, while the query (and key) vectors themselves are different. The
 * queries carry no meaning of their own; only their pairing with the keys does.
 *
 * Measured, for T = 16, d = 64, d_k = d_v = 16 and R = U diag(s) V^T with
 * Haar U, V and singular values spaced so that cond(R) = 1, 10^0.5, ..., 1e8
 * (cond 1 is a Haar orthogonal R), per draw (X, W_Q, W_K, W_V, R fresh):
 *   e_WQK  = ||W_Q' W_K'^T - W_QK||_F / ||W_QK||_F
 *   e_S    = ||S' - S||_F / ||S||_F          (S = Q K^T, from the head)
 *   e_O    = ||O' - O||_F / ||O||_F          (O = softmax(S) V)
 *   e_Q    = ||Q' - Q||_F / ||Q||_F          (the queries do change)
 *   e_G    = ||Q'Q'^T - QQ^T||_F / ||QQ^T||_F (their lengths and angles:
 *            kept by an orthogonal R, changed by any other)
 * W_K R^{-T} is computed without forming an inverse: every row w^T of W_K
 * becomes y^T with R y = w, solved with the LU factors of R (lib/qkov.h).
 *
 * Rounding: W_Q' = W_Q R has size ~ ||R|| and W_K' ~ ||R^{-1}||, so the
 * products that should give back W_QK, S and O carry rounding errors of size
 * ~ eps ||R|| ||R^{-1}|| = eps cond(R), relative to the result, times the
 * length of the chain of inner products (first-order bound, Higham 3.5 and
 * 9.4 for the LU solve). The verdict allows
 *   e <= C cond(R) eps,  C = 4 (d + 2 d_k)
 * for W_QK, S and O: d + 2 d_k is the longest chain (X W_Q' is an inner
 * product of length d, W_Q R and the LU solve d_k each), and 4 covers the
 * two computations being compared and the norm ratios being O(1) for random
 * weights. The measured worst case, in units of cond(R) eps, is reported.
 *
 * Writes into --out:
 *   qk_invariance.csv   one row per cond(R): draws, then for e_WQK, e_S, e_O
 *                       mean, 95% CI, max; for e_Q and e_G mean, CI, min;
 *                       the same in units of cond(R) eps; allowed_units = C
 *   qk_invariance.meta, qk_invariance.verdicts.csv
 * Options: --seed --draws (per cond) --rng --T --d --dk --dv, and
 * --cond X to run the single condition number X (e.g. the headline 1e8).
 */
#include "head.h"
#include "mat.h"
#include "mc.h"
#include "opts.h"
#include "output.h"
#include "qkov.h"
#include "randmat.h"
#include "stats.h"
#include "status.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define ID "qk_invariance"

enum { NCOND_GRID = 17 };                 /* cond = 10^(k/2), k = 0 .. 16 */
#define HEADLINE_COND 1e8
#define MAX_COND 1e15                     /* --cond at most this, below 1/eps */

/* per-draw statistics */
enum { E_WQK, E_S, E_O, E_Q, E_G, U_WQK, U_S, U_O, NSTAT };
static const char *const stat_names[NSTAT] = {
    "wqk", "s", "o", "q", "gram", "wqk_units", "s_units", "o_units"
};

typedef struct {
    size_t T, d, d_k, d_v;
    double cond;
} qi_config;

typedef struct {
    gsl_matrix *X, *W_Q, *W_K, *W_V, *R, *WQ2, *WK2, *WQK, *WQK2, *G1, *G2;
    head_state st1, st2;
} qi_scratch;

static void qi_free(void *p)
{
    qi_scratch *s = p;
    if (s == NULL) return;
    mat_free(s->X); mat_free(s->W_Q); mat_free(s->W_K); mat_free(s->W_V); mat_free(s->R);
    mat_free(s->WQ2); mat_free(s->WK2); mat_free(s->WQK); mat_free(s->WQK2);
    mat_free(s->G1); mat_free(s->G2);
    head_state_free(&s->st1);
    head_state_free(&s->st2);
    free(s);
}

static void *qi_alloc(void *ctx)
{
    const qi_config *c = ctx;
    qi_scratch *s = calloc(1, sizeof *s);
    if (s == NULL) return NULL;
    s->X = mat_new(c->T, c->d);
    s->W_Q = mat_new(c->d, c->d_k); s->W_K = mat_new(c->d, c->d_k); s->W_V = mat_new(c->d, c->d_v);
    s->R = mat_new(c->d_k, c->d_k);
    s->WQ2 = mat_new(c->d, c->d_k); s->WK2 = mat_new(c->d, c->d_k);
    s->WQK = mat_new(c->d, c->d); s->WQK2 = mat_new(c->d, c->d);
    s->G1 = mat_new(c->T, c->T); s->G2 = mat_new(c->T, c->T);
    int ok = s->X && s->W_Q && s->W_K && s->W_V && s->R && s->WQ2 && s->WK2 && s->WQK
             && s->WQK2 && s->G1 && s->G2
             && head_state_alloc(&s->st1, c->T, c->T, c->d, c->d_k, c->d_v) == ATT_OK
             && head_state_alloc(&s->st2, c->T, c->T, c->d, c->d_k, c->d_v) == ATT_OK;
    if (!ok) { qi_free(s); return NULL; }
    return s;
}

/* One draw: random X (T, d) ~ N(0, 1), weights ~ N(0, 1/d), R with cond(R)
 * = c->cond; the head before and after W_Q -> W_Q R, W_K -> W_K R^{-T}. */
static int qi_draw(void *ctx, void *scratch, gsl_rng *rng, size_t draw, double *out)
{
    (void)draw;
    const qi_config *c = ctx;
    qi_scratch *s = scratch;
    double sw = 1.0 / sqrt((double)c->d);
    mat_randn(s->X, rng, 1.0);
    mat_randn(s->W_Q, rng, sw);
    mat_randn(s->W_K, rng, sw);
    mat_randn(s->W_V, rng, sw);
    int rc = randmat_with_cond(s->R, rng, c->cond);
    // W_Q' = W_Q R,  W_K' = W_K R^{-T}  (LU solves, no explicit inverse)
    if (!rc) rc = qkov_reparam(s->WQ2, s->WK2, s->W_Q, s->W_K, s->R);
    // W_QK = W_Q W_K^T  and  W_QK' = W_Q' W_K'^T
    if (!rc) rc = qkov_qk(s->WQK, s->W_Q, s->W_K);
    if (!rc) rc = qkov_qk(s->WQK2, s->WQ2, s->WK2);
    // the head, before and after (no biases, scale 1)
    head_params p1 = head_params_make(s->W_Q, s->W_K, s->W_V);
    head_params p2 = head_params_make(s->WQ2, s->WK2, s->W_V);
    if (!rc) rc = head_forward(&s->st1, &p1, s->X, s->X);
    if (!rc) rc = head_forward(&s->st2, &p2, s->X, s->X);
    // Gram matrices of the queries, Q Q^T and Q' Q'^T
    if (!rc) rc = mat_gemm(s->G1, 1.0, s->st1.Q, 0, s->st1.Q, 1, 0.0);
    if (!rc) rc = mat_gemm(s->G2, 1.0, s->st2.Q, 0, s->st2.Q, 1, 0.0);
    if (rc) return rc;

    double unit = c->cond * DBL_EPSILON;
    out[E_WQK] = mat_rel_diff(s->WQK2, s->WQK);
    out[E_S] = mat_rel_diff(s->st2.S, s->st1.S);
    out[E_O] = mat_rel_diff(s->st2.O, s->st1.O);
    out[E_Q] = mat_rel_diff(s->st2.Q, s->st1.Q);
    out[E_G] = mat_rel_diff(s->G2, s->G1);
    out[U_WQK] = out[E_WQK] / unit;
    out[U_S] = out[E_S] / unit;
    out[U_O] = out[E_O] / unit;
    return ATT_OK;
}

/* The allowed error in units of cond(R) eps (see the header comment). */
static double qi_allowed_units(const qi_config *c)
{
    return 4.0 * (double)(c->d + 2 * c->d_k);
}

static int qi_write_csv(const opts *o, const double *conds, size_t n, stat_acc (*acc)[NSTAT],
                        double C)
{
    afile af;
    int st = afile_open(&af, o->out_dir, ID ".csv");
    if (st) return st;
    fputs("cond,orthogonal,draws", af.f);
    for (int k = 0; k < NSTAT; k++) {
        const char *ext = (k == E_Q || k == E_G) ? "min" : "max";
        fprintf(af.f, ",%s_mean,%s_lo,%s_hi,%s_%s", stat_names[k], stat_names[k],
                stat_names[k], stat_names[k], ext);
    }
    fputs(",allowed_units\n", af.f);
    for (size_t i = 0; i < n; i++) {
        csv_num(af.f, conds[i]);
        fprintf(af.f, ",%d,%zu", conds[i] == 1.0, acc[i][0].n);
        for (int k = 0; k < NSTAT; k++) {
            double lo, hi;
            stat_ci95(&acc[i][k], &lo, &hi);
            const double row[] = {acc[i][k].mean, lo, hi,
                                  (k == E_Q || k == E_G) ? acc[i][k].min : acc[i][k].max};
            for (int m = 0; m < 4; m++) { fputc(',', af.f); csv_num(af.f, row[m]); }
        }
        fputc(',', af.f);
        csv_num(af.f, C);
        fputc('\n', af.f);
    }
    return afile_commit(&af);
}

int main(int argc, char **argv)
{
    att_init();
    double cond_only = 0.0;
    const opt_spec extra[] = {
        {"cond", OPT_DOUBLE, &cond_only, "X",
         "run only condition number cond(R) = X, 1 <= X <= 1e15 (default: 1 .. 1e8, 17 points)"},
        {NULL, 0, NULL, NULL, NULL}
    };
    const opts_info info = {ID, "W_Q R, W_K R^-T: same W_QK, scores and output; different queries",
                            OPT_MC | OPT_T | OPT_D | OPT_DK | OPT_DV, 20261129UL, 400, extra};
    opts o;
    int st = opts_parse(&o, &info, argc, argv);
    if (st) return opts_exit(&o, st);

    qi_config cfg = {o.T ? o.T : 16, o.d ? o.d : 64, o.dk ? o.dk : 16, o.dv ? o.dv : 16, 1.0};
    if (cond_only != 0.0 && !(cond_only >= 1.0))
        return opts_exit(&o, att_fail(ATT_EUSAGE, "--cond: %g is not a condition number >= 1", cond_only));
    /* cond(R) eps >= 1: R is singular to working precision, nothing to measure */
    if (cond_only > MAX_COND)
        return opts_exit(&o, att_fail(ATT_EUSAGE, "--cond: %g is too large: at most %g (beyond "
                                      "1/eps = %.3g, R is singular to working precision)",
                                      cond_only, MAX_COND, 1.0 / DBL_EPSILON));
    if (cfg.d_k == 1 && cond_only > 1.0)
        return opts_exit(&o, att_fail(ATT_EUSAGE, "--cond %g needs d_k >= 2 (a 1 x 1 R has cond 1)", cond_only));

    /* scratch per thread: qi_alloc's matrices (two d x d circuits, two head
     * states), and the d_k x d_k temporaries of randmat and of the LU solve */
    double T = (double)cfg.T, d = (double)cfg.d, dk = (double)cfg.d_k, dv = (double)cfg.d_v;
    double scratch = T * d + 4 * d * dk + d * dv + 6 * dk * dk + 2 * d * d + 6 * T * T
                     + 8 * T * dk + 4 * T * dv + 2 * dk;
    if ((st = opts_check_memory(&o, mc_run_bytes(mat_bytes_approx(scratch), o.draws, NSTAT),
                                "qk_invariance scratch (per thread) and Monte Carlo blocks")))
        return opts_exit(&o, st);

    /* the grid; the stream of point k is k, so --cond 10^(k/2) reruns it */
    double conds[NCOND_GRID];
    uint64_t streams[NCOND_GRID];
    size_t n = 0;
    for (int k = 0; k < NCOND_GRID; k++) {
        double ck = pow(10.0, 0.5 * k);
        if (cfg.d_k == 1 && k > 0) break;
        if (cond_only == 0.0 || fabs(ck - cond_only) <= 1e-12 * ck) {
            conds[n] = ck; streams[n++] = (uint64_t)k;
        }
    }
    if (n == 0) { conds[0] = cond_only; streams[0] = 1000; n = 1; }   /* off the grid */

    stat_acc (*acc)[NSTAT] = calloc(n, sizeof *acc);
    if (acc == NULL) return opts_exit(&o, att_fail(ATT_ERUNTIME, "out of memory"));
    for (size_t i = 0; i < n && !st; i++) {
        qi_config ci = cfg;
        ci.cond = conds[i];
        mc_config mc = {.rng_name = o.rng_name, .seed = o.seed, .stream = streams[i],
                        .draws = o.draws, .nstats = NSTAT, .draw = qi_draw, .alloc = qi_alloc,
                        .free = qi_free, .ctx = &ci, .label = ID, .quiet = o.quiet};
        st = mc_run(&mc, acc[i]);
    }
    if (!st) st = qi_write_csv(&o, conds, n, acc, qi_allowed_units(&cfg));
    if (!st) {
        char extra_meta[160];
        snprintf(extra_meta, sizeof extra_meta, "T: %zu\nd: %zu\nd_k: %zu\nd_v: %zu\nallowed_units: %g",
                 cfg.T, cfg.d, cfg.d_k, cfg.d_v, qi_allowed_units(&cfg));
        st = output_meta(&o, extra_meta);
    }
    if (st) { free(acc); return opts_exit(&o, st); }

    /* worst cases over every draw and every cond */
    double C = qi_allowed_units(&cfg), worst[3] = {0, 0, 0}, qmin = INFINITY;
    size_t total = 0, nonorth = 0, head = n - 1;
    for (size_t i = 0; i < n; i++) {
        total += acc[i][0].n;
        for (int k = 0; k < 3; k++) worst[k] = fmax(worst[k], acc[i][U_WQK + k].max);
        if (conds[i] > 1.0) { qmin = fmin(qmin, acc[i][E_Q].min); nonorth += acc[i][0].n; }
        if (conds[i] == HEADLINE_COND) head = i;
    }
    verdict_list vl;
    verdicts_init(&vl);
    char q[256], rule[128];
    const char *what[3] = {"W_QK", "scores S", "output O"};
    const char *macro[3] = {"qkInvWqkErrMax", "qkInvScoreErrMax", "qkInvOutErrMax"};
    /* the headline: mean change of the scores at the largest cond, with its CI */
    if (!st) {
        double lo, hi;
        stat_ci95(&acc[head][E_S], &lo, &hi);
        double allowed = C * conds[head] * DBL_EPSILON;
        snprintf(q, sizeof q, "mean relative change of the scores S at cond(R) = %g "
                 "(T = %zu, d = %zu, d_k = %zu)", conds[head], cfg.T, cfg.d, cfg.d_k);
        snprintf(rule, sizeof rule, "CI high <= C cond(R) eps = %.3g", allowed);
        st = verdict_mc(&vl, "qkInvScoreErr", q, 0.0, acc[head][E_S].mean, lo, hi, o.draws,
                        hi <= allowed, rule);
    }
    snprintf(rule, sizeof rule, "<= C = 4 (d + 2 d_k) = %g", C);
    for (int k = 0; k < 3 && !st; k++) {
        snprintf(q, sizeof q, "largest relative change of %s, in units of cond(R) eps, over %zu draws "
                 "and cond(R) = %g .. %g", what[k], total, conds[0], conds[n - 1]);
        st = verdict_exact(&vl, macro[k], q, 0.0, worst[k], C, worst[k] <= C, rule);
        if (!st) vl.v[vl.n - 1].m.draws = total;
    }
    if (!st && nonorth > 0) {
        snprintf(q, sizeof q, "smallest relative change of the queries Q over %zu draws with "
                 "non-orthogonal R (cond(R) >= %g)", nonorth, n > 1 ? conds[1] : conds[0]);
        st = verdict_exact(&vl, "qkInvQueryChangeMin", q, NAN, qmin, 0.1, qmin >= 0.1, ">= 0.1");
        if (!st) vl.v[vl.n - 1].m.draws = nonorth;
    }
    if (!st && conds[0] == 1.0) {
        double lo, hi;
        stat_ci95(&acc[0][E_Q], &lo, &hi);
        snprintf(q, sizeof q, "mean relative change of the queries Q for a Haar orthogonal R "
                 "(they rotate; their Gram matrix changes by at most %.2g)", acc[0][E_G].max);
        st = verdict_mc(&vl, "qkInvQueryChangeOrth", q, NAN, acc[0][E_Q].mean, lo, hi, o.draws,
                        lo >= 0.1, "CI low >= 0.1");
    }
    free(acc);
    if (!st) st = legacy_verdicts_write(&vl, &o);
    if (!st) st = verdicts_status(&vl);
    verdicts_free(&vl);
    return opts_exit(&o, st);
}
