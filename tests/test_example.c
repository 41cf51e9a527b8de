/* test_example.c - lib/run/example.h: a figure's example is the sweep's draw 0.
 *
 * A sweep at two points (T = 3, 7) with one draw each records every draw; for
 * each point alone example_draw must give bit for bit the same statistics
 * (its stream, its first draw), with the work the def's work_alloc made for
 * that point's one-point grid, freed by example_end (also after a draw that
 * fails, and when the def has no work at all).
 */
#include "example.h"
#include "experiment.h"
#include "prop.h"
#include "status.h"
#include "sweep.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <gsl/gsl_randist.h>

#define STATS(X) X(S_Z, "z") X(S_T, "t") X(S_WT, "work_T")
SWEEP_STATS(STATS);
SWEEP_VERIFY(stat_names, {"t", SW_EXACT}, {"work_T", SW_EXACT})

static int allocs, frees, fail_draw;
typedef struct { size_t T; } work;   /* the largest T of the grid it was made for */
static void *work_alloc(const sweep_grid *g, const void *ctx)
{
    (void)ctx;
    work *w = malloc(sizeof *w);
    if (w == NULL) return NULL;
    w->T = sweep_max(g, AX_T);
    /* each thread of the sweep makes and frees its own work: the counts are shared */
    #pragma omp atomic update
    allocs++;
    return w;
}
static void work_free(void *w)
{
    if (w) {
        #pragma omp atomic update
        frees++;
    }
    free(w);
}
/* z ~ N(0, 1) then a second normal (so draw 0 is more than one number of the stream) */
static int draw(gsl_rng *rng, double *out, const sweep_point *pt, void *wp, const void *ctx)
{
    (void)ctx;
    const work *w = wp;
    out[S_Z] = gsl_ran_gaussian(rng, 1.0) + 1e-3 * gsl_ran_gaussian(rng, 1.0);
    out[S_T] = (double)pt->T;
    out[S_WT] = w ? (double)w->T : 0.0;
    return fail_draw ? att_fail(ATT_ERUNTIME, "the draw failed on purpose") : ATT_OK;
}

static const size_t Ts[] = {3, 7};
static double swept[2];   /* each point's only draw in the sweep */
static double example_z[2], example_wt[2];
static int example_rc[2];

static int run(experiment *e)
{
    sweep_grid g;
    sweep_grid_init(&g);
    sweep_axis(&g, AX_T, 2, Ts);
    sweep_def def = SWEEP_DEF(draw);
    def.work_alloc = work_alloc, def.work_free = work_free, def.draws = 1;
    sweep_result r;
    int st = sweep_run(e, &g, &def, &r);
    if (st) return st;
    for (size_t p = 0; p < 2; p++) swept[p] = sweep_acc(&r, p, S_Z)->mean;
    sweep_result_free(&r);
    for (size_t p = 0; p < 2; p++) {   // each point alone, outside the sweep
        sweep_grid one;
        sweep_grid_init(&one);
        sweep_axis(&one, AX_T, 1, &Ts[p]);
        example x;
        double out[NSTAT] = {0};
        example_rc[p] = example_draw(&x, e, &one, &def, out);
        example_z[p] = out[S_Z], example_wt[p] = out[S_WT];
        example_end(&x);
        example_end(&x);   /* twice is harmless: the first one cleared it */
    }
    return ATT_OK;
}

START_TEST(test_example_is_draw_zero)
{
    char dir[] = "/tmp/att-test-example-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    static experiment_def def;
    def = (experiment_def){"demo", "a demonstration", OPT_MC, 7UL, 1, NULL, run};
    char *argv[] = {"demo", "--out", dir, "--quiet", NULL};
    allocs = frees = fail_draw = 0;
    ck_assert_int_eq(experiment_main(&def, 4, argv), 0);
    for (int p = 0; p < 2; p++) {
        ck_assert_int_eq(example_rc[p], ATT_OK);
        ck_assert_msg(example_z[p] == swept[p], "T = %zu: example %.17g, sweep's draw 0 %.17g",
                      Ts[p], example_z[p], swept[p]);
        ck_assert_double_eq(example_wt[p], (double)Ts[p]); /* work made for the point's own grid */
    }
    ck_assert_msg(swept[0] != swept[1], "the two points share a stream");
    ck_assert_int_eq(allocs, frees);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    ck_assert_int_eq(system(cmd), 0);
}
END_TEST

/* example_draw with a def that fails in the draw, called directly */
START_TEST(test_example_failed_draw_frees)
{
    experiment e = {0};
    e.o.rng_name = "mt19937", e.o.seed = 1;
    sweep_grid g;
    sweep_grid_init(&g);
    sweep_axis(&g, AX_T, 1, &Ts[0]);
    sweep_def def = SWEEP_DEF(draw);
    def.work_alloc = work_alloc, def.work_free = work_free;
    double out[NSTAT];
    example x;
    allocs = frees = 0, fail_draw = 1;
    ck_assert_int_eq(example_draw(&x, &e, &g, &def, out), ATT_ERUNTIME);
    example_end(&x);
    ck_assert_int_eq(allocs, 1);
    ck_assert_int_eq(frees, 1);
    fail_draw = 0;
    def.work_alloc = NULL, def.work_free = NULL;      /* no work: x.work stays NULL */
    ck_assert_int_eq(example_draw(&x, &e, &g, &def, out), ATT_OK);
    ck_assert_ptr_null(x.work);
    ck_assert_double_eq(out[S_WT], 0.0);
    example_end(&x);
}
END_TEST

PROP_MAIN("test_example", {"unit", 60, {test_example_is_draw_zero, test_example_failed_draw_frees}})
