/* test_stats.c - running moments, merge, CI coverage, the draws for a target CI, the Monte
 * Carlo engine. */
#include "prop.h"
#include "mc.h"
#include "statistics.h"
#include "status.h"
#include "timing.h"

#include <math.h>
#include <float.h>
#include <omp.h>
#include <pthread.h>
#include <string.h>
#include <time.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_cdf.h>

START_TEST(test_welford_by_hand)
{
    /* 2, 4, 4, 4, 5, 5, 7, 9: mean 5, sum of squares 32, sample var 32/7 */
    const double x[] = {2, 4, 4, 4, 5, 5, 7, 9};
    stat_acc s;
    stat_init(&s);
    for (int i = 0; i < 8; i++) stat_push(&s, x[i]);
    ck_assert_double_eq_tol(s.mean, 5.0, 1e-15);
    ck_assert_double_eq_tol(stat_var(&s), 32.0 / 7.0, 1e-14);
    ck_assert_double_eq(s.min, 2.0);
    ck_assert_double_eq(s.max, 9.0);
    double lo, hi;
    stat_ci95(&s, &lo, &hi);
    ck_assert_double_eq_tol(hi - 5.0, 1.959963984540054 * sqrt(32.0 / 7.0 / 8.0), 1e-14);
    ck_assert_double_eq_tol(5.0 - lo, hi - 5.0, 1e-14);
}
END_TEST

START_TEST(test_merge_equals_sequential)
{
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    PROP_FOR(k, rng, "merge of two partial results equals one pass") {
        size_t n = prop_size(rng, 2, 500), cut = prop_size(rng, 0, n);
        double shift = gsl_ran_gaussian(rng, 1e3);
        stat_acc all, a, b;
        stat_init(&all); stat_init(&a); stat_init(&b);
        for (size_t i = 0; i < n; i++) {
            double x = shift + gsl_ran_gaussian(rng, 2.0);
            stat_push(&all, x);
            stat_push(i < cut ? &a : &b, x);
        }
        stat_merge(&a, &b);
        PROP_ASSERT(a.n == all.n, "n %zu vs %zu", a.n, all.n);
        PROP_ASSERT(fabs(a.mean - all.mean) <= 64 * DBL_EPSILON * (fabs(all.mean) + 1),
                    "mean %.17g vs %.17g", a.mean, all.mean);
        PROP_ASSERT(fabs(a.m2 - all.m2) <= 1e-9 * (all.m2 + 1), "m2 %.17g vs %.17g", a.m2, all.m2);
    }
    gsl_rng_free(rng);
}
END_TEST

START_TEST(test_fit_line)
{
    const double x[] = {0, 1, 2, 3, 4}, y[] = {1, 3, 5, 7, 9};
    double a, se;
    double b = stat_fit_line(x, y, 5, &a, &se);
    ck_assert_double_eq_tol(b, 2.0, 1e-14);
    ck_assert_double_eq_tol(a, 1.0, 1e-14);
    ck_assert_double_eq_tol(se, 0.0, 1e-12);
}
END_TEST

/* ---- the engine ------------------------------------------------------ */

/* one draw: (N(0,1), U(0,1) squared, 0/1 with p = 0.3) */
static int draw_known(gsl_rng *rng, void *ctx, void *scratch, size_t point, size_t i,
                      double *out)
{
    (void)point;   /* one point */
    (void)ctx; (void)scratch; (void)i;
    out[0] = gsl_ran_gaussian(rng, 1.0);
    double u = gsl_rng_uniform(rng);
    out[1] = u * u;
    out[2] = gsl_rng_uniform(rng) < 0.3;
    return ATT_OK;
}

static void run_known(stat_acc acc[3], int threads, size_t draws, unsigned long seed,
                      uint64_t stream, const char *rng)
{
    mc_config cfg = {.rng_name = rng, .seed = seed, .stream = stream, .draws = draws,
                     .nstats = 3, .draw = draw_known, .quiet = 1};
    omp_set_num_threads(threads);
    ck_assert_int_eq(mc_run(&cfg, acc), ATT_OK);
}

