/* long_sequences - "about 1/T" at long sequences: how far does it hold? (suite extension)
 *
 * Claim: with random projections a token's mean weight on itself is about 1/T, with an excess
 * that grows with T. How far: the T* beyond which T E[a_ii] stays above 1.05, at the soft
 * scale (c^2 = 1/2) and the section's (c = 1). Given W and x_i the other T - 1 scores are
 * i.i.d. N(0, sigma_i^2), so E[T a_ii | s_ii, sigma_i] is one integral, O(1) in T (lscond.h):
 * the whole T grid from the same draws. 8 rows per W from the defensive mixture p/8 + 7 q1/8
 * of the plain and the tilted law (longseq.h; weights <= 8), control variates of W and of the
 * rows with known means (cvreg.h), T* by the last crossing with a delta-method CI (crossing.h).
 * No plateau: T E[a_ii] -> E_W[1/|det(I - W_K^T W_Q)|] = inf (dettail.h); reported instead:
 * the typical (median) 1/|det|, the mean over |det| > 0.01, the tail P(|det| < eps).
 * Writes long_sequences.csv (config, T), long_sequences_tail.csv, long_sequences.verdicts.csv.
 * --config NAMES runs some configurations; --long runs the section's scale (section, narrow)
 * with the draws that reach +-10% (LONG_DRAWS below), its macros ending in "Long"
 * (make reproduce-long writes it into results/long/).
 */
#include "crossing.h"
#include "cvreg.h"
#include "dettail.h"
#include "exp.h"
#include "longseq.h"
#include "lscond.h"
#include "mem.h"
#include "att.h"
#include "table.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The long run's draws (--long), from pilots with seed 20261201 (this program, --long --draws N):
 * the delta-method 95% half-width h of ln T* falls as 1/sqrt(n), so n = n0 (h0 / ln 1.1)^2, times
 * 1.3 for the pilot's own error, reaches +-10%:
 *   narrow:  n0 = 100,000, h0 = 0.169 -> 316,000 x 1.3 = 411,000 (121 us of CPU per draw: 50 s)
 *   section: n0 = 200,000, h0 = 0.680 -> 10.2M x 1.3 = 13.2M (96 us per draw: 21 min of CPU),
 *            capped at 6M (about 10 min of wall time on 2 busy cores; 1.5 GB of per-draw values);
 *            its precision row decides from the data whether 6M suffice. Measured (14:31,
 *            2026-12-01): h = 0.150 at 6M (T* 6,123 [5,269, 7,116]; 1/sqrt(n) from the pilot
 *            predicted 0.124), INCONCLUSIVE, 6M x (0.150 / ln 1.1)^2 = 15M would decide it;
 *            narrow: h = 0.075, PASS. 607 s of CPU, 13.6 min of wall at load 5.5.
 *            So the section now takes 6M x (0.150 / ln 1.1)^2 x 1.15 = 17M (about 27 min of CPU,
 *            4.3 GB of per-draw values: make reproduce-long passes --max-memory 8G). */
enum { LONG_DRAWS_SECTION = 17000000, LONG_DRAWS_NARROW = 411000 };

/* mult: draws = mult x --draws (the soft crossing: 4 x 20,000 give a 95% CI of x1.085, within +-10%).
 * long_draws: the draws of --long (0: not in the long run). The delta-method half-width of ln T*
 * falls as 1/sqrt(n), so n = n0 (h0 / ln 1.1)^2 reaches +-10% from a pilot's h0 at n0 draws,
 * times 1.3 for the pilot's own error (h0 is itself estimated; see LONG_PILOT). */
typedef struct { const char *name; size_t d, d_k; double c; const char *macro; size_t mult, long_draws; } config;
static const config CONFIGS[] = {{"section", 64, 16, 1.0, "", 1, LONG_DRAWS_SECTION},
                                 {"soft", 64, 16, 0.70710678118654752, "Soft", 4, 0},
                                 {"narrow", 64, 4, 1.0, "Narrow", 1, LONG_DRAWS_NARROW},
                                 {"wide", 256, 16, 0.70710678118654752, "Wide", 1, 0}};
