/* test_tiedhead.c - the exact tied previous-token head (lib/claims/training.h, its last section): accuracy 1
 * and a_{t,t-1} >= 1 - T e^{-2 lambda} on held-out random sequences for random (n_vocab, T)
 * at d_k = 2 and 3, from a printed seed; without the causal mask the same weights fail
 * (T >= 4), as the construction says they must. The domain (the leak condition): at the
 * largest vocabulary accepted, TIEDHEAD_MAX_VOCAB, with the scale max(12, lambda_min), accuracy 1 on random
 * sequences and on the worst one (token 0 two places after the largest token), logits
 * finite; the planted defect, the old fixed lambda = 12 beyond its domain (n_vocab 20), fails
 * on that sequence, and tiedhead_exact refuses it.
 */
#include "prop.h"
#include "training.h"
#include "status.h"

#include <math.h>

/* The scale the checks below use at n_vocab: max(12, tiedhead_min_scale(n_vocab)), 12 where
 * it suffices (the experiment's); NaN outside the domain (fmax would drop it). */
static double tied_scale(size_t n_vocab)
{
    double m = tiedhead_min_scale(n_vocab);
    return isnan(m) ? NAN : fmax(12.0, m);
}

static double eval(gsl_rng *rng, size_t V, size_t T, size_t dk, int causal, prev_eval *ev,
                   double *wmin)
{
    prev_config c = training_config_default(V, T, dk, 1);
    c.heldout = 300;
    prev_model m;
    ck_assert_int_eq(training_model_alloc(&m, &c), ATT_OK);
    ck_assert_int_eq(tiedhead_exact(&m, 12.0), ATT_OK);
    m.p.causal = causal;
    gsl_matrix *A = gsl_matrix_alloc(T, T);
    ck_assert_int_eq(training_evaluate(rng, &m, ev, A), ATT_OK);
    *wmin = 1.0;
    for (size_t t = 1; t < T; t++)
        *wmin = fmin(*wmin, gsl_matrix_get(A, t, t - 1));   /* mean over sequences */
    gsl_matrix_free(A);
    training_model_free(&m);
    return ev->accuracy;
}

START_TEST(test_exact_with_mask)
{
    gsl_rng *rng = rng_new("mt19937", 31);
    PROP_FOR(k, rng, "exact tied head: accuracy 1")
    {
        if (k >= 40) break;
        size_t V = prop_size(rng, 2, 12), T = prop_size(rng, 2, 24), dk = prop_size(rng, 2, 3);
        prev_eval ev;
        double wmin, acc = eval(rng, V, T, dk, 1, &ev, &wmin);
        PROP_ASSERT(acc == 1.0, "n_vocab %zu T %zu d_k %zu: accuracy %.6f (%zu of %zu)", V, T, dk,
                    acc, ev.correct, ev.predictions);
        PROP_ASSERT(wmin >= 1.0 - (double)T * exp(-24.0), "n_vocab %zu T %zu: mean a_{t,t-1} %.12f",
                    V, T, wmin);
    }
    gsl_rng_free(rng);
}
END_TEST

/* the worst sequence of training.h's tied head: period 3, (V - 1, V - 1, 0): every t with token_{t-1} = 0
 * has the largest token at t - 3, whose leak e^{-2 lambda} 4^{V-1} lifts the slope of 0 */
static size_t worst_correct(prev_model *m, size_t V, size_t T, double *loss)
{
    size_t tok[64], ok = 0;
    for (size_t t = 0; t < T; t++) tok[t] = t % 3 == 2 ? 0 : V - 1;
    ck_assert_int_eq(training_forward(m, tok, loss, &ok), ATT_OK);
    return ok;
}

START_TEST(test_largest_vocab)
{
    gsl_rng *rng = rng_new("mt19937", 33);
    const size_t V = TIEDHEAD_MAX_VOCAB, Ts[] = {3, 8, 17, 24};
    double lambda = tied_scale(V);
    ck_assert_msg(isfinite(lambda) && lambda > 12.0, "n_vocab %zu: scale %g", V, lambda);
    ck_assert_msg(isnan(tied_scale(V + 1)) && isnan(tiedhead_min_scale(1)),
                  "the domain's ends");
    ck_assert_msg(tied_scale(8) == 12.0 && tied_scale(17) == 12.0
                  && tied_scale(18) > 12.0,
                  "lambda = 12 holds up to n_vocab 17 (the cited rows: 8)");
    for (size_t i = 0; i < sizeof Ts / sizeof Ts[0]; i++) {
        size_t T = Ts[i];
        prev_config c = training_config_default(V, T, 2, 1);
        c.heldout = 60;
        prev_model m;
        ck_assert_int_eq(training_model_alloc(&m, &c), ATT_OK);
        ck_assert_int_eq(tiedhead_exact(&m, lambda), ATT_OK);
        prev_eval ev;
        ck_assert_int_eq(training_evaluate(rng, &m, &ev, NULL), ATT_OK);
        ck_assert_msg(ev.accuracy == 1.0 && isfinite(ev.loss),
                      "n_vocab %zu T %zu: accuracy %.6f, loss %g", V, T, ev.accuracy, ev.loss);
        double loss;
        size_t ok = worst_correct(&m, V, T, &loss);
        ck_assert_msg(ok == T - 1 && isfinite(loss),
                      "n_vocab %zu T %zu worst sequence: %zu of %zu, loss %g", V, T, ok, T - 1,
                      loss);
        training_model_free(&m);
    }
    gsl_rng_free(rng);
}
END_TEST

START_TEST(test_fixed_scale_fails_outside)
{
    const size_t V = 20, T = 17;
    prev_config c = training_config_default(V, T, 2, 1);
    prev_model m;
    ck_assert_int_eq(training_model_alloc(&m, &c), ATT_OK);
    ck_assert_int_eq(tiedhead_exact(&m, 12.0), ATT_EUSAGE);   /* refused: below the condition */
    double lambda = tied_scale(V), loss;
    ck_assert_int_eq(tiedhead_exact(&m, lambda), ATT_OK);
    ck_assert_uint_eq(worst_correct(&m, V, T, &loss), T - 1);
    // the planted defect: the old construction, lambda = 12 whatever n_vocab
    // (W_Q is linear in lambda)
    gsl_matrix_scale(&m.W_Q.matrix, 12.0 / lambda);
    size_t ok = worst_correct(&m, V, T, &loss);
    ck_assert_msg(ok < T - 1, "lambda 12 at n_vocab %zu: %zu of %zu right, the leak should mislead",
                  V, ok, T - 1);
    training_model_free(&m);
}
END_TEST

START_TEST(test_fails_without_mask)
{
    gsl_rng *rng = rng_new("mt19937", 32);
    const size_t Ts[] = {4, 8, 16};
    for (int i = 0; i < 3; i++) {
        prev_eval ev;
        double wmin, acc = eval(rng, 8, Ts[i], 2, 0, &ev, &wmin);
        ck_assert_msg(acc < 0.9, "T %zu without the mask: accuracy %.4f, expected the 1-D code "
                      "to fail", Ts[i], acc);
    }
    gsl_rng_free(rng);
}
END_TEST

int main(void)
{
    prop_announce("test_tiedhead");
    Suite *s = suite_create("tiedhead");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_exact_with_mask);
    tcase_add_test(tc, test_fails_without_mask);
    tcase_add_test(tc, test_largest_vocab);
    tcase_add_test(tc, test_fixed_scale_fails_outside);
    suite_add_tcase(s, tc);
    return prop_run_suite(s);
}
