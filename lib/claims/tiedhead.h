/* tiedhead.h - an exact previous-token head with tied keys and values (W_V = W_K) at
 * d_k = 2 (and d_k >= 2 by zero padding), in the model of training.h (causal mask,
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
 * token_{t-1} for every sequence: accuracy 1, PROVIDED the leak is small enough (below).
 * The leak condition (the domain in n_vocab and lambda). O_t = sum_j a_tj v_j = (P, H) is not
 * exactly v_{t-1}: with eps = 1 - a_{t,t-1}, P is a mean of codes in [2T, 4T] (so P in [2T, 4T])
 * and H = (1 - eps) 4^u + (leak) with 0 <= leak <= eps 4^{V-1}, u = token_{t-1}, V = n_vocab.
 *   upper switch (u < V - 1): m = H / P <= ((1 - eps) 4^u + eps 4^{V-1}) / (2T) must stay below
 *     4^u 15 / (16T), i.e. 1 + eps (4^{V-1-u} - 1) < 15/8; worst at u = 0:
 *     eps < (7/8) / (4^{V-1} - 1);
 *   lower switch (u > 0): m >= (1 - eps) 4^u / (4T) must stay above 4^{u-1} 15 / (16T),
 *     i.e. eps < 1/16 (weaker than the first once V >= 3).
 * The leak itself: the scores of the other visible keys sit below s_{t,t-1} by gaps lambda g,
 * g = 2, 4, 6, .. (same parity) and g = t + 1 + j for the other parity (distinct, >= 2, step 2),
 * so eps <= sum e^{-lambda g} <= 2 e^{-2 lambda} / (1 - e^{-2 lambda}), whatever T.
 * Hence the condition  2 e^{-2 lambda} / (1 - e^{-2 lambda}) < b(V),
 *   b(V) = min(1/16, (7/8) / (4^{V-1} - 1)).
 * tiedhead_min_scale asks for a factor 2 of room, 2 e^{-2 lambda} / (1 - e^{-2 lambda}) <= b / 2:
 *   lambda_min(V) = (1/2) ln((2 + b/2) / (b/2)),  about 0.69 (V - 1) + 0.76 for large V.
 * lambda = 12 (the experiment's) meets it up to V = 17 (lambda_min(17) = 11.85, (18) = 12.54); the
 * vocabulary 8 of the cited rows needs lambda >= 5.6. Beyond V = 17 a fixed lambda = 12 fails: a
 * token 0 after a large token two places back reads as a larger token (the test plants it).
 * The largest vocabulary: the read-out's largest logit |z| <= P c_{V-1}^2 <= 4^{2(V-1)} 9/(16T)
 * must stay finite in double with room, 4^{2(V-1)} <= 2^996: V <= TIEDHEAD_MAX_VOCAB = 250.
 * (The earlier limit 400 overflowed c_u^2 = inf for u >= 256: NaN logits.)
 * Without the causal mask all T keys are visible, and a linear score in a 1-D code is
 * largest at one of the two extreme codes only: no 1-D position code lets every t pick t - 1
 * once T > 3. (The mask is what makes a 1-D code, hence d_k = 2, enough.)
 */
#ifndef ATT_TIEDHEAD_H
#define ATT_TIEDHEAD_H

#include "training.h"

#define TIEDHEAD_MAX_VOCAB 250

/* The smallest score scale lambda_min(n_vocab) of the leak condition above (with its factor 2
 * of room); NaN for n_vocab < 2 or above TIEDHEAD_MAX_VOCAB. */
double tiedhead_min_scale(size_t n_vocab);

/* The scale to use at n_vocab: max(12, tiedhead_min_scale(n_vocab)) (12 where it suffices, so
 * that the cited rows keep their numbers); NaN outside the domain. */
double tiedhead_scale(size_t n_vocab);

/* Set mdl's weights (tied, d_k >= 2, 2 <= n_vocab <= TIEDHEAD_MAX_VOCAB) to the construction
 * above with score scale lambda >= tiedhead_min_scale(n_vocab) (finite). ATT_EUSAGE when mdl
 * is not tied, d_k < 2, n_vocab is outside the domain or lambda below the leak condition. */
int tiedhead_exact(prev_model *mdl, double lambda);

#endif
