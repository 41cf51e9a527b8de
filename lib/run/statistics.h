/* statistics.h - running mean and variance, merged across partial results.
 *
 * Welford's update (Knuth TAOCP 2, 4.2.2):
 *   n' = n + 1;  delta = x - mean;  mean' = mean + delta / n';
 *   M2' = M2 + delta (x - mean')
 * Merge of two partial results (Chan, Golub & LeVeque 1979):
 *   n = n_a + n_b;  delta = mean_b - mean_a;
 *   mean = mean_a + delta n_b / n;  M2 = M2_a + M2_b + delta^2 n_a n_b / n
 * Merging in a fixed order gives bit-identical results for any thread count.
 */
#ifndef ATT_STATS_H
#define ATT_STATS_H

#include <stddef.h>

/* z_{0.975}: the normal quantile of every 95% CI in the suite (written once). */
#define STAT_Z95 1.959963984540054

typedef struct {
    size_t n;
    double mean;
    double m2;      /* sum of squared deviations from the mean */
    double min, max;
} stat_acc;

void stat_init(stat_acc *s);
void stat_push(stat_acc *s, double x);
void stat_merge(stat_acc *into, const stat_acc *from);   /* into += from */

double stat_var(const stat_acc *s);    /* sample variance, M2 / (n - 1) */
double stat_sd(const stat_acc *s);
double stat_se(const stat_acc *s);     /* sd / sqrt(n)                 */

/* 95% CI of the mean, mean -+ STAT_Z95 se (normal;
 * every draw count used here is >= 100). */
void stat_ci95(const stat_acc *s, double *lo, double *hi);

/* 95% Wilson score interval of a proportion: k successes in n trials,
 *   (p + z^2/2n -+ z sqrt(p (1 - p)/n + z^2/4n^2)) / (1 + z^2/n),  p = k/n.
 * Unlike mean -+ z se it never has zero width for 0 < n (k = 0 or k = n
 * gives [0, z^2/(n + z^2)] or [n/(n + z^2), 1]). n = 0: [0, 1]. */
void stat_ci95_wilson(double k, double n, double *lo, double *hi);

/* The draws a target 95% CI half-width needs after a pilot of n0 draws whose half-width was h:
 * a half-width falls as 1/sqrt(n), so n = n0 (h / target)^2, rounded up to whole blocks of
 * `block` draws, within [n0, cap]; n0 when h is NaN (no CI from the pilot: more draws cannot
 * help). */
size_t stat_draws_for(size_t n0, double h, double target, size_t block, size_t cap);

/* Least-squares line y = a + b x; returns slope b, its standard error in *se_b
 * (may be NULL) and intercept in *a (may be NULL). n >= 3. */
double stat_fit_line(const double *x, const double *y, size_t n,
                     double *a, double *se_b);

/* A slope fitted through points that carry Monte Carlo errors se_y (NULL:
 * none): the least-squares slope b = sum c_i y_i, c_i = (x_i - xbar) / Sxx;
 * se_ols from the residuals (stat_fit_line), se_mc = sqrt(sum c_i^2 se_i^2)
 * propagated from the points; the CI is b -+ STAT_Z95 max(se_ols, se_mc).
 * n >= 3. */
typedef struct {
    double slope, intercept, se, se_ols, se_mc, ci_lo, ci_hi;
} stat_fit;
stat_fit stat_fit_slope(const double *x, const double *y, const double *se_y, size_t n);

#endif
