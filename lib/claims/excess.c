/* excess.c - the excess over 1/T and its control variate (see excess.h). */
#include "excess.h"
#include "randn.h"
#include "vexp.h"
#include "status.h"
#include "curve.h"
#include "mem.h"
#include "selfweight.h"

#include <math.h>
#include <gsl/gsl_randist.h>

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
