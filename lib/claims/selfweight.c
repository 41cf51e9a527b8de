/* selfweight.c - the self-weight, argmax-is-self and fresh-token control of
 * one raw or projected head; the naive head's leak E[1 - a_ii] by re-weighting; the excess
 * over 1/T and its control variate (shapes, formulas and the sections' map in selfweight.h). */
#include "selfweight.h"
#include "vexp.h"
#include "head.h"
#include "mat.h"
#include "softmax.h"
#include "statistics.h"
#include "curve.h"
#include "status.h"
#include "randn.h"
#include "rng.h"
#include "table.h"
#include "mem.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <gsl/gsl_blas.h>
#include <gsl/gsl_integration.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_sf_gamma.h>
#include <stdlib.h>

void selfweight_work_free(selfweight_work *w)
{
    gsl_matrix *m[] = {w->X, w->W_Q, w->W_K, w->Q, w->K, w->S, w->Xc, w->Kc};
    for (size_t k = 0; k < sizeof m / sizeof m[0]; k++) mat_free(m[k]);
    mat_vec_free(w->s_ctrl);
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
    int ok = (w->X = mat_new(T, d)) && (w->S = mat_new(T, T));
    if (ok && d_k > 0)
        ok = (w->W_Q = mat_new(d, d_k)) && (w->W_K = mat_new(d, d_k))
             && (w->Q = mat_new(T, d_k)) && (w->K = mat_new(T, d_k));
    if (ok && control)
        ok = (w->Xc = mat_new(T, d)) && (w->Kc = mat_new(T, d_k)) && (w->s_ctrl = mat_vec_new(T));
    if (!ok) {
        int code = att_last_code() == ATT_EUSAGE ? ATT_EUSAGE : ATT_ERUNTIME;
        char msg[512];
        snprintf(msg, sizeof msg, "%s", att_last_error());
        selfweight_work_free(w);
        return att_fail(code, "self-weight workspace (T %zu, d %zu, d_k %zu): %s",
                        T, d, d_k, msg);
    }
    w->T = T;
    w->d = d;
    w->d_k = d_k;
    w->control = control != 0;
    return ATT_OK;
}

void selfweight_draw_inputs(gsl_rng *rng, selfweight_work *w, double sigma_w)
{
    mat_randn(rng, w->X, 1.0);
    if (w->d_k > 0) {
        mat_randn(rng, w->W_Q, sigma_w);
        mat_randn(rng, w->W_K, sigma_w);
    }
    if (w->control) mat_randn(rng, w->Xc, 1.0);
}

/* 1 / (1 + Z e^{m - s}): the weight of score s against the others, stable */
static double weight_against(double s, double m, double Z)
{
    return 1.0 / (1.0 + Z * exp(m - s));
}

/* sum_{j < n} e^{s_j - m} (every s_j <= m), vectorised (vexp.h) in chunks of a stack buffer
 * (a draw allocates nothing) */
static double sum_exp_shifted(const double *s, size_t n, double m)
{
    enum { CHUNK = 512 };
    double y[CHUNK], Z = 0.0;
    for (size_t j = 0; j < n; j += CHUNK)
        Z += vexp_shifted_head(y, s + j, n - j < CHUNK ? n - j : CHUNK, m);
    return Z;
}

/* s (n): *m = max(*m, max_j s_j), and returns sum_j s_j^2. Four independent lanes (j mod 4)
 * so that neither chain waits on the one before: the max is exact in any order, the sum is
 * the four lanes' partial sums added in order (the same bits on every CPU) */
static double max_and_sum_sq(const double *s, size_t n, double *m)
{
    /* the lanes as named scalars, which the compiler keeps in registers */
    double m0 = *m, m1 = *m, m2 = *m, m3 = *m, q0 = 0.0, q1 = 0.0, q2 = 0.0, q3 = 0.0;
    size_t j = 0;
    for (; j + 4 <= n; j += 4) {
        double a = s[j], b = s[j + 1], c = s[j + 2], e = s[j + 3];
        m0 = a > m0 ? a : m0;
        m1 = b > m1 ? b : m1;
        m2 = c > m2 ? c : m2;
        m3 = e > m3 ? e : m3;
        q0 += a * a;
        q1 += b * b;
        q2 += c * c;
        q3 += e * e;
    }
    for (; j < n; j++) {
        m0 = s[j] > m0 ? s[j] : m0;
        q0 += s[j] * s[j];
    }
    m0 = m1 > m0 ? m1 : m0;
    m2 = m3 > m2 ? m3 : m2;
    *m = m2 > m0 ? m2 : m0;
    return ((q0 + q1) + q2) + q3;
}

/* s (n), self index i. Two passes over the row:
 *   pass 1: m_i = max_{j != i} s_j  (argmax is self iff s_i > m_i), sum of s_j^2
 *   pass 2: Z_i = sum_{j != i} e^{s_j - m_i}   (every exponent <= 0, Z_i >= 1)
 * then a_ii = 1/(1 + Z_i e^{m_i - s_i}),  1 - a_ii = 1/(1 + e^{s_i - m_i}/Z_i). */
