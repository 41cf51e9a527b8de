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
#include "sweep.h"
#include "workset.h"

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

/* ---- the sweep's work buffers (previous_token_head) ------------------------
 * One head per (T, n_vocab) point of the grid (T = pt.T, n_vocab = pt.x),
 * built once per thread: p[pt.index] holds X (T, V + T) and the weights
 * W_Q, W_K (V + T, T), W_V (V + T, V) of prevtoken_circuit_build with
 * factor prevtoken_factor(ctx, T), and one head state; tokens (T) and
 * count (V) are a draw's tokens and its token counts. ctx: prevtoken_ctx. */
enum { PT_X, PT_WQ, PT_WK, PT_WV, PT_NMAT };
typedef struct {
    double target;   /* the weight on t - 1 the factor is chosen for  */
    double factor;   /* a fixed factor c for every T (NAN: from target) */
} prevtoken_ctx;
typedef struct { size_t n, *tokens, *count; workset *p[]; } prevtoken_work;
/* c at length T: prevtoken_circuit_factor(T, target), or the fixed factor */
double prevtoken_factor(const prevtoken_ctx *c, size_t T);
void *prevtoken_work_alloc(const sweep_grid *g, const void *ctx);
void prevtoken_work_free(void *w);

/* The index of the largest entry of row i of M (the first on ties). */
size_t prevtoken_row_argmax(const gsl_matrix *M, size_t i);

/* The figure's example sequence: <prefix>_A.csv (i,j,token_i,token_j,weight
 * for every cell of A (T, T)) and <prefix>_tokens.csv (t, token, its letter,
 * the previous token's, argmax of o_t (O: T x n_vocab) and its letter, the
 * weight a(t, t-1)); tokens as letters A, B, ... ("-" past H or for none). */
int prevtoken_write_example(const char *dir, const char *prefix, const gsl_matrix *A, const gsl_matrix *O,
                            const size_t *tokens, size_t T);

#endif
