/* prevtoken.h - the previous-token head of exercise 4.2b, built by hand.
 *
 * Inputs [one-hot token ; one-hot position], d = n_vocab + T: keys read the
 * position, values read the token, and position t's query asks for position
 * t - 1. (Moved here from circuits.h with its names and signatures unchanged.)
 *
 * Shapes (tokens are rows): X (T, n_vocab + T), W_Q, W_K (n_vocab + T, T),
 * W_V (n_vocab + T, n_vocab).
 */
#ifndef ATT_PREVTOKEN_H
#define ATT_PREVTOKEN_H

#include <stddef.h>
#include <gsl/gsl_matrix.h>

/* The query factor c that puts weight exactly `w` on the previous position
 * of a sequence of T >= 2 tokens with no mask: the query of position t
 * scores c against key t - 1 and 0 against the other T - 1 keys, so
 *   e^c / (e^c + T - 1) = w   <=>   c = ln(w (T - 1) / (1 - w)).
 * NAN for T < 2 or w outside (0, 1). */
double prevtoken_circuit_factor(size_t T, double w);

/* W_Q, W_K (n_vocab + T, T) and W_V (n_vocab + T, n_vocab) of the head.
 * Input row x_t = [e_{token_t} ; e_t] (the token's one-hot, then the
 * position's one-hot). Then, with factor c:
 *   key   k_j = e_j                (W_K reads the position)
 *   query q_t = c e_{t-1}, t >= 1;  q_0 = 0   (asks for the previous position)
 *   value v_j = e_{token_j}        (W_V reads the token)
 * Position 0 has no previous token: its query is zero, so it spreads its
 * weight uniformly, 1/T on every position, and its output is the sequence's
 * token histogram divided by T. ATT_EUSAGE on a shape mismatch or T < 2. */
int prevtoken_circuit_build(gsl_matrix *W_Q, gsl_matrix *W_K, gsl_matrix *W_V,
                            size_t n_vocab, size_t T, double c);

/* X (T, n_vocab + T) = rows [e_{tokens[t]} ; e_t]. ATT_EUSAGE if a token is
 * >= n_vocab or the shape is wrong. */
int prevtoken_circuit_inputs(gsl_matrix *X, const size_t *tokens,
                             size_t n_vocab, size_t T);

#endif