START_TEST(test_mc_deterministic_across_threads)
{
    /* the same seed gives bit-identical statistics for 1 and 2 threads,
     * including a last, partial block */
    const size_t draws[] = {1, MC_BLOCK - 1, MC_BLOCK, 10 * MC_BLOCK + 17};
    for (size_t k = 0; k < sizeof draws / sizeof draws[0]; k++) {
        stat_acc a1[3], a2[3];
        run_known(a1, 1, draws[k], 42, 7, "mt19937");
        run_known(a2, 2, draws[k], 42, 7, "mt19937");
        for (int s = 0; s < 3; s++) {
            ck_assert_msg(a1[s].n == a2[s].n &&
                              memcmp(&a1[s].mean, &a2[s].mean, sizeof(double)) == 0 &&
                              memcmp(&a1[s].m2, &a2[s].m2, sizeof(double)) == 0,
                          "draws %zu stat %d: 1 thread %.17g, 2 threads %.17g", draws[k], s,
                          a1[s].mean, a2[s].mean);
        }
    }
    /* and another stream or seed gives other numbers */
    stat_acc a[3], b[3];
    run_known(a, 2, 1000, 42, 7, "mt19937");
    run_known(b, 2, 1000, 42, 8, "mt19937");
    ck_assert(a[0].mean != b[0].mean);
}
END_TEST

START_TEST(test_mc_ci_coverage)
{
    /* 2000 independent runs of 1000 draws: the 95% CI must cover the true
     * mean (0, 1/3, 0.3) in 95% of runs. Binomial sd over 2000 runs is
     * sqrt(.95 .05 / 2000) = 0.49%; accept 95% -+ 5 sd = [92.6%, 97.4%], so
     * CIs too narrow (undercoverage) and too wide (a 99% CI) both fail. */
    const double truth[3] = {0.0, 1.0 / 3.0, 0.3};
    int covered[3] = {0, 0, 0};
    const int runs = 2000;
    for (int r = 0; r < runs; r++) {
        stat_acc acc[3];
        run_known(acc, 2, 1000, 20261129, (uint64_t)r, "mt19937");
        for (int s = 0; s < 3; s++) {
            double lo, hi;
            stat_ci95(&acc[s], &lo, &hi);
            covered[s] += lo <= truth[s] && truth[s] <= hi;
        }
    }
    for (int s = 0; s < 3; s++) {
        double rate = (double)covered[s] / runs;
        ck_assert_msg(rate >= 0.926 && rate <= 0.974, "statistic %d: coverage %.3f", s, rate);
    }
}
END_TEST

static int draw_fails(gsl_rng *rng, void *ctx, void *scratch, size_t point, size_t i,
                      double *out)
{
    (void)point;   /* one point */
    (void)ctx; (void)scratch; (void)rng;
    out[0] = 0;
    return i == 700 ? att_fail(ATT_ERUNTIME, "draw %zu failed on purpose", i) : ATT_OK;
}

START_TEST(test_mc_errors)
{
    stat_acc acc[1];
    mc_config cfg = {.rng_name = "mt19937", .seed = 1, .draws = 2000, .nstats = 1,
                     .draw = draw_fails, .quiet = 1};
    ck_assert_int_eq(mc_run(&cfg, acc), ATT_ERUNTIME);
    ck_assert_str_eq(att_last_error(), "draw 700 failed on purpose");
    cfg.rng_name = "no-such-rng";
    ck_assert_int_eq(mc_run(&cfg, acc), ATT_EUSAGE);
    ck_assert(strstr(att_last_error(), "no-such-rng") != NULL);
    cfg.rng_name = "mt19937";
    cfg.draws = 0;
    ck_assert_int_eq(mc_run(&cfg, acc), ATT_EUSAGE);
}
END_TEST

START_TEST(test_stream_seeds_distinct)
{
    /* neighbouring (seed, stream, block) triples give distinct seeds */
    enum { N = 64 };
    unsigned long s[N * 3];
    for (int i = 0; i < N; i++) {
        s[3 * i] = rng_stream_seed(1, 0, (uint64_t)i);
        s[3 * i + 1] = rng_stream_seed(1, (uint64_t)i + 1, 0);
        s[3 * i + 2] = rng_stream_seed((uint64_t)i + 2, 0, 0);
    }
    for (int i = 0; i < 3 * N; i++)
        for (int j = i + 1; j < 3 * N; j++)
            ck_assert_msg(s[i] != s[j], "seeds %d and %d collide", i, j);
}
END_TEST

