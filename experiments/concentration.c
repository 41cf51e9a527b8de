/* concentration - a vector's score with itself grows like d, with another
 * vector only like sqrt(d).
 *
 * Claim (concentration): for x, y in R^d with i.i.d. N(0, 1) entries, the
 * squared norm ||x||^2 (the naive self-score) is about d, while the dot
 * product x.y (the naive score with another token) is of order sqrt(d).
 * Exactly: E||x||^2 = d, Var ||x||^2 = 2d; E[x.y] = 0, E[(x.y)^2] = d.
 *
 * Measured, for d on a half-octave grid 2, 3, 4, 6, ..., 2896, 4096
 * (d = round(2^(k/2)), k = 2..24), over --draws independent pairs (x, y)
 * per d:
 *   mean of ||x||^2                    (slope 1 on log-log axes)
 *   spread of ||x||^2 = sqrt(E(||x||^2 - d)^2), the rms deviation from its
 *                     exact mean d      (slope 1/2)
 *   spread of x.y     = rms(x.y) = sqrt(E[(x.y)^2]); x.y has mean 0 exactly,
 *                     so its rms is its standard deviation (slope 1/2)
 *   mean |x.y|                          (slope 1/2; sqrt(2d/pi) for large d)
 * Each is a mean over draws with a 95% CI; an rms gets its CI as the square
 * root of the CI of the mean square (a monotone map keeps the coverage).
 * Slopes: least-squares line through (log d, log value) over the grid, with
 * the CI slope -+ 1.96 se, se the larger of the residuals' (stat_fit_line)
 * and the one propagated from the points' own Monte Carlo errors (the laws
 * are exact, so the scatter is sampling noise, larger at small d).
 * Why rms(x.y) for the spread of x.y: x.y has mean 0, so its sd is its rms
 * about the true mean; mean |x.y| tends to sqrt(2d/pi) only for large d
 * (at d = 2 it is 0.72 sqrt(d), not 0.80 sqrt(d)), so its fitted slope is
 * biased upward (about 0.51) although it is also 1/2 asymptotically.
 * Verdicts: the 95% CI of the slope of mean ||x||^2 lies in [0.98, 1.02],
 * that of rms(x.y) in [0.48, 0.52].
 *
 * With --d N only d = N is run (no slope): the verdicts are then
 * mean ||x||^2 / d and rms(x.y)^2 / d, each within 4 standard errors of 1.
 * Each d draws from its own stream (stream = d), so a point run alone gives
 * the numbers it has in the full sweep.
 *
 * Writes into --out:
 *   concentration.csv       one row per d: draws, each quantity with its CI
 *   concentration_fit.csv   the four fitted slopes with se, CI and intercept
 *   concentration.meta, concentration.verdicts.csv
 * Options: --seed --draws --rng --d.
 */
#include "mat.h"
#include "mc.h"
#include "opts.h"
#include "output.h"
#include "stats.h"
#include "status.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <gsl/gsl_randist.h>

#define ID "concentration"

enum { K_MIN = 2, K_MAX = 24, NGRID = K_MAX - K_MIN + 1 };

/* per-draw values */
enum { S_NORM2, S_NORM2_DEV2, S_DOT, S_DOT2, S_ABSDOT, NSTAT };

/* the quantities of one d, each a value and its 95% CI */
enum { Q_NORM2, Q_NORM2_SPREAD, Q_DOT_RMS, Q_DOT_ABS, NQ };
static const char *const q_names[NQ] = {"norm2_mean", "norm2_spread", "dot_rms", "dot_absmean"};
static const double q_slope[NQ] = {1.0, 0.5, 0.5, 0.5};

typedef struct {
    size_t d;
} conc_ctx;

static void *conc_alloc(void *ctx)
{
    const conc_ctx *c = ctx;
    return malloc(2 * c->d * sizeof(double));
}

