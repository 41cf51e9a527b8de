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
 * set per draw), the generator's name, the held-out predictions per head
 * (H (T - 1)) and where the statistics are: accuracy at acc, the weight on
 * t - 1 at weight, each of the tied head at + tied. */
typedef struct {
    prev_config base;
    const char *rng_name;
    size_t predictions, acc, weight, tied;
} prevlearn_ctx;

/* The 95% CI over the seeds of a mean in a: mean -+ t_{0.975, n-1} sd / sqrt(n);
 * for an accuracy (accuracy != 0) its union with the Wilson interval of
 * round(mean N) correct out of N = n predictions, clipped to [0, 1] (seeds
 * that all score 1.000 still get an interval of nonzero width). */
measure prevlearn_seed_ci(const stat_acc *a, size_t predictions, int accuracy);

/* The sweep's derived columns (sweep_def.derived, .derive, ctx prevlearn_ctx):
 * sep_acc_ci_lo, _hi, sep_weight_ci_lo, _hi, tied_acc_ci_lo, _hi,
 * tied_weight_ci_lo, _hi, the seed CIs above, compared as training results. */
enum { PREVLEARN_NDERIVED = 8 };
extern const table_col prevlearn_derived[PREVLEARN_NDERIVED];
void prevlearn_derive(double *col, const sweep_point *pt, const stat_acc *a, const void *ctx);

/* The index of the point (d_k, steps S) in r, or r->npoints if it did not run. */
size_t prevlearn_find(const sweep_result *r, size_t dk, double S);

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

/* One head trained from the generator state `start` and evaluated (the experiment's
 * train_eval): its statistics into out, its mean attention map (T, T) into A if not NULL. */
typedef int prevlearn_train_fn(const gsl_rng *start, double *out, const prevlearn_ctx *c, size_t dk, int tied,
                               size_t S, unsigned long eval_seed, prevlearn_work *w, gsl_matrix *A);

/* The figure's maps: the sweep's draw at (d_k = dk, S steps) again, from that point's
 * stream, the separate then the tied head trained by `train` (out: nstat statistics),
 * their mean attention maps A (T, T) written to <out_dir>/<name> (prevlearn_map_write). */
int prevlearn_map_run(experiment *e, const prevlearn_ctx *c, size_t T, size_t dk, size_t S, size_t nstat,
                      prevlearn_train_fn *train, const char *name);

/* The control that the width allows a tied head at d_k = 2: the exact tied
 * heads at d_k = 2 and 3 (prevlearn_exact_tied, 20000 held-out sequences each)
 * and their verdict rows lptTiedExact, lptTiedExactNoMask, lptTiedExactThree
 * (accuracy CI above 0.999, Wilson interval over the predictions). */
int prevlearn_exact_check(experiment *e, size_t n_vocab, size_t T);

#endif
