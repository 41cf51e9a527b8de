/* test_exact_claims.c - the identities behind the exact claims: the worked
 * example, the shapes, the previous-token head, the query bias and the value
 * bias (lib/claims/worked.h, bias.h, prevtoken.h; lib/math/head.h, shapes.h).
 *
 * Kinds of test: values computed by hand, written next to the input that
 * produces them; properties over seeded random cases (prop.h: >= 200 cases
 * each, sizes varying; a failure prints the replay command); bad input that
 * must be refused with ATT_EUSAGE.
 *
 * Shapes: X (T, d), W_Q, W_K (d, d_k), W_V (d, d_v), S, A (T_q, T_k),
 * O (T_q, d_v), W_O (d_v, d), b_O (d).
 */
#include <check.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <gsl/gsl_blas.h>
#include <gsl/gsl_randist.h>

#include "bias.h"
#include "prevtoken.h"
#include "worked.h"
#include "tol.h"
#include "head.h"
#include "mat.h"
#include "prop.h"
#include "qkov.h"
#include "shapes.h"
#include "softmax.h"
#include "status.h"

#define EPS DBL_EPSILON

static gsl_matrix *rand_mat(gsl_rng *rng, size_t r, size_t c, double sigma)
{
    gsl_matrix *M = mat_new(r, c);
    ck_assert_ptr_nonnull(M);
    mat_randn(rng, M, sigma);
    return M;
}

static gsl_vector *rand_vec(gsl_rng *rng, size_t n, double sigma)
{
    gsl_vector *v = mat_vec_new(n);
    ck_assert_ptr_nonnull(v);
    mat_vec_randn(rng, v, sigma);
    return v;
}

/* ---- the worked example ------------------------------------------------- */

/* The head of the worked example with factor c, run forward into st. */
static void worked_run(head_state *st, double c)
{
    gsl_matrix *X = mat_new(3, 4), *WQ = mat_new(4, 2), *WK = mat_new(4, 2), *WV = mat_new(4, 2);
    ck_assert_int_eq(worked_build(X, WQ, WK, WV, c), ATT_OK);
    ck_assert_int_eq(head_state_alloc(st, 3, 3, 4, 2, 2), ATT_OK);
    head_params p = head_params_make(WQ, WK, WV);
    ck_assert_int_eq(head_forward(st, &p, X, X), ATT_OK);
    mat_free(X); mat_free(WQ); mat_free(WK); mat_free(WV);
}

START_TEST(test_worked_by_hand)
{
    /* c = 3: Q = [0 0; 0 3; 3 0], K = [0 1; 1 0; 0 0], V = [0 1; 1 0; 0 0]
     *   S = [0 0 0; 3 0 0; 0 3 0]   (exact: small integers)
     *   A = [1/3 1/3 1/3; w o o; o w o], w = e^3/(e^3+2) = 0.9094, o = 1/(e^3+2) = 0.0453
     *   O = [1/3 1/3; o w; w o] */
    head_state st;
    worked_run(&st, 3.0);
    const double S[3][3] = { { 0, 0, 0 }, { 3, 0, 0 }, { 0, 3, 0 } };
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) ck_assert_double_eq(gsl_matrix_get(st.S, i, j), S[i][j]);
    double w = exp(3.0) / (exp(3.0) + 2.0), o = 1.0 / (exp(3.0) + 2.0);
    const double A[3][3] = { { 1.0 / 3, 1.0 / 3, 1.0 / 3 }, { w, o, o }, { o, w, o } };
    const double O[3][2] = { { 1.0 / 3, 1.0 / 3 }, { o, w }, { w, o } };
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 3; j++)
            ck_assert_double_eq_tol(gsl_matrix_get(st.A, i, j), A[i][j], 4 * EPS);
        for (int j = 0; j < 2; j++)
            ck_assert_double_eq_tol(gsl_matrix_get(st.O, i, j), O[i][j], 4 * EPS);
    }
    /* the section's rounded numbers */
    ck_assert_double_eq_tol(gsl_matrix_get(st.A, 2, 1), 0.909, 5e-4);
    ck_assert_double_eq_tol(gsl_matrix_get(st.A, 2, 0), 0.045, 5e-4);
    /* and the library's closed form agrees */
    gsl_matrix *Acf = mat_new(3, 3), *Ocf = mat_new(3, 2);
    ck_assert_int_eq(worked_closed(Acf, Ocf, 3.0), ATT_OK);
    ck_assert(mat_max_abs_diff(st.A, Acf) <= 4 * EPS);
    ck_assert(mat_max_abs_diff(st.O, Ocf) <= 4 * EPS);
    mat_free(Acf); mat_free(Ocf);
    head_state_free(&st);
}
END_TEST