enum { NCONFIG = 4, NT = 20, ROWS = 8, NCV = LONGSEQ_NCV + LONGSEQ_NRCV, S_DET = NT + NCV, S_TWO, NSTAT, NEPS = 7 };   /* T = 2^1 .. 2^20 */
static const double WITHIN = 1.05, TRUNC = 0.01, ALPHA = 1.0 / ROWS;   /* within 5%; |det| > 0.01; p's share */
static const double EPS[NEPS] = {1.0, 0.3, 0.1, 0.03, 0.01, 0.003, 0.001};

static const char *config_names;   /* --config */
static int long_run;                /* --long */

typedef struct { const config *cf; const lscond_table *tab; double Ts[NT], cvm[NCV]; } ctx;

static void *work_alloc(void *vc) { const ctx *c = vc; return longseq_work_new(c->cf->d, c->cf->d_k); }

/* One draw: W, then ROWS mixture rows (row 0 from p, the rest from q1); out = (T a_ii p/q
 * averaged over the rows, for each T), the control variates of W and of the rows minus their means,
 * |det(I - W_K^T W_Q)|, and one more plain row's E[2 a_ii | s, sigma] (an independent T = 2 check). */
static int draw(gsl_rng *rng, void *vc, void *vw, size_t k, double *out)
{
    (void)k;
    const ctx *c = vc;
    longseq_weights g;
    longseq_query q;
    int st = longseq_draw_weights(rng, vw, c->cf->c, &g);
    if (st) return st;
    memset(out, 0, (NT + NCV) * sizeof *out);
    for (int r = 0; r < ROWS; r++) {
        double h[NT], cv[LONGSEQ_NRCV];
        longseq_draw_row(rng, vw, &g, r > 0, ALPHA, &q);
        longseq_row_cv(&q, &g, cv);   /* mean 0 given W: averaged over the rows */
        for (int j = 0; j < LONGSEQ_NRCV; j++) out[NT + LONGSEQ_NCV + j] += cv[j] / ROWS;
        /* E[T a_ii | s, sigma] times p/q, q = alpha p + (1 - alpha) q1 */
        lscond_self(c->tab, q.s, sqrt(q.sigma2), c->Ts, NT, LSCOND_H, h);
        for (int t = 0; t < NT; t++) out[t] += h[t] * exp(q.log_ratio) / ROWS;
    }
    out[NT] = g.det - c->cvm[0];
    for (int j = 0; j < 4; j++) out[NT + 1 + j] = g.cv[j] - c->cvm[1 + j];
    out[S_DET] = fabs(g.det);
    longseq_draw_row(rng, vw, &g, 0, 1.0, &q);
    lscond_self(c->tab, q.s, sqrt(q.sigma2), c->Ts, 1, LSCOND_H, &out[S_TWO]);
    return ATT_OK;
}

typedef struct { size_t config, d, d_k, T, draws; double scale, T_self, T_self_lo, T_self_hi, plain, plain_lo, plain_hi; } ls_row;
static const table_col cols[] = {
    COL(ls_row, config), COL(ls_row, d), COL(ls_row, d_k), COL(ls_row, scale), COL(ls_row, T), COL(ls_row, draws),
    COL_MC(ls_row, T_self, "T_self_lo", "T_self_hi"), COL_MC(ls_row, T_self_lo, "T_self_lo", "T_self_hi"),
    COL_MC(ls_row, T_self_hi, "T_self_lo", "T_self_hi"), COL_MC(ls_row, plain, "plain_lo", "plain_hi"),
    COL_MC(ls_row, plain_lo, "plain_lo", "plain_hi"), COL_MC(ls_row, plain_hi, "plain_lo", "plain_hi")};
