/* selfweight.h - how much attention a token keeps for itself, in one draw.
 *
 * Shapes (tokens are rows):
 *   X (T, d)            the token vectors, entries N(0, 1)
 *   W_Q, W_K (d, d_k)   the projections, entries N(0, sigma_w^2) (projected head)
 *   Q, K (T, d_k)       Q = X W_Q,  K = X W_K
 *   S (T, T)            the scores
 *   X' (T, d), K' (T, d_k)   the control: fresh tokens, K' = X' W_K
 *
 *   raw (naive) head:   Q = K = X,  S = X X^T     (s_ii = ||x_i||^2)
 *   projected head:     S = Q K^T                 (s_ij = x_i^T W_Q W_K^T x_j)
 *
 * The self-weight of row i, written so that no exp() can overflow whatever
 * the size of the scores (with d = 768 the raw scores are ~768, and e^768
 * is beyond double's 1.8e308):
 *
 *   a_ii = e^{s_ii} / (e^{s_ii} + sum_{j != i} e^{s_ij}) = 1 / (1 + Z_i e^{m_i - s_ii})
 *   1 - a_ii                                             = 1 / (1 + e^{s_ii - m_i} / Z_i)
 *   m_i = max_{j != i} s_ij,   Z_i = sum_{j != i} e^{s_ij - m_i}  in [1, T - 1]
 *
 * This is the stable softmax (subtract a max) with the max taken over the
 * other tokens: every exponent in Z_i is <= 0, Z_i >= 1, and an overflowing
 * e^{m_i - s_ii} = inf gives the correct limit 0. Writing 1 - a_ii this way
 * keeps its precision when a_ii is within 1e-300 of 1.
 *
 * Control (projected head): the same row with the self key k_i replaced by
 * the key k'_i = W_K^T x'_i of an independent fresh token. Given the weights
 * and x_i, the T keys of that row are then i.i.d., so by symmetry
 * E[a'_ii] = 1/T exactly: any excess of E[a_ii] over 1/T comes from k_i
 * sharing x_i with q_i.
 *
 * What one draw reports, averaged over the T rows:
 *   self_weight   (1/T) sum_i a_ii
 *   leak          (1/T) sum_i (1 - a_ii)          (the weight on other tokens)
 *   argmax_self   (1/T) #{ i : s_ii > s_ij for every j != i }   (ties: not self)
 *   control       (1/T) sum_i a'_ii               (NAN without a control)
 *   diag_sq       (1/T) sum_i s_ii^2
 *   off_sq        (1/(T (T-1))) sum_{i != j} s_ij^2   (NAN for T = 1)
 *   max_score     max_ij s_ij                      (how large the scores get)
 *
 * The workspace is allocated once (per Monte Carlo thread) and reused, so a
 * draw allocates nothing.
 */
#ifndef ATT_SELFWEIGHT_H
#define ATT_SELFWEIGHT_H

#include <stddef.h>
#include <gsl/gsl_matrix.h>
#include <gsl/gsl_vector.h>
#include <gsl/gsl_rng.h>

typedef struct {
    double self_weight;
    double leak;
    double argmax_self;
    double control;
    double diag_sq, off_sq;
    double max_score;
} selfweight_stats;

typedef struct {
    size_t T, d, d_k;      /* d_k = 0: raw head only (no W, Q, K)          */
    int control;           /* draw X' and compute the control self-weight  */
    gsl_matrix *X;         /* (T, d)                                       */
    gsl_matrix *W_Q, *W_K; /* (d, d_k)                                     */
    gsl_matrix *Q, *K;     /* (T, d_k)                                     */
    gsl_matrix *S;         /* (T, T)                                       */
    gsl_matrix *Xc, *Kc;   /* control: X' (T, d), K' (T, d_k)              */
    gsl_vector *s_ctrl;    /* control: s'_i = q_i . k'_i (T)               */
} selfweight_work;

/* Allocate for (T, d, d_k); d_k = 0 for the raw head only; control = 1 adds
 * the fresh-token control (needs d_k >= 1). T, d >= 1. ATT_EUSAGE or
 * ATT_ERUNTIME (message recorded) on failure; w is then empty, safe to free. */
int selfweight_work_alloc(selfweight_work *w, size_t T, size_t d, size_t d_k, int control);
void selfweight_work_free(selfweight_work *w);

/* Draw, in this order from rng: X ~ N(0, 1); if d_k > 0, W_Q then W_K
 * ~ N(0, sigma_w^2); if control, X' ~ N(0, 1). */
void selfweight_draw_inputs(selfweight_work *w, gsl_rng *rng, double sigma_w);

/* Raw head on w->X: S = X X^T (dsyrk, mirrored), then the row stats. */
int selfweight_raw(selfweight_work *w, selfweight_stats *r);

/* Projected head on w->X, W_Q, W_K: Q = X W_Q, K = X W_K, S = Q K^T, then
 * the row stats (with the control if w->control). */
int selfweight_projected(selfweight_work *w, selfweight_stats *r);

/* One row: the scores s (n) of token i against tokens 0..n-1 (i < n). */
typedef struct {
    double self;       /* a_ii                                            */
    double leak;       /* 1 - a_ii, without cancellation                  */
    double m, Z;       /* m_i = max_{j != i} s_j, Z_i = sum_{j != i} e^{s_j - m_i} */
    int argmax_self;   /* s_i > s_j for every j != i                      */
    double off_sq;     /* sum_{j != i} s_j^2                              */
} selfweight_row_t;

/* The scores must be finite (a NaN or infinite score: ATT_ERUNTIME; so
 * must their squares, |s| < 1e154). n = 1: a_ii = 1, leak 0, m = -inf, Z = 0. */
int selfweight_row(selfweight_row_t *r, const double *s, size_t n, size_t i);

/* The row stats of S (T, T); s_ctrl (T) holds the control self-scores, or
 * is NULL (control = NAN). */
int selfweight_from_scores(selfweight_stats *r, const gsl_matrix *S, const gsl_vector *s_ctrl);

#endif