/* one draw: x, y (d) ~ N(0, I); ||x||^2, (||x||^2 - d)^2, x.y, (x.y)^2, |x.y| */
static int conc_draw(void *ctx, void *scratch, gsl_rng *rng, size_t draw, double *out)
{
    (void)draw;
    const conc_ctx *c = ctx;
    double *x = scratch, *y = x + c->d;
    for (size_t k = 0; k < 2 * c->d; k++) x[k] = gsl_ran_gaussian_ziggurat(rng, 1.0);
    double n2 = 0.0, dot = 0.0;
    for (size_t k = 0; k < c->d; k++) {
        n2 += x[k] * x[k];
        dot += x[k] * y[k];
    }
    double dev = n2 - (double)c->d;
    out[S_NORM2] = n2;
    out[S_NORM2_DEV2] = dev * dev;
    out[S_DOT] = dot;
    out[S_DOT2] = dot * dot;
    out[S_ABSDOT] = fabs(dot);
    return ATT_OK;
}

typedef struct {
    size_t d, draws;
    double v[NQ], lo[NQ], hi[NQ];
    double lse[NQ];                        /* standard error of log v        */
    double dot_mean, dot_lo, dot_hi;
    double norm2_se, dot2_mean, dot2_se;   /* for the single-point verdicts */
} conc_point;

/* mean with CI, or (rms = sqrt of a mean square) with sqrt of its CI */
static void put_mean(const stat_acc *a, double *v, double *lo, double *hi)
{
    *v = a->mean;
    stat_ci95(a, lo, hi);
}

static void put_rms(const stat_acc *a, double *v, double *lo, double *hi)
{
    double l, h;
    stat_ci95(a, &l, &h);
    *v = sqrt(a->mean);
    *lo = sqrt(l > 0.0 ? l : 0.0);
    *hi = sqrt(h);
}

static int conc_run_point(const opts *o, size_t d, conc_point *p)
{
    conc_ctx ctx = {d};
    stat_acc acc[NSTAT];
    char label[64];
    snprintf(label, sizeof label, ID " d=%zu", d);
    mc_config mc = {.rng_name = o->rng_name, .seed = o->seed, .stream = d, .draws = o->draws,
                    .nstats = NSTAT, .draw = conc_draw, .alloc = conc_alloc, .free = free,
                    .ctx = &ctx, .label = label, .quiet = o->quiet};
    int st = mc_run(&mc, acc);
    if (st) return st;
    p->d = d;
    p->draws = acc[S_NORM2].n;
    put_mean(&acc[S_NORM2], &p->v[Q_NORM2], &p->lo[Q_NORM2], &p->hi[Q_NORM2]);
    put_rms(&acc[S_NORM2_DEV2], &p->v[Q_NORM2_SPREAD], &p->lo[Q_NORM2_SPREAD],
            &p->hi[Q_NORM2_SPREAD]);
    put_rms(&acc[S_DOT2], &p->v[Q_DOT_RMS], &p->lo[Q_DOT_RMS], &p->hi[Q_DOT_RMS]);
    put_mean(&acc[S_ABSDOT], &p->v[Q_DOT_ABS], &p->lo[Q_DOT_ABS], &p->hi[Q_DOT_ABS]);
    put_mean(&acc[S_DOT], &p->dot_mean, &p->dot_lo, &p->dot_hi);
    /* se of log v by the delta method: se(m)/m for a mean, se(m)/(2m) for
     * an rms = sqrt(m) */
    p->lse[Q_NORM2] = stat_se(&acc[S_NORM2]) / acc[S_NORM2].mean;
    p->lse[Q_NORM2_SPREAD] = 0.5 * stat_se(&acc[S_NORM2_DEV2]) / acc[S_NORM2_DEV2].mean;
    p->lse[Q_DOT_RMS] = 0.5 * stat_se(&acc[S_DOT2]) / acc[S_DOT2].mean;
    p->lse[Q_DOT_ABS] = stat_se(&acc[S_ABSDOT]) / acc[S_ABSDOT].mean;
    p->norm2_se = stat_se(&acc[S_NORM2]);
    p->dot2_mean = acc[S_DOT2].mean;
    p->dot2_se = stat_se(&acc[S_DOT2]);
    return ATT_OK;
}

static void put(FILE *f, double x) { fputc(',', f); csv_num(f, x); }

