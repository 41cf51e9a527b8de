/* test_experiment.c - the experiment skeleton (experiment.h) and its sweep (sweep.h):
 * a failed verdict call is sticky (exit 3, no verdict file), sweep lists and
 * ranges parse strictly, a filtered sweep reruns a point with its numbers. */
#include "experiment.h"
#include "profile.h"
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
    verdict_claim(e, "bad_macro1", 1.0, verdict_measure_exact(1.0, 1), verdict_rule_at_most(2.0),
                  "a bad macro name");
    verdict_claim(e, "fine", 1.0, verdict_measure_exact(1.0, 1), verdict_rule_at_most(2.0),
                  "a good row after it");
    return ATT_OK;
}

static int run_ci_without_ci(experiment *e)
{
    verdict_claim(e, "noCI", 1.0, verdict_measure_exact(1.0, 10), verdict_rule_ci_within(0.0, 2.0),
                  "a CI rule, no CI");
    return ATT_OK;
}

static int run_good(experiment *e)
{
    verdict_claim(e, "fine", 1.0, verdict_measure_exact(1.0, 1), verdict_rule_at_most(2.0),
                  "a good row");
    experiment_headline(e);
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
    ck_assert_int_eq(opts_parse_size_list("4,8,16", &l, "--T"), ATT_OK);
    ck_assert_uint_eq(l.n, 3);
    ck_assert_uint_eq(l.v[2], 16);
    ck_assert_int_eq(opts_parse_size_list("2..256", &l, "--T"), ATT_OK);
    ck_assert_uint_eq(l.n, 8);
    ck_assert_uint_eq(l.v[0], 2);
    ck_assert_uint_eq(l.v[7], 256);
    ck_assert_int_eq(opts_parse_size_list("3..20", &l, "--T"), ATT_OK);   /* 3 6 12 */
    ck_assert_uint_eq(l.n, 3);
    ck_assert_uint_eq(l.v[2], 12);
    ck_assert_int_eq(opts_parse_size_list("5,16..64", &l, "--T"), ATT_OK);
    ck_assert_uint_eq(l.n, 4);
    ck_assert_int_eq(opts_parse_size_list("7", &l, "--T"), ATT_OK);
    ck_assert_uint_eq(l.n, 1);
    const char *bad[] = {"", ",", "4,", ",4", "4,,8", "0", "-1", "4.5", "8..4", "4..", "..4",
                         "4...8", "a", "4,4", "2..8,8", "1..99999999999999999999", " 4", "4 ",
                         "99999999999999999999999"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        ck_assert_msg(opts_parse_size_list(bad[i], &l, "--T") == ATT_EUSAGE, "'%s' was accepted",
                      bad[i]);
}
END_TEST

/* a sweep: one N(0, 1) per draw; a point run alone gives its numbers in the sweep */
#define STATS(X) X(S_Z, "z") X(S_T, "t")
SWEEP_STATS(STATS);
SWEEP_VERIFY(stat_names, {"t", SW_EXACT})
static int draw(gsl_rng *rng, double *out, const sweep_point *pt, void *work, const void *ctx)
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
    size_t p = sweep_find(&r, &(sweep_point){.T = 8});
    sweep_points = r.npoints;
    sweep_mean_at_8 = p < r.npoints ? sweep_acc(&r, p, S_Z)->mean : NAN;
    ck_assert_double_eq(sweep_acc(&r, p, S_T)->mean, 8.0);
    sweep_result_free(&r);
    return ATT_OK;
}

