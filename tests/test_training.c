/* test_training.c - the learned previous-token head (lib/claims/training.h):
 * the full model's gradient (head + W_O + cross-entropy, separate and tied)
 * against central finite differences, one Adam step by hand, training in
 * pieces equal to training in one go, and a tiny training run that must
 * learn the task with separate keys and values.
 *
 * Shapes: X (T, d), d = n_vocab + T; W_Q, W_K, W_V (d, d_k); W_O (d_k, n_vocab);
 * theta = [W_Q ; W_K ; W_V unless tied ; W_O] flat.
 */
#include "prop.h"
#include "training.h"
#include "mat.h"
#include "status.h"

#include <float.h>
#include <math.h>
#include <string.h>

/* ---- the gradient of the whole model ------------------------------------- */

/* L(theta) on a fixed batch tokens (B x T) */
static double loss_at(prev_model *m, const size_t *tokens, size_t B)
{
    double L;
    ck_assert_int_eq(training_loss_grad(m, tokens, B, &L), ATT_OK);
    return L;
}

/* ||fd - g|| <= 1e-6 ||g|| + 1e-9 sqrt(n): central differences with
 * h = 1e-5 have truncation error O(h^2 L''') ~ 1e-10 and rounding
 * eps L / h ~ 1e-11 per entry (L ~ 2); a wrong gradient is off by O(||g||). */
static void check_model_gradient(gsl_rng *rng, size_t V, size_t T, size_t dk, int tied, size_t B)
{
    prev_config c = training_config_default(V, T, dk, tied);
    prev_model m;
    ck_assert_int_eq(training_model_alloc(&m, &c), ATT_OK);
    training_init(rng, &m);
    size_t *tokens = calloc(B * T, sizeof *tokens);
    for (size_t b = 0; b < B; b++) training_draw_tokens(rng, tokens + b * T, V, T);
    loss_at(&m, tokens, B);
    gsl_vector *g = mat_vec_new(m.n);
    gsl_vector_memcpy(g, m.grad);
    double e2 = 0.0, g2 = 0.0;
    for (size_t i = 0; i < m.n; i++) {
        double *x = m.theta->data + i, x0 = *x, h = 1e-5;
        volatile double xp = x0 + h, xm = x0 - h;
        *x = xp;
        double Lp = loss_at(&m, tokens, B);
        *x = xm;
        double Lm = loss_at(&m, tokens, B);
        *x = x0;
        double fd = (Lp - Lm) / (xp - xm), gi = gsl_vector_get(g, i);
        e2 += (fd - gi) * (fd - gi);
        g2 += gi * gi;
    }
    double err = sqrt(e2), allow = 1e-6 * sqrt(g2) + 1e-9 * sqrt((double)m.n);
    PROP_ASSERT(err <= allow, "V %zu T %zu d_k %zu tied %d: ||fd - backprop|| = %.3g, ||g|| = "
                "%.3g, allowed %.3g", V, T, dk, tied, err, sqrt(g2), allow);
    PROP_ASSERT(sqrt(g2) > 1e-6, "the gradient is not trivially zero (||g|| = %g)", sqrt(g2));
    mat_vec_free(g);
    free(tokens);
    training_model_free(&m);
}

START_TEST(test_prop_model_gradient)
{
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    PROP_FOR(k, rng, "training: full-model gradient = finite differences") {
        size_t V = prop_size(rng, 2, 5), T = prop_size(rng, 2, 5), dk = prop_size(rng, 1, 4);
        check_model_gradient(rng, V, T, dk, (int)(k % 2), prop_size(rng, 1, 3));
    }
    gsl_rng_free(rng);
}
END_TEST

/* The tied model's W_K block gets both paths: dL/dW_K + dL/dW_V of the head.
 * A separate model with W_V set equal to W_K has the same loss, and its
 * dW_K + dW_V equals the tied model's dW_K. */
