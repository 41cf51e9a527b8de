/* tiedhead.h - an exact previous-token head with tied keys and values (W_V = W_K) at
 * d_k = 2 (and d_k >= 2 by zero padding), in the model of prevtrain.h (causal mask,
 * x_t = [e_token; e_t], Z = O W_O without bias).
 *
 * Construction (k_j = v_j = W_K^T x_j = (p_j, h_{token_j}); q_t = W_Q^T x_t token-blind):
 *   position code (axis 1):  p_j = 3T + (-1)^j (j + 1)      in [2T, 4T], zig-zag
 *   token code (axis 2):     h_v = 4^v                       (distinct heights)
 *   query:                   q_t = lambda (-1)^{t-1} (1, 0)
 * Why attention picks t - 1: s_tj = lambda (-1)^{t-1} p_j = const_t + lambda (-1)^{t-1+j} (j + 1);
 * among the visible j <= t (causal), the same-parity j's score lambda (j + 1), largest at
 * j = t - 1 (lambda t; the next, j = t - 3, is 2 lambda lower); the other parity, j = t
 * included, scores below const_t. So a_{t,t-1} >= 1 - T e^{-2 lambda}.
 * Why the read-out can name the token: O_t ~ v_{t-1} = (p, h_v) with p in [2T, 4T] > 0, so
 * the slope m = h / p lies in [4^v / (4T), 4^v / (2T)]: disjoint intervals for different v
 * (ratio 4 between tokens, 2 within). z_u = O . w_u = p (w_u1 + w_u2 m); with the tangents
 * of g(m) = m^2 at c_u = 4^u (3 / (8T)) (the intervals' centres), w_u = (-c_u^2, 2 c_u), the
 * argmax over u of 2 c_u m - c_u^2 switches at (c_u + c_{u+1}) / 2 = 4^u 15 / (16T), inside
 * the gap (4^u / (2T), 4^u / T) between the intervals of u and u + 1. So argmax z_t =
 * token_{t-1} for every sequence: accuracy 1.
 * Without the causal mask all T keys are visible, and a linear score in a 1-D code is
 * largest at one of the two extreme codes only: no 1-D position code lets every t pick t - 1
 * once T > 3. (The mask is what makes a 1-D code, hence d_k = 2, enough.)
 */
#ifndef ATT_TIEDHEAD_H
#define ATT_TIEDHEAD_H

#include "prevtrain.h"

/* Set mdl's weights (tied, d_k >= 2, n_vocab <= 400) to the construction above with score
 * scale lambda. ATT_EUSAGE when mdl is not tied, d_k < 2 or n_vocab too large. */
int tiedhead_exact(prev_model *mdl, double lambda);

#endif