int selfweight_row(selfweight_row_t *r, const double *s, size_t n, size_t i)
{
    // pass 1, over j < i and j > i (no branch on j == i in the loops)
    double m = -INFINITY;
    double osq = max_and_sum_sq(s, i, &m);
    osq += max_and_sum_sq(s + i + 1, n - i - 1, &m);
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
    // pass 2: Z_i = sum_{j != i} e^{s_j - m_i}, over j < i then j > i
    double Z = sum_exp_shifted(s, i, m) + sum_exp_shifted(s + i + 1, n - i - 1, m);
    r->Z = Z;
    r->self = weight_against(s[i], m, Z);
    r->leak = 1.0 / (1.0 + exp(s[i] - m) / Z);
    return ATT_OK;
}

int selfweight_self_flipped(const gsl_matrix *S, double *mean)
{
    size_t T = S->size1;
    double sum = 0.0, *y = malloc(2 * T * sizeof *y), *x = y + T;
    if (!y) return att_fail(ATT_ERUNTIME, "self-weight: out of memory for a row of %zu", T);
    for (size_t i = 0; i < T; i++) {
        const double *s = S->data + i * S->tda;
        /* the row x = -s: a_ii = e^{x_i - m} / sum_j e^{x_j - m}, m = max_j x_j = -min_j s_j
         * (the exponentials vectorised: vexp.h) */
        /* four lanes (j mod 4) as named scalars, kept in registers: the min is exact */
        double l0 = s[0], l1 = s[0], l2 = s[0], l3 = s[0];
        size_t j = 0;
        for (; j + 4 <= T; j += 4) {
            double a = s[j], b = s[j + 1], c = s[j + 2], e = s[j + 3];
            x[j] = -a;
            x[j + 1] = -b;
            x[j + 2] = -c;
            x[j + 3] = -e;
            l0 = a < l0 ? a : l0;
            l1 = b < l1 ? b : l1;
            l2 = c < l2 ? c : l2;
            l3 = e < l3 ? e : l3;
        }
        for (; j < T; j++) {
            x[j] = -s[j];
            l0 = s[j] < l0 ? s[j] : l0;
        }
        l0 = l1 < l0 ? l1 : l0;
        l2 = l3 < l2 ? l3 : l2;
        double Z = vexp_shifted_head(y, x, T, -(l2 < l0 ? l2 : l0));
        sum += y[i] / Z;
    }
    free(y);
    *mean = sum / (double)T;
    return ATT_OK;
}

/* S (T, T), s_ctrl (T) or NULL: the row stats averaged over the T rows;
 * the control a'_ii = 1/(1 + Z_i e^{m_i - s'_i}) reuses row i's m_i, Z_i. */
int selfweight_from_scores(double *out, const gsl_matrix *S, const gsl_vector *s_ctrl)
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
    out[SW_SELF] = sum_self / (double)T;
    out[SW_LEAK] = sum_leak / (double)T;
    out[SW_LEAK_LAW] = 0.0;
    out[SW_ARGMAX] = (double)n_self / (double)T;
    out[SW_CONTROL] = s_ctrl ? sum_ctrl / (double)T : 0.0;
    out[SW_EXCESS] = s_ctrl ? (double)T * (out[SW_SELF] - out[SW_CONTROL]) : 0.0;
    out[SW_DIAG_SQ] = sum_dsq / (double)T;
    out[SW_OFF_SQ] = T > 1 ? sum_osq / ((double)T * (double)(T - 1)) : NAN;
    out[SW_MAX_SCORE] = smax;
    return ATT_OK;
}

/* S = F F^T (t = CblasNoTrans, F = X (T, d)) or F^T F (CblasTrans, F = R (r, T)): dsyrk fills
 * the lower triangle (T^2 d / 2 multiply-adds), the upper one is its mirror image, so
 * s_ij = s_ji exactly; then out[SW_NSTAT], the leak law at width d */
static int raw_scores(selfweight_work *w, const gsl_matrix *F, CBLAS_TRANSPOSE_t t, double d,
                      double *out)
{
    gsl_matrix *S = w->S;
    if (gsl_blas_dsyrk(CblasLower, t, 1.0, F, 0.0, S))
        return att_fail(ATT_ERUNTIME, "dsyrk failed for S = X X^T, X %zu x %zu", F->size1,
                        F->size2);
    /* the mirror s_ij = s_ji (j > i) in 32 x 32 tiles, so that the column read stays in cache */
    enum { TILE = 32 };
    size_t T = w->T, ld = S->tda;
    for (size_t i0 = 0; i0 < T; i0 += TILE)
        for (size_t j0 = i0; j0 < T; j0 += TILE)
            for (size_t i = i0; i < i0 + TILE && i < T; i++)
                for (size_t j = j0 > i + 1 ? j0 : i + 1; j < j0 + TILE && j < T; j++)
                    S->data[i * ld + j] = S->data[j * ld + i];
    int st = selfweight_from_scores(out, S, NULL);
    // the leak in units of the large-d law (T - 1) 2^(-d/2)
    if (w->T >= 2) out[SW_LEAK_LAW] = out[SW_LEAK] / selfweight_leak_law(w->T, d);
    return st;
}

