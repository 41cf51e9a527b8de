/* leak.h - the naive head's mean leak E[1 - a_ii] by an exact re-weighting.
 *
 * Set-up: X (T, d) rows i.i.d. N(0, I_d), S = X X^T, a_ii = softmax(S_i)_i.
 * Derivation. By exchangeability of the other rows,
 *   E[1 - a_ii] = (T - 1) E[e^{s_ij} / (e^{s_ii} + e^{s_ij} + sum_{k != i,j} e^{s_ik})]   (one j)
 *               = (T - 1) E[e^{s_ij - R} / (1 + e^{s_ij - R} + sum_k e^{s_ik - R})],  R =
 * ||x_i||^2. Given x_i, s_ij = x_i . x_j ~ N(0, R). Tilting x_j by e^{s_ij - R} (Gaussian shift,
 * E[e^{a z} g(z)] = e^{a^2/2} E[g(z + a)]): E_j[e^{s_ij - R} g(s_ij - R)] = e^{-R/2} E[g(v)],
 * v ~ N(0, R); the other u_k = s_ik - R ~ N(-R, R), independent given x_i. Then
 * R ~ chi^2_d re-weighted by e^{-R/2}: E[e^{-R/2} h(R)] = 2^{-d/2} E[h(r)], r ~ Gamma(d/2, 1)
 * (chi^2_d density ~ R^{d/2-1} e^{-R/2}; E e^{-R/2} = (1 + 1)^{-d/2}). So, exactly,
 *   E[1 - a_ii] = (T - 1) 2^{-d/2} c(T, d),
 *   c(T, d) = E[1 / (1 + e^v + sum_{k=1}^{T-2} e^{u_k})],  v ~ N(0, r), u_k ~ N(-r, r),
 * an integrand in (0, 1): a bounded, plain Monte Carlo average (no rare events).
 * Antithetic v -> -v (v is symmetric given r): the pair's mean is the estimator; at T = 2
 * it is exactly 1/2 (1/(1 + e^v) + 1/(1 + e^{-v}) = 1), giving the closed form 2^{-d/2-1}.
 * Large d at fixed T: e^{u_k} ~ e^{-r/2} -> 0, so c -> 1/2 and E[1 - a_ii] -> (T - 1) 2^{-d/2-1}
 * (the contour law: d* rises by 2 per doubling of T - 1). The first correction,
 * E[sum_k e^{u_k}] = (T - 2) E e^{-r/2} = (T - 2) (2/3)^{d/2}, is what bends the contour.
 */
#ifndef ATT_LEAK_H
#define ATT_LEAK_H

#include <stddef.h>
#include <gsl/gsl_rng.h>
#include "statistics.h"
#include "sweep.h"
#include "table.h"

/* One antithetic pair's value of the integrand of c(T, d): draws r, z_v, then z_1..z_{T-2}.
 * T >= 2, d > 0 (any real). */
double leak_c_draw(gsl_rng *rng, size_t T, double d);

/* ln E[1 - a_ii] from c: ln(T - 1) - (d/2) ln 2 + ln c. */
double leak_log_leak(size_t T, double d, double c);

/* d*(T): the width where the mean self-weight is `level` (E[1 - a_ii] = 1 - level),
 * by the estimate of c at the two integer widths around it (n antithetic pairs each,
 * from rng), ln c interpolated linearly in d, the CI by the delta method
 * (curve_crossing_between, curve.h; the two estimates independent). */
typedef struct {
    double d_star, se, lo, hi;
    int d_below;               /* the bracket [d_below, d_below + 1] */
    double c_below, c_above;   /* c at the bracket                   */
    size_t n;
} leak_width;
int leak_dstar(gsl_rng *rng, size_t T, double level, size_t n, leak_width *w);

/* The exact contour d*(T) of `level` for every T of Tl[0 .. nT-1], each T
 * from its own block T of stream 0xC0DE of the seed (rng reseeded),
 * `pairs` antithetic pairs per width: rows[t] (T, pairs, d*, its CI and se,
 * c at the bracket, the large-d law 2 log2((T - 1) / (2 (1 - level))), the
 * local rise per doubling of T - 1 from the previous T, the bracket's lower
 * width), written as dir/name (d*, c and the rise as Monte Carlo columns). */
typedef struct {
    size_t T, draws;
    double d_star, d_star_lo, d_star_hi, d_star_se, c_below, c_above, d_law, slope_local;
    size_t d_below;
} leak_contour_row;
int leak_contour(gsl_rng *rng, const char *dir, const char *name, unsigned long seed,
                 const size_t *Tl, size_t nT, double level, size_t pairs, leak_contour_row *rows);

/* The median leak 1 - a_ii of `rows` plain rows (row 0 of X (T, d) ~ N(0, 1),
 * s_j = x_0 . x_j), with its order-statistic 95% CI: ranks n/2 -+ STAT_Z95 sqrt(n)/2. */
int leak_median(gsl_rng *rng, size_t T, size_t d, size_t rows, double *median, double *lo,
                double *hi);

/* The check of the T = 2 closed form: max over d = 1 .. d_max of
 * |selfweight_leak_t2_numeric(d) / selfweight_leak_t2(d) - 1| (quadrature / 2^(-d/2 - 1)). */
double leak_t2_quadrature_gap(int d_max);

/* ---- the derived columns of naive_self_attention's sweep ------------------
 * The sweep: X (T, d) ~ N(0, 1), S = X X^T, per (T, d) the mean self-weight a_ii, the
 * leak 1 - a_ii, the leak in units of the large-d law (T - 1) 2^(-d/2), argmax-is-self.
 * The derived columns of each point: the leak's se from its ratio to the law (no
 * underflow), CIs of the leak and the self-weight, the leak's relative error (the
 * larger of the sample's and the law's), whether the point is shown, the law, the
 * exact T = 2 leak, the Wilson CI of argmax-is-self over the rows. */
/* the derived columns after the sweep's statistics, in this order */
enum { LEAK_SLO, LEAK_SHI, LEAK_LLO, LEAK_LHI, LEAK_LSE,
       LEAK_RSE, LEAK_SHOWN, LEAK_LAW, LEAK_T2, LEAK_ALO,
       LEAK_AHI, LEAK_ND };
extern const table_col leak_cols[LEAK_ND];
/* a point is shown (in the figure, in the contour) when its leak's rse is at most this */
#define LEAK_MAX_RSE 0.1

/* col[LEAK_ND] at point pt (T, d) from its accumulators of the leak 1 - a_ii,
 * of the leak / ((T - 1) 2^(-d/2)) and of argmax-is-self (each a mean over T rows). */
void leak_derive(double *col, const sweep_point *pt, const stat_acc *leak, const stat_acc *ratio,
                         const stat_acc *argmax);

#endif
