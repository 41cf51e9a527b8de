/* softmax.c - stable row softmax, log-sum-exp and the online softmax state.
 *
 * n = length of one row of scores; a row is contiguous in a gsl_matrix.
 *
 * The one trick: softmax(s) = softmax(s - c) for any constant c, because
 * e^{s_j - c} / sum_l e^{s_l - c} = e^{s_j} / sum_l e^{s_l}. Taking c = max s
 * makes every exponent <= 0 (no overflow) and one term of the sum exactly 1
 * (no division by zero, no total underflow).
 */
#include "softmax.h"
#include "status.h"

#include <math.h>
#include <stdio.h>

/* One pass over a row: the max over finite and -inf entries, how many are
 * +inf, and whether any is NaN. Returns ATT_OK or ATT_EUSAGE. */
static int softmax_scan(const double *s, size_t n, double *max, size_t *n_pinf)
{
    double m = -INFINITY;
    size_t np = 0;
    for (size_t j = 0; j < n; j++) {
        if (isnan(s[j]))
            return att_fail(ATT_EUSAGE, "NaN score at position %zu of a row of %zu", j, n);
        if (s[j] == INFINITY) np++;
        else if (s[j] > m) m = s[j];
    }
    *max = m;
    *n_pinf = np;
    return ATT_OK;
}

/* out (n) = softmax(in (n)); out may alias in; lse (may be NULL) = log sum_j e^{s_j}.
 *   m = max_j s_j,  out_j = e^{s_j - m} / sum_l e^{s_l - m}
 *   lse = m + log1p(sum_{j != j*} e^{s_j - m}), j* the first max (as softmax_logsumexp)
 * Non-finite policy (softmax.h): NaN -> ATT_EUSAGE; k entries +inf -> 1/k
 * each and 0 elsewhere (lse = +inf); -inf -> 0; all -inf -> ATT_EUSAGE. */
static int softmax_core(double *out, const double *in, size_t n, double *lse)
{
    if (n == 0) return att_fail(ATT_EUSAGE, "softmax of an empty row");
    double m = -INFINITY;
    size_t n_pinf = 0;
    int st = softmax_scan(in, n, &m, &n_pinf);
    if (st) return st;

    // +inf entries: the limit of scores growing without bound, shared equally
    if (n_pinf > 0) {
        double w = 1.0 / (double)n_pinf;
        for (size_t j = 0; j < n; j++) out[j] = in[j] == INFINITY ? w : 0.0;
        if (lse) *lse = INFINITY;
        return ATT_OK;
    }
    if (m == -INFINITY)
        return att_fail(ATT_EUSAGE, "row fully masked: all %zu scores are -inf", n);

    // pass 1: e_j = exp(s_j - m) <= 1, sum >= 1 (the max contributes exactly 1);
    // rest = the sum without the first max j* (j* = n until it is met)
    double sum = 0.0, rest = 0.0;
    size_t jmax = n;
    for (size_t j = 0; j < n; j++) {
        int first_max = jmax == n && in[j] == m;
        // a masked key: exp(-inf) = 0 exactly, a max exp(0) = 1 exactly, without the call
        // (m is finite here)
        double e = in[j] == -INFINITY ? 0.0 : in[j] == m ? 1.0 : exp(in[j] - m);
        out[j] = e;
        sum += e;
        if (first_max) jmax = j;
        else if (lse) rest += e;
    }
    if (lse) *lse = m + log1p(rest);
    // pass 2: normalise
    double inv = 1.0 / sum;
    for (size_t j = 0; j < n; j++) out[j] *= inv;
    return ATT_OK;
}

int softmax_vec(double *out, const double *in, size_t n)
{
    return softmax_core(out, in, n, NULL);
}

int softmax_vec_lse(double *out, const double *in, size_t n, double *lse)
{
    return softmax_core(out, in, n, lse);
}

/* A (T_q, T_k) = row softmax of S (T_q, T_k); A may be S. */
int softmax_rows(gsl_matrix *A, const gsl_matrix *S)
{
    if (A->size1 != S->size1 || A->size2 != S->size2)
        return att_fail(ATT_EUSAGE,
                        "softmax: A (%zu x %zu) and S (%zu x %zu) must have the same shape",
                        A->size1, A->size2, S->size1, S->size2);
    for (size_t i = 0; i < S->size1; i++) {
        int st = softmax_vec(A->data + i * A->tda, S->data + i * S->tda, S->size2);
        if (st) {
            char msg[512];
            snprintf(msg, sizeof msg, "%s", att_last_error());
            return att_fail(st, "softmax of score row %zu: %s", i, msg);
        }
    }
    return ATT_OK;
}

/* log sum_j e^{s_j} = m + log(1 + sum_{j != j*} e^{s_j - m}),  m = s_{j*} = max s.
 * log1p keeps full precision when the max dominates. NaN for any NaN,
 * +inf for any +inf, -inf for all -inf (or n = 0: the empty sum is 0). */
double softmax_logsumexp(const double *s, size_t n)
{
    double m = -INFINITY;
    size_t jmax = 0;
    for (size_t j = 0; j < n; j++) {
        if (isnan(s[j])) return NAN;
        if (s[j] > m || j == 0) { m = s[j]; jmax = j; }
    }
    if (n == 0 || m == -INFINITY) return -INFINITY;
    if (m == INFINITY) return INFINITY;
    double rest = 0.0;
    for (size_t j = 0; j < n; j++)
        if (j != jmax) rest += exp(s[j] - m);
    return m + log1p(rest);
}

void softmax_online_init(online_softmax *st)
{
    st->m = -INFINITY;
    st->l = 0.0;
}

/* m' = max(m, chunk_max);  l <- l e^{m - m'};  returns e^{m - m'}. */
double softmax_online_rescale(online_softmax *st, double chunk_max)
{
    double m_new = chunk_max > st->m ? chunk_max : st->m;
    if (m_new == -INFINITY) return 1.0;           /* nothing unmasked seen yet */
    double f = exp(st->m - m_new);                /* st->m = -inf gives 0      */
    st->l *= f;
    st->m = m_new;
    return f;
}
