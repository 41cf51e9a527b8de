/* longseq.c - one row's self-weight at any T (see longseq.h). */
#include "longseq.h"
#include "mat.h"
#include "att.h"
#include "stat.h"

#include <math.h>
#include <stdlib.h>
#include <gsl/gsl_linalg.h>
#include <gsl/gsl_randist.h>

int longseq_work_alloc(longseq_work *w, size_t d, size_t d_k)
{
    *w = (longseq_work){0};
    if (d == 0 || d_k == 0) return att_fail(ATT_EUSAGE, "longseq: d and d_k must be >= 1");
    w->d = d;
    w->d_k = d_k;
    w->W_Q = mat_new(d, d_k);
    w->W_K = mat_new(d, d_k);
    w->G = mat_new(d_k, d_k);
    w->QQ = mat_new(d_k, d_k);
    w->KK = mat_new(d_k, d_k);
    w->perm = w->G ? gsl_permutation_alloc(d_k) : NULL;   /* uncounted, but smaller than G (counted) */
    w->x = mat_vec_new(d);
    w->y = mat_vec_new(d);
    w->v = mat_vec_new(d);
    w->q = mat_vec_new(d_k);
    w->k = mat_vec_new(d_k);
    w->u = mat_vec_new(d_k);
    if (!w->W_Q || !w->W_K || !w->G || !w->QQ || !w->KK || !w->perm || !w->x || !w->y || !w->v || !w->q || !w->k
        || !w->u) {
        int rc = att_alloc_status();      /* a --max-memory refusal stays exit 2, naming it */
        longseq_work_free(w);
        return rc == ATT_EUSAGE ? rc
                                : att_fail(ATT_ERUNTIME, "longseq: out of memory (d = %zu, d_k = %zu)", d, d_k);
    }
    return ATT_OK;
}

void longseq_work_free(longseq_work *w)
{
    mat_free(w->W_Q);
    mat_free(w->W_K);
    mat_free(w->G);
    mat_free(w->QQ);
    mat_free(w->KK);
    if (w->perm) gsl_permutation_free(w->perm);
    mat_vec_free(w->x);
    mat_vec_free(w->y);
    mat_vec_free(w->v);
    mat_vec_free(w->q);
    mat_vec_free(w->k);
    mat_vec_free(w->u);
    *w = (longseq_work){0};
}

void *longseq_work_new(size_t d, size_t d_k)
{
    longseq_work *w = calloc(1, sizeof *w);
    if (w && longseq_work_alloc(w, d, d_k) != ATT_OK) { free(w); return NULL; }
    return w;
}

void longseq_work_delete(void *w)
{
    if (w) longseq_work_free(w);
    free(w);
}

/* out (d_k) = W^T a, W (d, d_k), a (d): out_b = sum_m W_mb a_m, summed over m outermost
 * (the inner loop along a row of W, contiguous); out contiguous (mat_vec_new) */
static void mul_t(gsl_vector *out, const gsl_matrix *W, const gsl_vector *a)
{
    const double *Wd = W->data, *ad = a->data;
    double *o = out->data;
    size_t ld = W->tda, sa = a->stride, n = W->size2;
    for (size_t b = 0; b < n; b++) o[b] = 0.0;
    for (size_t m = 0; m < W->size1; m++) {
        const double *row = Wd + m * ld;
        double am = ad[m * sa];
        for (size_t b = 0; b < n; b++) o[b] += row[b] * am;
    }
}

/* out (d) = W b, W (d, d_k), b (d_k) */
static void mul(gsl_vector *out, const gsl_matrix *W, const gsl_vector *b)
{
    const double *Wd = W->data, *bd = b->data;
    size_t ld = W->tda, sb = b->stride;
    for (size_t m = 0; m < W->size1; m++) {
        double acc = 0.0;
        for (size_t a = 0; a < W->size2; a++) acc += Wd[m * ld + a] * bd[a * sb];
        out->data[m * out->stride] = acc;
    }
}

/* the LU of w->G (holding I - W_Q^T W_K); log|det|, or NaN when singular */
static double lu_lndet(longseq_work *w)
{
    gsl_linalg_LU_decomp(w->G, w->perm, &w->signum);
    for (size_t a = 0; a < w->d_k; a++)
        if (gsl_matrix_get(w->G, a, a) == 0.0) return NAN;
    return gsl_linalg_LU_lndet(w->G);
}

void longseq_scores(longseq_work *w, longseq_query *r)
{
    mul_t(w->q, w->W_Q, w->x);   /* q = W_Q^T x */
    mul_t(w->k, w->W_K, w->x);   /* k = W_K^T x */
    mul(w->v, w->W_K, w->q);     /* v = W_K q: s_ij = v . x_j */
    double s = 0.0, s2 = 0.0;
    const double *q = w->q->data, *k = w->k->data, *v = w->v->data;   /* contiguous (mat_vec_new) */
    for (size_t a = 0; a < w->d_k; a++) s += q[a] * k[a];
    for (size_t m = 0; m < w->d; m++) s2 += v[m] * v[m];
    r->s = s;
    r->sigma2 = s2;
}