/* S = X X^T (X (T, d)), then out[SW_NSTAT] */
int selfweight_raw(selfweight_work *w, double *out)
{
    return raw_scores(w, w->X, CblasNoTrans, (double)w->d, out);
}

/* Q = X W_Q,  K = X W_K,  S = Q K^T;  control: K' = X' W_K,  s'_i = q_i . k'_i */
int selfweight_projected(selfweight_work *w, double *out)
{
    if (w->d_k == 0)
        return att_fail(ATT_EUSAGE, "self-weight workspace has no projections (d_k = 0)");
    // q_i = W_Q^T x_i, k_j = W_K^T x_j, s_ij = 1.0 * q_i . k_j (the scale 1.0: no 1/sqrt(d_k), as
    // in the section): the head's own steps (head.h)
    int st = head_project(w->Q, w->X, w->W_Q, NULL);
    if (!st) st = head_project(w->K, w->X, w->W_K, NULL);
    if (!st) st = head_scores(w->S, w->Q, w->K, 1.0);
    if (!st && w->control) {
        st = head_project(w->Kc, w->Xc, w->W_K, NULL);
        for (size_t i = 0; !st && i < w->T; i++) {
            gsl_vector_const_view q = gsl_matrix_const_row(w->Q, i);
            gsl_vector_const_view kc = gsl_matrix_const_row(w->Kc, i);
            double dot;
            gsl_blas_ddot(&q.vector, &kc.vector, &dot);
            gsl_vector_set(w->s_ctrl, i, dot);
        }
    }
    if (!st) st = selfweight_from_scores(out, w->S, w->control ? w->s_ctrl : NULL);
    return st;
}

/* ---- one Monte Carlo draw --------------------------------------------- */

selfweight_work *selfweight_scratch_new(const selfweight_config *max)
{
    selfweight_work *w = malloc(sizeof *w);
    if (w == NULL) {
        att_fail(ATT_ERUNTIME, "out of memory for a self-weight workspace");
        return NULL;
    }
    if (selfweight_work_alloc(w, max->T, max->d, max->d_k, max->control) != ATT_OK) {
        free(w);
        return NULL;
    }
    return w;
}

void selfweight_scratch_delete(void *w)
{
    if (w == NULL) return;
    selfweight_work_free(w);
    free(w);
}

/* w at exactly (T, d, d_k, control), as a fresh allocation: BLAS may sum in another order
 * for another layout or alignment, and a point must give the same bits alone as in a sweep */
static int work_shape(selfweight_work *w, size_t T, size_t d, size_t d_k, int control)
{
    if (w->T == T && w->d == d && w->d_k == d_k && w->control == (control != 0)) return ATT_OK;
    selfweight_work_free(w);
    return selfweight_work_alloc(w, T, d, d_k, control);
}

/* X (T, d) ~ N(0, 1); W_Q, W_K (d, d_k) ~ N(0, sigma_w^2); X' (T, d);
 * the raw head S = X X^T or the projected S = (X W_Q)(X W_K)^T; row stats */
int selfweight_draw(gsl_rng *rng, const selfweight_config *config, selfweight_work *w,
                    double *out)
{
    int st = work_shape(w, config->T, config->d, config->d_k, config->control);
    if (st) return st;
    selfweight_draw_inputs(rng, w, config->sigma_w);
    return config->d_k ? selfweight_projected(w, out) : selfweight_raw(w, out);
}

/* ---- the same draw through the scores' law (selfweight.h) ------------- */

size_t selfweight_gram_rows(size_t d, size_t d_k) { return d < 2 * d_k ? d : 2 * d_k; }

/* row a of Bartlett's R (r, p), p = p1 + p2: R_ab = 0 (b < a), R_aa = sigma sqrt(chi^2_{d - a})
 * (drawn first), R_ab = sigma N(0, 1) (b > a, in b order); columns [0, p1) into u, [p1, p) into v
 * (a < p) */
static void bartlett_row(gsl_rng *rng, size_t d, size_t a, double sigma, double *u, size_t p1,
                         double *v, size_t p2)
{
    double diag = sigma * sqrt(gsl_ran_chisq(rng, (double)(d - a)));
    double *part[2] = {u, v};
    size_t len[2] = {p1, p2}, at = a;   /* the diagonal's column within part h */
    for (int h = 0; h < 2; h++) {
        if (at >= len[h]) {             /* the diagonal lies further right: all zero here */
            for (size_t b = 0; b < len[h]; b++) part[h][b] = 0.0;
            at -= len[h];
            continue;
        }
        for (size_t b = 0; b < at; b++) part[h][b] = 0.0;
        part[h][at] = diag;
        randn_fill(rng, part[h] + at + 1, len[h] - at - 1, sigma);
        if (h == 0 && p2) randn_fill(rng, v, p2, sigma);
        return;
    }
}

/* R (r, 2 d_k), r = min(d, 2 d_k), by rows (bartlett_row): columns b < d_k in RK, b >= d_k in
 * RQ (column b - d_k) */
void selfweight_gram_factor(gsl_rng *rng, size_t d, size_t d_k, double sigma_w, double *RK,
                            size_t ldk, double *RQ, size_t ldq)
{
    size_t r = selfweight_gram_rows(d, d_k);
    for (size_t a = 0; a < r; a++)
        bartlett_row(rng, d, a, sigma_w, RK + a * ldk, d_k, RQ + a * ldq, d_k);
}

