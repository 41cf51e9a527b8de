/* concentration - "The naive version, where each token is its own query, key, and value"
 *
 * Claim: a vector's score with itself grows like d, its score with another
 * vector like sqrt(d). For x, y in R^d with i.i.d. N(0, 1) entries, exactly:
 * E||x||^2 = d, Var ||x||^2 = 2d; E[x.y] = 0, E[(x.y)^2] = d.
 *
 * Measured: d = round(2^(k/2)), k = 2..24 (d = 2 .. 4096; --d filters it),
 * --draws pairs (x, y) per d: mean ||x||^2 (log-log slope 1), its rms
 * deviation from d (slope 1/2), rms(x.y) = sd(x.y) since E[x.y] = 0 (slope
 * 1/2), mean |x.y| (slope 1/2; sqrt(2d/pi) only for large d, so its fitted
 * slope is biased up to about 0.51). An rms gets its CI as the square root of
 * the CI of the mean square. Slopes: least squares through (log d, log value),
 * CI from the larger of the residuals' and the points' Monte Carlo errors
 * (stat_fit_slope). Fewer than 3 widths: mean ||x||^2 / d and E(x.y)^2 / d.
 * Writes: concentration.csv (sweep.h: per d, every statistic's mean, CI, min,
 * max, n; then the rms columns), concentration_fit.csv (the four slopes).
 */
#include "prelude.h"
#include "randn.h"

#define STATS(X) X(S_NORM2, "norm2") X(S_NORM2_DEV2, "norm2_dev2") X(S_DOT, "dot") \
    X(S_DOT2, "dot2") X(S_ABSDOT, "absdot")
SWEEP_STATS(STATS);

/* one draw at d: x, y (d) ~ N(0, I) */
static int draw(gsl_rng *rng, double *out, const sweep_point *pt, void *work, const void *ctx)
{
    (void)ctx;
    size_t d = pt->d;
    double *x = work, *y = x + d;
    randn_fill(rng, x, 2 * d, 1.0);
    // ||x||^2 = sum_k x_k^2 (the self-score),  x.y = sum_k x_k y_k (the score with another)
    double n2 = 0.0, dot = 0.0;
    for (size_t k = 0; k < d; k++) {
        n2 += x[k] * x[k];
        dot += x[k] * y[k];
    }
    out[S_NORM2] = n2;
    out[S_NORM2_DEV2] = (n2 - (double)d) * (n2 - (double)d);   // (||x||^2 - d)^2
    out[S_DOT] = dot;
    out[S_DOT2] = dot * dot;
    out[S_ABSDOT] = fabs(dot);
    return ATT_OK;
}

static void *work_alloc(const sweep_grid *g, const void *ctx)
{
    (void)ctx;
    return sweep_doubles_new(2 * sweep_max(g, AX_D));    /* x and y */
}

/* rms = sqrt(mean square), its CI the square roots of the mean square's CI */
static measure rms(const stat_acc *a)
{
    measure m = verdict_measure_stat(a);
    double lo = isnan(m.ci_low) ? NAN : sqrt(fmax(m.ci_low, 0.0));
    return verdict_measure_ci(sqrt(m.value), lo, sqrt(m.ci_high), m.draws);
}

/* concentration_fit.csv, a row per law: quantity, expected_slope, slope, se, ci_lo, ci_hi
 * (Monte Carlo: the slope and its CI), intercept, se_ols, se_mc (stat_fit_slope) */
typedef struct {
    const char *quantity;
    double expected_slope;
    stat_fit f;
} fit_row;
static const table_col fit_cols[] = {COL(fit_row, quantity), COL(fit_row, expected_slope),
                                     COL_MC_AS(fit_row, f.slope, "slope", "ci_lo", "ci_hi"),
                                     COL_AS(fit_row, f.se, "se"),
                                     COL_MC_AS(fit_row, f.ci_lo, "ci_lo", "ci_lo", "ci_hi"),
                                     COL_MC_AS(fit_row, f.ci_hi, "ci_hi", "ci_lo", "ci_hi"),
                                     COL_AS(fit_row, f.intercept, "intercept"),
                                     COL_AS(fit_row, f.se_ols, "se_ols"),
                                     COL_AS(fit_row, f.se_mc, "se_mc")};

/* a fitted slope as a measure: its CI, over `draws` draws per width */
static measure slope_measure(const stat_fit *f, size_t draws)
{
    return verdict_measure_ci(f->slope, f->ci_lo, f->ci_hi, draws);
}

static const table_col derived[] = {SWEEP_DERIVED_CI(0, "norm2_spread"),
                                    SWEEP_DERIVED_CI(3, "dot_rms")};
static void derive(double *col, const sweep_point *pt, const stat_acc *a, const void *ctx)
{
    (void)pt;
    (void)ctx;
    sweep_put_ci(col, rms(&a[S_NORM2_DEV2]));
    sweep_put_ci(col + 3, rms(&a[S_DOT2]));
}

/* the four laws: quantity, its slope in d, its value at a point, the se of its log */
enum { Q_NORM2, Q_SPREAD, Q_DOT_RMS, Q_DOT_ABS, NQ };
static const char *const q_names[NQ] = {"norm2_mean", "norm2_spread", "dot_rms", "dot_absmean"};
static const double q_slope[NQ] = {1.0, 0.5, 0.5, 0.5};

