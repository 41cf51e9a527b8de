/* test_experiment.c - the experiment skeleton (experiment.h) and its sweep (sweep.h):
 * a failed verdict call is sticky (exit 3, no verdict file), sweep lists and
 * ranges parse strictly, a filtered sweep reruns a point with its numbers. */
#include "experiment.h"
#include "prop.h"
#include "status.h"
#include "sweep.h"

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <gsl/gsl_randist.h>

static int run_bad_macro(experiment *e)
{
    exp_claim(e, "bad_macro1", 1.0, measure_exact(1.0, 1), rule_at_most(2.0), "a bad macro name");
    exp_claim(e, "fine", 1.0, measure_exact(1.0, 1), rule_at_most(2.0), "a good row after it");
    return ATT_OK;
}

static int run_ci_without_ci(experiment *e)
{
    exp_claim(e, "noCI", 1.0, measure_exact(1.0, 10), rule_ci_within(0.0, 2.0), "a CI rule, no CI");
    return ATT_OK;
}

static int run_good(experiment *e)
{
    exp_claim(e, "fine", 1.0, measure_exact(1.0, 1), rule_at_most(2.0), "a good row");
    exp_headline(e);
    return ATT_OK;
}

static int run_main(int (*run)(experiment *), const char *dir)
{
    static experiment_def def;
    def = (experiment_def){"demo", "a demonstration", OPT_MC, 1UL, 10, NULL, run};
    char *argv[] = {"demo", "--out", (char *)dir, "--quiet", NULL};
    return experiment_main(&def, 4, argv);
}

static int has_verdicts(const char *dir)
{
    char path[512];
    snprintf(path, sizeof path, "%s/demo.verdicts.csv", dir);
    return access(path, F_OK) == 0;
}

START_TEST(test_sticky_verdict_errors)
{
    char dir[] = "/tmp/att-test-exp-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    ck_assert_int_eq(run_main(run_bad_macro, dir), 3);
    ck_assert_int_eq(has_verdicts(dir), 0);
    ck_assert_int_eq(run_main(run_ci_without_ci, dir), 3);
    ck_assert_int_eq(has_verdicts(dir), 0);
    ck_assert_int_eq(run_main(run_good, dir), 0);      /* the control: the file is written */
    ck_assert_int_eq(has_verdicts(dir), 1);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    ck_assert_int_eq(system(cmd), 0);
}
END_TEST

START_TEST(test_size_lists)
{
    opts_list l;
    ck_assert_int_eq(parse_size_list("4,8,16", &l, "--T"), ATT_OK);
    ck_assert_uint_eq(l.n, 3);
    ck_assert_uint_eq(l.v[2], 16);
    ck_assert_int_eq(parse_size_list("2..256", &l, "--T"), ATT_OK);
    ck_assert_uint_eq(l.n, 8);
    ck_assert_uint_eq(l.v[0], 2);
    ck_assert_uint_eq(l.v[7], 256);
    ck_assert_int_eq(parse_size_list("3..20", &l, "--T"), ATT_OK);   /* 3 6 12 */
    ck_assert_uint_eq(l.n, 3);
    ck_assert_uint_eq(l.v[2], 12);
    ck_assert_int_eq(parse_size_list("5,16..64", &l, "--T"), ATT_OK);
    ck_assert_uint_eq(l.n, 4);
    ck_assert_int_eq(parse_size_list("7", &l, "--T"), ATT_OK);
    ck_assert_uint_eq(l.n, 1);
    const char *bad[] = {"", ",", "4,", ",4", "4,,8", "0", "-1", "4.5", "8..4", "4..", "..4",
                         "4...8", "a", "4,4", "2..8,8", "1..99999999999999999999", " 4", "4 ",
                         "99999999999999999999999"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        ck_assert_msg(parse_size_list(bad[i], &l, "--T") == ATT_EUSAGE, "'%s' was accepted", bad[i]);
}
END_TEST

/* a sweep: one N(0, 1) per draw; a point run alone gives its numbers in the sweep */
#define STATS(X) X(S_Z, "z", SW_MC) X(S_T, "t", SW_EXACT)
SWEEP_STATS(STATS);
static int draw(double *out, gsl_rng *rng, const sweep_point *pt, void *work, const void *ctx)
{
    (void)work, (void)ctx;
    out[S_Z] = gsl_ran_gaussian(rng, 1.0);
    out[S_T] = (double)pt->T;
    return ATT_OK;
}

static double sweep_mean_at_8;
static size_t sweep_points;
static int run_sweep(experiment *e)
{
    const size_t Ts[] = {4, 8, 16};
    sweep_grid g;
    sweep_grid_init(&g);
    sweep_axis(&g, AX_T, 3, Ts);
    sweep_def def = SWEEP_DEF(draw);
    sweep_result r;
    int st = sweep_run(e, &g, &def, &r);
    if (st) return st;
    size_t p = sweep_find(&r, 8, 0, 0, 0);
    sweep_points = r.npoints;
    sweep_mean_at_8 = p < r.npoints ? sweep_acc(&r, p, S_Z)->mean : NAN;
    ck_assert_double_eq(sweep_acc(&r, p, S_T)->mean, 8.0);
    sweep_result_free(&r);
    return ATT_OK;
}

static int run_sweep_args(const char *dir, const char *T)
{
    static experiment_def def;
    def = (experiment_def){"demo", "a demonstration", OPT_MC | OPT_T | OPT_LISTS, 1UL, 300, NULL, run_sweep};
    char *argv[] = {"demo", "--out", (char *)dir, "--quiet", "--T", (char *)T, NULL};
    return experiment_main(&def, T ? 6 : 4, argv);
}

START_TEST(test_sweep_filter_keeps_numbers)
{
    char dir[] = "/tmp/att-test-exp-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    ck_assert_int_eq(run_sweep_args(dir, NULL), 0);
    ck_assert_uint_eq(sweep_points, 3);
    double full = sweep_mean_at_8;
    ck_assert_int_eq(run_sweep_args(dir, "8"), 0);
    ck_assert_uint_eq(sweep_points, 1);
    ck_assert_double_eq(sweep_mean_at_8, full);             /* bit-identical */
    ck_assert_int_eq(run_sweep_args(dir, "2..8"), 0);       /* 2 is off the grid */
    ck_assert_uint_eq(sweep_points, 3);
    ck_assert_double_eq(sweep_mean_at_8, full);
    ck_assert_int_eq(run_sweep_args(dir, "8,8"), 2);        /* strict */
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    ck_assert_int_eq(system(cmd), 0);
}
END_TEST

PROP_MAIN("test_experiment",
          {"unit", 60, {test_sticky_verdict_errors, test_size_lists, test_sweep_filter_keeps_numbers}})
