/* tiedhead.c - the exact tied previous-token head (see tiedhead.h). */
#include "tiedhead.h"
#include "status.h"

#include <math.h>

/* lambda_min(V) = (1/2) ln((2 + b/2) / (b/2)), b = min(1/16, (7/8) / (4^{V-1} - 1)) (tiedhead.h) */
double tiedhead_min_scale(size_t n_vocab)
{
    if (n_vocab < 2 || n_vocab > TIEDHEAD_MAX_VOCAB) return NAN;
    double b = fmin(1.0 / 16.0, 0.875 / (pow(4.0, (double)(n_vocab - 1)) - 1.0)), h = b / 2.0;
    return 0.5 * log((2.0 + h) / h);
}

double tiedhead_scale(size_t n_vocab)
{
    double m = tiedhead_min_scale(n_vocab);
    return isnan(m) ? NAN : fmax(12.0, m);   /* outside the domain: NaN (fmax would drop it) */
}

int tiedhead_exact(prev_model *mdl, double lambda)
{
    const prev_config *c = &mdl->c;
    if (!c->tied || c->dk < 2 || c->n_vocab < 2 || c->n_vocab > TIEDHEAD_MAX_VOCAB)
        return att_fail(ATT_EUSAGE,
                        "tiedhead: needs a tied model with d_k >= 2 and 2 <= n_vocab <= %d (got "
                        "%s, d_k %zu, n_vocab %zu)",
                        TIEDHEAD_MAX_VOCAB, c->tied ? "tied" : "untied", c->dk, c->n_vocab);
    double lmin = tiedhead_min_scale(c->n_vocab);
    if (!(isfinite(lambda) && lambda >= lmin))
        return att_fail(ATT_EUSAGE,
                        "tiedhead: score scale %g below the leak condition's %.4g at n_vocab %zu "
                        "(tiedhead.h; tiedhead_scale gives one that holds)",
                        lambda, lmin, c->n_vocab);
    size_t V = c->n_vocab, T = c->T;
    gsl_matrix *WQ = &mdl->W_Q.matrix, *WK = &mdl->W_K.matrix, *WO = &mdl->W_O.matrix;
    gsl_matrix_set_zero(WQ);
    gsl_matrix_set_zero(WK);
    gsl_matrix_set_zero(WO);
    for (size_t v = 0; v < V; v++) gsl_matrix_set(WK, v, 1, pow(4.0, (double)v));   /* h_v = 4^v */
    for (size_t j = 0; j < T; j++) {
        double sgn = j % 2 ? -1.0 : 1.0;
        gsl_matrix_set(WK, V + j, 0, 3.0 * (double)T + sgn * (double)(j + 1));   /* p_j */
        gsl_matrix_set(WQ, V + j, 0, -sgn * lambda);             /* (-1)^{j-1} lambda */
    }
    for (size_t u = 0; u < V; u++) {
        double cu = pow(4.0, (double)u) * 3.0 / (8.0 * (double)T);
        gsl_matrix_set(WO, 0, u, -cu * cu);
        gsl_matrix_set(WO, 1, u, 2.0 * cu);
    }
    return ATT_OK;
}