START_TEST(test_tied_gradient_is_the_sum)
{
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(rng, 7);
    size_t V = 4, T = 5, dk = 3, B = 2;
    prev_config ct = training_config_default(V, T, dk, 1),
                cs = training_config_default(V, T, dk, 0);
    prev_model mt, ms;
    ck_assert_int_eq(training_model_alloc(&mt, &ct), ATT_OK);
    ck_assert_int_eq(training_model_alloc(&ms, &cs), ATT_OK);
    training_init(rng, &mt);
    gsl_matrix_memcpy(&ms.W_Q.matrix, &mt.W_Q.matrix);
    gsl_matrix_memcpy(&ms.W_K.matrix, &mt.W_K.matrix);
    gsl_matrix_memcpy(&ms.W_V.matrix, &mt.W_K.matrix);
    gsl_matrix_memcpy(&ms.W_O.matrix, &mt.W_O.matrix);
    size_t tokens[10];
    for (size_t b = 0; b < B; b++) training_draw_tokens(rng, tokens + b * T, V, T);
    double Lt = loss_at(&mt, tokens, B), Ls = loss_at(&ms, tokens, B);
    ck_assert_msg(Lt == Ls, "same weights, same loss: %.17g vs %.17g", Lt, Ls);
    gsl_matrix_add(&ms.dW_K.matrix, &ms.dW_V.matrix);
    double diff = mat_max_abs_diff(&ms.dW_K.matrix, &mt.dW_K.matrix);
    ck_assert_msg(diff <= 16 * DBL_EPSILON * (1.0 + mat_max_abs(&mt.dW_K.matrix)),
                  "tied dW_K = dW_K + dW_V: off by %g", diff);
    ck_assert_uint_eq(mt.n + ct.dk * (V + T), ms.n);   /* no W_V block when tied */
    training_model_free(&mt);
    training_model_free(&ms);
    gsl_rng_free(rng);
}
END_TEST

/* ---- Adam by hand ---------------------------------------------------------- */

START_TEST(test_adam_by_hand)
{
    adam_params a = { .lr = 0.1, .beta1 = 0.9, .beta2 = 0.999, .eps = 1e-8 };
    double theta[2] = { 1.0, -2.0 }, m[2] = { 0, 0 }, v[2] = { 0, 0 };
    // step 1, g = (0.5, -4): m = 0.1 g, v = 0.001 g^2, mhat = g, vhat = g^2,
    // theta -= 0.1 g / (|g| + 1e-8)
    double g1[2] = { 0.5, -4.0 };
    training_adam_step(theta, g1, m, v, 2, 1, &a);
    ck_assert_double_eq_tol(m[0], 0.05, 1e-15);
    ck_assert_double_eq_tol(v[1], 0.016, 1e-15);
    ck_assert_double_eq_tol(theta[0], 1.0 - 0.1 * 0.5 / (0.5 + 1e-8), 1e-14);
    ck_assert_double_eq_tol(theta[1], -2.0 + 0.1 * 4.0 / (4.0 + 1e-8), 1e-14);
    // step 2, g = (1, 0): m0 = 0.9*0.05 + 0.1 = 0.145, v0 = 0.999*0.00025 + 0.001 = 0.00124975
    // mhat0 = 0.145 / 0.19, vhat0 = 0.00124975 / 0.001999
    double g2[2] = { 1.0, 0.0 }, t0 = theta[0], t1 = theta[1];
    training_adam_step(theta, g2, m, v, 2, 2, &a);
    double mh0 = 0.145 / (1 - 0.81), vh0 = 0.00124975 / (1 - 0.998001);
    ck_assert_double_eq_tol(m[0], 0.145, 1e-15);
    ck_assert_double_eq_tol(v[0], 0.00124975, 1e-15);
    ck_assert_double_eq_tol(theta[0], t0 - 0.1 * mh0 / (sqrt(vh0) + 1e-8), 1e-13);
    // second coordinate: m1 = 0.9 (-0.4) = -0.36, v1 = 0.999 * 0.016
    double mh1 = -0.36 / 0.19, vh1 = 0.999 * 0.016 / 0.001999;
    ck_assert_double_eq_tol(theta[1], t1 - 0.1 * mh1 / (sqrt(vh1) + 1e-8), 1e-13);
    /* n = 7 (pairs and a last odd element), 3 steps: every element the scalar formula's bits */
    double th[7], mm[7] = {0}, vv[7] = {0}, rt[7], rm[7] = {0}, rv[7] = {0}, g[7];
    for (int i = 0; i < 7; i++) th[i] = rt[i] = 0.3 * i - 1.0;
    for (size_t k = 1; k <= 3; k++) {
        for (int i = 0; i < 7; i++) g[i] = sin(1.7 * i + (double)k) * pow(10.0, i - 3);
        training_adam_step(th, g, mm, vv, 7, k, &a);
        double c1 = 1.0 - pow(a.beta1, (double)k), c2 = 1.0 - pow(a.beta2, (double)k);
        for (int i = 0; i < 7; i++) {
            rm[i] = a.beta1 * rm[i] + (1.0 - a.beta1) * g[i];
            rv[i] = a.beta2 * rv[i] + (1.0 - a.beta2) * g[i] * g[i];
            rt[i] -= a.lr * (rm[i] / c1) / (sqrt(rv[i] / c2) + a.eps);
            ck_assert_msg(th[i] == rt[i] && mm[i] == rm[i] && vv[i] == rv[i],
                          "step %zu, element %d: theta %.17g, want %.17g", k, i, th[i], rt[i]);
        }
    }
}
END_TEST

