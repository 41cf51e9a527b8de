/* longseq_ref.h - the brute-force reference of the long_sequences shortcut, for the unit
 * tests (tests/test_longseq.c, tests/test_lscond.c) and bench/lsbench.c: one row's T a_ii
 * from its T - 1 other scores drawn one by one, no conditional integral (lib/claims/longseq.h)
 * and no mixture weights. Header-only (static inline): each user is one file.
 *
 * Shapes and notation: lib/claims/longseq.h (x_i (d), W_Q, W_K (d, d_k), s = s_ii,
 * sigma^2 = ||W_K q_i||^2, the other scores s_ij = sigma z_j, z_j ~ N(0, 1)).
 */
#ifndef ATT_LONGSEQ_REF_H
#define ATT_LONGSEQ_REF_H

#include "longseq.h"
#include "randn.h"
#include "softmax.h"
#include "status.h"

#include <math.h>

/* How x_i is drawn: N(0, I) (the plain estimate of T a_ii) or from the tilted law of
 * longseq.h (the importance-sampled estimate). */
typedef enum { LONGSEQ_PLAIN, LONGSEQ_TILTED } longseq_estimator;

/* The query row for given W_Q, W_K (in w) and x_i (w->x): s, sigma2, inv_det;
 * log_ratio = 0. ATT_ERUNTIME when I - W_K^T W_Q is singular. */
static inline int longseq_query_of(longseq_work *w, longseq_query *r)
{
    longseq_weights g;
    int st = longseq_weights_of(w, 1.0, &g);
    if (st) return st;
    longseq_scores(w, r);
    r->inv_det = exp(-g.lndet);
    r->log_ratio = 0.0;
    return ATT_OK;
}

/* Draw, in this order from rng: W_Q, W_K ~ N(0, c^2/d) (row by row), then y ~ N(0, I_d);
 * x_i = y (plain) or x_i = (I - W_K W_Q^T)^{-1} y (tilted): longseq_draw_weights, then
 * longseq_draw_row with the plain law alone (alpha = 1) or the tilted law alone (alpha = 0),
 * so log_ratio is 0 or -(s - sigma^2/2) - log|det|. ATT_ERUNTIME when I - W_K^T W_Q is
 * singular (probability 0). */
static inline int longseq_draw_query(gsl_rng *rng, longseq_work *w, double c, longseq_estimator est,
                                     longseq_query *r)
{
    longseq_weights g;
    int st = longseq_draw_weights(rng, w, c, &g);
    if (st) return st;
    int tilted = est == LONGSEQ_TILTED;
    longseq_draw_row(rng, w, &g, tilted, tilted ? 0.0 : 1.0, r);
    return ATT_OK;
}

enum { REF_CHUNK = 256 };   /* scores folded into the running log-sum-exp at once */

/* ref_fold: n scores v[] into the running (m, l) of the log-sum-exp */
static inline void ref_fold(online_softmax *st, const double *v, size_t n)
{
    double mx = v[0];
    for (size_t j = 1; j < n; j++) mx = v[j] > mx ? v[j] : mx;
    softmax_online_rescale(st, mx);
    double l = 0.0;
    for (size_t j = 0; j < n; j++) l += exp(v[j] - st->m);
    st->l += l;
}

/* log(e^{s} + sum_{j=1}^{T-1} e^{sigma z_j}), z_j ~ N(0, 1) drawn from rng
 * one after the other (ziggurat), by a streaming log-sum-exp:
 *   m' = max(m, v),  l' = l e^{m - m'} + e^{v - m'}
 * O(1) memory; T >= 1 (T = 1: s). */
static inline double longseq_log_denominator(gsl_rng *rng, double s, double sigma, size_t T)
{
    online_softmax st;
    softmax_online_init(&st);
    ref_fold(&st, &s, 1);
    double buf[REF_CHUNK];
    for (size_t left = T - 1; left > 0;) {
        size_t n = left < REF_CHUNK ? left : REF_CHUNK;
        randn_fill(rng, buf, n, 1.0);                       /* N(0, 1), GSL's ziggurat values */
        for (size_t j = 0; j < n; j++) buf[j] = sigma * buf[j];
        ref_fold(&st, buf, n);
        left -= n;
    }
    return st.m + log(st.l);
}

/* The same from given other scores s_other[0 .. n-1] (the direct row). */
static inline double longseq_log_denominator_of(double s, const double *s_other, size_t n)
{
    online_softmax st;
    softmax_online_init(&st);
    ref_fold(&st, &s, 1);
    for (size_t j = 0; j < n; j += REF_CHUNK)
        ref_fold(&st, s_other + j, n - j < REF_CHUNK ? n - j : REF_CHUNK);
    return st.m + log(st.l);
}

/* The estimate of T a_ii of one row from its log denominator lse:
 *   plain:  T e^{s - lse};   tilted: T e^{s - lse + log_ratio}          */
static inline double longseq_estimate(const longseq_query *r, size_t T, double lse)
{
    return exp(log((double)T) + r->s - lse + r->log_ratio);
}

/* The annealed law's estimate of one row (the sum replaced by its mean):
 *   T e^{s} / (e^{s} + (T - 1) e^{sigma2/2}) times e^{log_ratio}          */
static inline double longseq_annealed(const longseq_query *r, size_t T)
{
    /* T e^{s} / (e^{s} + (T - 1) e^{sigma2/2}), in logs */
    double a = r->s, b = log((double)T - 1.0) + 0.5 * r->sigma2;   /* T = 1: b = -inf */
    double m = a > b ? a : b, lse = m + log(exp(a - m) + exp(b - m));
    return exp(log((double)T) + a - lse + r->log_ratio);
}

#endif
