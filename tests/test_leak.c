/* test_leak.c - the naive head's exact re-weighting (lib/claims/selfweight.h, its leak section):
 * E[1 - a_ii] = (T - 1) 2^{-d/2} c(T, d) against plain Monte Carlo of the softmax where
 * the leak is not rare (small d); c(2, d) = 1/2 draw by draw; the bound
 * 1/2 - (T - 2) (2/3)^{d/2} <= c <= 1/2; the interpolated d* against c computed at d*;
 * the T = 2 closed form against quadrature (leak_t2_quadrature_gap); the sweep's
 * derived columns (leak_derive) on real draws of small raw heads where the leak is
 * not rare: the leak's se taken from its ratio to the law (T - 1) 2^(-d/2) equals the
 * plain sample se to rounding; the self-weight CI is 1 - the leak CI; the rse is at least
 * the sample's; a point is shown exactly when its rse is at most LEAK_MAX_RSE; the
 * Wilson CI of argmax-is-self holds its mean; the T = 2 column is the closed form
 * 2^(-d/2 - 1) there and NaN elsewhere.
 * Seeds printed in the messages; statistical checks at 5 standard errors.
 */
#include "prop.h"
#include "selfweight.h"
#include "softmax.h"
#include "statistics.h"

#include <float.h>
#include <math.h>
#include <gsl/gsl_randist.h>

START_TEST(test_two_tokens_exactly_half)
{
    gsl_rng *rng = rng_new("mt19937", 11);
    PROP_FOR(k, rng, "c(2, d) draw = 1/2")
    {
        double d = 0.5 + 200.0 * gsl_rng_uniform(rng), c = leak_c_draw(rng, 2, d);
        PROP_ASSERT(fabs(c - 0.5) <= 4 * DBL_EPSILON, "d %g: %.17g", d, c);
    }
    gsl_rng_free(rng);
}
END_TEST

/* plain Monte Carlo: the leak of row 0 of X (T, d), X ~ N(0, 1), S = X X^T */
static double plain_leak(gsl_rng *rng, size_t T, size_t d)
{
    double x[16][16], s[16];
    for (size_t j = 0; j < T; j++)
        for (size_t m = 0; m < d; m++) x[j][m] = gsl_ran_gaussian_ziggurat(rng, 1.0);
    for (size_t j = 0; j < T; j++) {
        s[j] = 0.0;
        for (size_t m = 0; m < d; m++) s[j] += x[0][m] * x[j][m];
    }
    return 1.0 - exp(s[0] - softmax_logsumexp(s, T));
}

START_TEST(test_against_plain_softmax)
{
    const size_t Ts[] = {3, 5, 12}, ds[] = {1, 2, 4, 6};
    gsl_rng *rng = rng_new("mt19937", 12);
    for (size_t a = 0; a < 3; a++)
        for (size_t b = 0; b < 4; b++) {
            size_t T = Ts[a], d = ds[b];
            stat_acc p, c;
            stat_init(&p);
            stat_init(&c);
            for (int n = 0; n < 60000; n++) {
                stat_push(&p, plain_leak(rng, T, d));
                stat_push(&c, (T - 1.0) * exp2(-0.5 * d) * leak_c_draw(rng, T, (double)d));
            }
            double z = (p.mean - c.mean) / hypot(stat_se(&p), stat_se(&c));
            ck_assert_msg(fabs(z) < 5.0,
                          "T %zu d %zu: softmax %.6f +- %.2g, re-weighted %.6f +- %.2g (seed 12)",
                          T, d, p.mean, stat_se(&p), c.mean, stat_se(&c));
        }
    gsl_rng_free(rng);
}
END_TEST

START_TEST(test_bounds)
{
    /* 1/(a + U) >= 1/a - U for a >= 1, U >= 0, and E e^{u_k} = E e^{-r/2} = (2/3)^{d/2} */
    gsl_rng *rng = rng_new("mt19937", 13);
    const size_t Ts[] = {3, 12, 256};
    const double ds[] = {8, 20, 40, 64};
    for (size_t a = 0; a < 3; a++)
        for (size_t b = 0; b < 4; b++) {
            stat_acc c;
            stat_init(&c);
            for (int n = 0; n < 4000; n++) stat_push(&c, leak_c_draw(rng, Ts[a], ds[b]));
            double low = 0.5 - (Ts[a] - 2.0) * pow(2.0 / 3.0, 0.5 * ds[b]), tol = 5.0 * stat_se(&c);
            ck_assert_msg(c.mean <= 0.5 + tol && c.mean >= low - tol,
                          "T %zu d %g: c = %.6f not in [%.6f, 0.5] (seed 13)", Ts[a], ds[b], c.mean,
                          low);
        }
    gsl_rng_free(rng);
}
END_TEST

START_TEST(test_dstar_interpolation)
{
    /* at the interpolated d*, c computed there gives the leak 1 - level */
    gsl_rng *rng = rng_new("mt19937", 14);
    const size_t Ts[] = {4, 12, 64};
    for (size_t a = 0; a < 3; a++) {
        leak_width w;
        ck_assert_int_eq(leak_dstar(rng, Ts[a], 0.995, 40000, &w), 0);
        stat_acc c;
        stat_init(&c);
        for (int n = 0; n < 40000; n++) stat_push(&c, leak_c_draw(rng, Ts[a], w.d_star));
        double y = leak_log_leak(Ts[a], w.d_star, c.mean), se = stat_se(&c) / c.mean;
        double slope = 0.5 * M_LN2;   /* |d ln leak / d d|, near enough for the tolerance */
        ck_assert_msg(fabs(y - log(0.005)) < 5.0 * hypot(se, slope * w.se),
                      "T %zu: d* = %.4f +- %.4f, ln leak there %.5f vs %.5f (seed 14)", Ts[a],
                      w.d_star, w.se, y, log(0.005));
    }
    gsl_rng_free(rng);
}
END_TEST

