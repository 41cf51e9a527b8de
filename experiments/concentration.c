/* concentration - a vector's score with itself grows like d, with another vector like sqrt(d).
 *
 * Claim (concentration): for x, y in R^d with i.i.d. N(0, 1) entries the
 * squared norm ||x||^2 (the raw self-score) is about d, the dot product x.y
 * (the raw score with another token) of order sqrt(d). Exactly:
 * E||x||^2 = d, Var ||x||^2 = 2d; E[x.y] = 0, E[(x.y)^2] = d.
 * Measured: d = round(2^(k/2)), k = 2..24 (d = 2 .. 4096), --draws pairs
 * (x, y) per d, one Monte Carlo grid (stream = d, so a point run alone gives
 * the numbers it has in the sweep): mean ||x||^2 (slope 1 on log-log axes),
 * its rms deviation from d (slope 1/2), rms(x.y) = sd(x.y) since E[x.y] = 0
 * (slope 1/2), mean |x.y| (slope 1/2, sqrt(2d/pi) only for large d, so its
 * fitted slope is biased up to about 0.51). An rms gets its CI as the square
 * root of the CI of the mean square. Slopes: least squares through
 * (log d, log value), CI slope -+ 1.96 se with se the larger of the residuals'
 * and the one propagated from the points' Monte Carlo errors.
 * Verdicts: slope of mean ||x||^2 CI within [0.98, 1.02], of rms(x.y) within
 * [0.48, 0.52]; with --d N (no slope) mean ||x||^2 / d and E(x.y)^2 / d.
 * Writes into --out: concentration.csv (one row per d), concentration_fit.csv
 * (the four slopes), .meta, .verdicts.csv.
 */
#include "experiment.h"
#include "mem.h"
#include "status.h"
#include "table.h"

#include <math.h>
#include <stdint.h>
#include <gsl/gsl_randist.h>

enum { K_MIN = 2, K_MAX = 24, NGRID = K_MAX - K_MIN + 1 };
/* per-draw values */
enum { S_NORM2, S_NORM2_DEV2, S_DOT, S_DOT2, S_ABSDOT, NSTAT };
/* the quantities of one d, each a value and its 95% CI */
enum { Q_NORM2, Q_NORM2_SPREAD, Q_DOT_RMS, Q_DOT_ABS, NQ };
static const char *const q_names[NQ] = {"norm2_mean", "norm2_spread", "dot_rms", "dot_absmean"};
static const double q_slope[NQ] = {1.0, 0.5, 0.5, 0.5};

typedef struct {
    size_t d[NGRID], n;
} ctx;

typedef struct {
    size_t n;          /* doubles in x */
    double x[];
} scratch;

typedef struct {
    size_t d, draws;
    double v[NQ][3];                      /* value, CI low, CI high */
    double dot_mean, dot_mean_lo, dot_mean_hi, ratio_norm2_over_dot_rms;
} point_row;
static const table_col point_cols[] = {
    COL(point_row, d), COL(point_row, draws),
    COL_MC_AS(point_row, v[0][0], "norm2_mean", "norm2_mean_lo", "norm2_mean_hi"),
    COL_MC_AS(point_row, v[0][1], "norm2_mean_lo", "norm2_mean_lo", "norm2_mean_hi"),
    COL_MC_AS(point_row, v[0][2], "norm2_mean_hi", "norm2_mean_lo", "norm2_mean_hi"),
    COL_MC_AS(point_row, v[1][0], "norm2_spread", "norm2_spread_lo", "norm2_spread_hi"),
    COL_MC_AS(point_row, v[1][1], "norm2_spread_lo", "norm2_spread_lo", "norm2_spread_hi"),
    COL_MC_AS(point_row, v[1][2], "norm2_spread_hi", "norm2_spread_lo", "norm2_spread_hi"),
    COL_MC_AS(point_row, v[2][0], "dot_rms", "dot_rms_lo", "dot_rms_hi"),
    COL_MC_AS(point_row, v[2][1], "dot_rms_lo", "dot_rms_lo", "dot_rms_hi"),
    COL_MC_AS(point_row, v[2][2], "dot_rms_hi", "dot_rms_lo", "dot_rms_hi"),
    COL_MC_AS(point_row, v[3][0], "dot_absmean", "dot_absmean_lo", "dot_absmean_hi"),
    COL_MC_AS(point_row, v[3][1], "dot_absmean_lo", "dot_absmean_lo", "dot_absmean_hi"),
    COL_MC_AS(point_row, v[3][2], "dot_absmean_hi", "dot_absmean_lo", "dot_absmean_hi"),
    COL_MC(point_row, dot_mean, "dot_mean_lo", "dot_mean_hi"), COL_MC(point_row, dot_mean_lo, "dot_mean_lo", "dot_mean_hi"),
    COL_MC(point_row, dot_mean_hi, "dot_mean_lo", "dot_mean_hi"),
    COL(point_row, ratio_norm2_over_dot_rms)};