void longseq_cv_means(size_t d, size_t d_k, double c, double mean[LONGSEQ_NCV])
{
    double v = pow(c, 4) / (double)d;   /* E[G_ab^2] */
    mean[0] = 1.0;
    mean[1] = 0.0;
    mean[2] = (double)d_k * v;
    mean[3] = (double)d_k * v;
    mean[4] = (double)d_k * (double)d_k * v;
}

/* The density of det(I - G) at 0 given every entry but W_Q's column a, averaged over a
 * (longseq.h derives it): r_a = row a of (I - G)^{-1}, solved from the LU of (I - G)^T held
 * in w->G as (I - G)^T r_a = e_a; t_a = sw ||W_K r_a|| (d);
 *   p_a = phi(r_aa / t_a) / (|det| t_a),   dens0 = (1/d_k) sum_a p_a.
 * Uses w->u (d_k) and w->v (d). */
static double cond_density0(longseq_work *w, double sw, double absdet)
{
    size_t n = w->d_k;
    double sum = 0.0;
    for (size_t a = 0; a < n; a++) {
        gsl_vector_set_basis(w->u, a);
        gsl_linalg_LU_svx(w->G, w->perm, w->u);   /* u = r_a */
        mul(w->v, w->W_K, w->u);                   /* v = W_K r_a */
        double v2 = 0.0;
        for (size_t m = 0; m < w->d; m++) v2 += w->v->data[m] * w->v->data[m];   /* contiguous */
        double t = sw * sqrt(v2), z = gsl_vector_get(w->u, a) / t;
        sum += exp(-0.5 * z * z) / (sqrt(2.0 * M_PI) * absdet * t);
    }
    return sum / (double)n;
}

int longseq_draw_weights(gsl_rng *rng, longseq_work *w, double c, longseq_weights *g)
{
    double sw = c / sqrt((double)w->d);
    mat_randn(rng, w->W_Q, sw);
    mat_randn(rng, w->W_K, sw);
    return longseq_weights_of(w, c, g);
}

int longseq_weights_of(longseq_work *w, double c, longseq_weights *g)
{
    double sw = c / sqrt((double)w->d);
    size_t n = w->d_k;
    /* G = W_K^T W_Q into w->G, once (factor() uses I - G^T: same traces, det), and the Gram
     * matrices W_Q^T W_Q, W_K^T W_K (d_k, d_k) for ||M||_F^2 below: sums over m outermost, so
     * that the inner loops run along rows of W_Q, W_K (contiguous) */
    double tr = 0.0, tr2 = 0.0, fr = 0.0, *Gd = w->G->data, *QQ = w->QQ->data, *KK = w->KK->data;
    size_t lg = w->G->tda, lq = w->QQ->tda, ld = w->W_K->tda;   /* W_Q, W_K: the same shape */
    gsl_matrix_set_zero(w->G);
    gsl_matrix_set_zero(w->QQ);
    gsl_matrix_set_zero(w->KK);
    for (size_t m = 0; m < w->d; m++) {
        const double *K = w->W_K->data + m * ld, *Q = w->W_Q->data + m * ld;
        for (size_t a = 0; a < n; a++) {
            double ka = K[a], qa = Q[a];
            for (size_t b = 0; b < n; b++) {
                Gd[a * lg + b] += ka * Q[b];
                QQ[a * lq + b] += qa * Q[b];
                KK[a * lq + b] += ka * K[b];
            }
        }
    }
    for (size_t a = 0; a < n; a++)
        for (size_t b = 0; b < n; b++) {
            double gab = Gd[a * lg + b], gba = Gd[b * lg + a];
            if (a == b) tr += gab;
            tr2 += gab * gba;
            fr += gab * gab;
        }
    /* in place: G <- I - G^T = I - W_Q^T W_K, then its LU */
    for (size_t a = 0; a < n; a++) {
        Gd[a * lg + a] = 1.0 - Gd[a * lg + a];
        for (size_t b = a + 1; b < n; b++) {
            double x = Gd[a * lg + b];
            Gd[a * lg + b] = -Gd[b * lg + a];
            Gd[b * lg + a] = -x;
        }
    }
    /* ||M||_F^2 = sum_ab (W_Q^T W_Q)_ab (W_K^T W_K)_ab */
    double mf = 0.0;
    for (size_t a = 0; a < n; a++)
        for (size_t b = 0; b < n; b++) mf += QQ[a * lq + b] * KK[a * lq + b];
    g->m_fro2 = mf;
    g->lndet = lu_lndet(w);
    if (isnan(g->lndet)) return att_fail(ATT_ERUNTIME, "longseq: I - W_K^T W_Q is singular");
    g->det = exp(g->lndet) * gsl_linalg_LU_sgndet(w->G, w->signum);
    g->dens0 = cond_density0(w, sw, exp(g->lndet));
    g->cv[0] = tr;
    g->cv[1] = tr * tr;
    g->cv[2] = tr2;
    g->cv[3] = fr;
    return ATT_OK;
}