START_TEST(test_worked_factor_zero_is_uniform)
{
    /* c = 0: every query is zero, every weight 1/3, every output the mean
     * value ((0,1) + (1,0) + (0,0)) / 3 = (1/3, 1/3) */
    head_state st;
    worked_run(&st, 0.0);
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 3; j++)
            ck_assert_double_eq_tol(gsl_matrix_get(st.A, i, j), 1.0 / 3, 2 * EPS);
        for (int j = 0; j < 2; j++)
            ck_assert_double_eq_tol(gsl_matrix_get(st.O, i, j), 1.0 / 3, 2 * EPS);
    }
    head_state_free(&st);
}
END_TEST

START_TEST(test_worked_weights_extremes)
{
    double w, o;
    worked_weights(1000.0, &w, &o);     /* e^1000 overflows; the form does not */
    ck_assert_double_eq(w, 1.0);
    ck_assert(o >= 0.0 && o < 1e-300);
    worked_weights(-1000.0, &w, &o);    /* the "winner" loses: 0 and 1/2 */
    ck_assert_double_eq(w, 0.0);
    ck_assert_double_eq(o, 0.5);
    worked_weights(0.0, &w, &o);
    ck_assert_double_eq_tol(w, 1.0 / 3, EPS);
    ck_assert_double_eq_tol(o, 1.0 / 3, EPS);
}
END_TEST

START_TEST(test_worked_circuits_by_hand)
{
    /* W_QK = W_Q W_K^T has c at (noun, det) and (verb, noun), zeros elsewhere:
     * a noun looks for a determiner, a verb for a noun. With the chosen W_O
     * (is-animal -> animal, is-det -> det), W_OV = W_V W_O copies the det and
     * animal features onto themselves: ones at (det, det) and (animal, animal). */
    const double c = 2.5;
    gsl_matrix *X = mat_new(3, 4), *WQ = mat_new(4, 2), *WK = mat_new(4, 2), *WV = mat_new(4, 2);
    gsl_matrix *WO = mat_new(2, 4), *QK = mat_new(4, 4), *OV = mat_new(4, 4);
    ck_assert_int_eq(worked_build(X, WQ, WK, WV, c), ATT_OK);
    ck_assert_int_eq(worked_output_map(WO), ATT_OK);
    ck_assert_int_eq(qkov_qk(QK, WQ, WK), ATT_OK);
    ck_assert_int_eq(qkov_ov(OV, WV, WO), ATT_OK);
    for (size_t i = 0; i < 4; i++)
        for (size_t j = 0; j < 4; j++) {
            double qk =
                (i == WORKED_NOUN && j == WORKED_DET) || (i == WORKED_VERB && j == WORKED_NOUN)
                    ? c
                    : 0.0;
            double ov = (i == j && (i == WORKED_DET || i == WORKED_ANIMAL)) ? 1.0 : 0.0;
            ck_assert_double_eq(gsl_matrix_get(QK, i, j), qk);
            ck_assert_double_eq(gsl_matrix_get(OV, i, j), ov);
        }
    gsl_matrix *bad = mat_new(4, 2);
    ck_assert_int_eq(worked_output_map(bad), ATT_EUSAGE);
    mat_free(X);
    mat_free(WQ);
    mat_free(WK);
    mat_free(WV);
    mat_free(WO);
    mat_free(QK);
    mat_free(OV);
    mat_free(bad);
}
END_TEST

START_TEST(test_worked_bad_input)
{
    gsl_matrix *X = mat_new(3, 4), *WQ = mat_new(4, 2), *WK = mat_new(4, 2), *WV = mat_new(4, 2);
    gsl_matrix *bad = mat_new(4, 3), *A = mat_new(3, 3);
    ck_assert_int_eq(worked_build(X, WQ, WK, bad, 3.0), ATT_EUSAGE);
    ck_assert_int_eq(worked_build(X, WQ, WK, WV, NAN), ATT_EUSAGE);
    ck_assert_int_eq(worked_build(X, WQ, WK, WV, INFINITY), ATT_EUSAGE);
    ck_assert_int_eq(worked_closed(A, bad, 3.0), ATT_EUSAGE);
    mat_free(X); mat_free(WQ); mat_free(WK); mat_free(WV); mat_free(bad); mat_free(A);
}
END_TEST