/* the verdict rows of one configuration from the fitted curve yh (NT) with covariance V */
static void verdicts(experiment *e, const config *cf, size_t n, const ls_row *rows, const double *l,
                     const double *yh, const double *V, const stat_acc *two, double *det, dettail_row *tails)
{
    char mac[40];
#define MAC(base) (snprintf(mac, sizeof mac, "%s%s%s", base, cf->macro, long_run ? "Long" : ""), mac)
    /* ---- where "about 1/T" ends: the last crossing of 1.05 ---- */
    crossing x = crossing_last(l, yh, V, NT, WITHIN);
    measure top = verdict_measure_ci(yh[NT - 1], rows[NT - 1].T_self_lo, rows[NT - 1].T_self_hi, n);
    if (x.status == CROSS_FOUND) {
        exp_reported(e, MAC("lsCrossT"), NAN, verdict_measure_ci(exp(x.l), exp(x.lo), exp(x.hi), n),
                     "T beyond which T E[a_ii] stays above 1.05 (conditional estimator, %zu W x %d mixture rows, "
                     "control variates; delta-method CI: x%.3f / x%.3f; d = %zu, d_k = %zu, c = %.4g)",
                     n, ROWS, exp(x.l - x.lo), exp(x.hi - x.l), cf->d, cf->d_k, cf->c);
        if (!strcmp(cf->macro, "Soft")) exp_headline(e);
        // +-10% at the section's scale needs the long run's draws (make reproduce-long): a control
        // there; in the default run its precision is reported (the long run's rows carry the rule)
        if (cf->long_draws && !long_run)
            exp_reported(e, MAC("lsCrossPrec"), NAN, verdict_measure_ci(x.l, x.lo, x.hi, n), "ln T* with "
                         "%zu W (+-10%% is the long run's control: make reproduce-long; d = %zu, d_k = %zu, c = %.4g)",
                         n, cf->d, cf->d_k, cf->c);
        else
            exp_control(e, MAC("lsCrossPrec"), NAN, verdict_measure_ci(x.l, x.lo, x.hi, n), verdict_rule_precision(log(1.1)),
                        "ln T* to +-10%% (95%% CI half-width <= ln 1.1; d = %zu, d_k = %zu, c = %.4g)", cf->d, cf->d_k, cf->c);
        exp_summary(e, "T E[a_ii] passes 1.05 at T* = %.4g, 95%% CI [%.4g, %.4g] (d = %zu, d_k = %zu, c = %.3g)",
                    exp(x.l), exp(x.lo), exp(x.hi), cf->d, cf->d_k, cf->c);
    } else if (x.status == CROSS_BELOW) {
        exp_claim(e, MAC("lsBelowAtMax"), NAN, top, verdict_rule_ci_below(WITHIN), "T E[a_ii] at T = 2^20 stays below 1.05: "
                  "about 1/T within 5%% up to there (d = %zu, d_k = %zu, c = %.4g)", cf->d, cf->d_k, cf->c);
    }
    exp_reported(e, MAC("lsTSelfMax"), NAN, top, "T E[a_ii] at T = 2^20 (d = %zu, d_k = %zu, c = %.4g)", cf->d, cf->d_k, cf->c);
    exp_control(e, MAC("lsTwoExact"), 1.0, verdict_measure_stat(two), verdict_rule_ci_within(0.97, 1.03),
                "T E[a_ii] at T = 2 (plain rows), exactly 1 by W_K -> -W_K: the conditional integral is unbiased "
                "(d = %zu, d_k = %zu, c = %.4g)", cf->d, cf->d_k, cf->c);
    // the curve's own estimator (mixture rows, control variates) at the one T where the
    // answer is exact: T E[a_ii] = 1 at T = 2; a miss means its curve and crossing are biased
    // z = |y(2) - 1| / se(y(2)) <= 3: the estimate sits within 3 of its own standard errors of 1
    double se2 = sqrt(V[0]);
    if (se2 > 0.0 && isfinite(se2))
        exp_control(e, MAC("lsTwoCurve"), 0.0, verdict_measure_exact(fabs(yh[0] - 1.0) / se2, n), verdict_rule_at_most(3.0),
                    "|y - 1| / se of T E[a_ii] at T = 2 by the curve's estimator (mixture rows, control variates; "
                    "y = %.4f, se %.2g), exactly 1 by W_K -> -W_K: the curve is unbiased (d = %zu, d_k = %zu, "
                    "c = %.4g)", yh[0], se2, cf->d, cf->d_k, cf->c);
    /* ---- the plateau that is not one: 1/|det| has an infinite mean ---- */
    measure tr = dettail_trunc(det, n, TRUNC);
    dettail_summary ds;
    dettail_stats(det, n, EPS, NEPS, 0.1, tails, &ds);
    exp_reported(e, MAC("lsDetDensity"), NAN, ds.density,
                 "density p0 of det(I - W_K^T W_Q) near 0, estimated as P(|det| < 0.1) / 0.2 (Wilson CI; the draws "
                 "resolve it only at c = 1). It is positive (det takes both signs and has a smooth density), so "
                 "E[1/|det|; |det| > eps] ~ 2 p0 ln(1/eps) diverges (d = %zu, d_k = %zu, c = %.4g)", cf->d, cf->d_k, cf->c);
    exp_reported(e, MAC("lsTypical"), NAN, ds.typical, "typical value of 1/|det(I - W_K^T W_Q)| (the median; its mean, "
                 "the T -> inf limit, is infinite; d = %zu, d_k = %zu, c = %.4g)", cf->d, cf->d_k, cf->c);
    double second = (double)cf->d_k * pow(cf->c, 4) / (double)cf->d;   /* 1 + d_k c^4/d, to second order */
    exp_reported(e, MAC("lsTrunc"), NAN, tr, "mean of 1/|det| over |det| > %g (a truncated mean: the full "
                 "mean diverges logarithmically); the second-order 1 + d_k c^4/d = %.4f misses its excess over 1 by "
                 "%.0f%% (d = %zu, d_k = %zu, c = %.4g)", TRUNC, 1.0 + second,
                 100.0 * (tr.value - 1.0 - second) / (tr.value - 1.0), cf->d, cf->d_k, cf->c);
#undef MAC
}

