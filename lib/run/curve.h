/* curve.h - a curve of paired Monte Carlo estimates (every draw gives all m points):
 * its fit on control variates with known means, with the covariance of its points, and
 * where it crosses a level, with a delta-method CI.
 *
 * ---- the fit: control variates by regression ----
 *
 * Shapes: Y (n, m) the draws' values at the m points (row-major), X (n, p)
 * the draws' control variates minus their known means (E X = 0).
 * For each point k the estimator is the intercept of the least-squares fit
 *   Y_ik = b0_k + beta_k . X_i + e_ik,
 * i.e. yhat_k = mean(Y_k) - beta_k . mean(X): unbiased up to O(1/n) (beta
 * estimated), variance Var(e_k)/n instead of Var(Y_k)/n. With the design
 * D = [1, X] (n, p + 1) shared by every point,
 *   Cov(yhat_j, yhat_k) = [(D^T D)^{-1}]_{00} sum_i e_ij e_ik / (n - p - 1),
 * the usual least-squares covariance (homoscedastic form; for the heavy
 * tails here n is large and the tests check the CI's coverage).
 */
#ifndef ATT_CURVE_H
#define ATT_CURVE_H

#include <stddef.h>

/* yhat (m), V (m, m) row-major: the estimates and their covariance.
 * p = 0: the plain means and covariance of the mean. n > p + 1, p <= 16.
 * ATT_EUSAGE when the design is singular or sizes are wrong, ATT_ERUNTIME on
 * no memory. */
int curve_fit(const double *Y, size_t n, size_t m, const double *X, size_t p, double *yhat,
              double *V);

/* The same with row strides: Y_ik = Y[i * ldy + k], X_ia = X[i * ldx + a] (both may
 * point into one per-draw array, e.g. mc.h's values). ldy >= m, ldx >= p. */
int curve_fit_strided(const double *Y, size_t ldy, size_t n, size_t m, const double *X,
                      size_t ldx, size_t p, double *yhat, double *V);

/* ---- where a slowly rising curve crosses a level, with a 95% CI ----
 *
 * Given estimates y_k of a curve at grid points l_k (ascending; here l = ln T)
 * and their covariance V (m, m), the crossing of level c is the last upward
 * crossing: the largest k with y_k < c <= y_{k+1}, interpolated linearly,
 *   l_x = l_k + h (c - y_k) / (y_{k+1} - y_k),  h = l_{k+1} - l_k.
 * Its standard error by the delta method:
 *   d l_x / d y_k = h (c - y_{k+1}) / D^2,  d l_x / d y_{k+1} = -h (c - y_k) / D^2,
 *   D = y_{k+1} - y_k,
 *   Var l_x = g^T V_[k,k+1] g,
 * and the 95% CI is l_x -+ STAT_Z95 se (in T: exp of both ends). Linear
 * interpolation is exact for a curve linear in l between grid points; for a
 * curve with curvature y'' its bias in l_x is at most |y''| h^2 / (8 y'), which the
 * caller keeps small with a fine grid. The CI's coverage is tested on
 * synthetic curves with a known crossing (tests/test_lscond.c).
 */

/* above/below: at every point */
typedef enum { CROSS_FOUND, CROSS_ABOVE, CROSS_BELOW } curve_cross_status;

typedef struct {
    curve_cross_status status;
    size_t k;               /* the bracket [l_k, l_{k+1}]          */
    double l, se, lo, hi;   /* l_x, its se and 95% CI (in l)        */
} curve_crossing;

/* V: m x m row-major (only the 2 x 2 block of the bracket is read). m >= 2. */
curve_crossing curve_last_crossing(const double *l, const double *y, const double *V, size_t m,
                                   double c);

/* The one bracket: the crossing of level c on the segment from (l0, y0) to (l1, y1),
 * y0 != y1, linear in l, with the delta-method se from Var y0 = v00, Var y1 = v11,
 * Cov(y0, y1) = v01 (0 for independent estimates) and the 95% CI l_x -+ STAT_Z95 se;
 * status CROSS_FOUND, k = 0. The suite's one delta-method crossing: curve_last_crossing's
 * bracket, the self-weight contour (selfweight_contour_crossing: y = log l, v = (se / l)^2,
 * independent points) and the exact contour (leak_dstar: y = ln of the leak). */
curve_crossing curve_crossing_between(double l0, double l1, double y0, double y1, double v00,
                                      double v11, double v01, double c);

#endif