static int conc_write_points(const opts *o, const conc_point *p, size_t n)
{
    afile af;
    int st = afile_open(&af, o->out_dir, ID ".csv");
    if (st) return st;
    fputs("d,draws", af.f);
    for (int q = 0; q < NQ; q++) fprintf(af.f, ",%s,%s_lo,%s_hi", q_names[q], q_names[q], q_names[q]);
    fputs(",dot_mean,dot_mean_lo,dot_mean_hi,ratio_norm2_over_dot_rms\n", af.f);
    for (size_t i = 0; i < n; i++) {
        fprintf(af.f, "%zu,%zu", p[i].d, p[i].draws);
        for (int q = 0; q < NQ; q++) { put(af.f, p[i].v[q]); put(af.f, p[i].lo[q]); put(af.f, p[i].hi[q]); }
        put(af.f, p[i].dot_mean); put(af.f, p[i].dot_lo); put(af.f, p[i].dot_hi);
        put(af.f, p[i].v[Q_NORM2] / p[i].v[Q_DOT_RMS]);
        fputc('\n', af.f);
    }
    return afile_commit(&af);
}

typedef struct {
    double slope, se, se_ols, se_mc, lo, hi, intercept;
} conc_fit;

/* log v = a + b log d over the grid, b = sum c_i log v_i with
 * c_i = (x_i - xbar) / sum (x_j - xbar)^2, x = log d. Two standard errors:
 *   se_ols  from the residuals of the fit (stat_fit_line)
 *   se_mc   from the points' own Monte Carlo errors, sqrt(sum c_i^2 se_i^2)
 *           with se_i the se of log v_i: the right one when the law is exact
 *           and all scatter is sampling noise (residuals of unequal size
 *           make se_ols unreliable).
 * The CI is b -+ 1.96 max(se_ols, se_mc). */
static void conc_fit_slope(const conc_point *p, size_t n, int q, conc_fit *f)
{
    double lx[NGRID], ly[NGRID], xbar = 0.0, sxx = 0.0, var_mc = 0.0;
    for (size_t i = 0; i < n; i++) {
        lx[i] = log((double)p[i].d);
        ly[i] = log(p[i].v[q]);
        xbar += lx[i] / (double)n;
    }
    for (size_t i = 0; i < n; i++) sxx += (lx[i] - xbar) * (lx[i] - xbar);
    for (size_t i = 0; i < n; i++) {
        double c = (lx[i] - xbar) / sxx;
        var_mc += c * c * p[i].lse[q] * p[i].lse[q];
    }
    f->slope = stat_fit_line(lx, ly, n, &f->intercept, &f->se_ols);
    f->se_mc = sqrt(var_mc);
    f->se = f->se_ols > f->se_mc ? f->se_ols : f->se_mc;
    f->lo = f->slope - 1.959963984540054 * f->se;
    f->hi = f->slope + 1.959963984540054 * f->se;
}

static int conc_write_fits(const opts *o, const conc_fit *f)
{
    afile af;
    int st = afile_open(&af, o->out_dir, ID "_fit.csv");
    if (st) return st;
    fputs("quantity,expected_slope,slope,se,ci_lo,ci_hi,intercept,se_ols,se_mc\n", af.f);
    for (int q = 0; q < NQ; q++) {
        fputs(q_names[q], af.f);
        put(af.f, q_slope[q]); put(af.f, f[q].slope); put(af.f, f[q].se);
        put(af.f, f[q].lo); put(af.f, f[q].hi); put(af.f, f[q].intercept);
        put(af.f, f[q].se_ols); put(af.f, f[q].se_mc);
        fputc('\n', af.f);
    }
    return afile_commit(&af);
}

static int conc_verdicts_sweep(verdict_list *vl, const conc_fit *f, size_t n, size_t draws)
{
    char q[256];
    snprintf(q, sizeof q, "log-log slope of mean ||x||^2 vs d (d = 2..4096, %zu values of d)", n);
    int st = verdict_mc(vl, "concNormSlope", q, 1.0, f[Q_NORM2].slope, f[Q_NORM2].lo,
                        f[Q_NORM2].hi, draws, f[Q_NORM2].lo >= 0.98 && f[Q_NORM2].hi <= 1.02,
                        "CI within [0.98, 1.02]");
    snprintf(q, sizeof q, "log-log slope of rms(x.y) = sd(x.y) vs d (d = 2..4096, %zu values of d)", n);
    if (!st)
        st = verdict_mc(vl, "concDotSlope", q, 0.5, f[Q_DOT_RMS].slope, f[Q_DOT_RMS].lo,
                        f[Q_DOT_RMS].hi, draws, f[Q_DOT_RMS].lo >= 0.48 && f[Q_DOT_RMS].hi <= 0.52,
                        "CI within [0.48, 0.52]");
    return st;
}