/* the raw head: w at (T, r, 0, 0), r = min(d, T); its X's data as R (r, T) (rows by
 * bartlett_row, sigma 1), S = R^T R (raw_scores), SW_LEAK_LAW at the true width d */
static int draw_gram_raw(gsl_rng *rng, size_t T, size_t d, selfweight_work *w, double *out)
{
    size_t r = d < T ? d : T;
    int st = work_shape(w, T, r, 0, 0);
    if (st) return st;
    gsl_matrix_view R = gsl_matrix_view_array(w->X->data, r, T);   /* X (T, r) is contiguous */
    for (size_t a = 0; a < r; a++) bartlett_row(rng, d, a, 1.0, R.matrix.data + a * T, T, NULL, 0);
    return raw_scores(w, &R.matrix, CblasTrans, (double)d, out);
}

/* R into W_K (r, d_k), W_Q (r, d_k); Z (T, r) into X; Z' (T, m) into X' (T, r), zero past m;
 * then K = Z R_K, Q = Z R_Q, K' = Z' R_K and the row stats (selfweight_projected) */
int selfweight_draw_gram(gsl_rng *rng, const selfweight_config *config, selfweight_work *w,
                         double *out)
{
    if (config->d_k == 0) return draw_gram_raw(rng, config->T, config->d, w, out);
    size_t r = selfweight_gram_rows(config->d, config->d_k);
    size_t m = r < config->d_k ? r : config->d_k;
    int st = work_shape(w, config->T, r, config->d_k, config->control);
    if (st) return st;
    selfweight_gram_factor(rng, config->d, config->d_k, config->sigma_w, w->W_K->data,
                           w->W_K->tda, w->W_Q->data, w->W_Q->tda);
    mat_randn(rng, w->X, 1.0);
    for (size_t i = 0; w->control && i < config->T; i++) {
        double *z = w->Xc->data + i * w->Xc->tda;
        randn_fill(rng, z, m, 1.0);
        for (size_t b = m; b < r; b++) z[b] = 0.0;
    }
    return selfweight_projected(w, out);
}

/* ---- the raw head's leak, exactly and at large d ---------------------- */

/* 2^(-d/2 - 1) */
double selfweight_leak_t2(double d) { return exp2(-0.5 * d - 1.0); }

/* (T - 1) 2^(-d/2) */
double selfweight_leak_law(size_t T, double d) { return (double)(T - 1) * exp2(-0.5 * d); }

typedef struct {
    double d, sqrt_r;
    gsl_integration_workspace *inner;
} t2_ctx;

/* the inner integrand over v (u = sqrt(r) + v): phi(v) e^{-a v} sigma(a v),
 * with e^{-a v} sigma(a v) = e^{-a v} / (1 + e^{-a v}) written without
 * overflow for either sign of a v */
static double t2_inner(double v, void *p)
{
    const t2_ctx *c = p;
    double av = c->sqrt_r * v;
    double f = av > 0.0 ? exp(-av) / (1.0 + exp(-av)) : 1.0 / (1.0 + exp(av));
    return exp(-0.5 * v * v) / sqrt(2.0 * M_PI) * f;
}

/* the outer integrand over r: chi^2_d density times e^{-r/2} times the inner
 * integral, with chi^2_d(r) e^{-r/2} = 2^{-d/2} Gamma(d/2, 1) density (r) */
static double t2_outer(double r, void *p)
{
    t2_ctx *c = p;
    c->sqrt_r = sqrt(r);
    gsl_function f = {t2_inner, c};
    double in, err;
    if (gsl_integration_qagi(&f, 0.0, 1e-11, 200, c->inner, &in, &err)) return NAN;
    double k = 0.5 * c->d;
    double log_gamma_pdf = (k - 1.0) * log(r) - r - gsl_sf_lngamma(k);
    return r > 0.0 ? exp(log_gamma_pdf) * in : (k == 1.0 ? in : 0.0);
}

double selfweight_leak_t2_numeric(double d)
{
    if (!(d >= 1.0)) return NAN;
    gsl_integration_workspace *wo = gsl_integration_workspace_alloc(200);
    gsl_integration_workspace *wi = gsl_integration_workspace_alloc(200);
    double res = NAN, err;
    if (wo && wi) {
        gsl_error_handler_t *old = gsl_set_error_handler_off();
        t2_ctx c = {d, 0.0, wi};
        gsl_function f = {t2_outer, &c};
        if (gsl_integration_qagiu(&f, 0.0, 0.0, 1e-9, 200, wo, &res, &err)) res = NAN;
        gsl_set_error_handler(old);
    }
    gsl_integration_workspace_free(wo);
    gsl_integration_workspace_free(wi);
    return exp2(-0.5 * d) * res;
}

/* ---- where the mean self-weight crosses a level ------------------------ */

