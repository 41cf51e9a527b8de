/* dettail.c - the law of |det(I - W_K^T W_Q)| over the weight draws (see dettail.h). */
#include "dettail.h"
#include "att.h"
#include "mem.h"
#include "stat.h"

#include <stdio.h>

#include <math.h>
#include <stdlib.h>

const table_col dettail_cols[DETTAIL_NCOLS] = {
    COL(dettail_row, config), COL(dettail_row, eps), COL_MC(dettail_row, p_below, "p_lo", "p_hi"),
    COL_MC(dettail_row, p_lo, "p_lo", "p_hi"), COL_MC(dettail_row, p_hi, "p_lo", "p_hi"),
    COL_MC(dettail_row, trunc_mean, "trunc_lo", "trunc_hi"), COL_MC(dettail_row, trunc_lo, "trunc_lo", "trunc_hi"),
    COL_MC(dettail_row, trunc_hi, "trunc_lo", "trunc_hi")};

static int cmp_dbl(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

measure dettail_trunc(const double *det, size_t n, double eps)
{
    stat_acc tr;
    stat_init(&tr);
    for (size_t i = 0; i < n; i++) if (det[i] > eps) stat_push(&tr, 1.0 / det[i]);
    return verdict_measure_stat(&tr);
}

measure dettail_stats(double *det, size_t n, const double *eps, size_t ne, dettail_row *rows)
{
    for (size_t j = 0; j < ne; j++) {
        stat_acc te;
        size_t below = 0;
        stat_init(&te);
        for (size_t i = 0; i < n; i++) {
            if (det[i] < eps[j]) below++;
            else stat_push(&te, 1.0 / det[i]);
        }
        dettail_row *t = &rows[j];
        *t = (dettail_row){t->config, eps[j], (double)below / (double)n, 0, 0, te.mean, 0, 0};
        stat_ci95_wilson((double)below, (double)n, &t->p_lo, &t->p_hi);
        stat_ci95(&te, &t->trunc_lo, &t->trunc_hi);
    }
    qsort(det, n, sizeof *det, cmp_dbl);
    /* median of 1/|det| = 1 / median |det|; ranks n/2 -+ z sqrt(n)/2 */
    double z = STAT_Z95 * sqrt((double)n) / 2.0;
    double lo = 1.0 / det[(size_t)fmin((double)n - 1, n / 2.0 + z)], hi = 1.0 / det[(size_t)fmax(0.0, n / 2.0 - z)];
    return verdict_measure_ci(1.0 / det[n / 2], lo, hi, n);
}

measure dettail_density(const double *dens, size_t stride, size_t n, double *top)
{
    stat_acc a;
    stat_init(&a);
    for (size_t i = 0; i < n; i++) stat_push(&a, dens[i * stride]);
    measure m = verdict_measure_stat(&a);
    if (m.ci_low < 0.0) m.ci_low = 0.0;
    double sum = a.mean * (double)a.n;
    *top = sum > 0.0 ? a.max / sum : NAN;
    return m;
}

int dettail_report(experiment *e, const char *suffix, size_t config, const double *det_col, const double *dens_col,
                   size_t stride, size_t n, size_t d, size_t d_k, double c, dettail_row rows[DETTAIL_NEPS])
{
    static const double EPS[DETTAIL_NEPS] = {1.0, 0.3, 0.1, 0.03, 0.01, 0.003, 0.001}, TRUNC = 0.01;
    double *det = mem_calloc(n, sizeof *det, "determinants");
    if (!det) return att_alloc_status();
    for (size_t i = 0; i < n; i++) det[i] = det_col[i * stride];
    for (size_t j = 0; j < DETTAIL_NEPS; j++) rows[j].config = config;
    char mac[40];
#define MAC(base) (snprintf(mac, sizeof mac, "%s%s", base, suffix), mac)
    measure tr = dettail_trunc(det, n, TRUNC);
    measure typical = dettail_stats(det, n, EPS, DETTAIL_NEPS, rows);
    double top, window = rows[2].p_below / (2.0 * EPS[2]);   /* P(|det| < 0.1) / 0.2 */
    measure p0 = dettail_density(dens_col, stride, n, &top);
    exp_reported(e, MAC("lsDetDensity"), NAN, p0,
                 "density p0 of det(I - W_K^T W_Q) at 0: the mean of each draw's exact conditional density at 0 "
                 "given all but one column of W_Q (no window; the largest draw carries %.0f%% of it%s). Positive, so "
                 "E[1/|det|; |det| > eps] ~ 2 p0 ln(1/eps) diverges. P(|det| < 0.1) / 0.2 = %.2g is the mean density "
                 "over (-0.1, 0.1), not p0 (d = %zu, d_k = %zu, c = %.4g)", 100.0 * top,
                 top > 0.1 ? ": the draws do not resolve it" : "", window, d, d_k, c);
    exp_reported(e, MAC("lsTypical"), NAN, typical, "typical value of 1/|det(I - W_K^T W_Q)| (the median; its mean, "
                 "the T -> inf limit, is infinite; d = %zu, d_k = %zu, c = %.4g)", d, d_k, c);
    double second = (double)d_k * pow(c, 4) / (double)d;   /* 1 + d_k c^4/d, to second order */
    exp_reported(e, MAC("lsTrunc"), NAN, tr, "mean of 1/|det| over |det| > %g (a truncated mean: the full "
                 "mean diverges logarithmically); the second-order 1 + d_k c^4/d = %.4f misses its excess over 1 by "
                 "%.0f%% (d = %zu, d_k = %zu, c = %.4g)", TRUNC, 1.0 + second,
                 100.0 * (tr.value - 1.0 - second) / (tr.value - 1.0), d, d_k, c);
#undef MAC
    mem_free(det, n, sizeof *det);
    return ATT_OK;
}