/* the T = 2 closed form 2^(-d/2 - 1) against quadrature, and the gap is a maximum over d */
START_TEST(test_quadrature_gap)
{
    double g12 = leak_t2_quadrature_gap(12), g6 = leak_t2_quadrature_gap(6);
    ck_assert_msg(g12 <= 1e-6, "quadrature gap over d = 1..12: %g", g12);
    ck_assert_msg(g6 <= g12, "gap over d = 1..6 %g exceeds the one over 1..12 %g", g6, g12);
    ck_assert_msg(leak_t2_quadrature_gap(0) == 0.0, "no width: gap %g", leak_t2_quadrature_gap(0));
}
END_TEST

START_TEST(test_derive_on_draws)
{
    gsl_rng *rng = rng_new("mt19937", prop_seed());
    selfweight_config max = {8, 8, 0, 0.0, 0};
    selfweight_work *w = selfweight_scratch_new(&max);
    ck_assert_ptr_nonnull(w);
    PROP_FOR(k, rng, "leak_derive on draws")
    {
        sweep_point pt = {.T = 2 + gsl_rng_uniform_int(rng, 7),
                          .d = 1 + gsl_rng_uniform_int(rng, 8)};
        pt.draws = 50 + gsl_rng_uniform_int(rng, 200);
        selfweight_config c = {pt.T, pt.d, 0, 0.0, 0};
        stat_acc leak, ratio, argmax;
        stat_init(&leak);
        stat_init(&ratio);
        stat_init(&argmax);
        for (size_t n = 0; n < pt.draws; n++) {
            double sw[SW_NSTAT];
            PROP_ASSERT(selfweight_draw(rng, &c, w, sw) == ATT_OK, "T %zu d %zu: draw failed", pt.T,
                        pt.d);
            stat_push(&leak, sw[SW_LEAK]);
            stat_push(&ratio, sw[SW_LEAK_LAW]);
            stat_push(&argmax, sw[SW_ARGMAX]);
        }
        double col[LEAK_ND];
        leak_derive(col, &pt, &leak, &ratio, &argmax);
        double law = selfweight_leak_law(pt.T, (double)pt.d), se = stat_se(&leak);
        PROP_ASSERT(fabs(col[LEAK_LAW] - law) <= 4 * DBL_EPSILON * law, "T %zu d %zu: law %g vs %g",
                    pt.T, pt.d, col[LEAK_LAW], law);
        PROP_ASSERT(fabs(col[LEAK_LSE] - se) <= 1e-10 * se + 1e-300,
                    "T %zu d %zu: se from the ratio %.17g, "
                    "plain %.17g",
                    pt.T, pt.d, col[LEAK_LSE], se);
        double mid = 0.5 * (col[LEAK_LLO] + col[LEAK_LHI]);
        PROP_ASSERT(fabs(mid - leak.mean) <= 8 * DBL_EPSILON,
                    "T %zu d %zu: leak CI centre %.17g, mean %.17g", pt.T, pt.d, mid, leak.mean);
        PROP_ASSERT(col[LEAK_SLO] == 1.0 - col[LEAK_LHI] &&
                    col[LEAK_SHI] == 1.0 - col[LEAK_LLO], "T %zu d %zu: self CI is not 1 - leak CI",
                    pt.T, pt.d);
        PROP_ASSERT(col[LEAK_RSE] >= col[LEAK_LSE] / leak.mean, "T %zu d %zu: rse %g below the "
                    "sample's %g", pt.T, pt.d, col[LEAK_RSE], col[LEAK_LSE] / leak.mean);
        PROP_ASSERT(col[LEAK_SHOWN] == (col[LEAK_RSE] <= LEAK_MAX_RSE), "T %zu d %zu: shown "
                    "%g with rse %g", pt.T, pt.d, col[LEAK_SHOWN], col[LEAK_RSE]);
        PROP_ASSERT(0.0 <= col[LEAK_ALO] && col[LEAK_ALO] <= argmax.mean + 1e-12 &&
                        argmax.mean <= col[LEAK_AHI] + 1e-12 && col[LEAK_AHI] <= 1.0,
                    "T %zu d %zu: argmax %g outside its Wilson CI [%g, %g]", pt.T, pt.d,
                    argmax.mean, col[LEAK_ALO], col[LEAK_AHI]);
        double t2 = col[LEAK_T2];
        PROP_ASSERT(pt.T == 2 ? fabs(t2 - exp2(-0.5 * (double)pt.d - 1.0)) <= 4 * DBL_EPSILON * t2
                              : isnan(t2),
                    "T %zu d %zu: leak_exact_t2 %g", pt.T, pt.d, t2);
    }
    selfweight_scratch_delete(w);
    gsl_rng_free(rng);
}
END_TEST

PROP_MAIN("leak",
          {"core",
           120,
           {test_two_tokens_exactly_half, test_against_plain_softmax, test_bounds,
            test_dstar_interpolation, test_quadrature_gap}},
          {"derive", 60, {test_derive_on_draws}})
