/* crossing.c - where a curve crosses a level, delta-method CI (see crossing.h). */
#include "crossing.h"
#include "stat.h"

#include <math.h>

crossing crossing_between(double l0, double l1, double y0, double y1, double v00, double v11,
                          double v01, double c)
{
    crossing r = {.status = CROSS_FOUND, .k = 0};
    double h = l1 - l0;
    double D = y1 - y0;
    /* d l_x / d y0, d l_x / d y1 */
    double g0 = h * (c - y1) / (D * D);
    double g1 = -h * (c - y0) / (D * D);
    double v = g0 * g0 * v00 + g1 * g1 * v11 + 2.0 * g0 * g1 * v01;
    r.l = l0 + h * (c - y0) / D;
    r.se = sqrt(v > 0.0 ? v : 0.0);
    r.lo = r.l - STAT_Z95 * r.se;
    r.hi = r.l + STAT_Z95 * r.se;
    return r;
}

crossing crossing_last(const double *l, const double *y, const double *V, size_t m, double c)
{
    crossing r = {.status = CROSS_FOUND, .l = NAN, .se = NAN, .lo = NAN, .hi = NAN};
    if (m < 2 || y[m - 1] < c) {
        r.status = CROSS_BELOW;
        return r;
    }
    size_t k = m - 1;
    while (k > 0 && y[k - 1] >= c) k--;
    if (k == 0) {
        r.status = CROSS_ABOVE;
        return r;
    }
    k--;   /* y_k < c <= y_{k+1} */
    r = crossing_between(l[k], l[k + 1], y[k], y[k + 1], V[k * m + k], V[(k + 1) * m + k + 1],
                         V[k * m + k + 1], c);
    r.k = k;
    return r;
}