START_TEST(prop_worked_closed_form_any_factor)
{
    /* for any factor c in [-30, 60] the head equals the closed form */
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_matrix *Acf = mat_new(3, 3), *Ocf = mat_new(3, 2);
    PROP_FOR(k, rng, "worked example equals its closed form") {
        double c = -30.0 + 90.0 * gsl_rng_uniform(rng);
        head_state st;
        worked_run(&st, c);
        PROP_ASSERT(worked_closed(Acf, Ocf, c) == ATT_OK, "%s", att_last_error());
        double eA = mat_max_abs_diff(st.A, Acf), eO = mat_max_abs_diff(st.O, Ocf);
        PROP_ASSERT(eA <= 8 * EPS && eO <= 8 * EPS, "c = %.17g: |A - cf| %g, |O - cf| %g", c, eA,
                    eO);
        head_state_free(&st);
    }
    mat_free(Acf); mat_free(Ocf);
    gsl_rng_free(rng);
}
END_TEST

/* ---- shapes ------------------------------------------------------------ */

START_TEST(test_gpt2_counts)
{
    /* 3 x 768 x 64 = 147,456; 12 heads = 1,769,472 */
    ck_assert_uint_eq(shapes_head_projection_params(768, 64, 64), 147456);
    ck_assert_uint_eq(12 * shapes_head_projection_params(768, 64, 64), 1769472);
    shape sh[SHAPES_COUNT];
    ck_assert_int_eq(attention_shapes(sh, 1, 100000, 100000, 768, 64, 64), ATT_OK);
    size_t weights = 0;
    for (int k = 0; k < SHAPES_COUNT; k++)
        if (sh[k].rank == 2) weights += sh[k].dim[0] * sh[k].dim[1];
    ck_assert_uint_eq(weights, 147456);     /* no T in any weight */
}
END_TEST

START_TEST(prop_shapes_match_head_forward)
{
    /* attention_shapes() against the matrices head_forward fills, self and cross */
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    PROP_FOR(k, rng, "attention_shapes agrees with head_forward") {
        size_t B = prop_size(rng, 1, 3), T_q = prop_size(rng, 1, 12);
        size_t T_k = gsl_rng_uniform(rng) < 0.5 ? T_q : prop_size(rng, 1, 12);
        size_t d = prop_size(rng, 1, 10), d_k = prop_size(rng, 1, 6), d_v = prop_size(rng, 1, 6);
        shape sh[SHAPES_COUNT];
        PROP_ASSERT(attention_shapes(sh, B, T_q, T_k, d, d_k, d_v) == ATT_OK, "%s",
                    att_last_error());
        gsl_matrix *Xq = rand_mat(rng, T_q, d, 1), *Xkv = rand_mat(rng, T_k, d, 1);
        gsl_matrix *WQ = rand_mat(rng, d, d_k, 1), *WK = rand_mat(rng, d, d_k, 1);
        gsl_matrix *WV = rand_mat(rng, d, d_v, 1);
        head_params p = head_params_make(WQ, WK, WV);
        head_state st;
        PROP_ASSERT(head_state_alloc(&st, T_q, T_k, d, d_k, d_v) == ATT_OK, "alloc");
        PROP_ASSERT(head_forward(&st, &p, Xq, Xkv) == ATT_OK, "%s", att_last_error());
        const gsl_matrix *M[SHAPES_COUNT] = {Xq,   Xkv,  WQ,   WK,   WV,  st.Q,
                                             st.K, st.V, st.S, st.A, st.O};
        for (int m = 0; m < SHAPES_COUNT; m++) {
            if (sh[m].rank == 2)
                PROP_ASSERT(sh[m].dim[0] == M[m]->size1 && sh[m].dim[1] == M[m]->size2,
                            "%s: (%zu, %zu) vs (%zu, %zu)", sh[m].name, sh[m].dim[0], sh[m].dim[1],
                            M[m]->size1, M[m]->size2);
            else
                PROP_ASSERT(sh[m].dim[0] == B && sh[m].dim[1] == M[m]->size1 &&
                                sh[m].dim[2] == M[m]->size2,
                            "%s: (%zu, %zu, %zu) vs per-sequence (%zu, %zu)", sh[m].name,
                            sh[m].dim[0], sh[m].dim[1], sh[m].dim[2], M[m]->size1, M[m]->size2);
        }
        head_state_free(&st);
        mat_free(Xq); mat_free(Xkv); mat_free(WQ); mat_free(WK); mat_free(WV);
    }
    gsl_rng_free(rng);
}
END_TEST

/* ---- the previous-token head ------------------------------------------- */