int selfweight_contour_crossing(const double *d, const double *leak, const double *leak_se,
                                size_t n, double level, selfweight_crossing *out)
{
    double L = 1.0 - level;
    for (size_t k = 0; k + 1 < n; k++) {
        double a = leak[k], b = leak[k + 1];
        if (!(a > L && b <= L)) continue;
        if (!(b > 0.0))
            return att_fail(ATT_ERUNTIME, "contour %.4g: the leak at d = %g is %g, its log is "
                            "undefined", level, d[k + 1], b);
        /* linear in lambda = log l between the two independent points, se(lambda) = se(l) / l */
        double sa = leak_se[k] / a, sb = leak_se[k + 1] / b;
        curve_crossing x = curve_crossing_between(d[k], d[k + 1], log(a), log(b), sa * sa,
                                                  sb * sb, 0.0, log(L));
        *out = (selfweight_crossing){.d_star = x.l, .se = x.se, .lo = x.lo, .hi = x.hi, .k = k};
        return ATT_OK;
    }
    return att_fail(ATT_ERUNTIME, "the mean self-weight never crosses %.4g on the %zu widths "
                    "given", level, n);
}

double selfweight_weighted_slope(const double *x, const double *y, const double *se, size_t n,
                                 double *slope_se)
{
    double sw = 0, sx = 0, sy = 0, sxx = 0, sxy = 0, chi2 = 0;
    for (size_t i = 0; i < n; i++) {
        double w = 1.0 / (se[i] * se[i]);
        sw += w; sx += w * x[i]; sy += w * y[i]; sxx += w * x[i] * x[i]; sxy += w * x[i] * y[i];
    }
    double D = sw * sxx - sx * sx, b = (sw * sxy - sx * sy) / D, a = (sy - b * sx) / sw;
    for (size_t i = 0; i < n; i++) {
        double r = (y[i] - a - b * x[i]) / se[i];
        chi2 += r * r;
    }
    *slope_se = sqrt(sw / D) * fmax(1.0, sqrt(chi2 / (double)(n - 2)));
    return b;
}

/* ---- a picture: one draw's two weight matrices (random_projections) ---- */

/* X (T, d); S = X X^T or (X W_Q)(X W_K)^T (T, T); A = softmax_rows(S) */
int selfweight_heatmaps(gsl_rng *rng, size_t d, size_t d_k, gsl_matrix *A_raw, gsl_matrix *A_proj)
{
    selfweight_work w;
    int st = selfweight_work_alloc(&w, A_raw->size1, d, d_k, 0);
    if (st) return st;
    selfweight_draw_inputs(rng, &w, 1.0 / sqrt((double)d));
    st = head_scores(w.S, w.X, w.X, 1.0);                      /* raw: s_ij = x_i . x_j */
    if (!st) st = softmax_rows(A_raw, w.S);
    if (!st) st = head_project(w.Q, w.X, w.W_Q, NULL);          /* projected: q_i . k_j */
    if (!st) st = head_project(w.K, w.X, w.W_K, NULL);
    if (!st) st = head_scores(w.S, w.Q, w.K, 1.0);
    if (!st) st = softmax_rows(A_proj, w.S);
    selfweight_work_free(&w);
    return st;
}

/* ---- the naive head's leak E[1 - a_ii] (naive_self_attention) ----------
 * By re-weighting (the derivation in selfweight.h). */

double leak_c_draw(gsl_rng *rng, size_t T, double d)
{
    double r = gsl_ran_gamma(rng, 0.5 * d, 1.0), sr = sqrt(r);
    double v = sr * gsl_ran_gaussian_ziggurat(rng, 1.0), U = 0.0, z[256];
    /* U = sum over the T - 2 others of exp(-r + sr z_k), z_k ~ N(0, 1) in chunks (randn.h);
     * per chunk, with x_k = sr z_k and M = max(r, max_k x_k) (so every x_k - M <= 0, as
     * vexp.h needs): sum_k e^{x_k - r} = e^{M - r} sum_k e^{x_k - M} */
    for (size_t k = 0; k + 2 < T; k += 256) {
        size_t n = T - 2 - k < 256 ? T - 2 - k : 256;
        randn_fill(rng, z, n, 1.0);
        double M = r;
        for (size_t q = 0; q < n; q++) {
            z[q] *= sr;
            M = z[q] > M ? z[q] : M;
        }
        U += exp(M - r) * vexp_shifted(z, z, n, M);
    }
    /* the integrand 1/(1 + e^v + U) at v and -v */
    return 0.5 * (1.0 / (1.0 + exp(v) + U) + 1.0 / (1.0 + exp(-v) + U));
}

double leak_log_leak(size_t T, double d, double c)
{
    return log((double)T - 1.0) - 0.5 * d * M_LN2 + log(c);
}

static void c_at(gsl_rng *rng, size_t T, double d, size_t n, stat_acc *a)
{
    stat_init(a);
    for (size_t i = 0; i < n; i++) stat_push(a, leak_c_draw(rng, T, d));
}

