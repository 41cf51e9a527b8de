/* cvreg.h - control variates with known means, by regression, for a curve of
 * paired Monte Carlo estimates (every draw gives all m points).
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
#ifndef ATT_CVREG_H
#define ATT_CVREG_H

#include <stddef.h>

/* yhat (m), V (m, m) row-major: the estimates and their covariance.
 * p = 0: the plain means and covariance of the mean. n > p + 1, p <= 16.
 * ATT_EUSAGE when the design is singular or sizes are wrong, ATT_ERUNTIME on
 * no memory. */
int cvreg_fit(const double *Y, size_t n, size_t m, const double *X, size_t p, double *yhat,
              double *V);

/* The same with row strides: Y_ik = Y[i * ldy + k], X_ia = X[i * ldx + a] (both may
 * point into one per-draw array, e.g. mc.h's values). ldy >= m, ldx >= p. */
int cvreg_fit_strided(const double *Y, size_t ldy, size_t n, size_t m, const double *X, size_t ldx, size_t p,
                      double *yhat, double *V);

#endif