START_TEST(test_prev_token_factor)
{
    /* c = ln(w (T-1) / (1-w)):  T = 2, w = 1/2 -> c = 0;  T = 11, w = 0.999 -> ln(9990) */
    ck_assert_double_eq_tol(prevtoken_circuit_factor(2, 0.5), 0.0, EPS);
    ck_assert_double_eq_tol(prevtoken_circuit_factor(11, 0.999), log(9990.0), 16 * EPS);
    ck_assert(isnan(prevtoken_circuit_factor(1, 0.999)));
    ck_assert(isnan(prevtoken_circuit_factor(5, 1.0)));
    ck_assert(isnan(prevtoken_circuit_factor(5, 0.0)));
}
END_TEST

START_TEST(test_prev_token_small_by_hand)
{
    /* n_vocab = 2, T = 3, tokens (1, 0, 1), c = ln 2 (so e^c = 2):
     *   x_0 = (0 1 | 1 0 0), x_1 = (1 0 | 0 1 0), x_2 = (0 1 | 0 0 1)
     *   S = [0 0 0; c 0 0; 0 c 0],  A = [1/3 1/3 1/3; 1/2 1/4 1/4; 1/4 1/2 1/4]
     *   V = [0 1; 1 0; 0 1],  O = [1/3 2/3; 1/4 3/4; 1/2 1/2] */
    size_t tokens[3] = { 1, 0, 1 };
    gsl_matrix *X = mat_new(3, 5), *WQ = mat_new(5, 3), *WK = mat_new(5, 3), *WV = mat_new(5, 2);
    ck_assert_int_eq(prevtoken_circuit_inputs(X, tokens, 2, 3), ATT_OK);
    ck_assert_int_eq(prevtoken_circuit_build(WQ, WK, WV, 2, 3, log(2.0)), ATT_OK);
    head_params p = head_params_make(WQ, WK, WV);
    head_state st;
    ck_assert_int_eq(head_state_alloc(&st, 3, 3, 5, 3, 2), ATT_OK);
    ck_assert_int_eq(head_forward(&st, &p, X, X), ATT_OK);
    const double A[3][3] = {{1.0 / 3, 1.0 / 3, 1.0 / 3}, {0.5, 0.25, 0.25}, {0.25, 0.5, 0.25}};
    const double O[3][2] = { { 1.0 / 3, 2.0 / 3 }, { 0.25, 0.75 }, { 0.5, 0.5 } };
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 3; j++)
            ck_assert_double_eq_tol(gsl_matrix_get(st.A, i, j), A[i][j], 4 * EPS);
        for (int j = 0; j < 2; j++)
            ck_assert_double_eq_tol(gsl_matrix_get(st.O, i, j), O[i][j], 4 * EPS);
    }
    head_state_free(&st);
    mat_free(X); mat_free(WQ); mat_free(WK); mat_free(WV);
}
END_TEST

START_TEST(test_prev_token_bad_input)
{
    size_t tokens[3] = { 0, 2, 1 };     /* 2 is not below n_vocab = 2 */
    gsl_matrix *X = mat_new(3, 5), *WQ = mat_new(5, 3), *WK = mat_new(5, 3), *WV = mat_new(5, 2);
    ck_assert_int_eq(prevtoken_circuit_inputs(X, tokens, 2, 3), ATT_EUSAGE);
    ck_assert_int_eq(prevtoken_circuit_build(WQ, WK, WV, 2, 1, 1.0), ATT_EUSAGE);   /* T < 2 */
    ck_assert_int_eq(prevtoken_circuit_build(WQ, WK, WV, 2, 3, NAN), ATT_EUSAGE);
    ck_assert_int_eq(prevtoken_circuit_build(WQ, WK, WV, 3, 3, 1.0), ATT_EUSAGE);   /* shapes */
    mat_free(X); mat_free(WQ); mat_free(WK); mat_free(WV);
}
END_TEST