int leak_dstar(gsl_rng *rng, size_t T, double level, size_t n, leak_width *w)
{
    if (T < 2 || !(level > 0.0 && level < 1.0) || n < 100)
        return att_fail(ATT_EUSAGE, "leak: T = %zu, level %g, n = %zu", T, level, n);
    double target = log(1.0 - level);
    /* the bracket: c <= 1/2, so the leak is at most (T - 1) 2^{-d/2 - 1} and d* is at most
     * the width d_law where that reaches 1 - level; step integer d down from just above
     * d_law (a pilot of n/8 pairs each) until ln leak(d) >= ln(1 - level) */
    stat_acc lo, hi;
    int d = (int)floor(2.0 * (log((double)T - 1.0) - M_LN2 - target) / M_LN2) + 1;   /* c = 1/2 */
    if (d < 1) d = 1;
    c_at(rng, T, d, n / 8 + 100, &hi);
    while (d > 1 && leak_log_leak(T, d, hi.mean) < target) {
        d--;
        c_at(rng, T, d, n / 8 + 100, &hi);
    }
    /* the precise estimates at d and d + 1 (fresh, independent draws) */
    c_at(rng, T, d, n, &lo);
    c_at(rng, T, d + 1, n, &hi);
    double y0 = leak_log_leak(T, d, lo.mean), y1 = leak_log_leak(T, d + 1, hi.mean);
    /* linear in d between the two, Var y = Var c / c^2 / n, y0 and y1 independent */
    curve_crossing x = curve_crossing_between(d, d + 1.0, y0, y1,
                                              stat_var(&lo) / (lo.mean * lo.mean * (double)lo.n),
                                              stat_var(&hi) / (hi.mean * hi.mean * (double)hi.n),
                                              0.0, target);
    *w = (leak_width){.d_star = x.l, .se = x.se, .lo = x.lo, .hi = x.hi, .d_below = d,
                      .c_below = lo.mean, .c_above = hi.mean, .n = n};
    return ATT_OK;
}

#define C(f) COL(leak_contour_row, f)
#define M(f) COL_MC(leak_contour_row, f, "d_star_lo", "d_star_hi")
static const table_col contour_cols[] = {C(T),         C(draws),     M(d_star),     M(d_star_lo),
                                         M(d_star_hi), M(d_star_se), C(d_below),    M(c_below),
                                         M(c_above),   C(d_law),     M(slope_local)};
#undef M
#undef C

/* the contour's stream of --seed: block T for length T */
enum { STREAM_CONTOUR = 0xC0DE };

