/* crossing.h - where a slowly rising curve crosses a level, with a 95% CI.
 *
 * Given estimates y_k of a curve at grid points l_k (ascending; here l = ln T)
 * and their covariance V (m, m), the crossing of level c is the last upward
 * crossing: the largest k with y_k < c <= y_{k+1}, interpolated linearly,
 *   l_x = l_k + h (c - y_k) / (y_{k+1} - y_k),  h = l_{k+1} - l_k.
 * Its standard error by the delta method:
 *   d l_x / d y_k = h (c - y_{k+1}) / D^2,  d l_x / d y_{k+1} = -h (c - y_k) / D^2,  D = y_{k+1} - y_k,
 *   Var l_x = g^T V_[k,k+1] g,
 * and the 95% CI is l_x -+ STAT_Z95 se (in T: exp of both ends). Linear
 * interpolation is exact for a curve linear in l between grid points; for a
 * curve with curvature y'' its bias in l_x is at most |y''| h^2 / (8 y'), which the
 * caller keeps small with a fine grid. The CI's coverage is tested on
 * synthetic curves with a known crossing (tests/test_lscond.c).
 */
#ifndef ATT_CROSSING_H
#define ATT_CROSSING_H

#include <stddef.h>

typedef enum { CROSS_FOUND, CROSS_ABOVE, CROSS_BELOW } cross_status;   /* above/below: at every point */

typedef struct {
    cross_status status;
    size_t k;               /* the bracket [l_k, l_{k+1}]          */
    double l, se, lo, hi;   /* l_x, its se and 95% CI (in l)        */
} crossing;

/* V: m x m row-major (only the 2 x 2 block of the bracket is read). m >= 2. */
crossing crossing_last(const double *l, const double *y, const double *V, size_t m, double c);

/* The one bracket: the crossing of level c on the segment from (l0, y0) to (l1, y1),
 * y0 != y1, linear in l, with the delta-method se from Var y0 = v00, Var y1 = v11,
 * Cov(y0, y1) = v01 (0 for independent estimates) and the 95% CI l_x -+ STAT_Z95 se;
 * status CROSS_FOUND, k = 0. crossing_last's bracket; any other delta-method crossing
 * (e.g. a contour interpolated in log l between two independent points) is this with
 * y = log l and v = (se / l)^2. */
crossing crossing_between(double l0, double l1, double y0, double y1, double v00, double v11,
                          double v01, double c);

#endif
