/* test_mc.c - the parts of lib/ that every experiment relies on:
 * NaN propagation of the matrix comparisons (mat.h promises it), the memory
 * budget on real allocations (mem.h), and Monte Carlo grids (mc.h): each
 * point equal to its own single run, the same bytes for any thread count,
 * per-draw values in the documented layout, an allocation refused by the
 * budget reported as a usage error; and the sweep's draw (sweep.h): told its
 * index and its point's stream, every draw kept in the documented layout, a
 * point run alone (sweep_run_points) on its stream equal to that point of a
 * grid, another stream other numbers.
 */
#include "prop.h"
#include "mat.h"
#include "mc.h"
#include "mem.h"
#include "status.h"
#include "sweep.h"

#include <math.h>
#include <omp.h>
#include <string.h>
#include <gsl/gsl_randist.h>

START_TEST(test_max_abs_diff_nan)
{
    gsl_matrix *A = mat_new(3, 2), *B = mat_new(3, 2), *C = mat_new(2, 3);
    gsl_vector *v = mat_vec_new(4);
    ck_assert_double_eq(mat_max_abs_diff(A, B), 0.0);
    gsl_matrix_set(B, 2, 1, 1.5);
    ck_assert_double_eq(mat_max_abs_diff(A, B), 1.5);
    /* a NaN anywhere, in either argument and wherever it sits, gives NaN */
    for (size_t i = 0; i < 3; i++)
        for (size_t j = 0; j < 2; j++) {
            gsl_matrix_set(A, i, j, NAN);
            ck_assert_msg(isnan(mat_max_abs_diff(A, B)), "NaN in A at (%zu, %zu) hidden", i, j);
            ck_assert_msg(isnan(mat_max_abs_diff(B, A)), "NaN in B at (%zu, %zu) hidden", i, j);
            gsl_matrix_set(A, i, j, 0.0);
        }
    ck_assert(isnan(mat_max_abs_diff(A, C)));          /* shapes differ */
    gsl_vector_set(v, 3, -2.0);
    ck_assert_double_eq(mat_vec_max_abs(v), 2.0);
    gsl_vector_set(v, 1, NAN);
    ck_assert(isnan(mat_vec_max_abs(v)));
    mat_free(A); mat_free(B); mat_free(C); mat_vec_free(v);
}
END_TEST

START_TEST(test_memory_budget)
{
    size_t live0 = mem_live();
    mem_set_budget(live0 + 1000 * sizeof(double), "--max-memory");
    gsl_matrix *A = mat_new(10, 50);                     /* 500 doubles: fits */
    ck_assert_ptr_nonnull(A);
    ck_assert_uint_eq(mem_live(), live0 + 500 * sizeof(double));
    gsl_matrix *B = mat_new(10, 60);                     /* 600 more: refused */
    ck_assert_ptr_null(B);
    ck_assert_int_eq(att_last_code(), ATT_EUSAGE);
    ck_assert_ptr_nonnull(strstr(att_last_error(), "--max-memory"));
    ck_assert_ptr_nonnull(strstr(att_last_error(), "10 x 60"));
    double *buf = mem_calloc(400, sizeof(double), "a buffer");   /* 400 more: fits */
    ck_assert_ptr_nonnull(buf);
    ck_assert_ptr_null(mem_calloc(200, sizeof(double), "a second buffer"));
    mem_free(buf, 400, sizeof(double));
    mat_free(A);
    ck_assert_uint_eq(mem_live(), live0);                /* all given back */
    ck_assert_uint_ge(mem_peak(), live0 + 900 * sizeof(double));
    mem_set_budget(0, NULL);
    B = mat_new(10, 60);                                 /* no budget: fits */
    ck_assert_ptr_nonnull(B);
    mat_free(B);
}
END_TEST

/* ---- Monte Carlo grids --------------------------------------------------- */

typedef struct { double mu[5]; } grid_ctx;