void longseq_draw_row(gsl_rng *rng, longseq_work *w, const longseq_weights *g, int tilted,
                      double alpha, longseq_query *r)
{
    mat_vec_randn(rng, w->y, 1.0);
    gsl_vector_memcpy(w->x, w->y);
    if (tilted) {
        /* x = (I - W_K W_Q^T)^{-1} y = y + W_K (I - W_Q^T W_K)^{-1} W_Q^T y */
        mul_t(w->u, w->W_Q, w->y);
        gsl_linalg_LU_svx(w->G, w->perm, w->u);
        mul(w->v, w->W_K, w->u);
        gsl_vector_add(w->x, w->v);
    }
    longseq_scores(w, r);
    r->inv_det = exp(-g->lndet);
    /* log p/q, q = alpha p + (1 - alpha) q1, q1/p = e^a, a = s - sigma^2/2 + log|det|:
     *   -log(alpha + (1 - alpha) e^a), in the form that cannot overflow
     * (alpha = 1: 0, the plain law; alpha = 0: -a, the tilted law alone) */
    double a = r->s - 0.5 * r->sigma2 + g->lndet;
    if (alpha >= 1.0) r->log_ratio = 0.0;
    else if (alpha <= 0.0) r->log_ratio = -a;
    else if (a > 0.0) r->log_ratio = -(a + log((1.0 - alpha) + alpha * exp(-a)));
    else r->log_ratio = -log(alpha + (1.0 - alpha) * exp(a));
}

void longseq_row_cv(const longseq_query *r, const longseq_weights *g, double cv[LONGSEQ_NRCV])
{
    double pq = exp(r->log_ratio);
    double q1q = exp(r->s - 0.5 * r->sigma2 + g->lndet + r->log_ratio);   /* q1/q = (q1/p)(p/q) */
    cv[0] = q1q - 1.0;
    cv[1] = (q1q - 1.0) * exp(-g->lndet);
    cv[2] = r->sigma2 * pq - g->m_fro2;
    cv[3] = r->s * pq - g->cv[0];
}

/* ---- the law of |det(I - W_K^T W_Q)| over the draws ---- */

const table_col longseq_tail_cols[LONGSEQ_TAIL_NCOLS] = {
    COL(longseq_tail_row, config), COL(longseq_tail_row, eps), COL_MC(longseq_tail_row, p_below, "p_lo", "p_hi"),
    COL_MC(longseq_tail_row, p_lo, "p_lo", "p_hi"), COL_MC(longseq_tail_row, p_hi, "p_lo", "p_hi"),
    COL_MC(longseq_tail_row, trunc_mean, "trunc_lo", "trunc_hi"), COL_MC(longseq_tail_row, trunc_lo, "trunc_lo", "trunc_hi"),
    COL_MC(longseq_tail_row, trunc_hi, "trunc_lo", "trunc_hi")};

static int cmp_dbl(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

measure longseq_tail_trunc(const double *det, size_t n, double eps)
{
    stat_acc tr;
    stat_init(&tr);
    for (size_t i = 0; i < n; i++) if (det[i] > eps) stat_push(&tr, 1.0 / det[i]);
    return verdict_measure_stat(&tr);
}

measure longseq_tail_stats(double *det, size_t n, const double *eps, size_t ne, longseq_tail_row *rows)
{
    for (size_t j = 0; j < ne; j++) {
        stat_acc te;
        size_t below = 0;
        stat_init(&te);
        for (size_t i = 0; i < n; i++) {
            if (det[i] < eps[j]) below++;
            else stat_push(&te, 1.0 / det[i]);
        }
        longseq_tail_row *t = &rows[j];
        *t = (longseq_tail_row){t->config, eps[j], (double)below / (double)n, 0, 0, te.mean, 0, 0};
        stat_ci95_wilson((double)below, (double)n, &t->p_lo, &t->p_hi);
        stat_ci95(&te, &t->trunc_lo, &t->trunc_hi);
    }
    qsort(det, n, sizeof *det, cmp_dbl);
    /* median of 1/|det| = 1 / median |det|; ranks n/2 -+ z sqrt(n)/2 */
    double z = STAT_Z95 * sqrt((double)n) / 2.0;
    double lo = 1.0 / det[(size_t)fmin((double)n - 1, n / 2.0 + z)], hi = 1.0 / det[(size_t)fmax(0.0, n / 2.0 - z)];
    return verdict_measure_ci(1.0 / det[n / 2], lo, hi, n);
}

measure longseq_tail_density(const double *dens, size_t stride, size_t n, double *top)
{
    stat_acc a;
    stat_init(&a);
    for (size_t i = 0; i < n; i++) stat_push(&a, dens[i * stride]);
    measure m = verdict_measure_stat(&a);
    if (m.ci_low < 0.0) m.ci_low = 0.0;
    double sum = a.mean * (double)a.n;
    *top = sum > 0.0 ? a.max / sum : NAN;
    return m;
}
