/* longseq.c - one row's self-weight at any T (see longseq.h). */
#include "longseq.h"
#include "mat.h"
#include "status.h"
#include "statistics.h"
#include "vexp.h"

#include <math.h>
#include <stdlib.h>
#include <gsl/gsl_linalg.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_sf_erf.h>

int longseq_work_alloc(longseq_work *w, size_t d, size_t d_k)
{
    *w = (longseq_work){0};
    if (d == 0 || d_k == 0) return att_fail(ATT_EUSAGE, "longseq: d and d_k must be >= 1");
    w->d = d;
    w->d_k = d_k;
    w->W_Q = mat_new(d, d_k);
    w->W_K = mat_new(d, d_k);
    w->W_Kt = mat_new(d_k, d);
    w->G = mat_new(d_k, d_k);
    w->QQ = mat_new(d_k, d_k);
    w->KK = mat_new(d_k, d_k);
    w->perm =
        w->G ? gsl_permutation_alloc(d_k) : NULL; /* uncounted, but smaller than G (counted) */
    w->x = mat_vec_new(d);
    w->y = mat_vec_new(d);
    w->v = mat_vec_new(d);
    w->q = mat_vec_new(d_k);
    w->k = mat_vec_new(d_k);
    w->u = mat_vec_new(d_k);
    if (!w->W_Q || !w->W_K || !w->W_Kt || !w->G || !w->QQ || !w->KK || !w->perm || !w->x || !w->y ||
        !w->v ||
        !w->q || !w->k || !w->u) {
        int rc = att_alloc_status();      /* a --max-memory refusal stays exit 2, naming it */
        longseq_work_free(w);
        return rc == ATT_EUSAGE
                   ? rc
                   : att_fail(ATT_ERUNTIME, "longseq: out of memory (d = %zu, d_k = %zu)", d, d_k);
    }
    return ATT_OK;
}

