/* softmax.h - numerically stable row softmax, log-sum-exp, online softmax.
 *
 *   softmax(s)_j = exp(s_j - m) / sum_l exp(s_l - m),   m = max_l s_l
 *
 * Subtracting the row max makes every exponent <= 0, so scores of any finite
 * size (1e4, 768, 1e300) give finite weights: no overflow, and at least one
 * term of the sum equals 1, so no division by zero.
 *
 * Policy for non-finite scores (documented in the README):
 *   - NaN anywhere in a row                  -> ATT_EUSAGE ("NaN score")
 *   - +inf entries                          -> they share the row's weight
 *                                              equally, every finite entry
 *                                              gets 0 (the limit of large
 *                                              finite scores)
 *   - -inf entries                          -> weight 0 (a masked key)
 *   - a row whose entries are all -inf      -> ATT_EUSAGE ("row fully masked")
 */
#ifndef ATT_SOFTMAX_H
#define ATT_SOFTMAX_H

#include <stddef.h>
#include <gsl/gsl_matrix.h>

/* out (n) = softmax(in (n)); out may alias in. */
int softmax_vec(double *out, const double *in, size_t n);

/* softmax_vec and, into *lse, softmax_logsumexp(in, n) of the same row, bit for bit,
 * from one set of exponentials (a finite row; +inf for a row with +inf). */
int softmax_vec_lse(double *out, const double *in, size_t n, double *lse);

/* A (T_q, T_k) = row softmax of S (T_q, T_k); A may be S (in place). */
int softmax_rows(gsl_matrix *A, const gsl_matrix *S);

/* log sum_j exp(s_j), stable. NaN for NaN input, -inf for all -inf. */
double softmax_logsumexp(const double *s, size_t n);

/* Online (running) softmax of one row seen in chunks, as in the tiled head:
 *   m' = max(m, max chunk);  l' = l e^{m - m'} + sum_chunk e^{s - m'}
 *   o' = o e^{m - m'} + sum_chunk e^{s - m'} v
 * The caller keeps o; softmax_online_rescale gives the factor for it. */
typedef struct {
    double m;   /* running max (starts at -inf)          */
    double l;   /* running sum of exp(s - m) (starts 0)   */
} online_softmax;

void softmax_online_init(online_softmax *st);

/* Fold a chunk whose largest score is chunk_max into the running state:
 *   m' = max(m, chunk_max),  l <- l e^{m - m'},  m <- m'
 * and return e^{m - m'}, the factor the caller multiplies its o by. The
 * caller then adds e^{s - st->m} to st->l (and e^{s - st->m} v to o) for
 * every score s of the chunk. While every score seen is -inf the factor is 1
 * and st->m stays -inf. chunk_max must not be NaN or +inf. */
double softmax_online_rescale(online_softmax *st, double chunk_max);

#endif
