/* worked.c - the "the cat sat" head built by hand (formulas in worked.h). */
#include "worked.h"
#include "status.h"

#include <math.h>

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

/* X (3, 4), W_Q (4, 2), W_K (4, 2), W_V (4, 2); feature rows det, noun,
 * verb, animal. */
int worked_build(gsl_matrix *X, gsl_matrix *W_Q, gsl_matrix *W_K, gsl_matrix *W_V, double c)
{
    int rc;
    if ((rc = check_shape(X, WORKED_T, WORKED_D, "worked example X"))
        || (rc = check_shape(W_Q, WORKED_D, WORKED_DK, "worked example W_Q"))
        || (rc = check_shape(W_K, WORKED_D, WORKED_DK, "worked example W_K"))
        || (rc = check_shape(W_V, WORKED_D, WORKED_DV, "worked example W_V")))
        return rc;
    if (!isfinite(c))
        return att_fail(ATT_EUSAGE, "worked example: the query factor %g must be finite", c);
    gsl_matrix_set_zero(X);
    gsl_matrix_set_zero(W_Q);
    gsl_matrix_set_zero(W_K);
    gsl_matrix_set_zero(W_V);
    // the = determiner; cat = noun + animal; sat = verb
    gsl_matrix_set(X, WORKED_THE, WORKED_DET, 1.0);
    gsl_matrix_set(X, WORKED_CAT, WORKED_NOUN, 1.0);
    gsl_matrix_set(X, WORKED_CAT, WORKED_ANIMAL, 1.0);
    gsl_matrix_set(X, WORKED_SAT, WORKED_VERB, 1.0);
    // queries: a verb seeks a noun (c, 0), a noun seeks a determiner (0, c)
    gsl_matrix_set(W_Q, WORKED_VERB, 0, c);
    gsl_matrix_set(W_Q, WORKED_NOUN, 1, c);
    // keys: a noun says (1, 0), a determiner says (0, 1)
    gsl_matrix_set(W_K, WORKED_NOUN, 0, 1.0);
    gsl_matrix_set(W_K, WORKED_DET, 1, 1.0);
    // values report (is an animal, is a determiner)
    gsl_matrix_set(W_V, WORKED_ANIMAL, 0, 1.0);
    gsl_matrix_set(W_V, WORKED_DET, 1, 1.0);
    return ATT_OK;
}

/* w = e^c / (e^c + 2), o = 1 / (e^c + 2); for c >= 0 divide through by e^c
 * (w = 1 / (1 + 2 e^-c), o = e^-c / (1 + 2 e^-c)) so nothing overflows. */
void worked_weights(double c, double *winner, double *other)
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

/* A (3, 3), O (3, 2) in closed form (worked.h). */
int worked_closed(gsl_matrix *A, gsl_matrix *O, double c)
{
    int rc;
    if ((rc = check_shape(A, WORKED_T, WORKED_T, "worked example A"))
        || (rc = check_shape(O, WORKED_T, WORKED_DV, "worked example O")))
        return rc;
    double w, o;
    worked_weights(c, &w, &o);
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

/* W_O (2, 4): row "is animal" -> feature animal, row "is det" -> feature det */
int worked_output_map(gsl_matrix *W_O)
{
    int rc = check_shape(W_O, WORKED_DV, WORKED_D, "worked example W_O");
    if (rc) return rc;
    gsl_matrix_set_zero(W_O);
    gsl_matrix_set(W_O, 0, WORKED_ANIMAL, 1.0);
    gsl_matrix_set(W_O, 1, WORKED_DET, 1.0);
    return ATT_OK;
}
