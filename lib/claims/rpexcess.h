/* rpexcess.h - the self-weight's excess over 1/T with random projections, and its
 * second-order (soft-softmax) law, measured with the first-order term as a control variate.
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
 * The control variate: the first-order term of the difference,
 *   L1 = (s_ii - sbar_i) - (s'_ii - sbar'_i),  E[L1] = 0 exactly (E s_ij = 0 for all i, j:
 *   W_Q -> -W_Q flips every score),
 * carries the O(sd) fluctuation of T (a_ii - a'_ii) whose mean is O(sd^2): regressing it out
 * leaves an O(sd^2) residual, so the ratio measured / law has the same relative precision
 * at every scale. The second-order term Q2 itself (mean: the law) is a second control
 * variate: what remains, E[T (a_ii - a'_ii) - Q2], is the O(sd^4) departure, measured with
 * a residual of that order.
 */
#ifndef ATT_RPEXCESS_H
#define ATT_RPEXCESS_H

#include <stddef.h>
#include <gsl/gsl_rng.h>

enum { RPX_MAX_T = 64, RPX_MAX_D = 64, RPX_MAX_DK = 16, RPX_NOUT = 5 };

/* One draw (X, X', W_Q, W_K in that order from rng): out[0] = (1/T) sum_i T (a_ii - a'_ii),
 * out[1] = (1/T) sum_i L1_i, out[2] = (1/T) sum_i Q2_i, the second-order term of
 * T (a_ii - a'_ii), whose mean is the law exactly (the derivation above; tested against
 * its Monte Carlo mean); out[3], out[4] two third-order (odd) terms, mean 0 by
 * W_Q -> -W_Q: (1/T) sum_i [e_i^3 - e'_i^3] and [e_i V_i - e'_i V'_i] / T, e_i = s_ii - sbar_i,
 * V_i = sum_j (s_ij - sbar_i)^2 (primes: the control row). T in [2, RPX_MAX_T], d <= RPX_MAX_D, d_k <= RPX_MAX_DK. */
void rpexcess_draw(gsl_rng *rng, size_t T, size_t d, size_t d_k, double c, double out[RPX_NOUT]);

/* The law: (1 - 1/T)(1 - 2/T) d_k c^4 / d. */
double rpexcess_law(size_t T, size_t d, size_t d_k, double c);

#endif
