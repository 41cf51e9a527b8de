/* test_sweep_ci.c - per-point draw counts for a target CI (sweep.h: sweep_ci_target):
 * the rule n = pilot (h / target)^2 in whole blocks within [pilot, max], and, through a
 * real sweep, that the counts reach the target, are recorded per point, and are the
 * same for 1 and 2 threads; --draws (draws_given) turns the mechanism off.
 */
#include "prop.h"
#include "sweep.h"
#include "mc.h"

#include <math.h>
#include <omp.h>
#include <gsl/gsl_randist.h>

START_TEST(test_ci_draws_rule)
{
    sweep_ci_target t = {1000, 0, {{0, 0.01}}, NULL}; /* pilot 1000 -> 4 blocks = 1024 */
    ck_assert_uint_eq(sweep_ci_draws(&t, 0.01, 0.01), 1024);
    ck_assert_uint_eq(sweep_ci_draws(&t, 0.01, 0.02), 4096);          /* (2)^2 x 1024 */
    ck_assert_uint_eq(sweep_ci_draws(&t, 0.01, 0.0101), 1280);        /* 1044.6 -> whole blocks */
    ck_assert_uint_eq(sweep_ci_draws(&t, 0.01, 0.001), 1024);         /* never below the pilot */
    ck_assert_uint_eq(sweep_ci_draws(&t, 0.01, NAN), 1024);           /* no CI: the pilot's count */
    t.max = 3000;
    ck_assert_uint_eq(sweep_ci_draws(&t, 0.01, 0.02), 3000);          /* the cap */
    ck_assert_uint_eq(sweep_ci_draws(&t, 0.01, INFINITY), 3000);
}
END_TEST

/* x ~ N(0, sigma^2) with sigma = the point's d (so n must grow as d^2) */
enum { S_X, NSTAT_ };
static const char *const names[] = {"x"};
static sweep_nature names_nat(size_t k) { (void)k; return SW_MC; }
static int draw(gsl_rng *rng, double *out, const sweep_point *pt, void *work, const void *ctx)
{
    (void)work, (void)ctx;
    out[S_X] = gsl_ran_gaussian_ziggurat(rng, (double)pt->d);
    return ATT_OK;
}

static int run_sweep(experiment *e, sweep_result *r)
{
    static const size_t D[] = {1, 2, 4};
    sweep_grid g;
    sweep_grid_init(&g);
    sweep_axis(&g, AX_D, 3, D);
    sweep_def def = {
        .draw = draw, .nstats = NSTAT_, .stat_names = names, .stat_nature = names_nat, .csv = ""};
    def.ci = (sweep_ci_target){512, 1 << 20, {{S_X, 0.05}}, NULL};
    return sweep_run(e, &g, &def, r);
}

START_TEST(test_ci_sweep)
{
    experiment e = {0};
    e.o.id = "test_sweep_ci", e.o.seed = 7, e.o.draws = 100, e.o.rng_name = "mt19937",
    e.o.quiet = 1;
    sweep_result r1, r2;
    omp_set_num_threads(1);
    ck_assert_int_eq(run_sweep(&e, &r1), ATT_OK);
    omp_set_num_threads(2);
    ck_assert_int_eq(run_sweep(&e, &r2), ATT_OK);
    for (size_t p = 0; p < 3; p++) {
        measure m = sweep_measure(&r1, p, S_X);
        double h = 0.5 * (m.ci_high - m.ci_low), sd = (double)r1.pt[p].d;
        /* expected n = (1.96 sd / 0.05)^2: 1537, 6147, 24586; the pilot's sd has relative sd
         * 1/sqrt(2 x 512) = 3.1%, so n is within 4 x 6.25% = 25% (plus the round-up to a block) */
        double want = pow(STAT_Z95 * sd / 0.05, 2);
        ck_assert_msg(fabs((double)r1.pt[p].draws - want) < 0.25 * want + MC_BLOCK,
                      "d = %zu: %zu draws, about %.0f expected", r1.pt[p].d, r1.pt[p].draws, want);
        /* the final half-width: within 4 x 3.1% of the target, + the final sd's own error */
        ck_assert_msg(h < 0.05 * 1.15, "d = %zu: half-width %g, target 0.05", r1.pt[p].d, h);
        ck_assert_uint_eq(r1.pt[p].draws % MC_BLOCK, 0);
        ck_assert_uint_eq((size_t)sweep_acc(&r1, p, S_X)->n, r1.pt[p].draws);
        ck_assert_uint_eq(r1.pt[p].draws, r2.pt[p].draws);
        ck_assert(sweep_acc(&r1, p, S_X)->mean == sweep_acc(&r2, p, S_X)->mean);
    }
    sweep_result_free(&r1);
    sweep_result_free(&r2);
    e.o.draws_given = 1;                                            /* --draws N: exactly N */
    ck_assert_int_eq(run_sweep(&e, &r1), ATT_OK);
    for (size_t p = 0; p < 3; p++) ck_assert_uint_eq(r1.pt[p].draws, 100);
    sweep_result_free(&r1);
}
END_TEST

PROP_MAIN("test_sweep_ci", {"core", 60, {test_ci_draws_rule, test_ci_sweep}})