/* log value and its se by the delta method: se(m)/m for a mean, se(m)/(2m) for an rms */
static void law_at(const stat_acc *a, int q, double *lv, double *lse)
{
    const stat_acc *s = &a[q == Q_NORM2     ? S_NORM2
                           : q == Q_SPREAD  ? S_NORM2_DEV2
                           : q == Q_DOT_RMS ? S_DOT2
                                            : S_ABSDOT];
    int is_rms = q == Q_SPREAD || q == Q_DOT_RMS;
    *lv = is_rms ? 0.5 * log(s->mean) : log(s->mean);
    *lse = (is_rms ? 0.5 : 1.0) * stat_se(s) / s->mean;
}

static int run(experiment *e)
{
    sweep_result r = {0};
    int st = ATT_OK;
    size_t dgrid[23];
    for (int k = 2; k <= 24; k++) dgrid[k - 2] = (size_t)lround(pow(2.0, 0.5 * k));
    sweep_grid g;
    sweep_grid_init(&g);
    sweep_axis(&g, AX_D, 23, dgrid);
    sweep_def def = SWEEP_DEF(draw);
    def.work_alloc = work_alloc;
    def.work_free = sweep_doubles_free;
    def.nderived = 6;
    def.derived = derived;
    def.derive = derive;
    if ((st = sweep_run(e, &g, &def, &r))) goto done;
    size_t n = r.npoints;

    if (n < 3) {   /* no slope: mean ||x||^2 / d and mean (x.y)^2 / d, both exactly 1 */
        double d = (double)r.pt[0].d;
        measure m2 = sweep_measure(&r, 0, S_NORM2), md = sweep_measure(&r, 0, S_DOT2);
        measure q2 = verdict_measure_ci(m2.value / d, m2.ci_low / d, m2.ci_high / d, m2.draws);
        measure qd = verdict_measure_ci(md.value / d, md.ci_low / d, md.ci_high / d, md.draws);
        verdict_claim(e, "concNormRatio", 1.0, q2, verdict_rule_ci_within(0.98, 1.02),
                  "mean ||x||^2 / d at d = %zu (exactly 1)", r.pt[0].d);
        experiment_headline(e);
        verdict_claim(e, "concDotRatio", 1.0, qd, verdict_rule_ci_within(0.9, 1.1),
                  "mean (x.y)^2 / d at d = %zu (exactly 1)", r.pt[0].d);
        experiment_summary_measure(e, "mean ||x||^2", m2, "d = %zu", r.pt[0].d);
        experiment_summary_measure(e, "rms(x.y)", rms(sweep_acc(&r, 0, S_DOT2)), "sqrt(d) = %.4g",
                            sqrt(d));
        goto done;
    }
    fit_row fits[NQ];
    double lx[64], ly[64], lse[64];
    for (int q = 0; q < NQ; q++) {
        for (size_t p = 0; p < n; p++) {
            lx[p] = log((double)r.pt[p].d);
            law_at(sweep_acc(&r, p, 0), q, &ly[p], &lse[p]);
        }
        fits[q] = (fit_row){q_names[q], q_slope[q], stat_fit_slope(lx, ly, lse, n)};
    }
    size_t d_lo = r.pt[0].d, d_hi = r.pt[n - 1].d;
    if ((st = TABLE_WRITE(e->o.out_dir, "concentration_fit.csv", fit_cols, fits, NQ))) goto done;

    const stat_fit *fn = &fits[Q_NORM2].f, *fd = &fits[Q_DOT_RMS].f;
    verdict_claim(e, "concNormSlope", 1.0, slope_measure(fn, e->o.draws),
              verdict_rule_ci_within(0.98, 1.02), "log-log slope of mean ||x||^2 against d "
              "(d = %zu..%zu, %zu widths, %zu draws each)", d_lo, d_hi, n, e->o.draws);
    experiment_headline(e);
    verdict_claim(e, "concDotSlope", 0.5, slope_measure(fd, e->o.draws),
              verdict_rule_ci_within(0.48, 0.52), "log-log slope of rms(x.y) = sd(x.y) against d "
              "(d = %zu..%zu, %zu widths, %zu draws each)", d_lo, d_hi, n, e->o.draws);
    experiment_summary(
        e, "self-score ||x||^2 grows like d^%.4f (the section: d^1), 95%% CI [%.4f, %.4f]",
        fn->slope, fn->ci_lo, fn->ci_hi);
    experiment_summary(e, "score with another, rms(x.y), like d^%.4f (sqrt(d): d^0.5), "
                "95%% CI [%.4f, %.4f]", fd->slope, fd->ci_lo, fd->ci_hi);
    experiment_summary(e, "over d = %zu..%zu, %zu widths, %zu draws each", d_lo, d_hi, n,
                       e->o.draws);
done:
    sweep_result_free(&r);
    return st;
}

/* how make verify compares the statistics: Monte Carlo (SW_MC, sweep.h) but these */
SWEEP_VERIFY_MC(stat_names)

int main(int argc, char **argv)
{
    static const experiment_def def = {"concentration", NULL,
                                       OPT_MC | OPT_D | OPT_LISTS, 20261129UL, 4096, NULL, run};
    return experiment_main(&def, argc, argv);
}
