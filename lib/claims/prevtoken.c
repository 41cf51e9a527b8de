/* prevtoken.c - the previous-token head built by hand (formulas in prevtoken.h). */
#include "prevtoken.h"
#include "status.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int check_shape(const gsl_matrix *M, size_t rows, size_t cols, const char *name)
{
    if (M == NULL || M->size1 != rows || M->size2 != cols)
        return att_fail(ATT_EUSAGE, "%s must be (%zu x %zu), got (%zu x %zu)", name, rows, cols,
                        M ? M->size1 : 0, M ? M->size2 : 0);
    return ATT_OK;
}

/* c = ln(w (T - 1) / (1 - w)) gives e^c / (e^c + T - 1) = w */
double prevtoken_circuit_factor(size_t T, double w)
{
    if (T < 2 || !(w > 0.0 && w < 1.0)) return NAN;
    return log(w * (double)(T - 1) / (1.0 - w));
}

/* W_Q, W_K (n_vocab + T, T), W_V (n_vocab + T, n_vocab). Rows 0 .. n_vocab-1
 * of every weight read the token one-hot, rows n_vocab .. n_vocab+T-1 the
 * position one-hot. */
int prevtoken_circuit_build(gsl_matrix *W_Q, gsl_matrix *W_K, gsl_matrix *W_V,
                            size_t n_vocab, size_t T, double c)
{
    if (n_vocab < 1 || T < 2)
        return att_fail(ATT_EUSAGE, "previous-token head: needs n_vocab >= 1 and T >= 2 "
                        "(got n_vocab = %zu, T = %zu)", n_vocab, T);
    if (!isfinite(c))
        return att_fail(ATT_EUSAGE, "previous-token head: the query factor %g must be finite", c);
    size_t d = n_vocab + T;
    int rc;
    if ((rc = check_shape(W_Q, d, T, "previous-token W_Q"))
        || (rc = check_shape(W_K, d, T, "previous-token W_K"))
        || (rc = check_shape(W_V, d, n_vocab, "previous-token W_V")))
        return rc;
    gsl_matrix_set_zero(W_Q);
    gsl_matrix_set_zero(W_K);
    gsl_matrix_set_zero(W_V);
    for (size_t t = 0; t < T; t++) {
        // key reads the position: k_t = e_t
        gsl_matrix_set(W_K, n_vocab + t, t, 1.0);
        // query of position t >= 1 asks for position t - 1: q_t = c e_{t-1}
        if (t >= 1) gsl_matrix_set(W_Q, n_vocab + t, t - 1, c);
    }
    // value reads the token: v_j = e_{token_j}
    for (size_t v = 0; v < n_vocab; v++) gsl_matrix_set(W_V, v, v, 1.0);
    return ATT_OK;
}

/* X (T, n_vocab + T): row t = [e_{tokens[t]} ; e_t] */
int prevtoken_circuit_inputs(gsl_matrix *X, const size_t *tokens,
                             size_t n_vocab, size_t T)
{
    int rc = check_shape(X, T, n_vocab + T, "previous-token X");
    if (rc) return rc;
    gsl_matrix_set_zero(X);
    for (size_t t = 0; t < T; t++) {
        if (tokens[t] >= n_vocab)
            return att_fail(ATT_EUSAGE, "previous-token X: token %zu at position %zu is not "
                            "below n_vocab = %zu", tokens[t], t, n_vocab);
        gsl_matrix_set(X, t, tokens[t], 1.0);
        gsl_matrix_set(X, t, n_vocab + t, 1.0);
    }
    return ATT_OK;
}
