/* bias.h - the identities behind the three biases of a head.
 *
 *   key bias:   s_ij = q_i . (k_j + b_K) = q_i . k_j + q_i . b_K, a constant
 *               per row that softmax removes (unless RoPE rotates b_K per key);
 *   query bias: s_ij = (q_i + b_Q) . k_j = q_i . k_j + b_Q . k_j, a term that
 *               depends on the key only: S(b_Q) - S(0) has identical rows;
 *   value bias: rows of A sum to 1, so sum_j a_ij (v_j + b_V) = o_i + b_V and
 *               b_V folds into the output bias, b_O' = b_O + b_V W_O.
 *
 * Shapes: S, A, D (T_q, T_k), W_O (d_v, d), b_V (d_v), b_O (d).
 */
#ifndef ATT_BIAS_H
#define ATT_BIAS_H

#include <stddef.h>
#include <gsl/gsl_matrix.h>
#include <gsl/gsl_vector.h>
#include "head.h"

/* Folding the value bias into the output bias. W_O (d_v, d), b_V (d_v),
 * b_O and b_out (d):
 *   (o_i + b_V) W_O + b_O = o_i W_O + (b_O + b_V W_O)
 *   b_out = b_O + W_O^T b_V   (b_V W_O written as a column). b_out may be b_O. */
int bias_fold_value(gsl_vector *b_out, const gsl_vector *b_O, const gsl_vector *b_V,
                    const gsl_matrix *W_O);

/* A (T_q, T_k) = sigmoid(S) elementwise, 1 / (1 + e^{-s}): weights in (0, 1)
 * whose rows do NOT sum to 1 (the negative control of folding). A may be S. */
int bias_sigmoid_weights(gsl_matrix *A, const gsl_matrix *S);

/* The spread between the rows of D (m, n): max_ij |D_ij - D_0j|; 0 when
 * every row equals the first; NaN propagates. */
double bias_row_spread(const gsl_matrix *D);

/* The largest |sum_j A_ij - 1| over the rows of A (T_q, T_k). */
double bias_row_sum_defect(const gsl_matrix *A);

/* ---- the key bias's gradient, checked -------------------------------------- */
/* L = sum_ij G_ij O_ij, the loss of the key-bias experiment; G, O (T_q, d_v). */
double bias_loss(const gsl_matrix *G, const gsl_matrix *O);

/* Central differences of L against a backprop gradient, for one parameter
 * P (rows, cols) that p uses (a vector is passed as a 1 x n view of itself);
 * P is changed and restored entry by entry, `work` is a head state of the
 * right sizes. Entry by entry, row-major:
 *   D_fd = (L(P + h E) - L(P - h E)) / 2h          (error O(h^2) + O(eps / h))
 *   err  = ||D - D_fd||_F / max(||D||_F, ||D_fd||_F, floor)
 * `floor` is the norm to compare with where the exact gradient is zero (the
 * key bias without RoPE: ||dL/db_Q||). Returns the forward pass's status. */
int bias_fd_error(double *err, head_state *work, const head_params *p, const gsl_matrix *Xq,
                  const gsl_matrix *Xkv, const gsl_matrix *G, gsl_matrix *P, const gsl_matrix *D,
                  double h, double floor);

#endif
