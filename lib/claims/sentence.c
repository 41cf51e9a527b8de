/* sentence.c - the opening sentence with a hand-made, one-way head (sentence.h). */
#include "sentence.h"
#include "head.h"
#include "mat.h"
#include "softmax.h"
#include "status.h"

enum { F_DET, F_NOUN, F_ANIMATE, F_VERB, F_PRONOUN, F_FUNCTION, F_ADJ };

static const char *const sentence_tokens[SENTENCE_T] = {
    "The", "animal", "didn't", "cross", "the", "street", "because", "it", "was", "too", "tired"};

/* x_t (d = 7): the features of each token */
static const double features[SENTENCE_T][SENTENCE_D] = {
    [0] = {[F_DET] = 1},
    [1] = {[F_NOUN] = 1, [F_ANIMATE] = 1},
    [2] = {[F_VERB] = 1},
    [3] = {[F_VERB] = 1},
    [4] = {[F_DET] = 1},
    [5] = {[F_NOUN] = 1},
    [6] = {[F_FUNCTION] = 1},
    [7] = {[F_PRONOUN] = 1, [F_ANIMATE] = 0.5},
    [8] = {[F_VERB] = 1},
    [9] = {[F_FUNCTION] = 1},
    [10] = {[F_ADJ] = 1},
};

int sentence_attention(sentence_row rows[SENTENCE_T * SENTENCE_T], sentence_result *r)
{
    // X (T, d), W_Q, W_K (d, d_k), W_V (d, 1) unused by the scores
    gsl_matrix *X = mat_new(SENTENCE_T, SENTENCE_D), *W_Q = mat_new(SENTENCE_D, SENTENCE_DK);
    gsl_matrix *W_K = mat_new(SENTENCE_D, SENTENCE_DK), *W_V = mat_new(SENTENCE_D, 1);
    gsl_matrix *S0 = mat_new(SENTENCE_T, SENTENCE_T), *A0 = mat_new(SENTENCE_T, SENTENCE_T);
    head_state st = {0};
    int rc = ATT_OK;
    if (!X || !W_Q || !W_K || !W_V || !S0 || !A0
        || head_state_alloc(&st, SENTENCE_T, SENTENCE_T, SENTENCE_D, SENTENCE_DK, 1)) {
        rc = att_alloc_status();   /* a --max-memory refusal is a usage error (exit 2) */
        goto done;
    }
    for (size_t t = 0; t < SENTENCE_T; t++)
        for (size_t f = 0; f < SENTENCE_D; f++) gsl_matrix_set(X, t, f, features[t][f]);
    gsl_matrix_set_zero(W_Q); gsl_matrix_set_zero(W_K); gsl_matrix_set_zero(W_V);
    // W_QK = W_Q W_K^T = 6 e_pronoun e_animate^T + 4 e_noun e_verb^T
    gsl_matrix_set(W_Q, F_PRONOUN, 0, 6.0); gsl_matrix_set(W_K, F_ANIMATE, 0, 1.0);
    gsl_matrix_set(W_Q, F_NOUN, 1, 4.0);    gsl_matrix_set(W_K, F_VERB, 1, 1.0);

    // raw: S0 = X X^T, A0 = softmax(S0);  learned: S = Q K^T, A = softmax(S)
    if ((rc = head_scores(S0, X, X, 1.0)) || (rc = softmax_rows(A0, S0))) goto done;
    head_params p = head_params_make(W_Q, W_K, W_V);
    if ((rc = head_forward(&st, &p, X, X))) goto done;

    double xmax = 0.0;
    for (size_t i = 0; i < SENTENCE_T; i++)
        for (size_t j = 0; j < SENTENCE_T; j++) {
            rows[i * SENTENCE_T + j] = (sentence_row){
                i, j, sentence_tokens[i], sentence_tokens[j], gsl_matrix_get(S0, i, j),
                gsl_matrix_get(A0, i, j), gsl_matrix_get(st.S, i, j), gsl_matrix_get(st.A, i, j)};
            xmax = gsl_matrix_get(S0, i, i) > xmax ? gsl_matrix_get(S0, i, i) : xmax;
        }
    const size_t it = SENTENCE_IT, an = SENTENCE_ANIMAL;
    *r = (sentence_result){gsl_matrix_get(S0, it, an), gsl_matrix_get(S0, an, it),
                           gsl_matrix_get(st.S, it, an), gsl_matrix_get(st.S, an, it),
                           gsl_matrix_get(st.A, it, an), gsl_matrix_get(st.A, an, it), xmax};
done:
    mat_free(X); mat_free(W_Q); mat_free(W_K); mat_free(W_V); mat_free(S0); mat_free(A0);
    head_state_free(&st);
    return rc;
}
