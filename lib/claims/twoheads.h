/* twoheads.h - ov_invariance's second claim: a head is fully described by its
 * two circuits. Two heads with different W_Q, W_K, W_V, W_O (and biases) but
 * the same
 *   W_QK = W_Q W_K^T,  u = W_K b_Q,  W_OV = W_V W_O,  c = b_V W_O + b_O
 * give the same output y_i = o_i W_O + b_O on any input (qkov.h: the softmax
 * drops the score terms constant in j, the rows of A sum to 1; b_K does not
 * matter).
 */
#ifndef ATT_TWOHEADS_H
#define ATT_TWOHEADS_H

#include "exp.h"
#include "sweep.h"

/* Head 2 rebuilt from head 1's (W_QK, u, W_OV, c) alone by the SVD
 * (qkov_rebuild), with a fresh b_K, a fresh b_V and b_O = c - b_V W_O; at
 * the head sizes of circuitinv_grid_head (--T, --d, --dk, --dv), without and with
 * biases, X ~ N(0, 1), weights ~ N(0, 1/d), biases ~ N(0, 1). Writes
 * ov_invariance_heads.csv (a row per case) and adds the verdict rows: the output's
 * relative change in units of eps, at most C2 = 16 (T + 2d + d_k + d_v)
 * (identity, ovInvHeadsErr, ovInvHeadsBiasErr); the factors W_Q, W_V differ
 * (control, ovInvHeads[Bias]FactorChange); head 2 with head 1's b_Q kept
 * untransformed moves (negative control, ovInvBiasControl, T >= 2).
 * ATT_OK or the sweep's error. */
int twoheads_check(experiment *e);

#endif