static int run_config(experiment *e, size_t ci, const config *cf, const lscond_table *tab, ls_row *rows, dettail_row *tails)
{
    size_t n = !long_run ? e->o.draws * cf->mult : e->o.draws_given ? e->o.draws : cf->long_draws;
    if (!e->o.quiet)   /* progress, one line per configuration (the draw counter shows only on a terminal) */
        fprintf(stderr, "long_sequences: %s (d = %zu, d_k = %zu, c = %.4g): %zu draws\n", cf->name, cf->d, cf->d_k, cf->c, n);
    static ctx c;
    c = (ctx){.cf = cf, .tab = tab};
    for (int t = 0; t < NT; t++) c.Ts[t] = ldexp(1.0, t + 1);
    longseq_cv_means(cf->d, cf->d_k, cf->c, c.cvm);
    double *val = mem_calloc(n * NSTAT, sizeof *val, "per-draw values");
    double *det = mem_calloc(n, sizeof *det, "determinants"), yh[NT], V[NT * NT], l[NT];
    stat_acc *acc = mem_calloc(NSTAT, sizeof *acc, "statistics");
    int st = val && det && acc ? ATT_OK : att_alloc_status();
    mc_config m = exp_mc(e, "long_sequences");
    m.nstats = NSTAT; m.draws = n; m.draw = draw; m.alloc = work_alloc; m.free = longseq_work_delete; m.ctx = &c;
    m.stream = (uint64_t)cf->d * 1000003u + cf->d_k * 1009u + (uint64_t)llround(cf->c * 1e6);
    m.values = val;
    if (!st) st = mc_run(&m, acc);
    for (size_t i = 0; i < n && !st; i++) det[i] = val[i * NSTAT + S_DET];
    /* the curve (NT) regressed on the control variates (NCV) of the same draws */
    if (!st) st = cvreg_fit_strided(val, NSTAT, n, NT, val + NT, NSTAT, NCV, yh, V);
    for (int t = 0; t < NT && !st; t++) {
        double se = sqrt(V[t * NT + t]), plo, phi;
        stat_ci95(&acc[t], &plo, &phi);
        l[t] = log(c.Ts[t]);
        rows[t] = (ls_row){ci, cf->d, cf->d_k, (size_t)c.Ts[t], n, cf->c, yh[t], yh[t] - STAT_Z95 * se,
                           yh[t] + STAT_Z95 * se, acc[t].mean, plo, phi};
    }
    for (int j = 0; j < NEPS; j++) tails[j].config = ci;
    if (!st) verdicts(e, cf, n, rows, l, yh, V, &acc[S_TWO], det, tails);
    mem_free(val, n * NSTAT, sizeof *val); mem_free(det, n, sizeof *det); mem_free(acc, NSTAT, sizeof *acc);
    return st;
}