static size_t grid_draws(const void *ctx, size_t p) { (void)ctx; return 100 + 300 * p; }

/* point p: N(mu_p, 1), and the draw index */
static int grid_draw(gsl_rng *rng, void *ctx, void *scratch, size_t p, size_t i, double *out)
{
    (void)scratch;
    const grid_ctx *c = ctx;
    out[0] = c->mu[p] + gsl_ran_gaussian(rng, 1.0);
    out[1] = (double)i;
    return ATT_OK;
}

static int single_draw(gsl_rng *rng, void *ctx, void *scratch, size_t point, size_t i,
                       double *out)
{
    (void)point;   /* one point */
    (void)scratch;
    const grid_ctx *c = ctx;
    out[0] = c->mu[3] + gsl_ran_gaussian(rng, 1.0);
    out[1] = (double)i;
    return ATT_OK;
}

START_TEST(test_mc_grid)
{
    grid_ctx c = {{0, 1, 2, 3, 4}};
    size_t total = 0;
    for (size_t p = 0; p < 5; p++) total += grid_draws(&c, p);
    double *v1 = calloc(total * 2, sizeof *v1), *v2 = calloc(total * 2, sizeof *v2);
    stat_acc a1[10], a2[10];
    mc_config cfg = {.rng_name = "mt19937", .seed = 5, .stream = 40, .nstats = 2, .ctx = &c,
                     .quiet = 1, .points = 5, .draw = grid_draw, .point_draws = grid_draws,
                     .values = v1};
    ck_assert_uint_eq(mc_total_draws(&cfg), total);
    omp_set_num_threads(1);
    ck_assert_int_eq(mc_run(&cfg, a1), ATT_OK);
    cfg.values = v2;
    omp_set_num_threads(2);
    ck_assert_int_eq(mc_run(&cfg, a2), ATT_OK);
    /* the same bytes for 1 and 2 threads, statistics and per-draw values */
    ck_assert(memcmp(v1, v2, total * 2 * sizeof *v1) == 0);
    for (int k = 0; k < 10; k++)
        ck_assert(a1[k].n == a2[k].n && memcmp(&a1[k].mean, &a2[k].mean, sizeof(double)) == 0);
    /* values layout: point after point, draw after draw */
    for (size_t p = 0, first = 0; p < 5; first += grid_draws(&c, p), p++) {
        ck_assert_uint_eq(a1[2 * p].n, grid_draws(&c, p));
        for (size_t i = 0; i < grid_draws(&c, p); i++)
            ck_assert_double_eq(v1[(first + i) * 2 + 1], (double)i);
    }
    /* point 3 of the grid is the single run of stream 40 + 3 */
    stat_acc s[2];
    mc_config one = {.rng_name = "mt19937", .seed = 5, .stream = 43, .draws = grid_draws(&c, 3),
                     .nstats = 2, .draw = single_draw, .ctx = &c, .quiet = 1};
    ck_assert_int_eq(mc_run(&one, s), ATT_OK);
    ck_assert(memcmp(&s[0].mean, &a1[6].mean, sizeof(double)) == 0);
    ck_assert(memcmp(&s[0].m2, &a1[6].m2, sizeof(double)) == 0);
    free(v1); free(v2);
}
END_TEST

static void *big_alloc(void *ctx) { (void)ctx; return mat_new(1000, 1000); }
static void big_free(void *p) { mat_free(p); }

START_TEST(test_mc_scratch_over_budget)
{
    grid_ctx c = {{0}};
    mem_set_budget(mem_live() + 1000, "--max-memory");
    stat_acc s[2];
    mc_config cfg = {.rng_name = "mt19937",
                     .seed = 1,
                     .draws = 10,
                     .nstats = 2,
                     .draw = single_draw,
                     .alloc = big_alloc,
                     .free = big_free,
                     .ctx = &c,
                     .quiet = 1};
    ck_assert_int_eq(mc_run(&cfg, s), ATT_EUSAGE);
    ck_assert_ptr_nonnull(strstr(att_last_error(), "--max-memory"));
    mem_set_budget(0, NULL);
}
END_TEST