START_TEST(prop_prev_token_head)
{
    /* for n_vocab in 1..40, T in 2..40 and random tokens, with the factor
     * for weight 0.999: a(t, t-1) = 0.999 (>= 0.99), argmax o_t = token_{t-1},
     * position 0 uniform with the token histogram as output */
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    PROP_FOR(k, rng, "previous-token head attends to t-1 and delivers its token") {
        size_t V = prop_size(rng, 1, 40), T = prop_size(rng, 2, 40), d = V + T;
        size_t *tok = malloc(T * sizeof *tok), *count = calloc(V, sizeof *count);
        for (size_t t = 0; t < T; t++) { tok[t] = gsl_rng_uniform_int(rng, V); count[tok[t]]++; }
        gsl_matrix *X = mat_new(T, d), *WQ = mat_new(d, T), *WK = mat_new(d, T),
                   *WV = mat_new(d, V);
        double c = prevtoken_circuit_factor(T, 0.999);
        PROP_ASSERT(prevtoken_circuit_inputs(X, tok, V, T) == ATT_OK, "%s", att_last_error());
        PROP_ASSERT(prevtoken_circuit_build(WQ, WK, WV, V, T, c) == ATT_OK, "%s", att_last_error());
        head_params p = head_params_make(WQ, WK, WV);
        head_state st;
        PROP_ASSERT(head_state_alloc(&st, T, T, d, T, V) == ATT_OK, "alloc");
        PROP_ASSERT(head_forward(&st, &p, X, X) == ATT_OK, "%s", att_last_error());
        double tol = tol_eps(8, T, 1.0);
        for (size_t t = 1; t < T; t++) {
            double a = gsl_matrix_get(st.A, t, t - 1);
            PROP_ASSERT(a >= 0.99 && fabs(a - 0.999) <= tol, "V %zu T %zu t %zu: a(t,t-1) = %.17g",
                        V, T, t, a);
            size_t am = 0;
            for (size_t v = 1; v < V; v++)
                if (gsl_matrix_get(st.O, t, v) > gsl_matrix_get(st.O, t, am)) am = v;
            PROP_ASSERT(am == tok[t - 1], "V %zu T %zu t %zu: argmax %zu, previous token %zu", V, T,
                        t, am, tok[t - 1]);
        }
        for (size_t j = 0; j < T; j++)
            PROP_ASSERT(fabs(gsl_matrix_get(st.A, 0, j) - 1.0 / (double)T) <= tol,
                        "a(0, %zu) not 1/T", j);
        for (size_t v = 0; v < V; v++)
            PROP_ASSERT(fabs(gsl_matrix_get(st.O, 0, v) - (double)count[v] / (double)T) <= tol,
                        "o(0, %zu) = %.17g, histogram %zu / %zu", v, gsl_matrix_get(st.O, 0, v),
                        count[v], T);
        head_state_free(&st);
        mat_free(X); mat_free(WQ); mat_free(WK); mat_free(WV);
        free(tok); free(count);
    }
    gsl_rng_free(rng);
}
END_TEST

START_TEST(test_prev_token_needs_the_factor)
{
    /* the construction with factor 0 is no previous-token head: all weights 1/T */
    size_t T = 6, V = 3, d = V + T, tok[6] = { 0, 1, 2, 0, 1, 2 };
    gsl_matrix *X = mat_new(T, d), *WQ = mat_new(d, T), *WK = mat_new(d, T), *WV = mat_new(d, V);
    ck_assert_int_eq(prevtoken_circuit_inputs(X, tok, V, T), ATT_OK);
    ck_assert_int_eq(prevtoken_circuit_build(WQ, WK, WV, V, T, 0.0), ATT_OK);
    head_params p = head_params_make(WQ, WK, WV);
    gsl_matrix *O = mat_new(T, V);
    head_state st;
    ck_assert_int_eq(head_state_alloc(&st, T, T, d, T, V), ATT_OK);
    ck_assert_int_eq(head_forward(&st, &p, X, X), ATT_OK);
    ck_assert_double_eq_tol(gsl_matrix_get(st.A, 3, 2), 1.0 / 6, 2 * EPS);
    head_state_free(&st);
    mat_free(O); mat_free(X); mat_free(WQ); mat_free(WK); mat_free(WV);
}
END_TEST

/* ---- biases ---------------------------------------------------------------- */

START_TEST(test_fold_value_bias_by_hand)
{
    /* W_O = [1 2 0; 0 1 -1] (d_v = 2, d = 3), b_V = (3, -1), b_O = (1, 1, 1):
     *   b_V W_O = (3, 5, 1),  b_O' = (4, 6, 2) */
    gsl_matrix *WO = mat_new(2, 3);
    gsl_vector *bV = mat_vec_new(2), *bO = mat_vec_new(3), *out = mat_vec_new(3);
    const double w[2][3] = { { 1, 2, 0 }, { 0, 1, -1 } };
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 3; j++) gsl_matrix_set(WO, i, j, w[i][j]);
    gsl_vector_set(bV, 0, 3); gsl_vector_set(bV, 1, -1);
    gsl_vector_set_all(bO, 1.0);
    ck_assert_int_eq(bias_fold_value(out, bO, bV, WO), ATT_OK);
    ck_assert_double_eq(gsl_vector_get(out, 0), 4.0);
    ck_assert_double_eq(gsl_vector_get(out, 1), 6.0);
    ck_assert_double_eq(gsl_vector_get(out, 2), 2.0);
    /* in place */
    ck_assert_int_eq(bias_fold_value(bO, bO, bV, WO), ATT_OK);
    ck_assert_double_eq(gsl_vector_get(bO, 1), 6.0);
    /* shapes: b_V must have d_v entries */
    ck_assert_int_eq(bias_fold_value(out, bO, out, WO), ATT_EUSAGE);
    mat_free(WO); mat_vec_free(bV); mat_vec_free(bO); mat_vec_free(out);
}
END_TEST

