/* curve.c - a curve's fit on control variates and its crossing of a level (see curve.h). */
#include "curve.h"
#include "status.h"
#include "statistics.h"

#include <math.h>
#include <stdlib.h>
#include <gsl/gsl_linalg.h>

enum { PMAX = 16 };

int curve_fit(const double *Y, size_t n, size_t m, const double *X, size_t p, double *yhat,
              double *V)
{
    return curve_fit_strided(Y, m, n, m, X, p, p, yhat, V);
}

int curve_fit_strided(const double *Y, size_t ldy, size_t n, size_t m, const double *X,
                      size_t ldx, size_t p, double *yhat, double *V)
{
    if (p > PMAX || n <= p + 1 || m == 0)
        return att_fail(ATT_EUSAGE, "curve: n = %zu, p = %zu", n, p);
    size_t q = p + 1;
    double A[(PMAX + 1) * (PMAX + 1)] = {0};
    /* A = D^T D, D_i = (1, X_i) */
    for (size_t i = 0; i < n; i++) {
        double di[PMAX + 1];
        di[0] = 1.0;
        for (size_t a = 0; a < p; a++) di[a + 1] = X[i * ldx + a];
        for (size_t a = 0; a < q; a++)
            for (size_t b = 0; b < q; b++) A[a * q + b] += di[a] * di[b];
    }
    gsl_matrix_view Av = gsl_matrix_view_array(A, q, q);
    gsl_set_error_handler_off();
    if (gsl_linalg_cholesky_decomp1(&Av.matrix))
        return att_fail(ATT_EUSAGE, "curve: singular design");
    double *B = malloc(q * m * sizeof *B), *E = malloc(n * m * sizeof *E);
    if (!B || !E) {
        free(B);
        free(E);
        return att_fail(ATT_ERUNTIME, "curve: out of memory (n = %zu, m = %zu)", n, m);
    }
    /* b_k = (D^T D)^{-1} D^T Y_k */
    for (size_t k = 0; k < m; k++) {
        double r[PMAX + 1] = {0};
        for (size_t i = 0; i < n; i++) {
            double y = Y[i * ldy + k];
            r[0] += y;
            for (size_t a = 0; a < p; a++) r[a + 1] += X[i * ldx + a] * y;
        }
        gsl_vector_view rv = gsl_vector_view_array(r, q);
        gsl_linalg_cholesky_svx(&Av.matrix, &rv.vector);
        for (size_t a = 0; a < q; a++) B[a * m + k] = r[a];
        yhat[k] = r[0];
    }
    /* [(D^T D)^{-1}]_00: solve A z = e_0 */
    double z[PMAX + 1] = {1.0};
    gsl_vector_view zv = gsl_vector_view_array(z, q);
    gsl_linalg_cholesky_svx(&Av.matrix, &zv.vector);
    double a00 = z[0];
    /* residuals e_ik = Y_ik - b0_k - beta_k . X_i */
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < m; k++) {
            double e = Y[i * ldy + k] - B[k];
            for (size_t a = 0; a < p; a++) e -= B[(a + 1) * m + k] * X[i * ldx + a];
            E[i * m + k] = e;
        }
    for (size_t j = 0; j < m; j++)
        for (size_t k = j; k < m; k++) {
            double s = 0.0;
            for (size_t i = 0; i < n; i++) s += E[i * m + j] * E[i * m + k];
            V[j * m + k] = V[k * m + j] = a00 * s / (double)(n - q);
        }
    free(B);
    free(E);
    return ATT_OK;
}

curve_crossing curve_crossing_between(double l0, double l1, double y0, double y1, double v00,
                                      double v11, double v01, double c)
{
    curve_crossing r = {.status = CROSS_FOUND, .k = 0};
    double h = l1 - l0;
    double D = y1 - y0;
    /* d l_x / d y0, d l_x / d y1 */
    double g0 = h * (c - y1) / (D * D);
    double g1 = -h * (c - y0) / (D * D);
    double v = g0 * g0 * v00 + g1 * g1 * v11 + 2.0 * g0 * g1 * v01;
    r.l = l0 + h * (c - y0) / D;
    r.se = sqrt(v > 0.0 ? v : 0.0);
    r.lo = r.l - STAT_Z95 * r.se;
    r.hi = r.l + STAT_Z95 * r.se;
    return r;
}

curve_crossing curve_last_crossing(const double *l, const double *y, const double *V, size_t m,
                                   double c)
{
    curve_crossing r = {.status = CROSS_FOUND, .l = NAN, .se = NAN, .lo = NAN, .hi = NAN};
    if (m < 2 || y[m - 1] < c) {
        r.status = CROSS_BELOW;
        return r;
    }
    size_t k = m - 1;
    while (k > 0 && y[k - 1] >= c) k--;
    if (k == 0) {
        r.status = CROSS_ABOVE;
        return r;
    }
    k--;   /* y_k < c <= y_{k+1} */
    r = curve_crossing_between(l[k], l[k + 1], y[k], y[k + 1], V[k * m + k],
                               V[(k + 1) * m + k + 1], V[k * m + k + 1], c);
    r.k = k;
    return r;
}
