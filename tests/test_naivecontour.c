/* test_naivecontour.c - the naive sweep's derived columns (lib/claims/naivecontour.h) on
 * real draws of small raw heads X (T, d) ~ N(0, 1), S = X X^T, where the leak is not rare:
 * the leak's se taken from its ratio to the law (T - 1) 2^(-d/2) equals the plain sample se
 * to rounding; the self-weight CI is 1 - the leak CI; the rse is at least the sample's;
 * a point is shown exactly when its rse is at most NAIVECONTOUR_MAX_RSE; the Wilson CI of
 * argmax-is-self holds its mean; the T = 2 column is the closed form 2^(-d/2 - 1) there
 * and NaN elsewhere. Random (T, d) from a printed seed; a failure prints the replay.
 */
#include "prop.h"
#include "naivecontour.h"
#include "selfweight.h"
#include "stat.h"

#include <float.h>
#include <math.h>

START_TEST(test_derive_on_draws)
{
    gsl_rng *rng = rng_new("mt19937", prop_seed());
    selfweight_config max = {8, 8, 0, 0.0, 0};
    selfweight_work *w = selfweight_scratch_new(&max);
    ck_assert_ptr_nonnull(w);
    PROP_FOR(k, rng, "naivecontour_derive on draws")
    {
        sweep_point pt = {.T = 2 + gsl_rng_uniform_int(rng, 7), .d = 1 + gsl_rng_uniform_int(rng, 8)};
        pt.draws = 50 + gsl_rng_uniform_int(rng, 200);
        selfweight_config c = {pt.T, pt.d, 0, 0.0, 0};
        stat_acc leak, ratio, argmax;
        stat_init(&leak);
        stat_init(&ratio);
        stat_init(&argmax);
        for (size_t n = 0; n < pt.draws; n++) {
            double sw[SW_NSTAT];
            PROP_ASSERT(selfweight_draw(rng, &c, w, sw) == ATT_OK, "T %zu d %zu: draw failed", pt.T, pt.d);
            stat_push(&leak, sw[SW_LEAK]);
            stat_push(&ratio, sw[SW_LEAK_LAW]);
            stat_push(&argmax, sw[SW_ARGMAX]);
        }
        double col[NAIVECONTOUR_ND];
        naivecontour_derive(col, &pt, &leak, &ratio, &argmax);
        double law = selfweight_leak_law(pt.T, (double)pt.d), se = stat_se(&leak);
        PROP_ASSERT(fabs(col[NAIVECONTOUR_LAW] - law) <= 4 * DBL_EPSILON * law, "T %zu d %zu: law %g vs %g", pt.T,
                    pt.d, col[NAIVECONTOUR_LAW], law);
        PROP_ASSERT(fabs(col[NAIVECONTOUR_LSE] - se) <= 1e-10 * se + 1e-300, "T %zu d %zu: se from the ratio %.17g, "
                    "plain %.17g", pt.T, pt.d, col[NAIVECONTOUR_LSE], se);
        double mid = 0.5 * (col[NAIVECONTOUR_LLO] + col[NAIVECONTOUR_LHI]);
        PROP_ASSERT(fabs(mid - leak.mean) <= 8 * DBL_EPSILON, "T %zu d %zu: leak CI centre %.17g, mean %.17g", pt.T,
                    pt.d, mid, leak.mean);
        PROP_ASSERT(col[NAIVECONTOUR_SLO] == 1.0 - col[NAIVECONTOUR_LHI] &&
                    col[NAIVECONTOUR_SHI] == 1.0 - col[NAIVECONTOUR_LLO], "T %zu d %zu: self CI is not 1 - leak CI",
                    pt.T, pt.d);
        PROP_ASSERT(col[NAIVECONTOUR_RSE] >= col[NAIVECONTOUR_LSE] / leak.mean, "T %zu d %zu: rse %g below the "
                    "sample's %g", pt.T, pt.d, col[NAIVECONTOUR_RSE], col[NAIVECONTOUR_LSE] / leak.mean);
        PROP_ASSERT(col[NAIVECONTOUR_SHOWN] == (col[NAIVECONTOUR_RSE] <= NAIVECONTOUR_MAX_RSE), "T %zu d %zu: shown "
                    "%g with rse %g", pt.T, pt.d, col[NAIVECONTOUR_SHOWN], col[NAIVECONTOUR_RSE]);
        PROP_ASSERT(0.0 <= col[NAIVECONTOUR_ALO] && col[NAIVECONTOUR_ALO] <= argmax.mean + 1e-12 &&
                    argmax.mean <= col[NAIVECONTOUR_AHI] + 1e-12 && col[NAIVECONTOUR_AHI] <= 1.0,
                    "T %zu d %zu: argmax %g outside its Wilson CI [%g, %g]", pt.T, pt.d, argmax.mean,
                    col[NAIVECONTOUR_ALO], col[NAIVECONTOUR_AHI]);
        double t2 = col[NAIVECONTOUR_T2];
        PROP_ASSERT(pt.T == 2 ? fabs(t2 - exp2(-0.5 * (double)pt.d - 1.0)) <= 4 * DBL_EPSILON * t2 : isnan(t2),
                    "T %zu d %zu: leak_exact_t2 %g", pt.T, pt.d, t2);
    }
    selfweight_scratch_delete(w);
    gsl_rng_free(rng);
}
END_TEST

PROP_MAIN("naivecontour", {"core", 60, {test_derive_on_draws}})