START_TEST(test_helpers_by_hand)
{
    /* sigmoid(0) = 1/2, sigmoid(ln 3) = 3/4; the rows sum to 1 and 3/2 */
    gsl_matrix *S = mat_new(2, 2), *A = mat_new(2, 2);
    gsl_matrix_set(S, 0, 0, 0.0); gsl_matrix_set(S, 0, 1, 0.0);
    gsl_matrix_set(S, 1, 0, log(3.0)); gsl_matrix_set(S, 1, 1, log(3.0));
    ck_assert_int_eq(bias_sigmoid_weights(A, S), ATT_OK);
    ck_assert_double_eq(gsl_matrix_get(A, 0, 0), 0.5);
    ck_assert_double_eq_tol(gsl_matrix_get(A, 1, 1), 0.75, 2 * EPS);
    /* row spread of [1 2; 1 2] is 0, of [1 2; 1 5] is 3 */
    gsl_matrix_set(S, 0, 0, 1); gsl_matrix_set(S, 0, 1, 2);
    gsl_matrix_set(S, 1, 0, 1); gsl_matrix_set(S, 1, 1, 2);
    ck_assert_double_eq(bias_row_spread(S), 0.0);
    gsl_matrix_set(S, 1, 1, 5);
    ck_assert_double_eq(bias_row_spread(S), 3.0);
    /* product scale of A = [1 -2], B = [3 1; -1 1]: max(|3| + |2|, |1| + |2|) = 5 */
    gsl_matrix *a = mat_new(1, 2), *b = mat_new(2, 2);
    gsl_matrix_set(a, 0, 0, 1); gsl_matrix_set(a, 0, 1, -2);
    gsl_matrix_set(b, 0, 0, 3); gsl_matrix_set(b, 0, 1, 1);
    gsl_matrix_set(b, 1, 0, -1); gsl_matrix_set(b, 1, 1, 1);
    ck_assert_double_eq(tol_product_scale(a, b), 5.0);
    mat_free(S); mat_free(A); mat_free(a); mat_free(b);
}
END_TEST

/* A random head with value bias: sizes, inputs, weights, b_V, W_O, b_O. */
typedef struct {
    size_t T_q, T_k, d, d_k, d_v;
    gsl_matrix *Xq, *Xkv, *WQ, *WK, *WV, *WO;
    gsl_vector *bQ, *bV, *bO;
} rand_head;

static void rand_head_make(gsl_rng *rng, rand_head *h)
{
    int self = gsl_rng_uniform(rng) < 0.5;
    h->T_q = prop_size(rng, 1, 20);
    h->T_k = self ? h->T_q : prop_size(rng, 1, 20);
    h->d = prop_size(rng, 1, 16); h->d_k = prop_size(rng, 1, 8); h->d_v = prop_size(rng, 1, 8);
    double sq = 1.0 / sqrt((double)h->d), sharp = pow(10.0, -1.0 + 2.0 * gsl_rng_uniform(rng));
    h->Xq = rand_mat(rng, h->T_q, h->d, 1.0);
    h->Xkv = self ? h->Xq : rand_mat(rng, h->T_k, h->d, 1.0);
    h->WQ = rand_mat(rng, h->d, h->d_k, sharp * sq);
    h->WK = rand_mat(rng, h->d, h->d_k, sq);
    h->WV = rand_mat(rng, h->d, h->d_v, sq);
    h->WO = rand_mat(rng, h->d_v, h->d, 1.0 / sqrt((double)h->d_v));
    h->bQ = rand_vec(rng, h->d_k, pow(10.0, -1.0 + 2.0 * gsl_rng_uniform(rng)));
    h->bV = rand_vec(rng, h->d_v, pow(10.0, -1.0 + 2.0 * gsl_rng_uniform(rng)));
    h->bO = rand_vec(rng, h->d, 1.0);
}

static void rand_head_free(rand_head *h)
{
    if (h->Xkv != h->Xq) mat_free(h->Xkv);
    mat_free(h->Xq); mat_free(h->WQ); mat_free(h->WK); mat_free(h->WV); mat_free(h->WO);
    mat_vec_free(h->bQ); mat_vec_free(h->bV); mat_vec_free(h->bO);
}

static void forward(head_state *st, const rand_head *h, const head_params *p)
{
    ck_assert_int_eq(head_state_alloc(st, h->T_q, h->T_k, h->d, h->d_k, h->d_v), ATT_OK);
    ck_assert_int_eq(head_forward(st, p, h->Xq, h->Xkv), ATT_OK);
}

