/* test_excess.c - the soft-softmax law of random_projections' excess (lib/claims/selfweight.h,
 * its excess section):
 * the control variate's known mean (the second-order term's mean is the law, checked here by
 * plain Monte Carlo, so the law is not assumed), the antithetic pair (the same mean as the plain
 * pair; at T = 2 exactly 0, every order being odd there), the estimate against an independent
 * computation (T a_00 - 1 by plain rows: no control row, no pair, no expansion) and a planted
 * bias caught by that comparison, and the CI's coverage over replicate seeds on a regression
 * with a known answer, with a misstated control mean caught; the top-up to a standard error
 * is the fit on all its draws. Fixed seeds.
 */
#include "prop.h"
#include "curve.h"
#include "selfweight.h"
#include "randn.h"
#include "softmax.h"
#include "statistics.h"

#include <float.h>
#include <math.h>
#include <gsl/gsl_randist.h>

START_TEST(test_control_variate_mean)
{
    gsl_rng *rng = rng_new("mt19937", 21);
    const size_t cases[][3] = {{4, 8, 2}, {16, 16, 4}};
    const double sds[] = {0.5, 1.0};
    for (int a = 0; a < 2; a++)
        for (int b = 0; b < 2; b++) {
            size_t T = cases[a][0], d = cases[a][1], dk = cases[a][2];
            double c = sqrt(sds[b] / sqrt((double)dk)), law = excess_law(T, d, dk, c);
            stat_acc q2, diff;
            stat_init(&q2);
            stat_init(&diff);
            for (size_t n = 0; n < prop_draws(40000); n++) {
                double o[RPX_NOUT];
                excess_draw(rng, T, d, dk, c, o);
                stat_push(&q2, o[RPX_Q2]);
                stat_push(&diff, o[RPX_ANTI] - o[RPX_PLAIN]);   /* mean 0: -W_K has W_K's law */
            }
            ck_assert_msg(fabs(q2.mean - law) < 5.0 * stat_se(&q2),
                          "T %zu d %zu d_k %zu sd %g: Q2 mean %.6g +- %.2g, "
                          "law %.6g (seed 21)",
                          T, d, dk, sds[b], q2.mean, stat_se(&q2), law);
            ck_assert_msg(fabs(diff.mean) < 5.0 * stat_se(&diff),
                          "T %zu d %zu d_k %zu sd %g: antithetic - plain pair "
                          "%.3g +- %.2g (seed 21)",
                          T, d, dk, sds[b], diff.mean, stat_se(&diff));
        }
    gsl_rng_free(rng);
}
END_TEST

/* T = 2: a_11(s) + a_11(-s) = sigma(s_11 - s_12) + sigma(s_12 - s_11) = 1 for the row and its
 * control alike, so the antithetic pair's excess is 0 up to rounding, draw by draw */
START_TEST(test_antithetic_exact_at_two)
{
    gsl_rng *rng = rng_new("mt19937", 23);
    for (int n = 0; n < 1000; n++) {
        double o[RPX_NOUT];
        excess_draw(rng, 2, 8, 4, 1.5, o);
        ck_assert_msg(fabs(o[RPX_ANTI]) <= 16 * DBL_EPSILON,
                      "draw %d: T = 2 antithetic excess %g (seed 23)", n, o[RPX_ANTI]);
    }
    gsl_rng_free(rng);
}
END_TEST

