/* statistics.c - Welford running moments, Chan merge, 95% CI, line fit. */
#include "statistics.h"

#include <math.h>

void stat_init(stat_acc *s)
{
    s->n = 0;
    s->mean = 0.0;
    s->m2 = 0.0;
    s->min = INFINITY;
    s->max = -INFINITY;
}

/* delta = x - mean; mean += delta / n; M2 += delta (x - mean) */
void stat_push(stat_acc *s, double x)
{
    s->n++;
    double delta = x - s->mean;
    s->mean += delta / (double)s->n;
    s->m2 += delta * (x - s->mean);
    if (x < s->min) s->min = x;
    if (x > s->max) s->max = x;
}

/* mean = mean_a + delta n_b / n;  M2 = M2_a + M2_b + delta^2 n_a n_b / n */
void stat_merge(stat_acc *into, const stat_acc *from)
{
    if (from->n == 0) return;
    if (into->n == 0) { *into = *from; return; }
    double na = (double)into->n, nb = (double)from->n, n = na + nb;
    double delta = from->mean - into->mean;
    into->mean += delta * nb / n;
    into->m2 += from->m2 + delta * delta * na * nb / n;
    into->n += from->n;
    if (from->min < into->min) into->min = from->min;
    if (from->max > into->max) into->max = from->max;
}

double stat_var(const stat_acc *s) { return s->n > 1 ? s->m2 / (double)(s->n - 1) : NAN; }
double stat_sd(const stat_acc *s) { return sqrt(stat_var(s)); }
double stat_se(const stat_acc *s) { return s->n > 1 ? stat_sd(s) / sqrt((double)s->n) : NAN; }

/* mean -+ z_{0.975} se */
void stat_ci95(const stat_acc *s, double *lo, double *hi)
{
    const double z = STAT_Z95;
    double se = stat_se(s);
    *lo = s->mean - z * se;
    *hi = s->mean + z * se;
}

/* b = sum (x - xbar)(y - ybar) / sum (x - xbar)^2,  a = ybar - b xbar,
 * se_b = sqrt( sum r^2 / (n - 2) / sum (x - xbar)^2 ) */
double stat_fit_line(const double *x, const double *y, size_t n, double *a, double *se_b)
{
    double xbar = 0.0, ybar = 0.0;
    for (size_t i = 0; i < n; i++) { xbar += x[i]; ybar += y[i]; }
    xbar /= (double)n;
    ybar /= (double)n;
    double sxx = 0.0, sxy = 0.0;
    for (size_t i = 0; i < n; i++) {
        sxx += (x[i] - xbar) * (x[i] - xbar);
        sxy += (x[i] - xbar) * (y[i] - ybar);
    }
    double b = sxy / sxx, a0 = ybar - b * xbar;
    if (a) *a = a0;
    if (se_b) {
        double ssr = 0.0;
        for (size_t i = 0; i < n; i++) {
            double r = y[i] - a0 - b * x[i];
            ssr += r * r;
        }
        *se_b = n > 2 ? sqrt(ssr / (double)(n - 2) / sxx) : NAN;
    }
    return b;
}

/* n = n0 (h / target)^2, rounded up to whole blocks, in [n0, cap] */
size_t stat_draws_for(size_t n0, double h, double target, size_t block, size_t cap)
{
    double r = h / target, want = (double)n0 * r * r;
    if (isnan(want)) return n0;
    if (!(want < (double)cap)) return cap < n0 ? n0 : cap;
    size_t n = (size_t)ceil(want / (double)block) * block;
    return n < n0 ? n0 : n > cap ? cap : n;
}

/* Wilson (1927): (p + z^2/2n -+ z sqrt(p (1 - p)/n + z^2/4n^2)) / (1 + z^2/n) */
void stat_ci95_wilson(double k, double n, double *lo, double *hi)
{
    const double z = STAT_Z95;
    if (!(n > 0.0)) { *lo = 0.0; *hi = 1.0; return; }
    double p = k / n, z2 = z * z, den = 1.0 + z2 / n;
    double centre = (p + z2 / (2.0 * n)) / den;
    double half = z * sqrt(p * (1.0 - p) / n + z2 / (4.0 * n * n)) / den;
    *lo = k <= 0.0 ? 0.0 : fmax(0.0, centre - half);    /* exact ends, not 1 - 1e-16 */
    *hi = k >= n ? 1.0 : fmin(1.0, centre + half);
}

/* b = sum c_i y_i, c_i = (x_i - xbar) / Sxx; se_mc^2 = sum c_i^2 se_i^2 */
stat_fit stat_fit_slope(const double *x, const double *y, const double *se_y, size_t n)
{
    stat_fit f = {0};
    double xbar = 0.0, sxx = 0.0, var_mc = 0.0;
    for (size_t i = 0; i < n; i++) xbar += x[i] / (double)n;
    for (size_t i = 0; i < n; i++) sxx += (x[i] - xbar) * (x[i] - xbar);
    for (size_t i = 0; se_y && i < n; i++) {
        double c = (x[i] - xbar) / sxx;
        var_mc += c * c * se_y[i] * se_y[i];
    }
    f.slope = stat_fit_line(x, y, n, &f.intercept, &f.se_ols);
    f.se_mc = sqrt(var_mc);
    f.se = f.se_ols > f.se_mc ? f.se_ols : f.se_mc;
    f.ci_lo = f.slope - STAT_Z95 * f.se;
    f.ci_hi = f.slope + STAT_Z95 * f.se;
    return f;
}
