/* test_tiedhead.c - the exact tied previous-token head (lib/claims/tiedhead.h): accuracy 1
 * and a_{t,t-1} >= 1 - T e^{-2 lambda} on held-out random sequences for random (n_vocab, T)
 * at d_k = 2 and 3, from a printed seed; without the causal mask the same weights fail
 * (T >= 4), as the construction says they must.
 */
#include "prop.h"
#include "tiedhead.h"
#include "att.h"

#include <math.h>

static double eval(gsl_rng *rng, size_t V, size_t T, size_t dk, int causal, prev_eval *ev, double *wmin)
{
    prev_config c = prevtrain_config_default(V, T, dk, 1);
    c.heldout = 300;
    prev_model m;
    ck_assert_int_eq(prevtrain_model_alloc(&m, &c), ATT_OK);
    ck_assert_int_eq(tiedhead_exact(&m, 12.0), ATT_OK);
    m.p.causal = causal;
    gsl_matrix *A = gsl_matrix_alloc(T, T);
    ck_assert_int_eq(prevtrain_evaluate(rng, &m, ev, A), ATT_OK);
    *wmin = 1.0;
    for (size_t t = 1; t < T; t++) *wmin = fmin(*wmin, gsl_matrix_get(A, t, t - 1));   /* mean over sequences */
    gsl_matrix_free(A);
    prevtrain_model_free(&m);
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
        PROP_ASSERT(acc == 1.0, "n_vocab %zu T %zu d_k %zu: accuracy %.6f (%zu of %zu)", V, T, dk, acc, ev.correct,
                    ev.predictions);
        PROP_ASSERT(wmin >= 1.0 - (double)T * exp(-24.0), "n_vocab %zu T %zu: mean a_{t,t-1} %.12f", V, T, wmin);
    }
    gsl_rng_free(rng);
}
END_TEST

START_TEST(test_fails_without_mask)
{
    gsl_rng *rng = rng_new("mt19937", 32);
    const size_t Ts[] = {4, 8, 16};
    for (int i = 0; i < 3; i++) {
        prev_eval ev;
        double wmin, acc = eval(rng, 8, Ts[i], 2, 0, &ev, &wmin);
        ck_assert_msg(acc < 0.9, "T %zu without the mask: accuracy %.4f, expected the 1-D code to fail", Ts[i], acc);
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
    suite_add_tcase(s, tc);
    return prop_run_suite(s);
}
