/* selfweight.c - the self-weight, argmax-is-self and fresh-token control of
 * one raw or projected head (shapes and formulas in selfweight.h). */
#include "selfweight.h"
#include "mat.h"
#include "status.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <gsl/gsl_blas.h>

void selfweight_work_free(selfweight_work *w)
{
    mat_free(w->X);
    mat_free(w->W_Q);
    mat_free(w->W_K);
    mat_free(w->Q);
    mat_free(w->K);
    mat_free(w->S);
    mat_free(w->Xc);
    mat_free(w->Kc);
    vec_free(w->s_ctrl);
    memset(w, 0, sizeof *w);
}

int selfweight_work_alloc(selfweight_work *w, size_t T, size_t d, size_t d_k, int control)
{
    memset(w, 0, sizeof *w);
    if (T == 0 || d == 0)
        return att_fail(ATT_EUSAGE, "self-weight workspace needs T >= 1 and d >= 1 "
                        "(got T %zu, d %zu)", T, d);
    if (control && d_k == 0)
        return att_fail(ATT_EUSAGE, "the fresh-token control needs projections (d_k >= 1)");
    w->T = T;
    w->d = d;
    w->d_k = d_k;
    w->control = control != 0;
    int ok = (w->X = mat_new(T, d)) && (w->S = mat_new(T, T));
    if (ok && d_k > 0)
        ok = (w->W_Q = mat_new(d, d_k)) && (w->W_K = mat_new(d, d_k))
             && (w->Q = mat_new(T, d_k)) && (w->K = mat_new(T, d_k));
    if (ok && control)
        ok = (w->Xc = mat_new(T, d)) && (w->Kc = mat_new(T, d_k)) && (w->s_ctrl = vec_new(T));
    if (!ok) {
        char msg[512];
        snprintf(msg, sizeof msg, "%s", att_last_error());
        selfweight_work_free(w);
        return att_fail(ATT_ERUNTIME, "self-weight workspace (T %zu, d %zu, d_k %zu): %s",
                        T, d, d_k, msg);
    }
    return ATT_OK;
}

void selfweight_draw_inputs(selfweight_work *w, gsl_rng *rng, double sigma_w)
{
    mat_randn(w->X, rng, 1.0);
    if (w->d_k > 0) {
        mat_randn(w->W_Q, rng, sigma_w);
        mat_randn(w->W_K, rng, sigma_w);
    }
    if (w->control) mat_randn(w->Xc, rng, 1.0);
}

/* 1 / (1 + Z e^{m - s}): the weight of score s against the others, stable */
static double weight_against(double s, double m, double Z)
{
    return 1.0 / (1.0 + Z * exp(m - s));
}

/* s (n), self index i. Two passes over the row:
 *   pass 1: m_i = max_{j != i} s_j  (argmax is self iff s_i > m_i), sum of s_j^2
 *   pass 2: Z_i = sum_{j != i} e^{s_j - m_i}   (every exponent <= 0, Z_i >= 1)
 * then a_ii = 1/(1 + Z_i e^{m_i - s_i}),  1 - a_ii = 1/(1 + e^{s_i - m_i}/Z_i). */
int selfweight_row(selfweight_row_t *r, const double *s, size_t n, size_t i)
{
    // pass 1, over j < i and j > i (no branch on j == i in the loops)
    double m = -INFINITY, osq = 0.0;
    for (size_t j = 0; j < i; j++) {
        m = s[j] > m ? s[j] : m;
        osq += s[j] * s[j];
    }
    for (size_t j = i + 1; j < n; j++) {
        m = s[j] > m ? s[j] : m;
        osq += s[j] * s[j];
    }
    if (!isfinite(osq) || !isfinite(s[i]))   /* a NaN or inf anywhere shows here */
        return att_fail(ATT_ERUNTIME, "self-weight: a score is NaN or infinite "
                        "(row of %zu)", n);
    r->m = m;
    r->off_sq = osq;
    if (n == 1) {               /* no other token: all the weight is self */
        r->self = 1.0;
        r->leak = 0.0;
        r->Z = 0.0;
        r->argmax_self = 1;
        return ATT_OK;
    }
    r->argmax_self = s[i] > m;
    // pass 2: Z_i = sum_{j != i} e^{s_j - m_i}
    double Z = 0.0;
    for (size_t j = 0; j < i; j++) Z += exp(s[j] - m);
    for (size_t j = i + 1; j < n; j++) Z += exp(s[j] - m);
    r->Z = Z;
    r->self = weight_against(s[i], m, Z);
    r->leak = 1.0 / (1.0 + exp(s[i] - m) / Z);
    return ATT_OK;
}

