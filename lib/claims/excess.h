/* excess.h - the self-weight's excess over 1/T with random projections, and its
 * second-order (soft-softmax) law, measured with antithetic pairs and the second-order term as
 * a control variate.
 *
 * Shapes: X (T, d), X' (T, d) fresh tokens (entries N(0, 1)); W_Q, W_K (d, d_k) entries
 * N(0, c^2/d); Q = X W_Q, K = X W_K, K' = X' W_K (T, d_k); s_ij = q_i . k_j; the control row
 * i replaces its own key k_i by k'_i: s'_ii = q_i . k'_i, s'_ij = s_ij (j != i), and by
 * exchangeability E[a'_ii] = 1/T exactly. Score sd = c^2 sqrt(d_k).
 *
 * The law (derived). Softmax to second order around s = 0, with sbar = (1/T) sum_j s_j:
 *   T a_i = 1 + (s_i - sbar) + ((s_i - sbar)^2 - (1/T) sum_j (s_j - sbar)^2) / 2 + O(s^3).
 * In row i the scores are uncorrelated (E[s_ii s_ij] = E[s_ij s_ik] = 0: the x_j, x_k are
 * independent and zero-mean), with E s_ij^2 = d_k c^4 (j != i) and E s_ii^2 = (1 + 2/d) d_k c^4
 * (Gaussian quadratic form: (tr M)^2 + tr M^2 + tr M M^T, E over W: d_k c^4 (1/d + 1/d + 1)).
 * E(s_j - sbar)^2 = (1 - 2/T) Var s_j + (1/T^2) sum_k Var s_k, so
 *   T E[a_ii] - 1 = (1/2)(1 - 1/T)(1 - 2/T)(E s_ii^2 - E s_ij^2) + O(sd^4)
 *                 = (1 - 1/T)(1 - 2/T) d_k c^4 / d + O(sd^4).
 * The estimator: antithetic pairs and one control variate.
 *   W_K -> -W_K flips every score (s -> -s) and leaves the law of the draw unchanged, so
 *   Y_anti = (Y(s) + Y(-s)) / 2, Y = T (a_ii - a'_ii), has the same mean as Y; every odd
 *   order of the expansion (the O(sd) first-order term, whose fluctuation dwarfs the
 *   O(sd^2) mean, and the third) cancels in it exactly. What remains is even: the
 *   second-order term Q2 (mean: the law, exactly) and O(sd^4). Q2 - law is the control
 *   variate (one coefficient, curve.h), leaving an O(sd^4) residual: the ratio
 *   measured / law has a relative precision O(sd^2), finer as sd -> 0.
 * Why this one (issue 32; the numbers in doc/estimators.md): against the former estimator
 * (plain pairs, four control variates) it has a 1.7 x smaller variance and one coefficient
 * instead of four; tests/test_excess.c checks the CI's coverage over replicate seeds and
 * that a planted bias of 2 se is caught.
 */
#ifndef ATT_EXCESS_H
#define ATT_EXCESS_H

#include <stddef.h>
#include <gsl/gsl_rng.h>

enum { RPX_MAX_T = 64, RPX_MAX_DK = 16 };
enum { RPX_PLAIN, RPX_ANTI, RPX_Q2, RPX_NOUT };   /* excess_draw's outputs */

/* One draw, each averaged over the T rows i; from rng (Q, K, K') by W's Gram factor, in
 * their exact law from X, X', W_Q, W_K (selfweight_gram_factor, selfweight.h: R, then Z, Z'):
 * out[RPX_PLAIN] = (1/T) sum_i T (a_ii - a'_ii), out[RPX_ANTI] the same averaged with its
 * antithetic -W_K (same mean), out[RPX_Q2] the second-order term of T (a_ii - a'_ii), even
 * in s, whose mean is the law exactly (the derivation above; tested against its Monte
 * Carlo mean). T in [2, RPX_MAX_T], d >= 1, d_k <= RPX_MAX_DK. */
void excess_draw(gsl_rng *rng, size_t T, size_t d, size_t d_k, double c, double out[RPX_NOUT]);

/* The estimate of T E[a_ii] - 1 from n draws on rng: the intercept of Y_anti regressed on
 * Q2 - law (curve.h), and its standard error. plant is added to every Y_anti (0 but in
 * the test that sees a planted bias caught). n >= 3. ATT_OK, or curve_fit's / memory status. */
int excess_estimate(gsl_rng *rng, size_t T, size_t d, size_t d_k, double c, size_t n,
                      double plant, double *est, double *se);

/* The same estimate to a standard error: n draws, then while se > se_target and fewer than
 * n_max draws, more draws on rng up to n (se / se_target)^2 x 1.1 (at most n_max) and the fit
 * on all of them (a sequential top-up: the pilot's n can fall short, its variance estimate
 * from a heavy-tailed Y_anti being rough). *used: the draws in the estimate. se_target 0:
 * exactly n draws (excess_estimate). */
int excess_estimate_to(gsl_rng *rng, size_t T, size_t d, size_t d_k, double c, size_t n,
                       size_t n_max, double se_target, double plant, double *est, double *se,
                       size_t *used);

/* The law: (1 - 1/T)(1 - 2/T) d_k c^4 / d. */
double excess_law(size_t T, size_t d, size_t d_k, double c);

#endif