static int run_sweep_args(const char *dir, const char *T)
{
    static experiment_def def;
    def = (experiment_def){"demo", "a demonstration", OPT_MC | OPT_T | OPT_LISTS, 1UL, 300,
                           NULL,   run_sweep};
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

/* shape words: each matrix, vector and head at the sizes it names; a bad word fails */
START_TEST(test_sweep_workset_words)
{
    const sweep_point pt = {.T = 5, .d = 7, .dk = 3, .dv = 2};
    workset *w = sweep_workset(&pt, "T.d d.dk dv.1 12.T", "d dk 4", "T.T.d.dk.dv 1.T.d.d.dv");
    ck_assert_ptr_nonnull(w);
    ck_assert_uint_eq(w->nm, 4);
    ck_assert_uint_eq(w->nv, 3);
    ck_assert_uint_eq(w->nh, 2);
    const size_t rows[4] = {5, 7, 2, 12}, cols[4] = {7, 3, 1, 5}, len[3] = {7, 3, 4};
    for (int k = 0; k < 4; k++) {
        ck_assert_uint_eq(w->m[k]->size1, rows[k]);
        ck_assert_uint_eq(w->m[k]->size2, cols[k]);
    }
    for (int k = 0; k < 3; k++) ck_assert_uint_eq(w->v[k]->size, len[k]);
    ck_assert_uint_eq(w->h[0].S->size1, 5);
    ck_assert_uint_eq(w->h[0].Q->size2, 3);
    ck_assert_uint_eq(w->h[1].S->size1, 1);
    ck_assert_uint_eq(w->h[1].Q->size2, 7);
    workset_free(w);
    const char *bad[] = {"T", "T.", "T.q", "T.d.d", "x.d", "T.0", ".d", "T..d"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        ck_assert_msg(sweep_workset(&pt, bad[i], NULL, NULL) == NULL, "'%s' was accepted", bad[i]);
    ck_assert_ptr_null(sweep_workset(&pt, NULL, "d.d", NULL));       /* a vector has one size */
    ck_assert_ptr_null(sweep_workset(&pt, NULL, NULL, "T.T.d.dk"));  /* a head has five */
    const sweep_point no_dv = {.T = 5, .d = 7, .dk = 3};
    ck_assert_ptr_null(sweep_workset(&no_dv, "d.dv", NULL, NULL));   /* d_v = 0: not an axis */
}
END_TEST

/* the engine's work from shape words: the largest point's sizes, or each point's own */
#define WSTATS(X) X(W_ROWS, "rows") X(W_LEN, "len") X(W_Z, "z")
SWEEP_STATS_AS(WSTATS, NWSTAT, wstat_names);
SWEEP_VERIFY(wstat_names, {"rows", SW_EXACT}, {"len", SW_EXACT})
static int draw_ws(gsl_rng *rng, double *out, const sweep_point *pt, void *work, const void *ctx)
{
    (void)pt, (void)ctx;
    const workset *w = work;
    out[W_ROWS] = (double)w->m[0]->size1;
    out[W_LEN] = (double)w->v[0]->size;
    out[W_Z] = gsl_ran_gaussian(rng, 1.0);
    return ATT_OK;
}

static int per_point;
static int run_ws(experiment *e)
{
    const size_t Ts[] = {4, 8, 16};
    const double xs[] = {0.5, 1.0, 2.0};
    sweep_grid g;
    sweep_grid_init(&g);
    sweep_axis(&g, AX_T, 3, Ts);
    sweep_axis_x(&g, "x", 3, xs);
    sweep_def def = SWEEP_DEF_AS(draw_ws, NWSTAT, wstat_names);
    def.work_mats = "T.2", def.work_vecs = "T", def.work_per_point = per_point;
    def.csv = "";
    sweep_result r;
    int st = sweep_run(e, &g, &def, &r);
    if (st) return st;
    for (size_t p = 0; p < r.npoints; p++) {
        size_t T = per_point ? r.pt[p].T : 16;
        ck_assert_double_eq(sweep_acc(&r, p, W_ROWS)->min, (double)T);
        ck_assert_double_eq(sweep_acc(&r, p, W_LEN)->max, (double)T);
    }
    /* merged: every draw of every point; above x0 = 0.5: the points with x = 1, 2 */
    stat_acc all = sweep_merged(&r, W_Z), above = sweep_merged_x_above(&r, W_Z, 0.5);
    stat_acc acc[NWSTAT];
    sweep_merge_all(&r, acc);
    ck_assert_uint_eq(all.n, 9 * e->o.draws);
    ck_assert_uint_eq(above.n, 6 * e->o.draws);
    ck_assert_uint_eq(acc[W_Z].n, all.n);
    double lo = INFINITY, hi = -INFINITY, lo_above = INFINITY;
    for (size_t p = 0; p < r.npoints; p++) {
        lo = fmin(lo, sweep_acc(&r, p, W_Z)->min), hi = fmax(hi, sweep_acc(&r, p, W_Z)->max);
        if (r.pt[p].x > 0.5) lo_above = fmin(lo_above, sweep_acc(&r, p, W_Z)->min);
    }
    ck_assert_double_eq(all.min, lo);
    ck_assert_double_eq(all.max, hi);
    ck_assert_double_eq(above.min, lo_above);
    ck_assert_uint_eq(sweep_merged_x_above(&r, W_Z, 2.0).n, 0);
    /* the example's work: one workset at the grid's largest point */
    workset *w = sweep_work_new(&g, &def);
    ck_assert_ptr_nonnull(w);
    ck_assert_uint_eq(w->m[0]->size1, 16);
    ck_assert_uint_eq(w->v[0]->size, 16);
    sweep_work_free(&def, w);
    sweep_result_free(&r);
    /* a sweep's own draw count instead of --draws */
    def.draws = 3;
    if ((st = sweep_run(e, &g, &def, &r))) return st;
    for (size_t p = 0; p < r.npoints; p++) ck_assert_uint_eq(sweep_acc(&r, p, W_Z)->n, 3);
    sweep_result_free(&r);
    return ATT_OK;
}

START_TEST(test_sweep_work_and_merged)
{
    char dir[] = "/tmp/att-test-exp-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    static experiment_def def;
    def = (experiment_def){"demo", "a demonstration", OPT_MC, 1UL, 20, NULL, run_ws};
    char *argv[] = {"demo", "--out", dir, "--quiet", NULL};
    for (per_point = 0; per_point < 2; per_point++)
        ck_assert_int_eq(experiment_main(&def, 4, argv), 0);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    ck_assert_int_eq(system(cmd), 0);
}
END_TEST

/* a measure as three derived columns */
START_TEST(test_sweep_ci_and_fit)
{
    double col[3];
    sweep_put_ci(col, verdict_measure_ci(0.5, 0.25, 0.75, 10));
    ck_assert_double_eq(col[0], 0.5);
    ck_assert_double_eq(col[1], 0.25);
    ck_assert_double_eq(col[2], 0.75);
    const table_col c[] = {SWEEP_DERIVED_CI(3, "r")};
    ck_assert_str_eq(c[1].name, "r_lo");
    ck_assert_str_eq(c[2].hi, "r_hi");
    ck_assert_uint_eq(c[2].offset, 5 * sizeof(double));
}
END_TEST

/* profiles: each point's draw 0 again, its vector as a column; one length or no table */
#define PSTATS(X) X(P_Z, "z")
SWEEP_STATS_AS(PSTATS, NPSTAT, pstat_names);
SWEEP_VERIFY_MC(pstat_names)
static int draw_profile(gsl_rng *rng, double *out, const sweep_point *pt, void *work,
                        const void *ctx)
{
    (void)ctx;
    workset *w = work;
    out[P_Z] = gsl_ran_gaussian(rng, 1.0);
    for (size_t i = 0; i < w->v[0]->size; i++)
        gsl_vector_set(w->v[0], i, 10.0 * (double)pt->T + (double)i + out[P_Z]);
    return ATT_OK;
}
static void profile_name(char *buf, size_t n, size_t k, const sweep_point *pt, const void *ctx)
{
    (void)k, (void)ctx;
    snprintf(buf, n, "T=%zu", pt->T);
}
static double profile_z[2];
static int profile_two_d;
static int run_profile(experiment *e)
{
    const size_t Ts[] = {2, 5}, ds[] = {3, 4};
    sweep_grid g;
    sweep_grid_init(&g);
    sweep_axis(&g, AX_T, 2, Ts);
    sweep_axis(&g, AX_D, profile_two_d ? 2 : 1, ds);
    sweep_def def = SWEEP_DEF_AS(draw_profile, NPSTAT, pstat_names);
    def.work_vecs = "d", def.work_per_point = 1, def.csv = "", def.draws_csv = "demo_draws.csv";
    sweep_result r;
    int st = sweep_run(e, &g, &def, &r);
    if (st) return st;
    profile_z[0] = r.values[0], profile_z[1] = r.values[e->o.draws];   /* draw 0 of each point */
    const size_t vec[1] = {0};
    st = profile_write(e, "demo_profile.csv", &r, &def, 1, vec, profile_name, NAT_COMPUTED, NULL);
    sweep_result_free(&r);
    return st;
}

START_TEST(test_profile_write)
{
    char dir[] = "/tmp/att-test-exp-XXXXXX", path[600], line[256];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    static experiment_def def;
    def = (experiment_def){"demo", "a demonstration", OPT_MC, 1UL, 5, NULL, run_profile};
    char *argv[] = {"demo", "--out", dir, "--quiet", NULL};
    profile_two_d = 0;
    ck_assert_int_eq(experiment_main(&def, 4, argv), 0);
    snprintf(path, sizeof path, "%s/demo_profile.csv", dir);
    FILE *f = fopen(path, "r");
    ck_assert_ptr_nonnull(f);
    ck_assert_ptr_nonnull(fgets(line, sizeof line, f));
    ck_assert_str_eq(line, "i,T=2,T=5\n");
    for (int i = 0; i < 3; i++) {
        double a, b, c;
        ck_assert_int_eq(fscanf(f, "%lf,%lf,%lf", &a, &b, &c), 3);
        ck_assert_double_eq(a, i + 1);
        ck_assert_double_eq(b, 20.0 + i + profile_z[0]);   /* the run's draw 0, drawn again */
        ck_assert_double_eq(c, 50.0 + i + profile_z[1]);
    }
    fclose(f);
    ck_assert_int_eq(remove(path), 0);
    profile_two_d = 1;     /* d = 3 and 4: two lengths, no table */
    ck_assert_int_eq(experiment_main(&def, 4, argv), 0);
    ck_assert_int_eq(access(path, F_OK), -1);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    ck_assert_int_eq(system(cmd), 0);
}
END_TEST

/* make verify's natures: the statistics an exception names get its nature (a number's bound
 * as its spelling), the rest Monte Carlo; an exception that names no statistic fails */
START_TEST(test_verify_exceptions)
{
    static const char *const names[] = {"a", "b", "c"};
    const sweep_exception x[] = {{"b", SW_EXACT}, {"c", SW_ROUND_MAX(1e-6)}};
    ck_assert_int_eq(sweep_nature_find(names, 3, 0, x, 2).nature, NAT_MC);
    ck_assert_int_eq(sweep_nature_find(names, 3, 1, x, 2).nature, NAT_EXACT);
    sweep_nature c = sweep_nature_find(names, 3, 2, x, 2);
    ck_assert_int_eq(c.nature, NAT_ROUNDING);
    ck_assert_str_eq(c.bound, "1e-6");
    ck_assert_str_eq(SW_ROUND_COL("tol").bound, "tol");
    const sweep_exception bad[] = {{"nope", SW_EXACT}};
    ck_assert_int_eq(sweep_nature_find(names, 3, 0, bad, 1).nature, NAT_N);
    ck_assert_ptr_nonnull(strstr(att_last_error(), "'nope'"));
}
END_TEST

PROP_MAIN("test_experiment",
          {"unit",
           60,
           {test_sticky_verdict_errors, test_size_lists, test_sweep_filter_keeps_numbers,
            test_sweep_workset_words, test_sweep_work_and_merged, test_sweep_ci_and_fit,
            test_profile_write, test_verify_exceptions}})
