/* lowrank.h - bilinear_low_rank's grid: d_k over 1, 2, 4, .., 32 (below d)
 * with d_v = d_k, or d_v fixed by --dv; the parameter counts beside every
 * point; the rounding bound of rank(W_QK) <= d_k.
 */
#ifndef ATT_LOWRANK_H
#define ATT_LOWRANK_H

#include <stddef.h>
#include "experiment.h"
#include "sweep.h"

/* d_v of a point: --dv (dv), or d_k (the grid pairs them); words: the experiment's shape words
 * with d_v spelt out (lowrank_def). */
typedef struct { size_t dv; char words[3][256]; } lowrank_ctx;
size_t lowrank_dv(const sweep_point *pt, const lowrank_ctx *c);

/* The grid T = 16, d = 64 (--T, --d replace them) times d_k = 1, 2, 4, 8, 16,
 * 32 below d (--dk lists replace it; --dv N alone: d_k = N), c->dv = --dv.
 * ATT_OK, or ATT_EUSAGE with a message (a --dv list, no d_k < d, a d_k or
 * d_v above d). */
int lowrank_grid(sweep_grid *g, lowrank_ctx *c, const experiment *e);

/* def's shape words (work_mats, work_vecs, work_heads: set them first) with every size word dv
 * spelt as d_v is, "dk" (d_v = d_k) or --dv's number, kept in c->words; its ctx = c; and the
 * derived columns beside every point: params_factored = 2 d d_k (W_Q and W_K), params_full =
 * d^2 (a full W_QK), d_v. ATT_OK, or ATT_ERUNTIME when the words do not fit. */
int lowrank_def(sweep_def *def, lowrank_ctx *c);

/* The rounding bound of the section's claim rank(W_QK) <= d_k, for one computed W_QK:
 *   sigma_{d_k+1} / sigma_1 <= 2 eps (d_k || |W_Q| |W_K|^T ||_F + 8 d sigma_1) / sigma_1.
 * Why: fl(W_Q W_K^T) = W_Q W_K^T + E with |E| <= gamma_{d_k} |W_Q| |W_K|^T (Higham 3.5), and
 * W_Q W_K^T has rank <= d_k, so sigma_{d_k+1}(fl) <= ||E||_2 <= ||E||_F (Weyl); the SVD gives the
 * singular values of fl + F, ||F||_2 <= p(d) eps sigma_1 (backward stable; p(d) = 8 d taken); the
 * factor 2 covers gamma_{d_k} <= 1.01 d_k eps and the rounding of sigma_1 itself.
 * Shapes: W_Q, W_K (d, d_k); sigma1 = the largest singular value of the computed W_QK (d, d).
 * NaN when sigma1 is not positive. */
double lowrank_zero_bound(const gsl_matrix *W_Q, const gsl_matrix *W_K, double sigma1);

#endif
