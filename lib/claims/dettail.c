/* dettail.c - the law of |det(I - W_K^T W_Q)| over the weight draws (see dettail.h). */
#include "dettail.h"
#include "stat.h"

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
