/* rpexcess.c - the excess over 1/T and its control variate (see rpexcess.h). */
#include "rpexcess.h"
#include "randn.h"

#include <math.h>
#include <gsl/gsl_randist.h>

/* a_i of the row s (T): e^{s_i - m} / sum_j e^{s_j - m} */
static double weight(const double *s, size_t T, size_t i)
{
    double m = s[0], z = 0.0;
    for (size_t j = 1; j < T; j++) m = s[j] > m ? s[j] : m;
    for (size_t j = 0; j < T; j++) z += exp(s[j] - m);
    return exp(s[i] - m) / z;
}

void rpexcess_draw(gsl_rng *rng, size_t T, size_t d, size_t d_k, double c, double out[RPX_NOUT])
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
    /* Q = X W_Q, K = X W_K, K' = X' W_K */
    for (size_t j = 0; j < T; j++)
        for (size_t a = 0; a < d_k; a++) {
            double q = 0.0, k = 0.0, kc = 0.0;
            for (size_t m = 0; m < d; m++) {
                q += X[j][m] * WQ[m][a];
                k += X[j][m] * WK[m][a];
                kc += Xc[j][m] * WK[m][a];
            }
            Q[j][a] = q, K[j][a] = k, Kc[j][a] = kc;
        }
    double ex = 0.0, l1 = 0.0, q2 = 0.0, o3 = 0.0, o3b = 0.0, s[RPX_MAX_T];
    for (size_t i = 0; i < T; i++) {
        double sbar = 0.0, own = 0.0;
        for (size_t j = 0; j < T; j++) {
            s[j] = 0.0;
            for (size_t a = 0; a < d_k; a++) s[j] += Q[i][a] * K[j][a];
            sbar += s[j] / (double)T;
        }
        for (size_t a = 0; a < d_k; a++) own += Q[i][a] * Kc[i][a];
        double a_ii = weight(s, T, i), s_ii = s[i];
        double sbar_c = sbar + (own - s_ii) / (double)T;   /* the control row's mean score */
        /* second-order terms: ((s_i - sbar)^2 - (1/T) sum_j (s_j - sbar)^2) / 2, row and control */
        double v = 0.0, vc = 0.0;
        for (size_t j = 0; j < T; j++) v += (s[j] - sbar) * (s[j] - sbar);
        s[i] = own;
        for (size_t j = 0; j < T; j++) vc += (s[j] - sbar_c) * (s[j] - sbar_c);
        q2 += 0.5 * ((s_ii - sbar) * (s_ii - sbar) - v / (double)T) - 0.5 * ((own - sbar_c) * (own - sbar_c) - vc / (double)T);
        /* odd (third-order) terms: mean 0 by W_Q -> -W_Q */
        double e = s_ii - sbar, ec = own - sbar_c;
        o3 += e * e * e - ec * ec * ec;
        o3b += e * v / (double)T - ec * vc / (double)T;
        double a_c = weight(s, T, i);
        /* T (a_ii - a'_ii) and L1 = (s_ii - sbar) - (s'_ii - sbar') */
        ex += (double)T * (a_ii - a_c);
        l1 += (s_ii - sbar) - (own - sbar_c);
    }
    out[0] = ex / (double)T;
    out[1] = l1 / (double)T;
    out[2] = q2 / (double)T;
    out[3] = o3 / (double)T;
    out[4] = o3b / (double)T;
}

double rpexcess_law(size_t T, size_t d, size_t d_k, double c)
{
    return (1.0 - 1.0 / (double)T) * (1.0 - 2.0 / (double)T) * (double)d_k * pow(c, 4) / (double)d;
}