static int run(experiment *e)
{
    const opts *o = &e->o;
    if (o->draws < 16) return exp_usage("--draws %zu: the control-variate regression needs at least 16", o->draws);
    unsigned want = 0;   /* bit i: CONFIGS[i] selected (--config; default all, or the long ones with --long) */
    for (size_t i = 0; i < NCONFIG; i++) if (!long_run || CONFIGS[i].long_draws) want |= 1u << i;
    if (config_names) {
        want = 0;
        for (const char *p = config_names; ; p++) {
            size_t len = strcspn(p, ","), i = 0;
            while (i < NCONFIG && (strlen(CONFIGS[i].name) != len || strncmp(p, CONFIGS[i].name, len))) i++;
            if (i == NCONFIG) return exp_usage("--config %s: unknown configuration '%.*s' (the names: section, soft, "
                                               "narrow, wide, comma-separated)", config_names, (int)len, p);
            if (long_run && !CONFIGS[i].long_draws)
                return exp_usage("--config %s: '%s' is not in the long run (--long runs section, narrow)",
                                 config_names, CONFIGS[i].name);
            want |= 1u << i;
            p += len;
            if (!*p) break;
        }
    }
    lscond_table tab;
    ls_row rows[NCONFIG * NT];
    dettail_row tails[NCONFIG * NEPS];
    int st = lscond_table_build(&tab);
    size_t nc = 0;
    for (size_t i = 0; i < NCONFIG && !st; i++) {
        if (!(want >> i & 1u) || (o->d && CONFIGS[i].d != o->d) || (o->dk && CONFIGS[i].d_k != o->dk)) continue;
        exp_meta(e, "config%zu: %s, d = %zu, d_k = %zu, c = %.17g%s", nc, CONFIGS[i].name, CONFIGS[i].d,
                 CONFIGS[i].d_k, CONFIGS[i].c, long_run ? " (long run)" : "");
        st = run_config(e, nc, &CONFIGS[i], &tab, &rows[nc * NT], &tails[nc * NEPS]);
        nc++;
    }
    lscond_table_free(&tab);
    if (!st && nc == 0) return exp_usage("--config/--d/--dk: no configuration matches (section: d 64, d_k 16, c 1; "
                                         "soft: 64, 16, c^2 1/2; narrow: 64, 4, c 1; wide: 256, 16, c^2 1/2)");
    if (!st) st = TABLE_WRITE(o->out_dir, "long_sequences.csv", cols, rows, nc * NT);
    if (!st) st = table_write(o->out_dir, "long_sequences_tail.csv", dettail_cols, DETTAIL_NCOLS, tails, nc * NEPS, sizeof *tails);
    return st;
}

int main(int argc, char **argv)
{
    static const opt_spec extra[] = {
        {"config", OPT_STRING, &config_names, "NAMES", "configurations, comma-separated: section (d 64, d_k 16, c 1), "
         "soft (c^2 1/2), narrow (d_k 4, c 1), wide (d 256, c^2 1/2); default all"},
        {"long", OPT_FLAG, &long_run, NULL, "the long run: section and narrow with the draws chosen for +-10% "
         "(6,000,000, capped by time, and 411,000; --draws N sets both), macros ...Long (make reproduce-long)"},
        {NULL, 0, NULL, NULL, NULL}};
    static const experiment_def def = {"long_sequences", NULL, OPT_MC | OPT_D | OPT_DK, 20261201UL, 20000, extra, run};
    return exp_main(&def, argc, argv);
}