/* Wilson intervals: published values (Newcombe 1998, table I: 81/263 ->
 * [0.2553, 0.3662]; 0/10 -> [0, 0.2775]) and never zero width. */
START_TEST(test_wilson)
{
    double lo, hi;
    stat_ci95_wilson(81, 263, &lo, &hi);
    ck_assert_double_eq_tol(lo, 0.2553, 1e-4);
    ck_assert_double_eq_tol(hi, 0.3662, 1e-4);
    stat_ci95_wilson(0, 10, &lo, &hi);
    ck_assert_double_eq(lo, 0.0);
    ck_assert_double_eq_tol(hi, 0.2775, 1e-4);
    stat_ci95_wilson(10, 10, &lo, &hi);
    ck_assert_double_eq_tol(lo, 0.7225, 1e-4);
    ck_assert_double_eq(hi, 1.0);
    ck_assert(hi - lo > 0.0);
}
END_TEST

/* The draws for a target CI after a pilot (stat_draws_for): n = n0 (h / target)^2 in whole
 * blocks within [n0, cap], by hand; then, for x ~ N(0, sd^2), that the count a 512-draw pilot
 * gives reaches the target on fresh draws (random_projections sizes its main sweep so). */
START_TEST(test_draws_for)
{
    const size_t B = 256, n0 = 1024, none = OPTS_MAX_DRAWS;
    ck_assert_uint_eq(stat_draws_for(n0, 0.01, 0.01, B, none), 1024);
    ck_assert_uint_eq(stat_draws_for(n0, 0.02, 0.01, B, none), 4096);     /* (2)^2 x 1024 */
    ck_assert_uint_eq(stat_draws_for(n0, 0.0101, 0.01, B, none), 1280);   /* 1044.6: a block up */
    ck_assert_uint_eq(stat_draws_for(n0, 0.001, 0.01, B, none), 1024);    /* never below n0 */
    ck_assert_uint_eq(stat_draws_for(n0, NAN, 0.01, B, none), 1024);      /* no CI: n0 */
    ck_assert_uint_eq(stat_draws_for(n0, 0.02, 0.01, B, 3000), 3000);     /* the cap */
    ck_assert_uint_eq(stat_draws_for(n0, INFINITY, 0.01, B, 3000), 3000);
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    for (double sd = 1.0; sd <= 4.0; sd *= 2.0) {
        stat_acc pilot, fin;
        stat_init(&pilot);
        stat_init(&fin);
        for (size_t i = 0; i < 512; i++) stat_push(&pilot, gsl_ran_gaussian_ziggurat(rng, sd));
        double lo, hi;
        stat_ci95(&pilot, &lo, &hi);
        size_t n = stat_draws_for(512, 0.5 * (hi - lo), 0.05, B, (size_t)1 << 20);
        for (size_t i = 0; i < n; i++) stat_push(&fin, gsl_ran_gaussian_ziggurat(rng, sd));
        stat_ci95(&fin, &lo, &hi);
        /* n = (1.96 sd / 0.05)^2: 1537, 6147, 24586; the pilot's sd has relative sd
         * 1/sqrt(2 x 512) = 3.1%, so n is within 4 x 6.25% = 25% (plus the round-up to a block),
         * and the final half-width within 4 x 3.1% of the target (+ its own sd's error) */
        double want = pow(STAT_Z95 * sd / 0.05, 2);
        ck_assert_msg(fabs((double)n - want) < 0.25 * want + (double)B,
                      "sd %g: %zu draws, about %.0f expected", sd, n, want);
        ck_assert_uint_eq(n % B, 0);
        ck_assert_msg(0.5 * (hi - lo) < 0.05 * 1.15, "sd %g: half-width %g, target 0.05", sd,
                      0.5 * (hi - lo));
    }
    gsl_rng_free(rng);
}
END_TEST

/* The median's order-statistic interval (timing.h): known cases, then for
 * every n <= 80 its coverage against GSL's binomial CDF and the choice of k
 * (the largest with coverage >= 95%; k = 1 below n = 6). */
