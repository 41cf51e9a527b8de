/* randmat.h - random matrices with a prescribed structure.
 *
 *   randmat_orthogonal:  Q (n, n) Haar-distributed on the orthogonal group
 *   randmat_with_cond:   R (n, n) = U diag(s) V^T with U, V Haar and singular
 *                        values s chosen so that cond_2(R) = s_max / s_min is
 *                        exactly the requested number
 *   randmat_head:        a random head's input and weights, X ~ N(0, 1),
 *                        W ~ N(0, 1/d)
 *
 * The generator is passed explicitly; the result depends only on its state.
 */
#ifndef ATT_RANDMAT_H
#define ATT_RANDMAT_H

#include <gsl/gsl_matrix.h>
#include <gsl/gsl_rng.h>

/* Q (n, n) Haar orthogonal. ATT_EUSAGE if Q is not square, ATT_ERUNTIME if
 * memory or the QR factorization fails. */
int randmat_orthogonal(gsl_rng *rng, gsl_matrix *Q);

/* R (n, n) = U diag(s) V^T with s_i = cond^(1/2 - i/(n-1)), i = 0 .. n-1:
 * geometrically spaced from sqrt(cond) down to 1/sqrt(cond), so det|R| = 1
 * and cond_2(R) = cond. cond must be finite and >= 1; n = 1 needs cond = 1.
 * cond = 1 gives a Haar orthogonal matrix. */
int randmat_with_cond(gsl_rng *rng, gsl_matrix *R, double cond);

/* (rng first, as the renamed library will have it everywhere.) A random
 * head, drawn in this order: X (T, d) ~ N(0, 1), then W_Q, W_K,
 * W_V, W_O ~ N(0, 1/d) with d = X's columns (a NULL weight is skipped, and
 * draws nothing). */
void randmat_head(gsl_rng *rng, gsl_matrix *X, gsl_matrix *W_Q, gsl_matrix *W_K, gsl_matrix *W_V,
                  gsl_matrix *W_O);

#endif