/* single d: mean ||x||^2 / d and E(x.y)^2 / d, each within 4 se of 1 */
static int conc_verdicts_point(verdict_list *vl, const conc_point *p)
{
    double d = (double)p->d, z = 1.959963984540054;
    char q[256];
    double r = p->v[Q_NORM2] / d, se = p->norm2_se / d;
    snprintf(q, sizeof q, "mean ||x||^2 / d at d = %zu (exactly 1 in expectation)", p->d);
    int st = verdict_mc(vl, "concNormRatio", q, 1.0, r, r - z * se, r + z * se, p->draws,
                        fabs(r - 1.0) <= 4.0 * se, "within 4 se of 1");
    r = p->dot2_mean / d;
    se = p->dot2_se / d;
    snprintf(q, sizeof q, "mean (x.y)^2 / d at d = %zu (exactly 1 in expectation)", p->d);
    if (!st)
        st = verdict_mc(vl, "concDotRatio", q, 1.0, r, r - z * se, r + z * se, p->draws,
                        fabs(r - 1.0) <= 4.0 * se, "within 4 se of 1");
    return st;
}

int main(int argc, char **argv)
{
    att_init();
    const opts_info info = {ID, "squared norm ~ d, dot product ~ sqrt(d), for d = 2..4096",
                            OPT_MC | OPT_D, 20261129UL, 4096, NULL};
    opts o;
    int st = opts_parse(&o, &info, argc, argv);
    if (st) return opts_exit(&o, st);
    /* per thread: two vectors of the largest d; and the engine's blocks */
    if ((st = opts_check_memory(&o, mc_run_bytes(mat_bytes(2, o.d ? o.d : 4096), o.draws, NSTAT),
                                "two vectors of length d (per thread) and Monte Carlo blocks")))
        return opts_exit(&o, st);

    /* the grid: d = round(2^(k/2)), or the one d of --d */
    conc_point pts[NGRID];
    size_t n = 0;
    for (int k = K_MIN; k <= K_MAX && !st; k++) {
        size_t d = o.d ? o.d : (size_t)lround(pow(2.0, 0.5 * k));
        st = conc_run_point(&o, d, &pts[n++]);
        if (o.d) break;
    }
    if (!st) st = conc_write_points(&o, pts, n);

    verdict_list vl;
    verdicts_init(&vl);
    conc_fit fits[NQ];
    char meta[512];
    if (!st && n >= 3) {
        for (int q = 0; q < NQ; q++) conc_fit_slope(pts, n, q, &fits[q]);
        st = conc_write_fits(&o, fits);
        snprintf(meta, sizeof meta,
                 "grid: d = round(2^(k/2)), k = %d..%d\n"
                 "slopes (log-log, 95%% CI): mean ||x||^2 %.4f [%.4f, %.4f]; "
                 "rms(x.y) %.4f [%.4f, %.4f]; spread ||x||^2 %.4f; mean |x.y| %.4f\n"
                 "note: rms(x.y) is used as the spread of x.y because E[x.y] = 0 exactly,\n"
                 "so its rms is its standard deviation about the true mean.",
                 K_MIN, K_MAX, fits[Q_NORM2].slope, fits[Q_NORM2].lo, fits[Q_NORM2].hi,
                 fits[Q_DOT_RMS].slope, fits[Q_DOT_RMS].lo, fits[Q_DOT_RMS].hi,
                 fits[Q_NORM2_SPREAD].slope, fits[Q_DOT_ABS].slope);
        if (!st) st = conc_verdicts_sweep(&vl, fits, n, o.draws);
    } else if (!st) {
        snprintf(meta, sizeof meta, "single point: d = %zu (no slope fitted)", pts[0].d);
        st = conc_verdicts_point(&vl, &pts[0]);
    }
    if (!st) st = output_meta(&o, meta);
    if (!st) st = legacy_verdicts_write(&vl, &o);
    if (!st) st = verdicts_status(&vl);
    verdicts_free(&vl);
    return opts_exit(&o, st);
}