/* T a_00 - 1 of one plain draw: X (T, d), W ~ N(0, c^2/d), s_0j = x_0^T W_Q W_K^T x_j */
static double plain_excess(gsl_rng *rng, size_t T, size_t d, size_t dk, double c)
{
    double X[16][16], WQ[16][4], WK[16][4], q[4] = {0}, s[16];
    /* GSL's ziggurat values (randn_fill; Box-Muller's gsl_ran_gaussian took most of the suite's
     * CPU), row by row: an independent draw all the same (excess_draw fills other matrices) */
    for (size_t j = 0; j < T; j++) randn_fill(rng, X[j], d, 1.0);
    for (size_t m = 0; m < d; m++) randn_fill(rng, WQ[m], dk, c / sqrt((double)d));
    for (size_t m = 0; m < d; m++) randn_fill(rng, WK[m], dk, c / sqrt((double)d));
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

/* the comparison's case: T, d, d_k, c (score sd 2) */
enum { CMP_T = 16, CMP_D = 16, CMP_DK = 4 };
static const double CMP_C = 1.0;

/* The mean of P plain rows at score sd 2 (excess ~0.1, where plain rows are precise), seed 122:
 * drawn once, the reference of both comparisons below (the estimate and the planted one) */
static stat_acc plain_rows(void)
{
    const size_t P = prop_draws(200000);
    gsl_rng *rng = rng_new("mt19937", 122);
    stat_acc p;
    stat_init(&p);
    for (size_t n = 0; n < P; n++) stat_push(&p, plain_excess(rng, CMP_T, CMP_D, CMP_DK, CMP_C));
    gsl_rng_free(rng);
    return p;
}

/* z of excess_estimate (with a planted bias; seed 22, the same draws whatever the plant)
 * against the plain rows' mean p: z = (yh - p) / sqrt(se^2 + se_p^2) */
static double z_against_plain(const stat_acc *p, double plant, double *se_est)
{
    const size_t N = prop_draws(40000);
    gsl_rng *rng = rng_new("mt19937", 22);
    double yh, se;
    ck_assert_int_eq(excess_estimate(rng, CMP_T, CMP_D, CMP_DK, CMP_C, N, plant, &yh, &se), ATT_OK);
    gsl_rng_free(rng);
    *se_est = hypot(se, stat_se(p));
    return (yh - p->mean) / *se_est;
}

START_TEST(test_estimate_against_plain_rows)
{
    stat_acc p = plain_rows();
    double se, z = z_against_plain(&p, 0.0, &se);
    ck_assert_msg(fabs(z) < 4.0,
                  "antithetic pairs + control variate against plain rows: z = %.2f "
                  "(seeds 22, 122)", z);
    /* the same comparison sees a bias of 6 combined standard errors planted in the estimator */
    double zp = z_against_plain(&p, 6.0 * se, &se);
    ck_assert_msg(fabs(zp) > 4.0, "a planted bias of 6 se went unseen: z = %.2f (seeds 22, 122)",
                  zp);
}
END_TEST

/* Coverage of curve_fit's 95% CI over R replicate seeds on a case with a known answer, shaped
 * like the excess's: Y = mu + beta X + e, X = chi^2_1 - 1 (mean 0 known, skewed, like
 * Q2 - law), e skewed and heteroscedastic (e = (z^2 - 1)/2 + X u / 2, mean 0 given X).
 * shift: misstate the control's mean by this much (0: correct). Returns the misses. */
static int coverage_misses(size_t R, size_t n, double shift)
{
    const double mu = 0.3, beta = 1.7;
    double *Y = malloc(n * sizeof *Y), *X = malloc(n * sizeof *X);
    ck_assert(Y && X);
    int miss = 0;
    for (size_t r = 0; r < R; r++) {
        gsl_rng *rng = rng_new("mt19937", rng_stream_seed(24, 0xC0FE, r));
        for (size_t i = 0; i < n; i++) {
            double g = gsl_ran_gaussian_ziggurat(rng, 1.0), z = gsl_ran_gaussian_ziggurat(rng, 1.0);
            double u = gsl_ran_gaussian_ziggurat(rng, 1.0);
            X[i] = g * g - 1.0;
            Y[i] = mu + beta * X[i] + 0.5 * (z * z - 1.0) + 0.5 * X[i] * u;
            X[i] -= shift;
        }
        double yh, V;
        ck_assert_int_eq(curve_fit(Y, n, 1, X, 1, &yh, &V), ATT_OK);
        if (fabs(yh - mu) > STAT_Z95 * sqrt(V)) miss++;
        gsl_rng_free(rng);
    }
    free(Y);
    free(X);
    return miss;
}

START_TEST(test_ci_coverage)
{
    /* 400 replicates: misses ~ Binomial(400, 0.05), mean 20, sd 4.4; [8, 34] is beyond 3 sd */
    int miss = coverage_misses(400, 2000, 0.0);
    ck_assert_msg(miss >= 8 && miss <= 34,
                  "95%% CI missed the known mean %d times in 400 (seed 24)", miss);
    /* a control mean misstated by 0.05 (the estimate off by beta 0.05 = 0.085, ~3 se) is caught */
    int planted = coverage_misses(400, 2000, 0.05);
    ck_assert_msg(planted > 100, "a misstated control mean went unseen: %d misses in 400 (seed 24)",
                  planted);
}
END_TEST

/* The top-up (excess_estimate_to): from 500 draws to a standard error half the 500-draw one
 * it stops at se <= the target, with about 4 x 500 draws, and its estimate is the fit on all
 * of them: the same bits as excess_estimate with that count on the same stream; a cap stops
 * it at n_max; se_target 0 takes exactly n */
START_TEST(test_top_up)
{
    const size_t n0 = 500;
    double c = sqrt(0.5 / 2.0), y0, se0, y1, se1, y2, se2;
    size_t used;
    gsl_rng *rng = rng_new("mt19937", 25);
    ck_assert_int_eq(excess_estimate(rng, 16, 16, 4, c, n0, 0.0, &y0, &se0), ATT_OK);
    gsl_rng_set(rng, 25);
    ck_assert_int_eq(excess_estimate_to(rng, 16, 16, 4, c, n0, 100000, 0.5 * se0, 0.0, &y1, &se1,
                                        &used), ATT_OK);
    ck_assert_msg(se1 <= 0.5 * se0 && used >= 3 * n0 && used <= 8 * n0,
                  "top-up: se %.3g (target %.3g) after %zu draws (seed 25)", se1, 0.5 * se0, used);
    gsl_rng_set(rng, 25);
    ck_assert_int_eq(excess_estimate(rng, 16, 16, 4, c, used, 0.0, &y2, &se2), ATT_OK);
    ck_assert_msg(y1 == y2 && se1 == se2, "top-up %.17g +- %.17g, all %zu at once %.17g +- %.17g",
                  y1, se1, used, y2, se2);
    gsl_rng_set(rng, 25);
    ck_assert_int_eq(excess_estimate_to(rng, 16, 16, 4, c, n0, 700, 0.5 * se0, 0.0, &y1, &se1,
                                        &used), ATT_OK);
    ck_assert_uint_eq(used, 700);
    gsl_rng_set(rng, 25);
    ck_assert_int_eq(excess_estimate_to(rng, 16, 16, 4, c, n0, 100000, 0.0, 0.0, &y1, &se1,
                                        &used), ATT_OK);
    ck_assert_msg(used == n0 && y1 == y0 && se1 == se0, "se_target 0: %zu draws", used);
    gsl_rng_free(rng);
}
END_TEST

int main(void)
{
    prop_announce("test_excess");
    Suite *s = suite_create("excess");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_control_variate_mean);
    tcase_add_test(tc, test_antithetic_exact_at_two);
    tcase_add_test(tc, test_estimate_against_plain_rows);
    tcase_add_test(tc, test_ci_coverage);
    tcase_add_test(tc, test_top_up);
    suite_add_tcase(s, tc);
    return prop_run_suite(s);
}
