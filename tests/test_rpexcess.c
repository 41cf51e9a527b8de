/* test_rpexcess.c - the soft-softmax law of random_projections' excess (lib/claims/rpexcess.h):
 * the control variates' known means (first and third order 0; the second-order term's mean
 * is the law, checked here by plain Monte Carlo, so the law is not assumed), and the
 * control-variate estimate against an independent computation: T a_ii - 1 by plain rows
 * (no control row, no expansion). Fixed seeds, 5 standard errors.
 */
#include "prop.h"
#include "cvreg.h"
#include "rpexcess.h"
#include "softmax.h"
#include "stat.h"

#include <math.h>
#include <gsl/gsl_randist.h>

START_TEST(test_control_variate_means)
{
    gsl_rng *rng = rng_new("mt19937", 21);
    const size_t cases[][3] = {{4, 8, 2}, {16, 16, 4}};
    const double sds[] = {0.5, 1.0};
    for (int a = 0; a < 2; a++)
        for (int b = 0; b < 2; b++) {
            size_t T = cases[a][0], d = cases[a][1], dk = cases[a][2];
            double c = sqrt(sds[b] / sqrt((double)dk)), law = rpexcess_law(T, d, dk, c);
            stat_acc s[RPX_NOUT];
            for (int k = 0; k < RPX_NOUT; k++) stat_init(&s[k]);
            for (int n = 0; n < 40000; n++) {
                double o[RPX_NOUT];
                rpexcess_draw(rng, T, d, dk, c, o);
                for (int k = 0; k < RPX_NOUT; k++) stat_push(&s[k], o[k]);
            }
            const double want[RPX_NOUT] = {NAN, 0.0, law, 0.0, 0.0};
            for (int k = 1; k < RPX_NOUT; k++)
                ck_assert_msg(fabs(s[k].mean - want[k]) < 5.0 * stat_se(&s[k]),
                              "T %zu d %zu d_k %zu sd %g: statistic %d mean %.6g +- %.2g, known %.6g (seed 21)", T, d, dk,
                              sds[b], k, s[k].mean, stat_se(&s[k]), want[k]);
        }
    gsl_rng_free(rng);
}
END_TEST

/* T a_00 - 1 of one plain draw: X (T, d), W ~ N(0, c^2/d), s_0j = x_0^T W_Q W_K^T x_j */
static double plain_excess(gsl_rng *rng, size_t T, size_t d, size_t dk, double c)
{
    double X[16][16], WQ[16][4], WK[16][4], q[4] = {0}, s[16];
    for (size_t j = 0; j < T; j++) for (size_t m = 0; m < d; m++) X[j][m] = gsl_ran_gaussian(rng, 1.0);
    for (size_t m = 0; m < d; m++) for (size_t a = 0; a < dk; a++) WQ[m][a] = gsl_ran_gaussian(rng, c / sqrt((double)d));
    for (size_t m = 0; m < d; m++) for (size_t a = 0; a < dk; a++) WK[m][a] = gsl_ran_gaussian(rng, c / sqrt((double)d));
    for (size_t a = 0; a < dk; a++) for (size_t m = 0; m < d; m++) q[a] += X[0][m] * WQ[m][a];
    for (size_t j = 0; j < T; j++) {
        s[j] = 0.0;
        for (size_t a = 0; a < dk; a++) {
            double k = 0.0;
            for (size_t m = 0; m < d; m++) k += X[j][m] * WK[m][a];
            s[j] += q[a] * k;
        }
    }
    return (double)T * exp(s[0] - softmax_logsumexp(s, T)) - 1.0;
}

START_TEST(test_estimate_against_plain_rows)
{
    /* at score sd 2 (excess ~0.1, where plain rows are precise): the control-variate
     * estimate and the plain mean of T a_00 - 1 */
    enum { N = 40000, P = 200000 };
    static double Y[N], X[N * 4];
    gsl_rng *rng = rng_new("mt19937", 22);
    size_t T = 16, d = 16, dk = 4;
    double c = sqrt(2.0 / 2.0), law = rpexcess_law(T, d, dk, c), yh, V;
    for (int n = 0; n < N; n++) {
        double o[RPX_NOUT];
        rpexcess_draw(rng, T, d, dk, c, o);
        Y[n] = o[0];
        X[4 * n] = o[1], X[4 * n + 1] = o[2] - law, X[4 * n + 2] = o[3], X[4 * n + 3] = o[4];
    }
    ck_assert_int_eq(cvreg_fit(Y, N, 1, X, 4, &yh, &V), 0);
    stat_acc p;
    stat_init(&p);
    for (int n = 0; n < P; n++) stat_push(&p, plain_excess(rng, T, d, dk, c));
    double z = (yh - p.mean) / hypot(sqrt(V), stat_se(&p));
    ck_assert_msg(fabs(z) < 5.0, "control variates %.5f +- %.5f, plain rows %.5f +- %.5f (seed 22)", yh, sqrt(V), p.mean,
                  stat_se(&p));
    gsl_rng_free(rng);
}
END_TEST

int main(void)
{
    prop_announce("test_rpexcess");
    Suite *s = suite_create("rpexcess");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_control_variate_means);
    tcase_add_test(tc, test_estimate_against_plain_rows);
    suite_add_tcase(s, tc);
    return prop_run_suite(s);
}
