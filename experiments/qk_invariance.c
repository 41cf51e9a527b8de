/* qk_invariance - only the product W_QK = W_Q W_K^T matters.
 *
 * Claim (qk_invariance): for any invertible R (d_k x d_k), the weights
 * W_Q R and W_K R^{-T} give the same W_QK, hence the same scores and the same
 * output, while the query (and key) vectors themselves are different. The
 * queries carry no meaning of their own; only their pairing with the keys does.
 *
 * Measured, for T = 16, d = 64, d_k = d_v = 16 and R = U diag(s) V^T with
 * Haar U, V and cond(R) = 1, 10^0.5, ..., 1e8 (cond 1: a Haar orthogonal R),
 * 400 draws per cond, the relative changes
 *   e_WQK, e_S, e_O   of W_QK, S = Q K^T and O = softmax(S) V (0 in exact
 *                     arithmetic; reported in units of cond(R) eps)
 *   e_Q               of the queries (the claim: they move)
 *   e_G               of their Gram matrix Q Q^T (kept by an orthogonal R)
 * W_K R^{-T} comes from LU solves with R, never an explicit inverse (qkov.h).
 * Rounding: W_Q R ~ ||R|| and W_K R^{-T} ~ ||R^{-1}||, so the products that
 * should give back W_QK, S, O carry errors ~ eps cond(R) times the chain
 * length (Higham 3.5, 9.4): allowed e <= C cond(R) eps, C = 4 (d + 2 d_k).
 * Prediction for an orthogonal R: E e_Q^2 = E||R - I||_F^2 / d_k = 2, so
 * e_Q ~ sqrt(2) (Q^T Q isotropic on average, E tr R = 0 for Haar R).
 *
 * Writes into --out: qk_invariance.csv (one row per cond(R): draws, mean,
 * CI and max (min for e_Q, e_G) of each quantity, the same in units of
 * cond(R) eps, allowed_units = C), qk_invariance.meta, .verdicts.csv.
 * --cond X runs the single condition number X.
 */
#include "experiment.h"
#include "head.h"
#include "mat.h"
#include "qkov.h"
#include "randmat.h"
#include "status.h"
#include "table.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>

enum { NCOND_GRID = 17 };                 /* cond = 10^(k/2), k = 0 .. 16 */
#define MAX_COND 1e15                     /* --cond at most this, below 1/eps */

enum { E_WQK, E_S, E_O, E_Q, E_G, U_WQK, U_S, U_O, NSTAT };

typedef struct {
    size_t T, d, d_k, d_v, n;
    double cond[NCOND_GRID];
    uint64_t stream[NCOND_GRID];          /* point k of the grid has stream k */
} ctx;

typedef struct {
    gsl_matrix *X, *W_Q, *W_K, *W_V, *R, *WQ2, *WK2, *WQK, *WQK2, *G1, *G2;
    head_state st1, st2;
} scratch;

static void scratch_free(void *p)
{
    scratch *s = p;
    if (s == NULL) return;
    gsl_matrix *m[] = {s->X, s->W_Q, s->W_K, s->W_V, s->R, s->WQ2, s->WK2, s->WQK, s->WQK2,
                       s->G1, s->G2};
    for (size_t k = 0; k < sizeof m / sizeof m[0]; k++) mat_free(m[k]);
    head_state_free(&s->st1);
    head_state_free(&s->st2);
    free(s);
}

/* X (T, d), W_Q, W_K, WQ2, WK2 (d, d_k), W_V (d, d_v), R (d_k, d_k),
 * WQK, WQK2 (d, d), G1, G2 (T, T), two head states */
static void *scratch_alloc(void *cp)
{
    const ctx *c = cp;
    scratch *s = calloc(1, sizeof *s);
    if (s == NULL) return NULL;
    s->X = mat_new(c->T, c->d);
    s->W_Q = mat_new(c->d, c->d_k); s->W_K = mat_new(c->d, c->d_k); s->W_V = mat_new(c->d, c->d_v);
    s->R = mat_new(c->d_k, c->d_k);
    s->WQ2 = mat_new(c->d, c->d_k); s->WK2 = mat_new(c->d, c->d_k);
    s->WQK = mat_new(c->d, c->d); s->WQK2 = mat_new(c->d, c->d);
    s->G1 = mat_new(c->T, c->T); s->G2 = mat_new(c->T, c->T);
    if (!s->X || !s->W_Q || !s->W_K || !s->W_V || !s->R || !s->WQ2 || !s->WK2 || !s->WQK
        || !s->WQK2 || !s->G1 || !s->G2
        || head_state_alloc(&s->st1, c->T, c->T, c->d, c->d_k, c->d_v) != ATT_OK
        || head_state_alloc(&s->st2, c->T, c->T, c->d, c->d_k, c->d_v) != ATT_OK) {
        scratch_free(s);
        return NULL;
    }
    return s;
}

