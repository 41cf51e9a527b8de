/* lscond.c - E[T a_ii | s_ii, sigma_i] by quadrature (see lscond.h). */
#include "lscond.h"
#include "att.h"

#include <math.h>
#include <stdlib.h>
#include <gsl/gsl_sf_erf.h>

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

double lscond_psi_direct(double sigma, double tau)
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
         * [-40, 40]; below, F(w) = e^w (to e^{-40}):  e^{tau + sigma^2/2} Phi((-40 - tau - sigma^2)/sigma);
         * above, F = 1:  Phi(-(40 - tau)/sigma) */
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

int lscond_table_build(lscond_table *t)
{
    *t = (lscond_table){.dsig = 0.1, .dtau = 0.1, .sig_max = 8.0, .tau_min = -106.0, .tau_max = 60.0};
    t->ns = (size_t)lround(t->sig_max / t->dsig) + 1;
    t->nt = (size_t)lround((t->tau_max - t->tau_min) / t->dtau) + 1;
    t->f = malloc(t->ns * t->nt * sizeof *t->f);
    if (!t->f) {
        *t = (lscond_table){0};
        return att_fail(ATT_ERUNTIME, "lscond: out of memory for the psi table");
    }
    /* every entry on its own: the same table for any thread count */
#pragma omp parallel for schedule(dynamic, 1)
    for (size_t j = 0; j < t->ns; j++)
        for (size_t i = 0; i < t->nt; i++) {
            double sg = (double)j * t->dsig, tau = t->tau_min + (double)i * t->dtau;
            t->f[j * t->nt + i] = log(lscond_psi_direct(sg, tau)) - tau;
        }
    return ATT_OK;
}

void lscond_table_free(lscond_table *t)
{
    free(t->f);
    *t = (lscond_table){0};
}

/* Lagrange weights on nodes -1, 0, 1, 2 at u in [0, 1) */
static void lagrange4(double u, double w[4])
{
    w[0] = -u * (u - 1.0) * (u - 2.0) / 6.0;
    w[1] = (u + 1.0) * (u - 1.0) * (u - 2.0) / 2.0;
    w[2] = -(u + 1.0) * u * (u - 2.0) / 2.0;
    w[3] = (u + 1.0) * u * (u - 1.0) / 6.0;
}

double lscond_psi(const lscond_table *t, double sigma, double tau)
{
    sigma = fabs(sigma);
    if (!t || !t->f || sigma > t->sig_max - 2.0 * t->dsig || tau < t->tau_min + t->dtau
        || tau > t->tau_max - 2.0 * t->dtau
        /* small sigma: f changes on the scale of sigma itself once sigma^2 e^tau nears 1
         * (the Gaussian's tail takes over), which the table cannot follow; computed
         * directly (cheap there: about 120 nodes) */
        || sigma < 0.5 || (sigma < 1.0 && tau > -2.0 * log(sigma) - 4.0))
        return lscond_psi_direct(sigma, tau);
    double xs = sigma / t->dsig, xt = (tau - t->tau_min) / t->dtau;
    long js = (long)floor(xs), it = (long)floor(xt);
    double ws[4], wt[4];
    lagrange4(xs - (double)js, ws);
    lagrange4(xt - (double)it, wt);
    double f = 0.0;
    for (int a = 0; a < 4; a++) {
        long j = labs(js - 1 + a);   /* psi_{-sigma} = psi_sigma: row -1 is row 1 */
        const double *row = t->f + (size_t)j * t->nt + (it - 1);
        f += ws[a] * (wt[0] * row[0] + wt[1] * row[1] + wt[2] * row[2] + wt[3] * row[3]);
    }
    return exp(f + tau);
}

void lscond_self(const lscond_table *t, double s, double sigma, const double *Ts, size_t n,
                 double h, double *out)
{
    if (n == 0) return;
    const double v_hi = 4.0;
    double tmax = Ts[n - 1];
    /* below v_lo, (T - 1) psi(v - s) <= (T - 1) e^{v - s + sigma^2/2} <= e^{-22} */
    double v_lo = tmax > 1.0 ? s - log(tmax - 1.0) - 0.5 * sigma * sigma - 22.0 : v_hi;
    if (v_lo > v_hi) v_lo = v_hi;
    double tail = -expm1(-exp(v_lo));   /* int_{-inf}^{v_lo} e^{v - e^v} dv */
    size_t nv = (size_t)ceil((v_hi - v_lo) / h);
    double sum[LSCOND_MAXT] = {0};
    /* e^v along the grid by one multiply per node: e^{v + h} = e^v e^h (relative rounding
     * about i DBL_EPSILON after i nodes, i <= a few hundred) */
    double ev = exp(v_lo), eh = exp(h);
    for (size_t i = 0; i <= nv; i++, ev *= eh) {
        double v = v_lo + (double)i * h;
        if (ev < 1e-300) ev = exp(v);   /* the recurrence cannot climb out of underflow */
        double base = v - ev, w = (i == 0 || i == nv) ? 0.5 : 1.0;
        if (base < -745.0) continue;
        double psi = lscond_psi(t, sigma, v - s), eb = ev * exp(-ev), emp = exp(-psi), F = 0.0;
        for (size_t k = 0; k < n && k < LSCOND_MAXT; k++) {
            /* F_k = e^{-(T_k - 1) psi}; a doubled length by squaring (one multiply, not one
             * exp): T_k = 2 T_{k-1} gives T_k - 1 = 2 (T_{k-1} - 1) + 1, so F_k = F_{k-1}^2 e^{-psi}
             * (relative rounding about 2^k DBL_EPSILON after k doublings) */
            if (k > 0 && Ts[k] == 2.0 * Ts[k - 1]) F = F * F * emp;
            else if (Ts[k] == 2.0) F = emp;
            else F = exp(-(Ts[k] - 1.0) * psi);
            if (F < 1e-290) break;   /* the longer T only smaller: psi >= 0 */
            sum[k] += w * eb * F;
        }
    }
    /* g_T = T int exp(v - e^v - (T - 1) psi(v - s)) dv */
    for (size_t k = 0; k < n && k < LSCOND_MAXT; k++) out[k] = Ts[k] * (sum[k] * h + tail);
}