typedef struct {
    const char *quantity;
    double expected_slope, slope, se, ci_lo, ci_hi, intercept, se_ols, se_mc;
} fit_row;
static const table_col fit_cols[] = {
    COL(fit_row, quantity), COL(fit_row, expected_slope), COL_MC(fit_row, slope, "ci_lo", "ci_hi"), COL(fit_row, se),
    COL_MC(fit_row, ci_lo, "ci_lo", "ci_hi"), COL_MC(fit_row, ci_hi, "ci_lo", "ci_hi"), COL(fit_row, intercept), COL(fit_row, se_ols),
    COL(fit_row, se_mc)};

static void *scratch_alloc(void *cv)
{
    const ctx *c = cv;
    size_t dmax = 0;
    for (size_t i = 0; i < c->n; i++) dmax = c->d[i] > dmax ? c->d[i] : dmax;
    scratch *s = mem_calloc(1, sizeof *s + 2 * dmax * sizeof(double), "two vectors of length d");
    if (s) s->n = 2 * dmax;
    return s;
}

static void scratch_free(void *p)
{
    if (p) mem_free(p, 1, sizeof(scratch) + ((scratch *)p)->n * sizeof(double));
}

/* one draw at d: x, y (d) ~ N(0, I); ||x||^2, (||x||^2 - d)^2, x.y, (x.y)^2, |x.y| */
static int draw(void *cv, void *sv, gsl_rng *rng, size_t p, size_t i, double *out)
{
    (void)i;
    const ctx *c = cv;
    size_t d = c->d[p];
    double *x = ((scratch *)sv)->x, *y = x + d;
    for (size_t k = 0; k < 2 * d; k++) x[k] = gsl_ran_gaussian_ziggurat(rng, 1.0);
    double n2 = 0.0, dot = 0.0;
    for (size_t k = 0; k < d; k++) {
        n2 += x[k] * x[k];
        dot += x[k] * y[k];
    }
    double dev = n2 - (double)d;
    out[S_NORM2] = n2;
    out[S_NORM2_DEV2] = dev * dev;
    out[S_DOT] = dot;
    out[S_DOT2] = dot * dot;
    out[S_ABSDOT] = fabs(dot);
    return ATT_OK;
}

static uint64_t point_stream(const void *cv, size_t p) { return ((const ctx *)cv)->d[p]; }

/* a mean with its CI, or an rms = sqrt(mean square) with the sqrt of its CI */
static void mean_of(const stat_acc *a, double *v)
{
    v[0] = a->mean;
    stat_ci95(a, &v[1], &v[2]);
}

static void rms_of(const stat_acc *a, double *v)
{
    double l, h;
    stat_ci95(a, &l, &h);
    v[0] = sqrt(a->mean);
    v[1] = sqrt(l > 0.0 ? l : 0.0);
    v[2] = sqrt(h);
}

/* log v = a + b log d, b = sum c_i log v_i, c_i = (x_i - xbar) / sum (x_j - xbar)^2,
 * x = log d. se_ols from the residuals (stat_fit_line); se_mc = sqrt(sum c_i^2
 * se_i^2) from the points' Monte Carlo errors (se_i of log v_i by the delta
 * method: se(m)/m for a mean, se(m)/(2m) for an rms); CI b -+ 1.96 max of both. */
static fit_row fit_slope(const point_row *p, const double *lse, size_t n, int q)
{
    double lx[NGRID], ly[NGRID], xbar = 0.0, sxx = 0.0, var_mc = 0.0;
    fit_row f = {q_names[q], q_slope[q], 0, 0, 0, 0, 0, 0, 0};
    for (size_t i = 0; i < n; i++) {
        lx[i] = log((double)p[i].d);
        ly[i] = log(p[i].v[q][0]);
        xbar += lx[i] / (double)n;
    }
    for (size_t i = 0; i < n; i++) sxx += (lx[i] - xbar) * (lx[i] - xbar);
    for (size_t i = 0; i < n; i++) {
        double c = (lx[i] - xbar) / sxx;
        var_mc += c * c * lse[i * NQ + q] * lse[i * NQ + q];
    }
    f.slope = stat_fit_line(lx, ly, n, &f.intercept, &f.se_ols);
    f.se_mc = sqrt(var_mc);
    f.se = f.se_ols > f.se_mc ? f.se_ols : f.se_mc;
    f.ci_lo = f.slope - 1.959963984540054 * f.se;
    f.ci_hi = f.slope + 1.959963984540054 * f.se;
    return f;
}

