/* crossing.c - the last upward crossing of a level, delta-method CI (see crossing.h). */
#include "crossing.h"

#include <math.h>

static const double Z95 = 1.959963984540054;

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
    double h = l[k + 1] - l[k], D = y[k + 1] - y[k];
    double g0 = h * (c - y[k + 1]) / (D * D), g1 = -h * (c - y[k]) / (D * D);
    double v = g0 * g0 * V[k * m + k] + g1 * g1 * V[(k + 1) * m + k + 1] + 2.0 * g0 * g1 * V[k * m + k + 1];
    r.k = k;
    r.l = l[k] + h * (c - y[k]) / D;
    r.se = sqrt(v > 0.0 ? v : 0.0);
    r.lo = r.l - Z95 * r.se;
    r.hi = r.l + Z95 * r.se;
    return r;
}