/* ---- training ---------------------------------------------------------------- */

/* Steps 1..a then a+1..b give the very same weights as 1..b. */
START_TEST(test_train_in_pieces)
{
    prev_config c = training_config_default(4, 4, 2, 0);
    prev_model m1, m2;
    ck_assert_int_eq(training_model_alloc(&m1, &c), ATT_OK);
    ck_assert_int_eq(training_model_alloc(&m2, &c), ATT_OK);
    gsl_rng *r1 = gsl_rng_alloc(gsl_rng_mt19937), *r2 = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r1, 11); gsl_rng_set(r2, 11);
    training_init(r1, &m1); training_init(r2, &m2);
    ck_assert_int_eq(training_run(r1, &m1, 1, 30, NULL), ATT_OK);
    ck_assert_int_eq(training_run(r2, &m2, 1, 12, NULL), ATT_OK);
    ck_assert_int_eq(training_run(r2, &m2, 13, 30, NULL), ATT_OK);
    ck_assert_int_eq(memcmp(m1.theta->data, m2.theta->data, m1.n * sizeof(double)), 0);
    ck_assert_int_eq(training_run(r1, &m1, 0, 3, NULL), ATT_EUSAGE);
    gsl_rng_free(r1); gsl_rng_free(r2);
    training_model_free(&m1); training_model_free(&m2);
}
END_TEST

/* A tiny run: n_vocab = 4, T = 4, d_k = d_v = 2, separate keys and values,
 * 300 Adam steps: the held-out accuracy must reach 0.95 and the head must
 * put most of its weight on t - 1 (a broken gradient or mask does not). */
START_TEST(test_tiny_training_learns)
{
    prev_config c = training_config_default(4, 4, 2, 0);
    c.heldout = 200;
    prev_model m;
    ck_assert_int_eq(training_model_alloc(&m, &c), ATT_OK);
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 2026);
    training_init(r, &m);
    prev_eval before, after;
    ck_assert_int_eq(training_evaluate(r, &m, &before, NULL), ATT_OK);
    double loss;
    ck_assert_int_eq(training_run(r, &m, 1, 300, &loss), ATT_OK);
    gsl_matrix *A = mat_new(4, 4);
    ck_assert_int_eq(training_evaluate(r, &m, &after, A), ATT_OK);
    printf("  tiny run: accuracy %.3f -> %.3f, weight on t-1 %.3f -> %.3f\n", before.accuracy,
           after.accuracy, before.weight_prev, after.weight_prev);
    ck_assert_msg(after.accuracy >= 0.95, "accuracy %g", after.accuracy);
    ck_assert_msg(after.weight_prev >= 0.9, "weight on t-1 %g", after.weight_prev);
    ck_assert_uint_eq(after.predictions, 200 * 3);
    // the causal mask: no weight above the diagonal, rows sum to 1
    for (size_t i = 0; i < 4; i++) {
        double sum = 0.0;
        for (size_t j = 0; j < 4; j++) {
            if (j > i) ck_assert(gsl_matrix_get(A, i, j) == 0.0);
            sum += gsl_matrix_get(A, i, j);
        }
        ck_assert_double_eq_tol(sum, 1.0, 1e-12);
    }
    mat_free(A);
    gsl_rng_free(r);
    training_model_free(&m);
}
END_TEST

START_TEST(test_bad_config)
{
    prev_model m;
    prev_config c = training_config_default(8, 1, 2, 0);
    ck_assert_int_eq(training_model_alloc(&m, &c), ATT_EUSAGE);
    c = training_config_default(1, 8, 2, 0);
    ck_assert_int_eq(training_model_alloc(&m, &c), ATT_EUSAGE);
    c = training_config_default(8, 8, 0, 0);
    ck_assert_int_eq(training_model_alloc(&m, &c), ATT_EUSAGE);
    c = training_config_default(8, 8, 2, 0);
    c.adam.lr = NAN;
    ck_assert_int_eq(training_model_alloc(&m, &c), ATT_EUSAGE);
}
END_TEST

PROP_MAIN("test_training",
          {"unit", 120, {test_tied_gradient_is_the_sum, test_adam_by_hand, test_train_in_pieces,
                         test_tiny_training_learns, test_bad_config}},
          {"properties", 120, {test_prop_model_gradient}})