void longseq_work_free(longseq_work *w)
{
    mat_free(w->W_Q);
    mat_free(w->W_K);
    mat_free(w->W_Kt);
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

/* out (d_k) = W^T a and out2 (d_k) = W2^T a (out2 NULL: only the first), W, W2 (d, d_k),
 * a (d): out_b = sum_m W_mb a_m, summed over m outermost (the inner loop along a row of W,
 * contiguous, each out_b its own sum: the same bits with or without vector lanes); out, out2
 * contiguous (mat_vec_new) */
static void mul_t2(gsl_vector *out, const gsl_matrix *W, gsl_vector *out2, const gsl_matrix *W2,
                   const gsl_vector *a)
{
    const double *ad = a->data;
    double *o = out->data, *o2 = out2 ? out2->data : NULL;
    size_t ld = W->tda, sa = a->stride, n = W->size2;
    for (size_t b = 0; b < n; b++) o[b] = 0.0;
    if (o2) for (size_t b = 0; b < n; b++) o2[b] = 0.0;
    for (size_t m = 0; m < W->size1; m++) {
        const double *row = W->data + m * ld;
        double am = ad[m * sa];
#pragma omp simd
        for (size_t b = 0; b < n; b++) o[b] += row[b] * am;
        if (!o2) continue;
        const double *row2 = W2->data + m * W2->tda;
#pragma omp simd
        for (size_t b = 0; b < n; b++) o2[b] += row2[b] * am;
    }
}

/* out (d) = W b, from Wt = W^T (d_k, d), b (d_k): out_m = sum_a W_ma b_a, summed over a in
 * order (a outermost, each out_m its own sum, the inner loop along a row of Wt: the same
 * bits as one dot product per m); out contiguous (mat_vec_new) */
static void mul(gsl_vector *out, const gsl_matrix *Wt, const gsl_vector *b)
{
    const double *bd = b->data;
    double *o = out->data;
    size_t ld = Wt->tda, sb = b->stride, n = Wt->size2;
    for (size_t m = 0; m < n; m++) o[m] = 0.0;
    for (size_t a = 0; a < Wt->size1; a++) {
        const double *row = Wt->data + a * ld;
        double ba = bd[a * sb];
#pragma omp simd
        for (size_t m = 0; m < n; m++) o[m] += row[m] * ba;
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

/* s = q_i . k_i, sigma^2 = ||W_K q_i||^2 (d_k, d). Not a head (head_ref.h): one row's own
 * score and the variance of its other scores, which the shortcut (longseq.h) never forms. */
void longseq_scores(longseq_work *w, longseq_query *r)
{
    mul_t2(w->q, w->W_Q, w->k, w->W_K, w->x);   /* q = W_Q^T x, k = W_K^T x */
    mul(w->v, w->W_Kt, w->q);                   /* v = W_K q: s_ij = v . x_j */
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
        mul(w->v, w->W_Kt, w->u);                  /* v = W_K r_a */
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
    gsl_matrix_transpose_memcpy(w->W_Kt, w->W_K);
    for (size_t m = 0; m < w->d; m++) {
        const double *K = w->W_K->data + m * ld, *Q = w->W_Q->data + m * ld;
        for (size_t a = 0; a < n; a++) {
            double ka = K[a], qa = Q[a];
#pragma omp simd
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
        mul_t2(w->u, w->W_Q, NULL, NULL, w->y);
        gsl_linalg_LU_svx(w->G, w->perm, w->u);
        mul(w->v, w->W_Kt, w->u);
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

/* ---- E[T a_ii | s_ii, sigma_i] by quadrature ---- */

static const double SQRT_2PI = 2.5066282746310002;

/* log Phi(x), the standard normal CDF, accurate far into the lower tail:
 * Phi(x) = erfc(-x / sqrt 2) / 2 */
static double log_Phi(double x)
{
    return gsl_sf_log_erfc(-x / M_SQRT2) - M_LN2;
}

/* z* maximising -e^{tau + sigma z} - z^2/2: the root of z + sigma e^{tau + sigma z} = 0
 * (increasing in z, positive at z = 0), by bisection */
static double saddle(double sigma, double tau)
{
    double lo = -1.0, hi = 0.0;
    while (lo + sigma * exp(tau + sigma * lo) > 0.0) lo *= 2.0;
    for (int it = 0; it < 200 && hi - lo > 1e-12 * (1.0 + fabs(lo)); it++) {
        double mid = 0.5 * (lo + hi);
        if (mid + sigma * exp(tau + sigma * mid) > 0.0) hi = mid; else lo = mid;
    }
    return 0.5 * (lo + hi);
}

double longseq_cond_psi_direct(double sigma, double tau)
{
    sigma = fabs(sigma);
    if (sigma == 0.0) return exp(tau);   /* Y = 1: phi(t) = e^{-t} */
    double s2 = sigma * sigma;
    /* log(t k2 / k1) = tau + 3 sigma^2/2 + log(1 - e^{-sigma^2}) */
    double lr = tau + 1.5 * s2 + log(-expm1(-s2));
    if (lr < -10.0) return exp(tau + 0.5 * s2) * (1.0 - 0.5 * exp(lr));   /* t k1 - t^2 k2 / 2 */
    double hz = fmin(0.2, 0.4 / sigma), one_minus_phi;
    if (sigma <= 2.0) {
        /* trapezoid in z: step 0.4 / sigma (at most 0.2), error ~ exp(-pi^2 / (sigma hz)):
         * 1 - phi = int F(tau + sigma z) N(z) dz on [-12, sigma + 12] */
        double acc = 0.0;
        long n = (long)ceil((24.0 + sigma) / hz);
        for (long i = 0; i <= n; i++) {
            double z = -12.0 + i * hz;
            acc += -expm1(-exp(tau + sigma * z)) * exp(-0.5 * z * z);
        }
        one_minus_phi = acc * hz / SQRT_2PI;
    } else {
        /* wide Gaussians: in w = tau + sigma z the step is F's own (0.4, error e^{-pi^2/0.4}),
         * whatever sigma: 1 - phi = int F(w) N((w - tau)/sigma) dw / sigma, trapezoid on
         * [-40, 40]; below, F(w) = e^w (to e^{-40}):  e^{tau + sigma^2/2} Phi((-40 - tau -
         * sigma^2)/sigma); above, F = 1:  Phi(-(40 - tau)/sigma) */
        const double hw = 0.4, W = 40.0;
        double acc = 0.0;
        for (long i = 0; i <= (long)(2.0 * W / hw + 0.5); i++) {
            double wv = -W + i * hw, u = (wv - tau) / sigma;
            acc += (i == 0 || wv >= W - 1e-9 ? 0.5 : 1.0) * -expm1(-exp(wv)) * exp(-0.5 * u * u);
        }
        double lo = exp(tau + 0.5 * s2 + log_Phi((-W - tau - s2) / sigma));
        one_minus_phi = acc * hw / (sigma * SQRT_2PI) + lo + exp(log_Phi(-(W - tau) / sigma));
    }
    if (one_minus_phi < 0.5) return -log1p(-one_minus_phi);
    /* log phi = log int exp(-e^{tau + sigma z} - z^2/2) dz / sqrt(2 pi): log-concave,
     * centred at the saddle z*, where the curvature is c = 1 + sigma^2 e^{tau + sigma z*}
     * = 1 + sigma |z*| (larger to the right, at least 1 to the left): step 0.25 / sqrt(c)
     * on [z* - 12, z* + 12] */
    double z0 = saddle(sigma, tau), m = -exp(tau + sigma * z0) - 0.5 * z0 * z0;
    double hs = fmin(hz, 0.25 / sqrt(1.0 + sigma * fabs(z0)));
    double acc = 0.0;
    long n = (long)ceil(24.0 / hs);
    for (long i = 0; i <= n; i++) {
        double z = z0 - 12.0 + i * hs;
        acc += exp(-exp(tau + sigma * z) - 0.5 * z * z - m);
    }
    hz = hs;
    return -(m + log(acc * hz / SQRT_2PI));
}

int longseq_cond_table_build(longseq_cond_table *t)
{
    *t = (longseq_cond_table){.dsig = 0.1, .dtau = 0.1, .sig_max = 8.0, .tau_min = -106.0,
                              .tau_max = 60.0};
    t->ns = (size_t)lround(t->sig_max / t->dsig) + 1;
    t->nt = (size_t)lround((t->tau_max - t->tau_min) / t->dtau) + 1;
    t->f = malloc(t->ns * t->nt * sizeof *t->f);
    if (!t->f) {
        *t = (longseq_cond_table){0};
        return att_fail(ATT_ERUNTIME, "longseq: out of memory for the psi table");
    }
    /* every entry on its own: the same table for any thread count */
#pragma omp parallel for schedule(dynamic, 1)
    for (size_t j = 0; j < t->ns; j++)
        for (size_t i = 0; i < t->nt; i++) {
            double sg = (double)j * t->dsig, tau = t->tau_min + (double)i * t->dtau;
            t->f[j * t->nt + i] = log(longseq_cond_psi_direct(sg, tau)) - tau;
        }
    return ATT_OK;
}

void longseq_cond_table_free(longseq_cond_table *t)
{
    free(t->f);
    *t = (longseq_cond_table){0};
}

/* Lagrange weights on nodes -1, 0, 1, 2 at u in [0, 1) */
static void lagrange4(double u, double w[4])
{
    w[0] = -u * (u - 1.0) * (u - 2.0) / 6.0;
    w[1] = (u + 1.0) * (u - 1.0) * (u - 2.0) / 2.0;
    w[2] = -(u + 1.0) * u * (u - 2.0) / 2.0;
    w[3] = (u + 1.0) * u * (u - 1.0) / 6.0;
}

/* the table's reading at one sigma (>= 0), for any tau: the Lagrange weights ws and the
 * first row js - 1 along sigma, once per sigma; ok = 0 where sigma is off the table */
typedef struct {
    const longseq_cond_table *t;
    double sigma, ws[4];
    long js;
    int ok;
} psi_at_sigma;

static psi_at_sigma psi_sigma_of(const longseq_cond_table *t, double sigma)
{
    psi_at_sigma p = {.t = t, .sigma = sigma};
    p.ok = t && t->f && !(sigma > t->sig_max - 2.0 * t->dsig) && !(sigma < 0.5);
    if (!p.ok) return p;
    double xs = sigma / t->dsig;
    p.js = (long)floor(xs);
    lagrange4(xs - (double)p.js, p.ws);
    return p;
}

/* log psi_sigma(tau) = f + tau from the table into *lp (p from psi_sigma_of): 1, or 0 off
 * the table (then psi is computed directly) */
static int table_lnpsi(const psi_at_sigma *p, double tau, double *lp)
{
    const longseq_cond_table *t = p->t;
    double sigma = p->sigma;
    if (!p->ok || tau < t->tau_min + t->dtau || tau > t->tau_max - 2.0 * t->dtau
        /* small sigma: f changes on the scale of sigma itself once sigma^2 e^tau nears 1
         * (the Gaussian's tail takes over), which the table cannot follow; computed
         * directly (cheap there: about 120 nodes) */
        || (sigma < 1.0 && tau > -2.0 * log(sigma) - 4.0))
        return 0;
    double xt = (tau - t->tau_min) / t->dtau;
    long it = (long)floor(xt);
    double wt[4];
    lagrange4(xt - (double)it, wt);
    double f = 0.0;
    for (int a = 0; a < 4; a++) {
        long j = labs(p->js - 1 + a);   /* psi_{-sigma} = psi_sigma: row -1 is row 1 */
        const double *row = t->f + (size_t)j * t->nt + (it - 1);
        f += p->ws[a] * (wt[0] * row[0] + wt[1] * row[1] + wt[2] * row[2] + wt[3] * row[3]);
    }
    *lp = f + tau;
    return 1;
}

double longseq_cond_psi(const longseq_cond_table *t, double sigma, double tau)
{
    double lp;
    sigma = fabs(sigma);
    psi_at_sigma p = psi_sigma_of(t, sigma);
    return table_lnpsi(&p, tau, &lp) ? exp(lp) : longseq_cond_psi_direct(sigma, tau);
}

/* Shapes: Ts (n) the sequence lengths, out (n). The claim's number, one row at any T (a
 * conditional expectation by quadrature, not a head: no score beyond s_ii is formed):
 *   g_T(s, sigma) = E[T a_ii | s_ii = s, sigma_i = sigma] = T E[e^s / (e^s + sum_{j<T} e^{sigma
 * z_j})] = T int_R exp(v - e^v - (T - 1) psi_sigma(v - s)) dv      (derived in longseq.h) with
 * sigma = ||W_K q_i|| (the other scores s_ij = q_i . k_j are N(0, sigma^2) given W and x_i); out[k]
 * = g_{Ts[k]}(s, sigma) by the trapezoid rule with step h on [v_lo, 4] plus the tail below. */
void longseq_cond_self(const longseq_cond_table *t, double s, double sigma, const double *Ts,
                       size_t n, double h, double *out)
{
    if (n == 0) return;
    const double v_hi = 4.0;
    double tmax = Ts[n - 1];
    /* below v_lo, (T - 1) psi(v - s) <= (T - 1) e^{v - s + sigma^2/2} <= e^{-22} */
    double v_lo = tmax > 1.0 ? s - log(tmax - 1.0) - 0.5 * sigma * sigma - 22.0 : v_hi;
    if (v_lo > v_hi) v_lo = v_hi;
    double tail = -expm1(-exp(v_lo));   /* int_{-inf}^{v_lo} e^{v - e^v} dv */
    size_t nv = (size_t)ceil((v_hi - v_lo) / h);
    size_t nk = n < LONGSEQ_COND_MAXT ? n : LONGSEQ_COND_MAXT;
    double sum[LONGSEQ_COND_MAXT] = {0};
    /* how F_k = e^{-(T_k - 1) psi} follows from F_{k-1}, per length, once per call:
     * F_k = F_{k-1}^2 e^{-psi} for a doubled length (T_k = 2 T_{k-1} gives T_k - 1 =
     * 2 (T_{k-1} - 1) + 1: one multiply, not one exp; relative rounding about 2^k DBL_EPSILON
     * after k doublings), e^{-psi} itself at T_k = 2, else its own exp */
    enum { F_SQUARE, F_EMP, F_EXP };
    unsigned char how[LONGSEQ_COND_MAXT];
    for (size_t k = 0; k < nk; k++)
        how[k] = k > 0 && Ts[k] == 2.0 * Ts[k - 1] ? F_SQUARE : Ts[k] == 2.0 ? F_EMP : F_EXP;
    /* e^v along the grid by one multiply per node: e^{v + h} = e^v e^h (relative rounding
     * about i DBL_EPSILON after i nodes, i <= a few hundred). In chunks of NODES nodes: first
     * each node's e^v, the trapezoid weight (0 for a node whose e^{v - e^v} underflows) and
     * psi (on the table: its log lp, psi = e^{lp - lmax} e^{lmax} with lmax the chunk's
     * largest lp), then e^{-e^v}, the table's e^{lp - lmax} and e^{-psi} for the whole chunk
     * by vexp_shifted (vectorised, within 2 ulp of exp), then the sums in node order */
    enum { NODES = 64 };
    double ev = exp(v_lo), eh = exp(h), asig = fabs(sigma);
    psi_at_sigma ps = psi_sigma_of(t, asig);   /* the table's reading at this sigma */
    for (size_t i0 = 0; i0 <= nv; i0 += NODES) {
        size_t m = nv + 1 - i0 < NODES ? nv + 1 - i0 : NODES, nt = 0;
        double evs[NODES], ws[NODES], psis[NODES], e1[NODES], emps[NODES], lps[NODES];
        size_t at[NODES];   /* the nodes whose psi comes from the table, lps[0 .. nt-1] theirs */
        double lmax = -INFINITY;
        for (size_t j = 0; j < m; j++, ev *= eh) {
            size_t i = i0 + j;
            double v = v_lo + (double)i * h;
            if (ev < 1e-300) ev = exp(v);   /* the recurrence cannot climb out of underflow */
            double base = v - ev;
            ws[j] = base < -745.0 ? 0.0 : (i == 0 || i == nv) ? 0.5 : 1.0;
            psis[j] = 0.0;
            if (ws[j] > 0.0 && table_lnpsi(&ps, v - s, &lps[nt])) {
                lmax = fmax(lmax, lps[nt]);
                at[nt++] = j;
            } else if (ws[j] > 0.0) {
                psis[j] = longseq_cond_psi_direct(asig, v - s);
            }
            evs[j] = ev;
            e1[j] = -ev;
        }
        if (nt > 0) {
            double el = exp(lmax);
            vexp_shifted(lps, lps, nt, lmax);   /* e^{lp - lmax} */
            for (size_t c = 0; c < nt; c++) psis[at[c]] = lps[c] * el;
        }
        for (size_t j = 0; j < m; j++) emps[j] = -psis[j];
        vexp_shifted(e1, e1, m, 0.0);       /* e^{-e^v} */
        vexp_shifted(emps, emps, m, 0.0);   /* e^{-psi} (psi >= 0) */
        for (size_t j = 0; j < m; j++) {
            if (ws[j] == 0.0) continue;
            double web = ws[j] * (evs[j] * e1[j]);   /* the trapezoid's weight times e^{v - e^v} */
            double emp = emps[j], psi = psis[j], F = 0.0;
            for (size_t k = 0; k < nk; k++) {
                if (how[k] == F_SQUARE) F = F * F * emp;
                else if (how[k] == F_EMP) F = emp;
                else F = exp(-(Ts[k] - 1.0) * psi);
                if (F < 1e-290) break;   /* the longer T only smaller: psi >= 0 */
                sum[k] += web * F;
            }
        }
    }
    /* g_T = T int exp(v - e^v - (T - 1) psi(v - s)) dv */
    for (size_t k = 0; k < nk; k++) out[k] = Ts[k] * (sum[k] * h + tail);
}

/* ---- the law of |det(I - W_K^T W_Q)| over the draws ---- */

#define P(f) COL_MC(longseq_tail_row, f, "p_lo", "p_hi")
#define M(f) COL_MC(longseq_tail_row, f, "trunc_lo", "trunc_hi")
const table_col longseq_tail_cols[LONGSEQ_TAIL_NCOLS] = {
    COL(longseq_tail_row, config), COL(longseq_tail_row, eps), P(p_below), P(p_lo), P(p_hi),
    M(trunc_mean), M(trunc_lo), M(trunc_hi)};
#undef M
#undef P

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

measure longseq_tail_stats(double *det, size_t n, const double *eps, size_t ne,
                           longseq_tail_row *rows)
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
    double lo = 1.0 / det[(size_t)fmin((double)n - 1, n / 2.0 + z)],
           hi = 1.0 / det[(size_t)fmax(0.0, n / 2.0 - z)];
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