/* ---- the sweep's draw: its index, its stream ------------------------------ */

/* out = (N(0, 1) from the block's generator, the draw's index, the point's index) */
static int sweep_draw(gsl_rng *rng, double *out, const sweep_point *pt, void *work,
                      const void *ctx)
{
    (void)work, (void)ctx;
    out[0] = gsl_ran_gaussian(rng, 1.0);
    out[1] = (double)pt->draw;
    out[2] = (double)pt->index;
    return ATT_OK;
}

START_TEST(test_sweep_draw_index_and_stream)
{
    static const size_t D[] = {3, 5, 7};
    enum { NS = 3, DRAWS = 2 * MC_BLOCK + 9 };
    experiment e = {0};
    e.o.id = "test_mc", e.o.seed = 11, e.o.draws = DRAWS, e.o.rng_name = "mt19937", e.o.quiet = 1;
    sweep_grid g;
    sweep_grid_init(&g);
    sweep_axis(&g, AX_D, 3, D);
    sweep_def def = {.draw = sweep_draw, .nstats = NS, .csv = "", .keep_draws = 1};
    sweep_result r[2];
    for (int th = 1; th <= 2; th++) {
        omp_set_num_threads(th);
        ck_assert_int_eq(sweep_run(&e, &g, &def, &r[th - 1]), ATT_OK);
    }
    ck_assert_ptr_nonnull(r[0].values);
    ck_assert(memcmp(r[0].values, r[1].values, 3 * DRAWS * NS * sizeof(double)) == 0);
    for (size_t p = 0; p < 3; p++) {
        /* the point's stream is sweep_stream of its parameters; draw i of point p at
         * values[(p DRAWS + i) NS ..] knows its index i and its point p */
        ck_assert(r[0].pt[p].stream == sweep_stream(&r[0].pt[p]));
        for (size_t i = 0; i < DRAWS; i++) {
            ck_assert_double_eq(r[0].values[(p * DRAWS + i) * NS + 1], (double)i);
            ck_assert_double_eq(r[0].values[(p * DRAWS + i) * NS + 2], (double)p);
        }
    }
    /* point 1 alone, on the stream it carries: the grid's numbers, draw for draw */
    sweep_result one;
    ck_assert_int_eq(sweep_run_points(&e, &g, &r[0].pt[1], 1, &def, &one), ATT_OK);
    for (size_t i = 0; i < DRAWS; i++)
        ck_assert(memcmp(&one.values[i * NS], &r[0].values[(DRAWS + i) * NS], sizeof(double))
                  == 0);
    ck_assert(memcmp(&one.acc[0].mean, &r[0].acc[NS].mean, sizeof(double)) == 0);
    sweep_result_free(&one);
    /* the same point on another stream: other numbers */
    sweep_point other = r[0].pt[1];
    other.stream ^= 1;
    ck_assert_int_eq(sweep_run_points(&e, &g, &other, 1, &def, &one), ATT_OK);
    ck_assert(one.values[0] != r[0].values[DRAWS * NS]);
    sweep_result_free(&one);
    /* without keep_draws (or draws_csv) no draw is kept */
    def.keep_draws = 0;
    ck_assert_int_eq(sweep_run_points(&e, &g, r[0].pt, 1, &def, &one), ATT_OK);
    ck_assert_ptr_null(one.values);
    ck_assert_uint_eq(one.acc[1].n, DRAWS);
    sweep_result_free(&one);
    sweep_result_free(&r[0]);
    sweep_result_free(&r[1]);
}
END_TEST

PROP_MAIN("test_mc",
          {"core",
           0,
           {test_max_abs_diff_nan, test_memory_budget, test_mc_grid, test_mc_scratch_over_budget,
            test_sweep_draw_index_and_stream}})
