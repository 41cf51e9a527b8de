/* fusedcheck.h - the fused_qkv agreement checks beyond the plain split.
 *
 * For one case (B sequences of T tokens stacked as X (B T, d), H heads of
 * widths d_k, d_v; W_Q, W_K (d, H d_k), W_V (d, H d_v)):
 *   per head   X W^h, for every head h and each of W_Q, W_K, W_V, against
 *              column block h of the fused result;
 *   batched    the head run on X (B T rows, head_forward_batched) against
 *              the head run on each sequence X_b (T, d) alone.
 */
#ifndef ATT_FUSEDCHECK_H
#define ATT_FUSEDCHECK_H

#include <stddef.h>
#include <gsl/gsl_matrix.h>
#include "head.h"

typedef struct {
    const char *name;
    size_t B, T, d, d_k, d_v, heads;    /* W_Q (d, heads d_k), W_V (d, heads d_v) */
} fusedcheck_case;

enum {
    FUSEDCHECK_SEPARATE,
    FUSEDCHECK_PER_HEAD,
    FUSEDCHECK_OUT_IN,
    FUSEDCHECK_BATCHED,
    FUSEDCHECK_N
};

/* err = max over h, k of max |X W_k^h - F_k^h|: W[k] (d, H w_k), F[k] (B T, H w_k),
 * w_k = d_k, d_k, d_v; X (B T, d); Y (B T, >= max(d_k, d_v)) is work. */
int fusedcheck_per_head(double *err, const fusedcheck_case *c, const gsl_matrix *X,
                        const gsl_matrix *const W[3], const gsl_matrix *const F[3], gsl_matrix *Y);

/* For every head h (W^h the column blocks h of W[0..2]) and sequence b:
 * x = max |O_b - head_forward(X_b)|, t = tol_head_output of that run; keeps the
 * (x, t) pair with the largest x / t in *err, *tol (NaN wins). O (B T, d_v) and
 * st (T, T, d, d_k, d_v) are work. */
int fusedcheck_batched(double *err, double *tol, const fusedcheck_case *c, const gsl_matrix *X,
                       const gsl_matrix *const W[3], gsl_matrix *O, head_state *st);

#endif
