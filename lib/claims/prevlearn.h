/* prevlearn.h - the learned_previous_token sweep's plumbing.
 *
 * The two generators a trained head needs (training batches and held-out
 * sequences) as the sweep's work buffers; the figure's attention maps as a
 * table; and the exact tied head (tiedhead.h) evaluated from its own
 * stream, with and without the causal mask.
 */
#ifndef ATT_PREVLEARN_H
#define ATT_PREVLEARN_H

#include <gsl/gsl_matrix.h>
#include <gsl/gsl_rng.h>
#include "exp.h"
#include "prevtrain.h"
#include "sweep.h"

/* The sweep's context: the model every head starts from (its d_k and tying
 * set per draw) and the generator's name. */
typedef struct {
    prev_config base;
    const char *rng_name;
} prevlearn_ctx;

/* Per thread: the training and the held-out generators (ctx: prevlearn_ctx;
 * g is unused, NULL is fine). */
typedef struct { gsl_rng *train, *eval; } prevlearn_work;
void *prevlearn_work_alloc(const sweep_grid *g, const void *ctx);
void prevlearn_work_free(void *w);

/* dir/name: query,key,separate,tied for every cell of the two maps (T, T). */
int prevlearn_map_write(const char *dir, const char *name, const gsl_matrix *A_sep, const gsl_matrix *A_tied);

/* The exact tied head W_V = W_K at d_k = w (tiedhead_exact, lambda 12) for
 * n_vocab tokens and length T, evaluated on `heldout` sequences from the
 * stream of the point {d_k = w, case 1}: with the causal mask into *ev, the
 * same weights without it into *nomask. */
int prevlearn_exact_tied(const experiment *e, size_t n_vocab, size_t T, size_t w, size_t heldout, prev_eval *ev,
                         prev_eval *nomask);

#endif