START_TEST(prop_query_bias_rows_identical)
{
    /* S(b_Q) - S(0) = 1 (K b_Q)^T: identical rows; W_Q = 0 -> rows of A = softmax(K b_Q) */
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    PROP_FOR(k, rng, "query bias: S(b_Q) - S(0) has identical rows") {
        rand_head h;
        rand_head_make(rng, &h);
        head_params p0 = head_params_make(h.WQ, h.WK, h.WV), pb = p0;
        pb.b_Q = h.bQ;
        head_state s0, sb, sz;
        forward(&s0, &h, &p0);
        forward(&sb, &h, &pb);
        double scale = tol_product_scale(s0.Q, s0.K) + tol_product_scale(sb.Q, sb.K);
        gsl_matrix_sub(sb.S, s0.S);
        double spread = bias_row_spread(sb.S), tol = tol_eps(4, h.d_k, scale);
        PROP_ASSERT(spread <= tol, "row spread %g > tol %g", spread, tol);

        gsl_matrix *Z = mat_new(h.d, h.d_k);         /* W_Q = 0 */
        head_params pz = head_params_make(Z, h.WK, h.WV);
        pz.b_Q = h.bQ;
        forward(&sz, &h, &pz);
        double *kb = malloc(h.T_k * sizeof *kb), rkb = 0.0;
        for (size_t j = 0; j < h.T_k; j++) {
            double s = 0.0, r = 0.0;
            for (size_t l = 0; l < h.d_k; l++) {
                s += gsl_matrix_get(s0.K, j, l) * gsl_vector_get(h.bQ, l);
                r += fabs(gsl_matrix_get(s0.K, j, l) * gsl_vector_get(h.bQ, l));
            }
            kb[j] = s;
            rkb = fmax(rkb, r);
        }
        PROP_ASSERT(softmax_vec(kb, kb, h.T_k) == ATT_OK, "softmax");
        double tz = tol_eps(8, h.d_k, rkb) + tol_eps(4, h.T_k, 1.0);
        for (size_t i = 0; i < h.T_q; i++)
            for (size_t j = 0; j < h.T_k; j++)
                PROP_ASSERT(fabs(gsl_matrix_get(sz.A, i, j) - kb[j]) <= tz,
                            "W_Q = 0: a(%zu,%zu) = %.17g, softmax(K b_Q) = %.17g", i, j,
                            gsl_matrix_get(sz.A, i, j), kb[j]);
        free(kb);
        mat_free(Z);
        head_state_free(&s0); head_state_free(&sb); head_state_free(&sz);
        rand_head_free(&h);
    }
    gsl_rng_free(rng);
}
END_TEST