static int run(experiment *e)
{
    static ctx c;
    c.n = 0;
    for (int k = K_MIN; k <= K_MAX && !(e->o.d && c.n); k++)
        c.d[c.n++] = e->o.d ? e->o.d : (size_t)lround(pow(2.0, 0.5 * k));
    stat_acc acc[NGRID * NSTAT];
    mc_config cfg = exp_mc(e, "concentration");
    cfg.nstats = NSTAT;
    cfg.points = c.n;
    cfg.draw_at = draw;
    cfg.point_stream = point_stream;
    cfg.alloc = scratch_alloc;
    cfg.free = scratch_free;
    cfg.ctx = &c;
    int st = mc_run(&cfg, acc);
    if (st) return st;

    point_row pts[NGRID];
    double lse[NGRID * NQ];
    for (size_t i = 0; i < c.n; i++) {
        const stat_acc *a = acc + i * NSTAT;
        point_row *p = &pts[i];
        p->d = c.d[i];
        p->draws = a[S_NORM2].n;
        mean_of(&a[S_NORM2], p->v[Q_NORM2]);
        rms_of(&a[S_NORM2_DEV2], p->v[Q_NORM2_SPREAD]);
        rms_of(&a[S_DOT2], p->v[Q_DOT_RMS]);
        mean_of(&a[S_ABSDOT], p->v[Q_DOT_ABS]);
        double dm[3];
        mean_of(&a[S_DOT], dm);
        p->dot_mean = dm[0], p->dot_mean_lo = dm[1], p->dot_mean_hi = dm[2];
        p->ratio_norm2_over_dot_rms = p->v[Q_NORM2][0] / p->v[Q_DOT_RMS][0];
        lse[i * NQ + Q_NORM2] = stat_se(&a[S_NORM2]) / a[S_NORM2].mean;
        lse[i * NQ + Q_NORM2_SPREAD] = 0.5 * stat_se(&a[S_NORM2_DEV2]) / a[S_NORM2_DEV2].mean;
        lse[i * NQ + Q_DOT_RMS] = 0.5 * stat_se(&a[S_DOT2]) / a[S_DOT2].mean;
        lse[i * NQ + Q_DOT_ABS] = stat_se(&a[S_ABSDOT]) / a[S_ABSDOT].mean;
    }
    if ((st = TABLE_WRITE(e->o.out_dir, "concentration.csv", point_cols, pts, c.n))) return st;

    if (c.n < 3) {   /* one d: mean ||x||^2 / d and mean (x.y)^2 / d, both exactly 1 */
        double d = (double)pts[0].d, lo, hi;
        exp_meta(e, "single point: d = %zu (no slope fitted)", pts[0].d);
        verdict_add(&e->v, KIND_CLAIM, "concNormRatio", 1.0,
                    measure_ci(pts[0].v[Q_NORM2][0] / d, pts[0].v[Q_NORM2][1] / d,
                               pts[0].v[Q_NORM2][2] / d, pts[0].draws),
                    rule_ci_within(0.98, 1.02), "mean ||x||^2 / d at d = %zu (exactly 1)", pts[0].d);
        stat_ci95(&acc[S_DOT2], &lo, &hi);
        verdict_add(&e->v, KIND_CLAIM, "concDotRatio", 1.0,
                    measure_ci(acc[S_DOT2].mean / d, lo / d, hi / d, pts[0].draws),
                    rule_ci_within(0.9, 1.1), "mean (x.y)^2 / d at d = %zu (exactly 1)", pts[0].d);
        return ATT_OK;
    }
    fit_row fits[NQ];
    for (int q = 0; q < NQ; q++) fits[q] = fit_slope(pts, lse, c.n, q);
    if ((st = TABLE_WRITE(e->o.out_dir, "concentration_fit.csv", fit_cols, fits, NQ))) return st;
    exp_meta(e, "grid: d = round(2^(k/2)), k = %d..%d", K_MIN, K_MAX);
    exp_meta(e, "slopes (log-log, 95%% CI): mean ||x||^2 %.4f [%.4f, %.4f]; rms(x.y) %.4f [%.4f, %.4f]; "
             "spread ||x||^2 %.4f; mean |x.y| %.4f", fits[Q_NORM2].slope, fits[Q_NORM2].ci_lo,
             fits[Q_NORM2].ci_hi, fits[Q_DOT_RMS].slope, fits[Q_DOT_RMS].ci_lo, fits[Q_DOT_RMS].ci_hi,
             fits[Q_NORM2_SPREAD].slope, fits[Q_DOT_ABS].slope);
    verdict_add(&e->v, KIND_CLAIM, "concNormSlope", 1.0,
                measure_ci(fits[Q_NORM2].slope, fits[Q_NORM2].ci_lo, fits[Q_NORM2].ci_hi, e->o.draws),
                rule_ci_within(0.98, 1.02), "log-log slope of mean ||x||^2 against d (d = 2..4096, "
                "%zu widths, %zu draws each)", c.n, e->o.draws);
    verdict_add(&e->v, KIND_CLAIM, "concDotSlope", 0.5,
                measure_ci(fits[Q_DOT_RMS].slope, fits[Q_DOT_RMS].ci_lo, fits[Q_DOT_RMS].ci_hi,
                           e->o.draws),
                rule_ci_within(0.48, 0.52), "log-log slope of rms(x.y) = sd(x.y) against d "
                "(d = 2..4096, %zu widths, %zu draws each)", c.n, e->o.draws);
    return ATT_OK;
}

int main(int argc, char **argv)
{
    static const experiment_def def = {"concentration",
                                       "squared norm ~ d, dot product ~ sqrt(d), for d = 2..4096",
                                       OPT_MC | OPT_D, 20261129UL, 4096, NULL, run};
    return experiment_main(&def, argc, argv);
}
