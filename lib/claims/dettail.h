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
 *   the density  p0 ~ P(|det| < eps_p) / (2 eps_p), from the row eps = eps_p;
 *   the typical  value, the median of 1/|det| = 1 / median |det|, with the
 *                order-statistic CI: ranks n/2 -+ 1.96 sqrt(n)/2 (the binomial
 *                count below the median, normal approximation).
 */
#ifndef ATT_DETTAIL_H
#define ATT_DETTAIL_H

#include <stddef.h>
#include "exp.h"
#include "table.h"
#include "verdict.h"

typedef struct { size_t config; double eps, p_below, p_lo, p_hi, trunc_mean, trunc_lo, trunc_hi; } dettail_row;
enum { DETTAIL_NCOLS = 8 };
extern const table_col dettail_cols[DETTAIL_NCOLS];   /* the table of dettail_row (Monte Carlo columns) */

typedef struct {
    measure density;   /* p0 from the row eps_p (Wilson CI scaled)            */
    measure typical;   /* the median of 1/|det|                               */
} dettail_summary;

/* rows[j] for eps[0 .. ne-1] (config left to the caller); eps_p must be one of
 * eps. det is sorted in place. n >= 1. */
void dettail_stats(double *det, size_t n, const double *eps, size_t ne, double eps_p, dettail_row *rows,
                   dettail_summary *sum);

/* E[1/|det| ; |det| > eps] with its 95% CI (det need not be sorted). */
measure dettail_trunc(const double *det, size_t n, double eps);

/* long_sequences' "plateau that is not one" for configuration `config` (d, d_k, c): from the
 * draws' |det(I - W_K^T W_Q)| (column 0 of det_col (n, stride)) the tail rows (DETTAIL_NEPS:
 * eps = 1 .. 0.001) and the reported rows lsDetDensity, lsTypical, lsTrunc (the mean over
 * |det| > 0.01), each macro followed by suffix. ATT_OK or the allocation's status. */
enum { DETTAIL_NEPS = 7 };
int dettail_report(experiment *e, const char *suffix, size_t config, const double *det_col, size_t stride,
                   size_t n, size_t d, size_t d_k, double c, dettail_row rows[DETTAIL_NEPS]);

#endif
