/* circuits.c - the hand-made heads (worked example, previous-token head) and
 * the helpers of the bias identities. Formulas in circuits.h. */
#include "circuits.h"
#include "mat.h"
#include "status.h"

#include <math.h>
#include <gsl/gsl_blas.h>

const char *const worked_tokens[WORKED_T] = { "the", "cat", "sat" };
const char *const worked_features[WORKED_D] = { "det", "noun", "verb", "animal" };
/* query/key column 0 means "noun" (sat seeks it, cat is one), column 1 "det" */
const char *const worked_qk_columns[WORKED_DK] = { "noun", "det" };
const char *const worked_v_columns[WORKED_DV] = { "animal", "det" };

static int check_shape(const gsl_matrix *M, size_t rows, size_t cols, const char *name)
{
    if (M == NULL || M->size1 != rows || M->size2 != cols)
        return att_fail(ATT_EUSAGE, "%s must be (%zu x %zu), got (%zu x %zu)", name, rows, cols,
                        M ? M->size1 : 0, M ? M->size2 : 0);
    return ATT_OK;
}

/* ---- the worked example ------------------------------------------------- */

/* X (3, 4), W_Q (4, 2), W_K (4, 2), W_V (4, 2); feature rows det, noun,
 * verb, animal. */
int circuit_worked_build(gsl_matrix *X, gsl_matrix *W_Q, gsl_matrix *W_K,
                         gsl_matrix *W_V, double c)
{
    int rc;
    if ((rc = check_shape(X, WORKED_T, WORKED_D, "worked example X"))
        || (rc = check_shape(W_Q, WORKED_D, WORKED_DK, "worked example W_Q"))
        || (rc = check_shape(W_K, WORKED_D, WORKED_DK, "worked example W_K"))
        || (rc = check_shape(W_V, WORKED_D, WORKED_DV, "worked example W_V")))
        return rc;
    if (!isfinite(c))
        return att_fail(ATT_EUSAGE, "worked example: the query factor %g must be finite", c);
    enum { DET, NOUN, VERB, ANIMAL };
    gsl_matrix_set_zero(X);
    gsl_matrix_set_zero(W_Q);
    gsl_matrix_set_zero(W_K);
    gsl_matrix_set_zero(W_V);
    // the = determiner; cat = noun + animal; sat = verb
    gsl_matrix_set(X, WORKED_THE, DET, 1.0);
    gsl_matrix_set(X, WORKED_CAT, NOUN, 1.0);
    gsl_matrix_set(X, WORKED_CAT, ANIMAL, 1.0);
    gsl_matrix_set(X, WORKED_SAT, VERB, 1.0);
    // queries: a verb seeks a noun (c, 0), a noun seeks a determiner (0, c)
    gsl_matrix_set(W_Q, VERB, 0, c);
    gsl_matrix_set(W_Q, NOUN, 1, c);
    // keys: a noun says (1, 0), a determiner says (0, 1)
    gsl_matrix_set(W_K, NOUN, 0, 1.0);
    gsl_matrix_set(W_K, DET, 1, 1.0);
    // values report (is an animal, is a determiner)
    gsl_matrix_set(W_V, ANIMAL, 0, 1.0);
    gsl_matrix_set(W_V, DET, 1, 1.0);
    return ATT_OK;
}

/* w = e^c / (e^c + 2), o = 1 / (e^c + 2); for c >= 0 divide through by e^c
 * (w = 1 / (1 + 2 e^-c), o = e^-c / (1 + 2 e^-c)) so nothing overflows. */
void circuit_worked_weights(double c, double *winner, double *other)
{
    if (c >= 0.0) {
        double t = exp(-c);
        *winner = 1.0 / (1.0 + 2.0 * t);
        *other = t / (1.0 + 2.0 * t);
    } else {
        double e = exp(c);
        *winner = e / (e + 2.0);
        *other = 1.0 / (e + 2.0);
    }
}