START_TEST(test_timing_median_ci)
{
    double x[80];
    for (int i = 0; i < 80; i++) x[i] = i + 1;          /* x_(i) = i */
    timing t;
    timing_median_ci(x, 3, &t);
    ck_assert(t.ci_low == 1 && t.ci_high == 3 && fabs(t.ci_level - 0.75) <= 4 * DBL_EPSILON);
    timing_median_ci(x, 6, &t);
    ck_assert(t.ci_low == 1 && t.ci_high == 6 && fabs(t.ci_level - 62.0 / 64) <= 4 * DBL_EPSILON);
    timing_median_ci(x, 9, &t);                          /* k = 2: 1 - 2 (1 + 9) / 512 */
    ck_assert(t.ci_low == 2 && t.ci_high == 8 &&
              fabs(t.ci_level - (1 - 20.0 / 512)) <= 4 * DBL_EPSILON);
    for (unsigned n = 1; n <= 80; n++) {
        timing_median_ci(x, n, &t);
        unsigned k = (unsigned)t.ci_low;
        ck_assert_msg(t.ci_high == n + 1 - k, "n = %u: interval [x_(%u), x_(%g)]", n, k, t.ci_high);
        double cover = 1 - 2 * gsl_cdf_binomial_P(k - 1, 0.5, n);
        ck_assert_msg(fabs(t.ci_level - cover) <= 64 * DBL_EPSILON, "n = %u: level %.17g vs %.17g",
                      n, t.ci_level, cover);
        ck_assert_msg(k == 1 || cover >= 0.95, "n = %u, k = %u: coverage %g < 95%%", n, k, cover);
        if (2 * (k + 1) <= n + 1)                      /* one step narrower falls below 95% */
            ck_assert_msg(n < 6 || 1 - 2 * gsl_cdf_binomial_P(k, 0.5, n) < 0.95,
                          "n = %u: k = %u not the largest", n, k);
    }
}
END_TEST

/* timing_measure_until: the rule's bounds. A job whose length alternates
 * 1x, 3x never reaches a zero-width interval. */
static int calls;
static int uneven_job(void *arg)
{
    volatile double *sink = arg;
    size_t n = calls++ % 2 ? 300000 : 100000;
    for (size_t i = 0; i < n; i++) *sink += 1e-9 * (double)i;
    return ATT_OK;
}

START_TEST(test_timing_rule)
{
    volatile double sink = 0;
    timing t;
    timing_rule loose = {3, 9, INFINITY, INFINITY}, tight = {3, 7, 0.0, INFINITY},
                bad = {4, 3, 0.02, 1.0};
    calls = 0;
    ck_assert_int_eq(timing_measure_until(uneven_job, (void *)&sink, &loose, 0.0, &t), ATT_OK);
    ck_assert_msg(t.reps == 3 && calls == 4, "loose rule: %zu samples, %d calls (want 3, 4)",
                  t.reps, calls);
    calls = 0;
    ck_assert_int_eq(timing_measure_until(uneven_job, (void *)&sink, &tight, 0.0, &t), ATT_OK);
    ck_assert_msg(t.reps == 7 && calls == 8, "tight rule: %zu samples, %d calls (want 7, 8)",
                  t.reps, calls);
    ck_assert(t.min <= t.ci_low && t.ci_low <= t.median && t.median <= t.ci_high &&
              t.ci_high <= t.max);
    ck_assert_int_eq(timing_measure_until(uneven_job, (void *)&sink, &bad, 0.0, &t), ATT_EUSAGE);
    // a CPU budget already spent (0 s) stops the tight rule at its minimum: 3 samples, 4 calls
    timing_rule spent = {3, 7, 0.0, 0.0}, negative = {3, 7, 0.0, -1.0};
    calls = 0;
    ck_assert_int_eq(timing_measure_until(uneven_job, (void *)&sink, &spent, 0.0, &t), ATT_OK);
    ck_assert_msg(t.reps == 3 && calls == 4, "CPU budget 0: %zu samples, %d calls (want 3, 4)",
                  t.reps, calls);
    ck_assert_int_eq(timing_measure_until(uneven_job, (void *)&sink, &negative, 0.0, &t),
                     ATT_EUSAGE);
    // the process's CPU clock advances with work
    double c0 = timing_process_cpu();
    for (int k = 0; k < 20; k++) uneven_job((void *)&sink);
    ck_assert(timing_process_cpu() > c0);
    ck_assert_int_eq(timing_measure(uneven_job, (void *)&sink, 0, 0.0, &t), ATT_EUSAGE);
    calls = 0;
    ck_assert_int_eq(timing_measure(uneven_job, (void *)&sink, 5, 0.0, &t), ATT_OK);
    ck_assert(t.reps == 5 && calls == 6 && t.inner == 1);
}
END_TEST

