/* head_ref.h - the head written as the section writes it: a loop per
 * formula, no BLAS. The place to read the formulas; head_forward (head.h) is
 * the fast one, and tests/test_head_ref.c checks the two agree.
 *
 * Shapes (tokens are rows):
 *   Xq (T_q, d), Xkv (T_k, d), W_Q, W_K (d, d_k), W_V (d, d_v)
 *   A (T_q, T_k), O (T_q, d_v)
 * For every query i and key j:
 *   q_i = W_Q^T x_i + b_Q,   k_j = W_K^T x_j + b_K,   v_j = W_V^T x_j + b_V
 *   s_ij = scale (q_i . k_j)                 (s_ij = -inf for j > i if causal)
 *   a_ij = exp(s_ij - m_i) / sum_l exp(s_il - m_i),   m_i = max_l s_il
 *   o_i  = sum_j a_ij v_j
 * RoPE is not written here (ATT_EUSAGE): see rope.h.
 */
#ifndef ATT_HEAD_REF_H
#define ATT_HEAD_REF_H

#include <gsl/gsl_matrix.h>
#include "head.h"

/* O and A (A may be NULL) of the head p on (Xq, Xkv). ATT_EUSAGE on a shape
 * mismatch or p->rope; ATT_ERUNTIME without memory. */
int head_ref_forward(gsl_matrix *O, gsl_matrix *A, const head_params *p,
                     const gsl_matrix *Xq, const gsl_matrix *Xkv);

#endif