/* A (3, 3), O (3, 2) in closed form (circuits.h). */
int circuit_worked_closed(gsl_matrix *A, gsl_matrix *O, double c)
{
    int rc;
    if ((rc = check_shape(A, WORKED_T, WORKED_T, "worked example A"))
        || (rc = check_shape(O, WORKED_T, WORKED_DV, "worked example O")))
        return rc;
    double w, o;
    circuit_worked_weights(c, &w, &o);
    const double third = 1.0 / 3.0;
    const double a[WORKED_T][WORKED_T] = {
        { third, third, third },    /* the: zero query, all scores 0 */
        { w, o, o },                /* cat: seeks a determiner, finds "the" */
        { o, w, o },                /* sat: seeks a noun, finds "cat" */
    };
    /* o_i = sum_j a_ij v_j with v_the = (0,1), v_cat = (1,0), v_sat = (0,0) */
    const double out[WORKED_T][WORKED_DV] = { { third, third }, { o, w }, { w, o } };
    for (size_t i = 0; i < WORKED_T; i++) {
        for (size_t j = 0; j < WORKED_T; j++) gsl_matrix_set(A, i, j, a[i][j]);
        for (size_t j = 0; j < WORKED_DV; j++) gsl_matrix_set(O, i, j, out[i][j]);
    }
    return ATT_OK;
}

/* ---- the previous-token head ---------------------------------------------- */

/* c = ln(w (T - 1) / (1 - w)) gives e^c / (e^c + T - 1) = w */
double circuit_prev_token_factor(size_t T, double w)
{
    if (T < 2 || !(w > 0.0 && w < 1.0)) return NAN;
    return log(w * (double)(T - 1) / (1.0 - w));
}

/* W_Q, W_K (n_vocab + T, T), W_V (n_vocab + T, n_vocab). Rows 0 .. n_vocab-1
 * of every weight read the token one-hot, rows n_vocab .. n_vocab+T-1 the
 * position one-hot. */
int circuit_prev_token_build(gsl_matrix *W_Q, gsl_matrix *W_K, gsl_matrix *W_V,
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
int circuit_prev_token_inputs(gsl_matrix *X, const size_t *tokens,
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

/* ---- biases --------------------------------------------------------------- */

/* b_out (d) = b_O (d) + W_O^T (d_v x d)^T b_V (d_v) */
int circuit_fold_value_bias(gsl_vector *b_out, const gsl_vector *b_O,
                            const gsl_vector *b_V, const gsl_matrix *W_O)
{
    if (b_V->size != W_O->size1 || b_O->size != W_O->size2 || b_out->size != b_O->size)
        return att_fail(ATT_EUSAGE, "fold value bias: b_V (%zu), W_O (%zu x %zu), b_O (%zu), "
                        "b_out (%zu): need b_V (d_v), W_O (d_v x d), b_O and b_out (d)",
                        b_V->size, W_O->size1, W_O->size2, b_O->size, b_out->size);
    if (b_out != b_O) gsl_vector_memcpy(b_out, b_O);
    // b_out = b_O + W_O^T b_V
    int rc = gsl_blas_dgemv(CblasTrans, 1.0, W_O, b_V, 1.0, b_out);
    return rc ? att_fail(ATT_ERUNTIME, "dgemv failed (GSL error %d)", rc) : ATT_OK;
}

/* a_ij = 1 / (1 + e^{-s_ij}) */
int circuit_sigmoid_weights(gsl_matrix *A, const gsl_matrix *S)
{
    if (!mat_same_shape(A, S))
        return att_fail(ATT_EUSAGE, "sigmoid weights: A (%zu x %zu) and S (%zu x %zu) differ",
                        A->size1, A->size2, S->size1, S->size2);
    for (size_t i = 0; i < S->size1; i++)
        for (size_t j = 0; j < S->size2; j++)
            gsl_matrix_set(A, i, j, 1.0 / (1.0 + exp(-gsl_matrix_get(S, i, j))));
    return ATT_OK;
}

/* max_ij |D_ij - D_0j| */
double circuit_row_spread(const gsl_matrix *D)
{
    double spread = 0.0;
    for (size_t i = 1; i < D->size1; i++)
        for (size_t j = 0; j < D->size2; j++) {
            double e = fabs(gsl_matrix_get(D, i, j) - gsl_matrix_get(D, 0, j));
            if (e > spread || isnan(e)) spread = e;
        }
    return spread;
}

/* max_ij sum_l |A_il| |B_jl|; NAN when the widths differ */
