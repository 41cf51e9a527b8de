/* dettail.h - the law of |det(I_dk - W_K^T W_Q)| over the weight draws, whose
 * inverse is the T -> inf limit of T E[a_ii] given W (lib/claims/longseq.h).
 *
 * Shapes: det (n) the draws' |det(I - G)|, G = W_K^T W_Q (d_k, d_k).
 * Why no mean: det(I - G) takes both signs with a smooth density p0 > 0 at 0,
 * so P(|det| < eps) ~ 2 p0 eps and
 *   E[1/|det|; |det| > eps] ~ int_eps^1 2 p0 / u du = 2 p0 log(1/eps)  ->  inf.
 * Reported instead:
 *   the tail     P(|det| < eps) with its Wilson 95% CI, and the truncated mean
 *                E[1/|det| ; |det| >= eps] with its CLT CI, for each eps;
 *   the density  p0 at 0, as the mean of each draw's conditional density of det at 0
 *                given all of W but one column of W_Q (longseq.h derives it: exact, no
 *                window), with its CLT CI. Not P(|det| < eps) / (2 eps): that is the mean
 *                density over (-eps, eps), which the steep rise of the density away from 0
 *                makes about 16 times p0 at eps = 0.1 (c = 1: 0.0019 against 0.00012);
 *   the typical  value, the median of 1/|det| = 1 / median |det|, with the
 *                order-statistic CI: ranks n/2 -+ 1.96 sqrt(n)/2 (the binomial
 *                count below the median, normal approximation).
 */
#ifndef ATT_DETTAIL_H
#define ATT_DETTAIL_H

#include <stddef.h>
#include "table.h"
#include "verdict.h"

typedef struct { size_t config; double eps, p_below, p_lo, p_hi, trunc_mean, trunc_lo, trunc_hi; } dettail_row;
enum { DETTAIL_NCOLS = 8 };
extern const table_col dettail_cols[DETTAIL_NCOLS];   /* the table of dettail_row (Monte Carlo columns) */

/* rows[j] for eps[0 .. ne-1] (config left to the caller) and the median of 1/|det| with
 * its order-statistic CI. det is sorted in place. n >= 1. */
measure dettail_stats(double *det, size_t n, const double *eps, size_t ne, dettail_row *rows);

/* p0 from the draws' conditional densities at 0 (dens (n), stride apart): their mean with
 * its CLT CI, the lower end clipped at 0 (a density); *top = the largest draw's share of
 * the sum (near 1: one draw carries the estimate, which the draws do not resolve). */
measure dettail_density(const double *dens, size_t stride, size_t n, double *top);

/* E[1/|det| ; |det| > eps] with its 95% CI (det need not be sorted). */
measure dettail_trunc(const double *det, size_t n, double eps);

/* the tail rows per eps: long_sequences' eps = 1, 0.3, ..., 0.001 */
enum { DETTAIL_NEPS = 7 };

#endif
