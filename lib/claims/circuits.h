/* circuits.h - heads built by hand, and the identities behind the biases.
 *
 * Two hand-made heads:
 *   - the "the cat sat" head of the worked example: 3 tokens with 4 features
 *     (determiner, noun, verb, animal), d_k = d_v = 2, and a query factor c
 *     that sets how sharp the lookup is;
 *   - the previous-token head (exercise 4.2b): inputs [one-hot token ;
 *     one-hot position], d = n_vocab + T, keys read the position, values
 *     read the token, and position t's query asks for position t - 1.
 * and the small helpers that the bias claims (query_bias, value_bias) and
 * their tests share: folding b_V into the output bias, elementwise-sigmoid
 * weights (the negative control), the spread between the rows of a matrix,
 * and the rounding scale of a product.
 *
 * Shapes (tokens are rows): X (T, d), W_Q, W_K (d, d_k), W_V (d, d_v),
 * A (T, T), O (T, d_v).
 */
#ifndef ATT_CIRCUITS_H
#define ATT_CIRCUITS_H

#include <stddef.h>
#include <gsl/gsl_matrix.h>
#include <gsl/gsl_vector.h>

/* ---- the worked example: "the cat sat" ---------------------------------- */

enum { WORKED_T = 3, WORKED_D = 4, WORKED_DK = 2, WORKED_DV = 2 };
enum { WORKED_THE = 0, WORKED_CAT = 1, WORKED_SAT = 2 };      /* token rows */

extern const char *const worked_tokens[WORKED_T];     /* "the" "cat" "sat" */
extern const char *const worked_features[WORKED_D];   /* det noun verb animal */
extern const char *const worked_qk_columns[WORKED_DK];/* "seeks noun" ...  */
extern const char *const worked_v_columns[WORKED_DV]; /* "is animal" ...   */

/* X (3, 4), W_Q (4, 2), W_K (4, 2), W_V (4, 2) of the worked example, with
 * query factor c (the section's c = 3):
 *   X:   the = (1,0,0,0)  cat = (0,1,0,1)  sat = (0,0,1,0)
 *   W_Q: noun -> (0, c)  verb -> (c, 0)        (other rows 0)
 *   W_K: det  -> (0, 1)  noun -> (1, 0)        (other rows 0)
 *   W_V: det  -> (0, 1)  animal -> (1, 0)      (columns: is animal, is det)
 * ATT_EUSAGE if a shape is wrong or c is not finite. */
int circuit_worked_build(gsl_matrix *X, gsl_matrix *W_Q, gsl_matrix *W_K,
                         gsl_matrix *W_V, double c);

/* The closed forms of the worked example, by hand:
 *   winner w(c) = e^c / (e^c + 2),  other o(c) = 1 / (e^c + 2)
 *   A = [ 1/3 1/3 1/3 ; w o o ; o w o ]      ("the" has a zero query)
 *   O = [ 1/3 1/3 ; o w ; w o ]
 * w and o are evaluated without overflow for any finite c. A (3, 3), O (3, 2). */
void circuit_worked_weights(double c, double *winner, double *other);
int circuit_worked_closed(gsl_matrix *A, gsl_matrix *O, double c);

/* ---- the previous-token head (exercise 4.2b) ---------------------------- */

/* The query factor c that puts weight exactly `w` on the previous position
 * of a sequence of T >= 2 tokens with no mask: the query of position t
 * scores c against key t - 1 and 0 against the other T - 1 keys, so
 *   e^c / (e^c + T - 1) = w   <=>   c = ln(w (T - 1) / (1 - w)).
 * NAN for T < 2 or w outside (0, 1). */
double circuit_prev_token_factor(size_t T, double w);

/* W_Q, W_K (n_vocab + T, T) and W_V (n_vocab + T, n_vocab) of the head.
 * Input row x_t = [e_{token_t} ; e_t] (the token's one-hot, then the
 * position's one-hot). Then, with factor c:
 *   key   k_j = e_j                (W_K reads the position)
 *   query q_t = c e_{t-1}, t >= 1;  q_0 = 0   (asks for the previous position)
 *   value v_j = e_{token_j}        (W_V reads the token)
 * Position 0 has no previous token: its query is zero, so it spreads its
 * weight uniformly, 1/T on every position, and its output is the sequence's
 * token histogram divided by T. ATT_EUSAGE on a shape mismatch or T < 2. */
int circuit_prev_token_build(gsl_matrix *W_Q, gsl_matrix *W_K, gsl_matrix *W_V,
                             size_t n_vocab, size_t T, double c);

/* X (T, n_vocab + T) = rows [e_{tokens[t]} ; e_t]. ATT_EUSAGE if a token is
 * >= n_vocab or the shape is wrong. */
int circuit_prev_token_inputs(gsl_matrix *X, const size_t *tokens,
                              size_t n_vocab, size_t T);

/* ---- biases --------------------------------------------------------------- */

/* Folding the value bias into the output bias. W_O (d_v, d), b_V (d_v),
 * b_O and b_out (d):
 *   sum_j a_ij (v_j + b_V) = o_i + b_V   when sum_j a_ij = 1, so
 *   (o_i + b_V) W_O + b_O = o_i W_O + (b_O + b_V W_O)
 *   b_out = b_O + W_O^T b_V   (b_V W_O written as a column). b_out may be b_O. */
int circuit_fold_value_bias(gsl_vector *b_out, const gsl_vector *b_O,
                            const gsl_vector *b_V, const gsl_matrix *W_O);

/* A (T_q, T_k) = sigmoid(S) elementwise, 1 / (1 + e^{-s}): weights in (0, 1)
 * whose rows do NOT sum to 1 (the negative control). A may be S. */
int circuit_sigmoid_weights(gsl_matrix *A, const gsl_matrix *S);

/* The spread between the rows of D (m, n): max_ij |D_ij - D_0j|; 0 when
 * every row equals the first. */
double circuit_row_spread(const gsl_matrix *D);


#endif
