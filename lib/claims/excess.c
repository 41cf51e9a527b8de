/* excess.c - the excess over 1/T and its control variate (see excess.h). */
#include "excess.h"
#include "randn.h"
#include "vexp.h"
#include "status.h"
#include "curve.h"
#include "mem.h"

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
    static _Thread_local double X[RPX_MAX_T][RPX_MAX_D], Xc[RPX_MAX_T][RPX_MAX_D];
    double WQ[RPX_MAX_D][RPX_MAX_DK], WK[RPX_MAX_D][RPX_MAX_DK];
    double Q[RPX_MAX_T][RPX_MAX_DK], K[RPX_MAX_T][RPX_MAX_DK], Kc[RPX_MAX_T][RPX_MAX_DK];
    double sw = c / sqrt((double)d);
    /* entries N(0, 1) in row order (randn.h: GSL's ziggurat values); W = sw N(0, 1) */
    for (size_t j = 0; j < T; j++) randn_fill(rng, X[j], d, 1.0);
    for (size_t j = 0; j < T; j++) randn_fill(rng, Xc[j], d, 1.0);
    for (size_t m = 0; m < d; m++) randn_fill(rng, WQ[m], d_k, 1.0);
    for (size_t m = 0; m < d; m++) for (size_t a = 0; a < d_k; a++) WQ[m][a] = sw * WQ[m][a];
    for (size_t m = 0; m < d; m++) randn_fill(rng, WK[m], d_k, 1.0);
    for (size_t m = 0; m < d; m++) for (size_t a = 0; a < d_k; a++) WK[m][a] = sw * WK[m][a];
    /* Q = X W_Q, K = X W_K, K' = X' W_K. Not head_ref_forward (head_ref.h): a different
     * computation, only the diagonal a_ii of each row (no values, no O), for the row, its
     * -W_K twin and the control row with k_i swapped for k'_i, on stack arrays; and its
     * weights take vexp's exponential, not libm's exp (the committed bits depend on it). */
    for (size_t j = 0; j < T; j++)
        for (size_t a = 0; a < d_k; a++) {
            double q = 0.0, k = 0.0, kc = 0.0;
            for (size_t m = 0; m < d; m++) {
                q += X[j][m] * WQ[m][a];
                k += X[j][m] * WK[m][a];
                kc += Xc[j][m] * WK[m][a];
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
    double law = excess_law(T, d, d_k, c), V = NAN;
    double *Y = mem_calloc(n, sizeof *Y, "excess draws");
    double *X = mem_calloc(n, sizeof *X, "excess controls");
    int st = Y && X ? ATT_OK : att_alloc_status();
    for (size_t k = 0; k < n && !st; k++) {
        double o[RPX_NOUT];
        excess_draw(rng, T, d, d_k, c, o);
        Y[k] = o[RPX_ANTI] + plant;   // Y_anti (+ the test's planted bias)
        X[k] = o[RPX_Q2] - law;       // Q2 - law: mean 0
    }
    /* yhat = mean(Y) - beta (mean(X)), beta fitted: the intercept */
    if (!st) st = curve_fit(Y, n, 1, X, 1, est, &V);
    *se = sqrt(V);
    mem_free(Y, n, sizeof *Y);
    mem_free(X, n, sizeof *X);
    return st;
}
