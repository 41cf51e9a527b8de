/* workset.h - a draw's work buffers, allocated and freed together.
 *
 * A Monte Carlo draw needs a handful of matrices, vectors and head states
 * of known shapes; a workset holds them by index, from one table of shapes:
 *
 *     enum { X, W_Q, W_K, NMAT };
 *     const size_t shape[NMAT][2] = {[X] = {T, d}, [W_Q] = {d, d_k}, [W_K] = {d, d_k}};
 *     const size_t head[1][5] = {{T, T, d, d_k, d_v}};    // T_q, T_k, d, d_k, d_v
 *     workset *w = workset_new(NMAT, shape, 0, NULL, 1, head);
 *     ... w->m[X], w->h[0] ...
 *     workset_free(w);          // also the sweep's work_free (sweep.h)
 */
#ifndef ATT_WORKSET_H
#define ATT_WORKSET_H

#include <stddef.h>
#include <gsl/gsl_matrix.h>
#include <gsl/gsl_vector.h>
#include "head.h"

enum { WORKSET_MATS = 32, WORKSET_VECS = 16, WORKSET_HEADS = 4 };

typedef struct {
    size_t nm, nv, nh;
    gsl_matrix *m[WORKSET_MATS];   /* m[k]: shape[k][0] x shape[k][1] */
    gsl_vector *v[WORKSET_VECS];   /* v[k]: len[k]                    */
    head_state h[WORKSET_HEADS];   /* h[k]: head[k] = T_q, T_k, d, d_k, d_v */
} workset;

/* NULL (with the error recorded: a size of 0, too many, no memory, or over
 * --max-memory) when any allocation fails; nothing is left allocated. */
workset *workset_new(size_t nm, const size_t (*shape)[2], size_t nv, const size_t *len,
                     size_t nh, const size_t (*head)[5]);
void workset_free(void *w);   /* NULL is fine */

#endif