/* A job whose work is all on another thread (as a BLAS's helper threads): the caller
 * waits in pthread_join while the helper spins 2 ms of its own CPU time. */
static void *spin_helper(void *arg)
{
    (void)arg;
    struct timespec a, b;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a);
    do clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b);
    while ((double)(b.tv_sec - a.tv_sec) + 1e-9 * (double)(b.tv_nsec - a.tv_nsec) < 0.002);
    return NULL;
}
static int helper_job(void *arg)
{
    (void)arg;
    pthread_t th;
    if (pthread_create(&th, NULL, spin_helper, NULL) != 0) return ATT_ERUNTIME;
    pthread_join(th, NULL);
    return ATT_OK;
}

/* The rule's CPU budget counts every thread's CPU: a zero-width target (never met) with a
 * 0.02 CPU s budget stops after about 10 samples of 2 ms on the helper thread, not at the
 * 2000 samples a budget on the caller's own clock (which hardly advances) would run. */
START_TEST(test_timing_rule_counts_threads)
{
    timing t;
    timing_rule r = {3, 2000, 0.0, 0.02};
    ck_assert_int_eq(timing_measure_until(helper_job, NULL, &r, 0.0, &t), ATT_OK);
    ck_assert_msg(t.reps >= 3 && t.reps <= 30, "%zu samples (want about 10)", t.reps);
    double c0 = timing_process_cpu();
    helper_job(NULL);
    ck_assert(timing_process_cpu() - c0 >= 0.002);
}
END_TEST

/* timing_sweep: the budget's range; a point's share min(cap, max(0, (budget - spent) / left)) */
START_TEST(test_timing_sweep)
{
    timing_sweep s;
    const timing_rule r = {3, 9, 0.05, 0.15};
    ck_assert_int_eq(timing_sweep_init(&s, r, -1.0), ATT_EUSAGE);
    ck_assert_int_eq(timing_sweep_init(&s, r, 86401.0), ATT_EUSAGE);
    ck_assert_int_eq(timing_sweep_init(&s, r, NAN), ATT_EUSAGE);
    ck_assert_int_eq(timing_sweep_init(&s, r, 1.0), ATT_OK);
    ck_assert(s.spent == 0.0 && s.untimed == 0 && s.budget == 1.0);
    s.spent = 0.4;
    timing_rule p = timing_sweep_share(&s, 3);           /* (1 - 0.4) / 3 = 0.2 > cap 0.15 */
    ck_assert(p.max_cpu_seconds == 0.15 && p.min_reps == 3 && p.max_reps == 9 && p.rel_ci == 0.05);
    s.rule.max_cpu_seconds = 1.0;
    ck_assert_double_eq_tol(timing_sweep_share(&s, 3).max_cpu_seconds, 0.2, 1e-15);
    ck_assert_double_eq_tol(timing_sweep_share(&s, 1).max_cpu_seconds, 0.6, 1e-15);
    s.spent = 2.0;                                       /* overspent: share 0, not negative */
    ck_assert(timing_sweep_share(&s, 2).max_cpu_seconds == 0.0);
    char buf[512];
    ck_assert(strstr(timing_sweep_meta(buf, sizeof buf, &s), "timing_spent_cpu: 2.00\n") != NULL);
    ck_assert(strstr(buf, "reps_min: 3\nreps_max: 9\n") == buf);
}
END_TEST

PROP_MAIN("test_stats",
          {"core",
           120,
           {test_welford_by_hand, test_merge_equals_sequential, test_fit_line, test_wilson,
            test_draws_for, test_mc_deterministic_across_threads, test_mc_ci_coverage, test_mc_errors,
            test_stream_seeds_distinct, test_timing_median_ci, test_timing_rule,
            test_timing_rule_counts_threads, test_timing_sweep}})