static uint64_t point_stream(const void *cp, size_t p) { return ((const ctx *)cp)->stream[p]; }

/* One draw at grid point p: X ~ N(0, 1), weights ~ N(0, 1/d), R with
 * cond(R) = cond[p]; the head before and after W_Q -> W_Q R, W_K -> W_K R^{-T}. */
static int draw_at(void *cp, void *sp, gsl_rng *rng, size_t p, size_t i, double *out)
{
    (void)i;
    const ctx *c = cp;
    scratch *s = sp;
    double sw = 1.0 / sqrt((double)c->d);
    mat_randn(s->X, rng, 1.0);
    mat_randn(s->W_Q, rng, sw);
    mat_randn(s->W_K, rng, sw);
    mat_randn(s->W_V, rng, sw);
    int rc = randmat_with_cond(s->R, rng, c->cond[p]);
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

    // e = ||M' - M||_F / ||M||_F, and e / (cond(R) eps)
    double unit = c->cond[p] * DBL_EPSILON;
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

/* one quantity: mean, CI, and its extreme (max, or min for e_Q and e_G) */
typedef struct { double mean, lo, hi, ext; } summary;
typedef struct {
    double cond;
    int orthogonal;
    size_t draws;
    summary e[NSTAT];
    double allowed_units;
} cond_row;
/* make verify compares a Monte Carlo summary within its CI (mc), a rounding
 * error's by order of magnitude (rounding: it depends on the BLAS kernel),
 * in units against allowed_units (table.h) */
#define SUMMARY_COLS(k, name, extreme)                                                        \
    COL_MC_AS(cond_row, e[k].mean, name "_mean", name "_lo", name "_hi"),                     \
        COL_MC_AS(cond_row, e[k].lo, name "_lo", name "_lo", name "_hi"),                     \
        COL_MC_AS(cond_row, e[k].hi, name "_hi", name "_lo", name "_hi"), COL_AS(cond_row, e[k].ext, name "_" extreme)
#define ROUND_COLS(k, name, extreme, bound)                                                   \
    COL_ROUND_AS(cond_row, e[k].mean, name "_mean", bound), COL_ROUND_AS(cond_row, e[k].lo, name "_lo", bound), \
        COL_ROUND_AS(cond_row, e[k].hi, name "_hi", bound), COL_ROUND_AS(cond_row, e[k].ext, name "_" extreme, bound)
static const table_col cond_cols[] = {
    COL(cond_row, cond), COL(cond_row, orthogonal), COL(cond_row, draws),
    ROUND_COLS(E_WQK, "wqk", "max", NULL), ROUND_COLS(E_S, "s", "max", NULL),
    ROUND_COLS(E_O, "o", "max", NULL), SUMMARY_COLS(E_Q, "q", "min"),
    ROUND_COLS(E_G, "gram", "min", NULL), ROUND_COLS(U_WQK, "wqk_units", "max", "allowed_units"),
    ROUND_COLS(U_S, "s_units", "max", "allowed_units"), ROUND_COLS(U_O, "o_units", "max", "allowed_units"),
    COL(cond_row, allowed_units)};

static double cond_opt = 0.0;   /* --cond X, 0: the whole grid */
static const opt_spec extra[] = {
    {"cond", OPT_DOUBLE, &cond_opt, "X",
     "run only condition number cond(R) = X, 1 <= X <= 1e15 (default: 1 .. 1e8, 17 points)"},
    {NULL, 0, NULL, NULL, NULL}};

static int run(experiment *e)
{
    const double cond_only = cond_opt;
    const opts *o = &e->o;
    ctx c = {o->T ? o->T : 16, o->d ? o->d : 64, o->dk ? o->dk : 16, o->dv ? o->dv : 16, 0, {0}, {0}};
    if (cond_only != 0.0 && !(cond_only >= 1.0))
        return exp_usage("--cond: %g is not a condition number >= 1", cond_only);
    if (cond_only > MAX_COND)   /* cond(R) eps >= 1: R is singular to working precision */
        return exp_usage("--cond: %g is too large: at most %g (beyond 1/eps = %.3g, R is "
                         "singular to working precision)", cond_only, MAX_COND, 1.0 / DBL_EPSILON);
    if (c.d_k == 1 && cond_only > 1.0)
        return exp_usage("--cond %g needs d_k >= 2 (a 1 x 1 R has cond 1)", cond_only);

    /* the grid; point k has stream k, so --cond 10^(k/2) reruns it */
    for (int k = 0; k < NCOND_GRID && !(c.d_k == 1 && k > 0); k++) {
        double ck = pow(10.0, 0.5 * k);
        if (cond_only == 0.0 || fabs(ck - cond_only) <= 1e-12 * ck) {
            c.cond[c.n] = ck; c.stream[c.n++] = (uint64_t)k;
        }
    }
    if (c.n == 0) { c.cond[0] = cond_only; c.stream[0] = 1000; c.n = 1; }   /* off the grid */

    stat_acc acc[NCOND_GRID][NSTAT];
    mc_config cfg = exp_mc(e, NULL);
    cfg.nstats = NSTAT; cfg.points = c.n; cfg.draw_at = draw_at; cfg.point_stream = point_stream;
    cfg.alloc = scratch_alloc; cfg.free = scratch_free; cfg.ctx = &c;
    int st = mc_run(&cfg, &acc[0][0]);
    if (st) return st;

    double C = 4.0 * (double)(c.d + 2 * c.d_k);
    cond_row rows[NCOND_GRID];
    for (size_t p = 0; p < c.n; p++) {
        rows[p] = (cond_row){.cond = c.cond[p], .orthogonal = c.cond[p] == 1.0,
                             .draws = acc[p][0].n, .allowed_units = C};
        for (int k = 0; k < NSTAT; k++) {
            summary *m = &rows[p].e[k];
            m->mean = acc[p][k].mean;
            stat_ci95(&acc[p][k], &m->lo, &m->hi);
            m->ext = (k == E_Q || k == E_G) ? acc[p][k].min : acc[p][k].max;
        }
    }
    if ((st = TABLE_WRITE(o->out_dir, "qk_invariance.csv", cond_cols, rows, c.n))) return st;
    exp_meta(e, "T: %zu", c.T);
    exp_meta(e, "d: %zu", c.d);
    exp_meta(e, "d_k: %zu", c.d_k);
    exp_meta(e, "d_v: %zu", c.d_v);
    exp_meta(e, "allowed_units: %g", C);

    /* worst cases over every draw and every cond */
    double worst[3] = {0, 0, 0}, qmin = INFINITY;
    size_t total = 0, nonorth = 0;
    for (size_t p = 0; p < c.n; p++) {
        total += acc[p][0].n;
        for (int k = 0; k < 3; k++) worst[k] = fmax(worst[k], acc[p][U_WQK + k].max);
        if (c.cond[p] > 1.0) { qmin = fmin(qmin, acc[p][E_Q].min); nonorth += acc[p][0].n; }
    }
    /* the claim: the queries move (every non-orthogonal draw) ... */
    if (nonorth > 0)
        verdict_add(&e->v, KIND_CLAIM, "qkInvQueryChangeMin", NAN, measure_exact(qmin, nonorth),
                    rule_at_least(0.1), "smallest relative change ||Q' - Q||_F / ||Q||_F of the "
                    "queries over %zu draws with cond(R) = %g .. %g", nonorth,
                    c.n > 1 ? c.cond[1] : c.cond[0], c.cond[c.n - 1]);
    /* ... even for an orthogonal R, by about sqrt(2), keeping lengths and angles */
    if (c.cond[0] == 1.0 && c.d_k >= 2) {   /* sqrt(2) needs E tr R = 0: Haar R of size >= 2 */
        verdict_add(&e->v, KIND_CLAIM, "qkInvQueryChangeOrth", M_SQRT2, measure_stat(&acc[0][E_Q]),
                    rule_ci_within(0.98 * M_SQRT2, 1.02 * M_SQRT2), "mean relative change of the "
                    "queries for a Haar orthogonal R, against the prediction sqrt(2), within 2%%");
        verdict_add(&e->v, KIND_IDENTITY, "qkInvGramOrthMax", 0.0,
                    measure_exact(acc[0][E_G].max, acc[0][E_G].n), rule_at_most(C * DBL_EPSILON),
                    "largest relative change of the Gram matrix Q Q^T for an orthogonal R");
    }
    /* ... while W_QK, S and O stay put up to C cond(R) eps */
    const char *what[3] = {"W_QK", "the scores S", "the output O"};
    const char *macro[3] = {"qkInvWqkErrMax", "qkInvScoreErrMax", "qkInvOutErrMax"};
    for (int k = 0; k < 3; k++)
        verdict_add(&e->v, KIND_IDENTITY, macro[k], 0.0, measure_exact(worst[k], total),
                    rule_at_most(C), "largest relative change of %s, in units of cond(R) eps, "
                    "over %zu draws, cond(R) = %g .. %g (C = 4 (d + 2 d_k))", what[k], total,
                    c.cond[0], c.cond[c.n - 1]);
    size_t h = c.n - 1;
    verdict_add(&e->v, KIND_IDENTITY, "qkInvScoreErr", 0.0, measure_stat(&acc[h][E_S]),
                rule_ci_below(C * c.cond[h] * DBL_EPSILON), "mean relative change of the scores "
                "at the largest cond(R) = %g", c.cond[h]);
    return ATT_OK;
}

int main(int argc, char **argv)
{
    static const experiment_def def = {
        "qk_invariance", "W_Q R, W_K R^-T: same W_QK, scores and output; different queries",
        OPT_MC | OPT_T | OPT_D | OPT_DK | OPT_DV, 20261129UL, 400, extra, run};
    return experiment_main(&def, argc, argv);
}