/* S (T, T), s_ctrl (T) or NULL: the row stats averaged over the T rows;
 * the control a'_ii = 1/(1 + Z_i e^{m_i - s'_i}) reuses row i's m_i, Z_i. */
int selfweight_from_scores(selfweight_stats *r, const gsl_matrix *S, const gsl_vector *s_ctrl)
{
    size_t T = S->size1;
    if (S->size2 != T || T == 0)
        return att_fail(ATT_EUSAGE, "self-weight: S is %zu x %zu, must be square and non-empty",
                        S->size1, S->size2);
    if (s_ctrl && s_ctrl->size != T)
        return att_fail(ATT_EUSAGE, "self-weight: control scores have length %zu, S is %zu x %zu",
                        s_ctrl->size, T, T);
    double sum_self = 0.0, sum_leak = 0.0, sum_ctrl = 0.0, sum_dsq = 0.0, sum_osq = 0.0;
    double smax = -INFINITY;
    size_t n_self = 0;
    for (size_t i = 0; i < T; i++) {
        const double *s = S->data + i * S->tda;
        selfweight_row_t row;
        int st = selfweight_row(&row, s, T, i);
        if (st) {
            char msg[256];
            snprintf(msg, sizeof msg, "%s", att_last_error());
            return att_fail(st, "%s in row %zu", msg, i);
        }
        sum_self += row.self;
        sum_leak += row.leak;
        n_self += (size_t)row.argmax_self;
        sum_dsq += s[i] * s[i];
        sum_osq += row.off_sq;
        if (row.m > smax) smax = row.m;
        if (s[i] > smax) smax = s[i];
        if (s_ctrl)
            sum_ctrl += T == 1 ? 1.0 : weight_against(gsl_vector_get(s_ctrl, i), row.m, row.Z);
    }
    r->self_weight = sum_self / (double)T;
    r->leak = sum_leak / (double)T;
    r->argmax_self = (double)n_self / (double)T;
    r->control = s_ctrl ? sum_ctrl / (double)T : NAN;
    r->diag_sq = sum_dsq / (double)T;
    r->off_sq = T > 1 ? sum_osq / ((double)T * (double)(T - 1)) : NAN;
    r->max_score = smax;
    return ATT_OK;
}

/* S = X X^T: dsyrk fills the lower triangle (T^2 d / 2 multiply-adds), the
 * upper one is its mirror image, so s_ij = s_ji exactly. */
int selfweight_raw(selfweight_work *w, selfweight_stats *r)
{
    gsl_matrix *S = w->S;
    if (gsl_blas_dsyrk(CblasLower, CblasNoTrans, 1.0, w->X, 0.0, S))
        return att_fail(ATT_ERUNTIME, "dsyrk failed for S = X X^T, X %zu x %zu",
                        w->X->size1, w->X->size2);
    for (size_t i = 0; i < w->T; i++)
        for (size_t j = i + 1; j < w->T; j++)
            S->data[i * S->tda + j] = S->data[j * S->tda + i];
    return selfweight_from_scores(r, S, NULL);
}

/* Q = X W_Q,  K = X W_K,  S = Q K^T;  control: K' = X' W_K,  s'_i = q_i . k'_i */
int selfweight_projected(selfweight_work *w, selfweight_stats *r)
{
    if (w->d_k == 0)
        return att_fail(ATT_EUSAGE, "self-weight workspace has no projections (d_k = 0)");
    int st = mat_gemm(w->Q, 1.0, w->X, 0, w->W_Q, 0, 0.0);
    if (!st) st = mat_gemm(w->K, 1.0, w->X, 0, w->W_K, 0, 0.0);
    if (!st) st = mat_gemm(w->S, 1.0, w->Q, 0, w->K, 1, 0.0);
    if (!st && w->control) {
        st = mat_gemm(w->Kc, 1.0, w->Xc, 0, w->W_K, 0, 0.0);
        for (size_t i = 0; !st && i < w->T; i++) {
            gsl_vector_const_view q = gsl_matrix_const_row(w->Q, i);
            gsl_vector_const_view kc = gsl_matrix_const_row(w->Kc, i);
            double dot;
            gsl_blas_ddot(&q.vector, &kc.vector, &dot);
            gsl_vector_set(w->s_ctrl, i, dot);
        }
    }
    if (!st) st = selfweight_from_scores(r, w->S, w->control ? w->s_ctrl : NULL);
    return st;
}
