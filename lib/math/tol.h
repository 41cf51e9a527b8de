/* tol.h - tolerances at the scale of rounding, for exact identities.
 *
 * An identity computed two ways in floating point agrees only up to
 * rounding; the tolerance must scale with the sizes and with DBL_EPSILON,
 * never be a flat 1e-2. Every tolerance of the suite is one of these.
 *
 * Inner products of length n (Higham, Accuracy and Stability, 3.5):
 *   |fl(a.b) - a.b| <= n eps sum_l |a_l| |b_l|  (to first order)
 */
#ifndef ATT_TOL_H
#define ATT_TOL_H

#include <stddef.h>
#include <gsl/gsl_matrix.h>
#include "head.h"

/* tol = c n eps scale: an inner product of length n (n = 0 counts as 1) on
 * numbers whose |a| |b| sums are about `scale`; c a small safety factor. */
double tol_eps(double c, size_t n, double scale);

/* The rounding scale of P = A B^T, A (m, n), B (p, n):
 *   max_ij sum_l |a_il| |b_jl|, so that |fl(P)_ij - P_ij| <= n eps (this).
 * NaN when the inner sizes differ. */
double tol_product_scale(const gsl_matrix *A, const gsl_matrix *B);

/* The same in the Frobenius norm: || |A| |B|^T ||_F, for relative errors
 * measured as ||.||_F. NaN when the inner sizes differ or on no memory. */
double tol_product_scale_frob(const gsl_matrix *A, const gsl_matrix *B);

/* qk = |scale| max_i ||q_i|| max_j ||k_j|| for Q (T_q, d_k), K (T_k, d_k):
 * a bound on every score of softmax(scale Q K^T). */
double tol_score_bound(const gsl_matrix *Q, const gsl_matrix *K, double scale);

/* An attention output computed two ways (plain softmax vs online, tiled):
 *   tol = 8 eps (2 n qk + 2 T_k) vmax
 * n the inner length of the scores, qk the score bound (tol_score_bound),
 * vmax = max |v_jc|, T_k the number of keys summed over. */
double tol_attention_output(size_t T_k, size_t n, double qk, double vmax);

/* A head's output computed two ways (plain vs tiled, one sequence vs
 * batched). Shapes: X (T, d) the input rows, W_V (d, d_v), st the plain
 * head's state on X (Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v)):
 *   tol = tol_attention_output(T_k, d + d_k, qk, max|v|)   the scores pass
 *         through inner products of length d (projection) + d_k
 *       + 8 d eps max_i ||x_i|| max_c ||w_V,c||             the values' own
 *                                                           projection
 * with qk = tol_score_bound(Q, K, scale). */
double tol_head_output(const head_state *st, const gsl_matrix *X, const gsl_matrix *W_V,
                       double scale);

#endif