int leak_contour(gsl_rng *rng, const char *dir, const char *name, unsigned long seed,
                 const size_t *Tl, size_t nT, double level, size_t pairs, leak_contour_row *ex)
{
    int st = ATT_OK;
    for (size_t t = 0; t < nT && !st; t++) {
        leak_width w;
        size_t T = Tl[t];
        gsl_rng_set(rng, rng_stream_seed(seed, STREAM_CONTOUR, T));   /* each T its own block */
        if ((st = leak_dstar(rng, T, level, pairs, &w))) break;
        ex[t] = (leak_contour_row){T,
                                   w.n,
                                   w.d_star,
                                   w.lo,
                                   w.hi,
                                   w.se,
                                   w.c_below,
                                   w.c_above,
                                   2.0 * log2(((double)T - 1.0) / (2.0 * (1.0 - level))),
                                   NAN,
                                   (size_t)w.d_below};
        // the contour's local rise per doubling of T - 1
        if (t)
            ex[t].slope_local =
                (ex[t].d_star - ex[t - 1].d_star) / log2((T - 1.0) / (ex[t - 1].T - 1.0));
    }
    return st ? st : TABLE_WRITE(dir, name, contour_cols, ex, nT);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int leak_median(gsl_rng *rng, size_t T, size_t d, size_t rows, double *median, double *lo,
                double *hi)
{
    double *lk = malloc(rows * sizeof *lk), *x = malloc(T * d * sizeof *x),
           *sc = malloc(T * sizeof *sc);
    int st = lk && x && sc ? ATT_OK : att_fail(ATT_ERUNTIME, "naive median leak: out of memory");
    for (size_t i = 0; i < rows && !st; i++) {
        randn_fill(rng, x, T * d, 1.0);   /* x_j (d) ~ N(0, I), j = 0 .. T-1, row after row */
        for (size_t j = 0; j < T; j++) {
            sc[j] = 0.0;   // s_j = x_0 . x_j
            for (size_t m = 0; m < d; m++) sc[j] += x[m] * x[j * d + m];
        }
        selfweight_row_t r;
        if ((st = selfweight_row(&r, sc, T, 0))) break;
        lk[i] = r.leak;
    }
    if (!st) {
        qsort(lk, rows, sizeof lk[0], cmp_double);
        double z = STAT_Z95 * sqrt((double)rows) / 2.0, m = rows / 2.0;
        *median = lk[rows / 2], *lo = lk[(size_t)(m - z)], *hi = lk[(size_t)(m + z)];
    }
    free(lk), free(x), free(sc);
    return st;
}

double leak_t2_quadrature_gap(int d_max)
{
    double q = 0.0;
    for (int d = 1; d <= d_max; d++)
        q = fmax(q, fabs(selfweight_leak_t2_numeric(d) / selfweight_leak_t2(d) - 1.0));
    return q;
}

/* ---- the leak, continued: the derived columns of the sweep ---- */

#define NL_COL(k, name) SWEEP_DERIVED(k, name, NAT_COMPUTED, NULL, NULL, NULL)
const table_col leak_cols[LEAK_ND] = {
    NL_COL(LEAK_SLO, "self_ci_lo"), NL_COL(LEAK_SHI, "self_ci_hi"),
    NL_COL(LEAK_LLO, "leak_ci_lo"), NL_COL(LEAK_LHI, "leak_ci_hi"),
    NL_COL(LEAK_LSE, "leak_se"), NL_COL(LEAK_RSE, "leak_rse"),
    NL_COL(LEAK_SHOWN, "shown"), NL_COL(LEAK_LAW, "leak_law"),
    NL_COL(LEAK_T2, "leak_exact_t2"),
    NL_COL(LEAK_ALO, "argmax_ci_lo"), NL_COL(LEAK_AHI, "argmax_ci_hi")};

void leak_derive(double *col, const sweep_point *pt, const stat_acc *leak_acc,
                 const stat_acc *ratio, const stat_acc *argmax)
{
    double T = (double)pt->T, d = (double)pt->d, n = (double)leak_acc->n, leak = leak_acc->mean;
    col[LEAK_LAW] = selfweight_leak_law(pt->T, d);
    col[LEAK_T2] = pt->T == 2 ? selfweight_leak_t2(d) : NAN;
    // se(leak) = law * se(leak / law): the ratio is O(1), its variance never underflows
    col[LEAK_LSE] = col[LEAK_LAW] * stat_se(ratio);
    col[LEAK_LLO] = leak - STAT_Z95 * col[LEAK_LSE];
    col[LEAK_LHI] = leak + STAT_Z95 * col[LEAK_LSE];
    col[LEAK_SLO] = 1.0 - col[LEAK_LHI];
    col[LEAK_SHI] = 1.0 - col[LEAK_LLO];
    // rse of the mean leak: the sample's, or the law's sqrt(4 2^(d/2) / (sqrt(pi d)(T - 1)) / (n
    // T)) (from the T = 2 second moment ~ 2^(-d/2) / sqrt(pi d): the mean is carried by rare draws)
    col[LEAK_RSE] = fmax(col[LEAK_LSE] / leak,
                         sqrt(4.0 * exp2(0.5 * d) / (sqrt(M_PI * d) * (T - 1.0)) / (n * T)));
    col[LEAK_SHOWN] = col[LEAK_RSE] <= LEAK_MAX_RSE;
    /* n T rows */
    stat_ci95_wilson(round(argmax->mean * n * T), n * T, &col[LEAK_ALO], &col[LEAK_AHI]);
}

/* ---- the excess of T E[a_ii] over 1 (random_projections) ----------------
 * The excess over 1/T and its control variate (the derivation in selfweight.h). */

/* a_i of the row g s (T), g = +1 or -1 (W_K -> -W_K flips every score):
 * e^{g s_i - m} / sum_j e^{g s_j - m}, m = max_j g s_j */
static double weight(const double *s, size_t T, size_t i, double g)
{
    double x[RPX_MAX_T], y[RPX_MAX_T], m = g * s[0];
    for (size_t j = 0; j < T; j++) {
        x[j] = g * s[j];
        m = x[j] > m ? x[j] : m;
    }
    double z = vexp_shifted(y, x, T, m);   /* y_j = e^{x_j - m}, z = sum_j y_j (vexp.h) */
    return y[i] / z;
}

void excess_draw(gsl_rng *rng, size_t T, size_t d, size_t d_k, double c, double out[RPX_NOUT])
{
    /* Z (T, r), Z' (T, mk); R = [R_K R_Q] (r, 2 d_k), r = min(d, 2 d_k), mk = min(d_k, r):
     * the Gram factor of W = [W_K W_Q] (selfweight.h), which gives (Q, K, K') their exact law
     * from X, X', W ~ N(0, c^2/d) with T (r + mk) + r 2 d_k Gaussians instead of 2 T d + 2 d d_k */
    double Z[RPX_MAX_T][2 * RPX_MAX_DK], Zc[RPX_MAX_T][RPX_MAX_DK];
    double RQ[2 * RPX_MAX_DK][RPX_MAX_DK], RK[2 * RPX_MAX_DK][RPX_MAX_DK];
    double Q[RPX_MAX_T][RPX_MAX_DK], K[RPX_MAX_T][RPX_MAX_DK], Kc[RPX_MAX_T][RPX_MAX_DK];
    size_t r = selfweight_gram_rows(d, d_k), mk = r < d_k ? r : d_k;
    /* R first, then Z, Z' in row order (randn.h: GSL's ziggurat values) */
    selfweight_gram_factor(rng, d, d_k, c / sqrt((double)d), &RK[0][0], RPX_MAX_DK, &RQ[0][0],
                           RPX_MAX_DK);
    for (size_t j = 0; j < T; j++) randn_fill(rng, Z[j], r, 1.0);
    for (size_t j = 0; j < T; j++) randn_fill(rng, Zc[j], mk, 1.0);
    /* Q = Z R_Q, K = Z R_K, K' = Z' R_K (R_K's rows past mk are 0). Not head_ref_forward
     * (head_ref.h): a different computation, only the diagonal a_ii of each row (no values,
     * no O), for the row, its -W_K twin and the control row with k_i swapped for k'_i, on
     * stack arrays; and its weights take vexp's exponential, not libm's exp (the committed
     * bits depend on it). */
    for (size_t j = 0; j < T; j++)
        for (size_t a = 0; a < d_k; a++) {
            double q = 0.0, k = 0.0, kc = 0.0;
            for (size_t m = 0; m < r; m++) q += Z[j][m] * RQ[m][a];
            for (size_t m = 0; m < mk; m++) {
                k += Z[j][m] * RK[m][a];
                kc += Zc[j][m] * RK[m][a];
            }
            Q[j][a] = q;
            K[j][a] = k;
            Kc[j][a] = kc;
        }
    double ex = 0.0, ex_anti = 0.0, q2 = 0.0, s[RPX_MAX_T];
    for (size_t i = 0; i < T; i++) {
        double sbar = 0.0, own = 0.0;
        for (size_t j = 0; j < T; j++) {
            s[j] = 0.0;
            for (size_t a = 0; a < d_k; a++) s[j] += Q[i][a] * K[j][a];
            sbar += s[j] / (double)T;
        }
        for (size_t a = 0; a < d_k; a++) own += Q[i][a] * Kc[i][a];
        /* a_ii for W_K and for -W_K (every score flipped) */
        double a_ii = weight(s, T, i, 1.0), a_anti = weight(s, T, i, -1.0), s_ii = s[i];
        double sbar_c = sbar + (own - s_ii) / (double)T;   /* the control row's mean score */
        /* second-order terms: ((s_i - sbar)^2 - (1/T) sum_j (s_j - sbar)^2) / 2, row and control */
        double v = 0.0, vc = 0.0;
        for (size_t j = 0; j < T; j++) v += (s[j] - sbar) * (s[j] - sbar);
        s[i] = own;
        for (size_t j = 0; j < T; j++) vc += (s[j] - sbar_c) * (s[j] - sbar_c);
        q2 += 0.5 * ((s_ii - sbar) * (s_ii - sbar) - v / (double)T)
              - 0.5 * ((own - sbar_c) * (own - sbar_c) - vc / (double)T);
        /* the control row a'_ii, for W_K and -W_K */
        double a_c = weight(s, T, i, 1.0), a_c_anti = weight(s, T, i, -1.0);
        ex += (double)T * (a_ii - a_c);                   // T (a_ii - a'_ii)
        ex_anti += (double)T * (a_anti - a_c_anti);       // the same with -W_K
    }
    out[RPX_PLAIN] = ex / (double)T;
    out[RPX_ANTI] = 0.5 * (ex + ex_anti) / (double)T;
    out[RPX_Q2] = q2 / (double)T;
}

double excess_law(size_t T, size_t d, size_t d_k, double c)
{
    return (1.0 - 1.0 / (double)T) * (1.0 - 2.0 / (double)T) * (double)d_k * pow(c, 4) / (double)d;
}

int excess_estimate(gsl_rng *rng, size_t T, size_t d, size_t d_k, double c, size_t n,
                      double plant, double *est, double *se)
{
    size_t used;
    return excess_estimate_to(rng, T, d, d_k, c, n, n, 0.0, plant, est, se, &used);
}

/* Y_k = Y_anti + plant, X_k = Q2 - law for draws k in [from, to) */
static void excess_fill(gsl_rng *rng, size_t T, size_t d, size_t d_k, double c, double law,
                        double plant, double *Y, double *X, size_t from, size_t to)
{
    for (size_t k = from; k < to; k++) {
        double o[RPX_NOUT];
        excess_draw(rng, T, d, d_k, c, o);
        Y[k] = o[RPX_ANTI] + plant;   // Y_anti (+ the test's planted bias)
        X[k] = o[RPX_Q2] - law;       // Q2 - law: mean 0
    }
}

int excess_estimate_to(gsl_rng *rng, size_t T, size_t d, size_t d_k, double c, size_t n,
                       size_t n_max, double se_target, double plant, double *est, double *se,
                       size_t *used)
{
    if (n_max < n) n_max = n;
    double law = excess_law(T, d, d_k, c), V = NAN;
    double *Y = mem_calloc(n_max, sizeof *Y, "excess draws");
    double *X = mem_calloc(n_max, sizeof *X, "excess controls");
    int st = Y && X ? ATT_OK : att_alloc_status();
    size_t have = 0;
    while (!st) {
        excess_fill(rng, T, d, d_k, c, law, plant, Y, X, have, n);
        have = n;
        /* yhat = mean(Y) - beta (mean(X)), beta fitted: the intercept */
        if ((st = curve_fit(Y, n, 1, X, 1, est, &V))) break;
        /* the top-up: n (se / se_target)^2, 10% over, while se > se_target > 0 and n < n_max */
        if (!(se_target > 0.0) || !(sqrt(V) > se_target) || n >= n_max) break;
        double want = (double)n * (V / (se_target * se_target)) * 1.1;
        n = !isfinite(want) || want >= (double)n_max ? n_max : (size_t)ceil(want);
    }
    *se = sqrt(V);
    *used = have;
    mem_free(Y, n_max, sizeof *Y);
    mem_free(X, n_max, sizeof *X);
    return st;
}