START_TEST(prop_value_bias_folds)
{
    /* O(b_V) = O(0) + 1 b_V^T; O(b_V) W_O + b_O = O(0) W_O + (b_O + b_V W_O);
     * with sigmoid weights the folding error is exactly (row sum - 1) b_V W_O */
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    PROP_FOR(k, rng, "value bias passes through and folds; sigmoid control does not") {
        rand_head h;
        rand_head_make(rng, &h);
        head_params p0 = head_params_make(h.WQ, h.WK, h.WV), p1 = p0;
        p1.b_V = h.bV;
        head_state s0, s1;
        forward(&s0, &h, &p0);
        forward(&s1, &h, &p1);
        double scale_O = mat_max_abs(s0.V) + mat_vec_max_abs(h.bV);
        // pass-through
        for (size_t i = 0; i < h.T_q; i++)
            for (size_t j = 0; j < h.d_v; j++) {
                double e = fabs(gsl_matrix_get(s1.O, i, j) - gsl_matrix_get(s0.O, i, j) -
                                gsl_vector_get(h.bV, j));
                PROP_ASSERT(e <= tol_eps(8, h.T_k, scale_O), "pass-through (%zu,%zu): %g", i, j, e);
            }
        // folding
        gsl_vector *bF = mat_vec_new(h.d), *bw = mat_vec_new(h.d);
        PROP_ASSERT(bias_fold_value(bF, h.bO, h.bV, h.WO) == ATT_OK, "fold");
        gsl_matrix *Yu = mat_new(h.T_q, h.d), *Yf = mat_new(h.T_q, h.d);
        gsl_matrix *Oc1 = mat_new(h.T_q, h.d_v), *Oc0 = mat_new(h.T_q, h.d_v),
                   *Ac = mat_new(h.T_q, h.T_k);
        PROP_ASSERT(head_project(Yu, s1.O, h.WO, h.bO) == ATT_OK, "project");
        PROP_ASSERT(head_project(Yf, s0.O, h.WO, bF) == ATT_OK, "project");
        double colsum = 0.0;
        for (size_t j = 0; j < h.d; j++) {
            double s = 0.0;
            for (size_t l = 0; l < h.d_v; l++) s += fabs(gsl_matrix_get(h.WO, l, j));
            colsum = fmax(colsum, s);
        }
        double scale_Y = scale_O * colsum + mat_vec_max_abs(h.bO);
        double ef = mat_max_abs_diff(Yu, Yf), tf = tol_eps(8, h.T_k + h.d_v, scale_Y);
        PROP_ASSERT(ef <= tf, "folding error %g > tol %g", ef, tf);
        // control: sigmoid weights; Y_u - Y_f = (rowsum_i - 1) (b_V W_O)_j
        gsl_vector_memcpy(bw, bF);
        gsl_vector_sub(bw, h.bO);                     /* b_V W_O (as b_O' - b_O) */
        PROP_ASSERT(bias_sigmoid_weights(Ac, s0.S) == ATT_OK, "sigmoid");
        PROP_ASSERT(head_weighted_sum(Oc1, Ac, s1.V) == ATT_OK &&
                        head_weighted_sum(Oc0, Ac, s0.V) == ATT_OK,
                    "sum");
        PROP_ASSERT(head_project(Yu, Oc1, h.WO, h.bO) == ATT_OK &&
                        head_project(Yf, Oc0, h.WO, bF) == ATT_OK,
                    "project");
        for (size_t i = 0; i < h.T_q; i++) {
            double rs = 0.0;
            for (size_t j = 0; j < h.T_k; j++) rs += gsl_matrix_get(Ac, i, j);
            for (size_t j = 0; j < h.d; j++) {
                double got = gsl_matrix_get(Yu, i, j) - gsl_matrix_get(Yf, i, j);
                double want = (rs - 1.0) * gsl_vector_get(bw, j);
                double t = tol_eps(8, h.T_k + h.d_v, scale_Y * (double)h.T_k);
                PROP_ASSERT(fabs(got - want) <= t,
                            "control (%zu,%zu): %.17g vs (rowsum-1) b_V W_O %.17g", i, j, got,
                            want);
            }
        }
        mat_vec_free(bF); mat_vec_free(bw);
        mat_free(Yu); mat_free(Yf); mat_free(Oc1); mat_free(Oc0); mat_free(Ac);
        head_state_free(&s0); head_state_free(&s1);
        rand_head_free(&h);
    }
    gsl_rng_free(rng);
}
END_TEST

START_TEST(test_control_fails_to_fold)
{
    /* a definite negative control: T_k = 4, S = 0 -> sigmoid rows sum to 2, so
     * Y_u - Y_f = (2 - 1) b_V W_O = b_V W_O exactly: folding is off by the whole term */
    gsl_matrix *S = mat_new(1, 4), *Ac = mat_new(1, 4), *V0 = mat_new(4, 1), *V1 = mat_new(4, 1);
    gsl_matrix *WO = mat_new(1, 1), *Oc = mat_new(1, 1);
    gsl_matrix_set(WO, 0, 0, 1.0);
    gsl_matrix_set_all(V1, 0.5);                     /* V0 = 0, b_V = 0.5 */
    ck_assert_int_eq(bias_sigmoid_weights(Ac, S), ATT_OK);
    ck_assert_int_eq(head_weighted_sum(Oc, Ac, V1), ATT_OK);
    /* unfolded: 4 * 0.5 * 0.5 = 1;  folded: 0 + b_V W_O = 0.5 */
    ck_assert_double_eq(gsl_matrix_get(Oc, 0, 0), 1.0);
    mat_free(S); mat_free(Ac); mat_free(V0); mat_free(V1); mat_free(WO); mat_free(Oc);
}
END_TEST

PROP_MAIN("test_exact_claims",
          {"unit",
           0,
           {test_worked_by_hand, test_worked_factor_zero_is_uniform, test_worked_weights_extremes,
            test_worked_bad_input, test_worked_circuits_by_hand, test_gpt2_counts,
            test_prev_token_factor, test_prev_token_small_by_hand, test_prev_token_bad_input,
            test_prev_token_needs_the_factor, test_fold_value_bias_by_hand, test_helpers_by_hand,
            test_control_fails_to_fold}},
          {"properties",
           120,
           {prop_worked_closed_form_any_factor, prop_shapes_match_head_forward,
            prop_prev_token_head, prop_query_bias_rows_identical, prop_value_bias_folds}})
