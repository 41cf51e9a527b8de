/* bench.c - the measurements behind `make bench` (bench/run.sh runs them and
 * prints the table). Each subcommand prints "key value" lines on stdout.
 *
 *   bench info                 machine and library description
 *   bench rng [--n N]          the Gaussian generator's rate: mt19937 +
 *                              GSL's ziggurat through randn_fill (randn.h: what
 *                              a Monte Carlo draw of lib/selfweight uses), on one
 *                              thread and on every thread (one generator each);
 *                              and GSL's own gsl_ran_gaussian_ziggurat calls on
 *                              one thread (the same values, one call each)
 *   bench mc [--T --d --dk --draws]
 *                              random_projections' per-draw computation
 *                              (lib/selfweight.h) through mc_run: draws/s
 *   bench dgemm [--n N]        a large OpenBLAS DGEMM (n x n x n), all its
 *                              threads, best of 3: GFLOP/s
 *   bench expcmp [--T N] [--reps R]
 *                              the tiled head at T (default 100,000) with
 *                              lib/fast/vexp.c's exponential and with SLEEF's,
 *                              interleaved in one run (R runs each, default 3):
 *                              min/median/max seconds, the speed ratio, the
 *                              outputs' difference, and both exponentials'
 *                              largest error in ulps against libm's exp()
 *                              (needs SLEEF: built with -DATT_HAVE_SLEEF)
 *   bench tiled [--T N]        the tiled head (lib/tiled.h) of any_length at
 *                              d = d_k = d_v = 64: seconds, GFLOP/s, and the
 *                              process's peak resident memory (VmHWM)
 *
 * Shapes: X (T, d), W_Q, W_K (d, d_k), W_V (d, d_v), O (T, d_v).
 * GFLOP counts: DGEMM 2 n^3; the head 2 T^2 (d_k + d_v) + 2 T d (2 d_k + d_v).
 */
#include "head.h"
#include "mat.h"
#include "mc.h"
#include "opts.h"
#include "randn.h"
#include "rng.h"
#include "selfweight.h"
#include "statistics.h"
#include "status.h"
#include "tiled.h"
#include "timing.h"
#include "vexp.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <gsl/gsl_blas.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_version.h>
#include <omp.h>

extern char *openblas_get_config(void) __attribute__((weak));
extern char *openblas_get_corename(void) __attribute__((weak));
extern int openblas_get_num_threads(void) __attribute__((weak));

/* --name N from argv, or dflt. */
static size_t arg_size(int argc, char **argv, const char *name, size_t dflt)
{
    for (int i = 2; i + 1 < argc; i++)
        if (strcmp(argv[i], name) == 0) {
            size_t v;
            if (opts_parse_size(argv[i + 1], &v, name) == ATT_OK) return v;
            fprintf(stderr, "bench: %s\n", att_last_error());
            exit(2);
        }
    return dflt;
}

static int cmd_info(void)
{
    printf("openblas_config %s\n", openblas_get_config ? openblas_get_config() : "none (gslcblas)");
    printf("openblas_core %s\n", openblas_get_corename ? openblas_get_corename() : "none");
    printf("blas_threads %d\n", openblas_get_num_threads ? openblas_get_num_threads() : 1);
    printf("omp_threads %d\n", omp_get_max_threads());
    printf("gsl %s\n", GSL_VERSION);
    tiled_tiles tl = tiled_tiles_default();
    printf("tiles %zux%zu\n", tl.bq, tl.bk);
    printf("vexp %s\n", vexp_path());
    return 0;
}

/* Variates per second: each thread its own mt19937, n variates each. */
static int cmd_rng(size_t n)
{
    double sink = 0.0, rate1 = 0.0, rate_all = 0.0, rate_gsl = 0.0;
    int threads = omp_get_max_threads();
    for (int pass = 0; pass < 3; pass++) {
        int nt = pass == 1 ? threads : 1;
        double t0 = omp_get_wtime();
        #pragma omp parallel num_threads(nt) reduction(+:sink)
        {
            gsl_rng *r = rng_new("mt19937", rng_stream_seed(1, 2, (uint64_t)omp_get_thread_num()));
            double s = 0.0, buf[256];
            if (pass < 2)
                for (size_t i = 0; i < n; i += 256) {
                    randn_fill(r, buf, 256, 1.0);
                    s += buf[i % 256];
                }
            else
                for (size_t i = 0; i < n; i++) s += gsl_ran_gaussian_ziggurat(r, 1.0);
            sink += s;
            gsl_rng_free(r);
        }
        double t = omp_get_wtime() - t0;
        if (pass == 0) rate1 = (double)n / t;
        else if (pass == 1) rate_all = (double)n * nt / t;
        else rate_gsl = (double)n / t;
    }
    printf("rng mt19937+randn_fill (gsl_ran_gaussian_ziggurat's values)\n");
    printf("rng_rate_1thread %.6g\n", rate1);
    printf("rng_rate_all %.6g\n", rate_all);
    printf("rng_gsl_rate_1thread %.6g\n", rate_gsl);
    printf("rng_threads %d\n", threads);
    printf("rng_sink %g\n", sink);     /* keeps the loop from being optimised away */
    return 0;
}

/* ---- the Monte Carlo of random_projections (main sweep, one point) -------- */

/* the shared draw (lib/claims/selfweight.h): X ~ N(0,1) (T, d); W_Q, W_K ~ N(0, 1/d)
 * (d, d_k); S = (X W_Q)(X W_K)^T; row stats */
static void *mc_alloc(void *ctx) { return selfweight_scratch_new(ctx); }

static int mc_draw(gsl_rng *rng, void *ctx, void *scratch, size_t point, size_t draw,
                   double *out)
{
    (void)point;   /* one point */
    (void)draw;
    return selfweight_draw(rng, ctx, scratch, out);
}

static int cmd_mc(size_t T, size_t d, size_t d_k, size_t draws)
{
    selfweight_config c = { T, d, d_k, 1.0 / sqrt((double)d), 0 };
    stat_acc acc[SW_NSTAT];
    mc_config cfg = { .rng_name = "mt19937", .seed = 1, .stream = 0, .draws = draws,
                      .nstats = SW_NSTAT, .draw = mc_draw, .alloc = mc_alloc,
                      .free = selfweight_scratch_delete, .ctx = &c,
                      .label = "bench mc", .quiet = 1 };
    double t0 = omp_get_wtime();
    int st = mc_run(&cfg, acc);
    double t = omp_get_wtime() - t0;
    if (st) { att_print_error("bench mc"); return 3; }
    printf("mc_seconds %.6g\n", t);
    printf("mc_draws_per_s %.6g\n", (double)draws / t);
    printf("mc_variates_per_draw %zu\n", T * d + 2 * d * d_k);
    printf("mc_T_self %.6g\n", (double)T * acc[SW_SELF].mean);
    printf("mc_threads %d\n", omp_get_max_threads());
    return 0;
}

static int cmd_dgemm(size_t n)
{
    gsl_matrix *A = mat_new(n, n), *B = mat_new(n, n), *C = mat_new(n, n);
    if (!A || !B || !C) { att_print_error("bench dgemm"); return 3; }
    gsl_rng *r = rng_new("mt19937", 3);
    mat_randn(r, A, 1.0);
    mat_randn(r, B, 1.0);
    gsl_rng_free(r);
    double best = INFINITY;
    for (int k = 0; k < 4; k++) {            /* the first run warms up */
        double t0 = omp_get_wtime();
        gsl_blas_dgemm(CblasNoTrans, CblasNoTrans, 1.0, A, B, 0.0, C);
        double t = omp_get_wtime() - t0;
        if (k > 0 && t < best) best = t;
    }
    printf("dgemm_n %zu\n", n);
    printf("dgemm_seconds %.6g\n", best);
    printf("dgemm_gflops %.6g\n", 2.0 * (double)n * (double)n * (double)n / best / 1e9);
    printf("dgemm_threads %d\n", openblas_get_num_threads ? openblas_get_num_threads() : 1);
    printf("dgemm_blas_core %s\n", openblas_get_corename ? openblas_get_corename() : "none");
    mat_free(A); mat_free(B); mat_free(C);
    return 0;
}

/* VmHWM of this process, bytes (0 if unknown). */
static size_t peak_rss(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    size_t kb = 0;
    if (!f) return 0;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "VmHWM: %zu kB", &kb) == 1) break;
    fclose(f);
    return kb * 1024;
}

static int cmd_tiled(size_t T)
{
    enum { D = 64 };
    gsl_matrix *X = mat_new(T, D), *O = mat_new(T, D);
    gsl_matrix *W_Q = mat_new(D, D), *W_K = mat_new(D, D), *W_V = mat_new(D, D);
    if (!X || !O || !W_Q || !W_K || !W_V) { att_print_error("bench tiled"); return 3; }
    gsl_rng *r = rng_new("mt19937", 4);
    mat_randn(r, X, 1.0);
    mat_randn(r, W_Q, 0.125);
    mat_randn(r, W_K, 0.125);
    mat_randn(r, W_V, 0.125);
    gsl_rng_free(r);
    head_params p = head_params_make(W_Q, W_K, W_V);
    double t0 = omp_get_wtime();
    int st = tiled_forward(O, &p, X, X, tiled_tiles_default());
    double t = omp_get_wtime() - t0;
    if (st) { att_print_error("bench tiled"); return 3; }
    double flops = 2.0 * (double)T * (double)T * (2 * D) + 2.0 * (double)T * D * (3 * D);
    printf("tiled_T %zu\n", T);
    printf("tiled_seconds %.6g\n", t);
    printf("tiled_gflops %.6g\n", flops / t / 1e9);
    printf("tiled_peak_rss_bytes %zu\n", peak_rss());
    printf("tiled_threads %d\n", omp_get_max_threads());
    printf("tiled_vexp %s\n", vexp_path());
    printf("tiled_blas_core %s\n", openblas_get_corename ? openblas_get_corename() : "none");
    mat_free(X); mat_free(O); mat_free(W_Q); mat_free(W_K); mat_free(W_V);
    return 0;
}

#ifdef ATT_HAVE_SLEEF
void vexp_sleef_rows_avx512(double *y, const double *x, size_t n, double m);
void vexp_sleef_rows_avx2(double *y, const double *x, size_t n, double m);

/* ulps between a and b (both finite, same sign): their distance as integers */
static double ulps(double a, double b)
{
    int64_t ia, ib;
    memcpy(&ia, &a, sizeof ia);
    memcpy(&ib, &b, sizeof ib);
    return fabs((double)(ia - ib));
}

/* The largest error in ulps against libm of the installed row function, on
 * n values x - m uniform in [-745, 0] and in [-1, 0]. */
static double max_ulps(size_t n)
{
    double *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y), worst = 0.0;
    gsl_rng *r = rng_new("mt19937", 7);
    for (size_t i = 0; i < n; i++) x[i] = -(i % 2 ? 745.0 : 1.0) * gsl_rng_uniform(r);
    vexp_shifted(y, x, n, 0.0);
    for (size_t i = 0; i < n; i++)
        if (exp(x[i]) >= DBL_MIN) worst = fmax(worst, ulps(y[i], exp(x[i])));
    gsl_rng_free(r);
    free(x);
    free(y);
    return worst;
}

typedef struct { const head_params *p; gsl_matrix *X, *O; } head_job;
static int head_job_once(void *a)
{
    head_job *j = a;
    return tiled_forward(j->O, j->p, j->X, j->X, tiled_tiles_default());
}

static int cmd_expcmp(size_t T, size_t reps)
{
    enum { D = 64 };
    __builtin_cpu_init();
    vexp_rows_fn *sleef = __builtin_cpu_supports("avx512f") ? vexp_sleef_rows_avx512
                        : __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")
                        ? vexp_sleef_rows_avx2 : NULL;
    if (sleef == NULL) { fprintf(stderr, "bench expcmp: no AVX2 on this CPU\n"); return 3; }
    gsl_matrix *X = mat_new(T, D), *O[2] = {mat_new(T, D), mat_new(T, D)};
    gsl_matrix *W_Q = mat_new(D, D), *W_K = mat_new(D, D), *W_V = mat_new(D, D);
    if (!X || !O[0] || !O[1] || !W_Q || !W_K || !W_V) { att_print_error("bench expcmp"); return 3; }
    gsl_rng *r = rng_new("mt19937", 4);
    mat_randn(r, X, 1.0);
    mat_randn(r, W_Q, 0.125);
    mat_randn(r, W_K, 0.125);
    mat_randn(r, W_V, 0.125);
    gsl_rng_free(r);
    head_params p = head_params_make(W_Q, W_K, W_V);
    double flops = 2.0 * (double)T * (double)T * (2 * D) + 2.0 * (double)T * D * (3 * D);
    timing t[2][64];
    if (reps > 64) reps = 64;
    // interleaved: own, SLEEF, own, SLEEF, ... (one sample of one run each)
    for (size_t k = 0; k < reps; k++)
        for (int v = 0; v < 2; v++) {
            vexp_set_rows(v ? sleef : NULL);
            head_job j = {&p, X, O[v]};
            if (timing_measure(head_job_once, &j, 1, 0.0, &t[v][k])) { att_print_error("bench expcmp"); return 3; }
        }
    const char *name[2] = {"own", "sleef"};
    double med[2];
    for (int v = 0; v < 2; v++) {
        double s[64];
        for (size_t k = 0; k < reps; k++) s[k] = t[v][k].median;
        for (size_t a = 1; a < reps; a++)
            for (size_t b = a; b > 0 && s[b - 1] > s[b]; b--) { double x = s[b]; s[b] = s[b - 1]; s[b - 1] = x; }
        med[v] = reps % 2 ? s[reps / 2] : 0.5 * (s[reps / 2 - 1] + s[reps / 2]);
        vexp_set_rows(v ? sleef : NULL);
        printf("exp_%s_seconds_min %.6g\nexp_%s_seconds_median %.6g\nexp_%s_seconds_max %.6g\n"
               "exp_%s_gflops_median %.6g\nexp_%s_max_ulps %.0f\n", name[v], s[0], name[v], med[v],
               name[v], s[reps - 1], name[v], flops / med[v] / 1e9, name[v], max_ulps(1000000));
    }
    vexp_set_rows(NULL);
    printf("exp_T %zu\nexp_reps %zu\nexp_threads %d\n", T, reps, omp_get_max_threads());
    printf("exp_sleef_speed_over_own %.4f\n", med[0] / med[1]);
    printf("exp_outputs_max_abs_diff %.3g\n", mat_max_abs_diff(O[0], O[1]));
    mat_free(X); mat_free(O[0]); mat_free(O[1]); mat_free(W_Q); mat_free(W_K); mat_free(W_V);
    return 0;
}
#endif

int main(int argc, char **argv)
{
    att_init();
    const char *cmd = argc > 1 ? argv[1] : "";
    if (strcmp(cmd, "info") == 0) return cmd_info();
    if (strcmp(cmd, "rng") == 0) return cmd_rng(arg_size(argc, argv, "--n", 20000000));
    if (strcmp(cmd, "mc") == 0)
        return cmd_mc(arg_size(argc, argv, "--T", 8), arg_size(argc, argv, "--d", 64),
                      arg_size(argc, argv, "--dk", 16), arg_size(argc, argv, "--draws", 200000));
    if (strcmp(cmd, "dgemm") == 0) return cmd_dgemm(arg_size(argc, argv, "--n", 4096));
    if (strcmp(cmd, "tiled") == 0) return cmd_tiled(arg_size(argc, argv, "--T", 100000));
#ifdef ATT_HAVE_SLEEF
    if (strcmp(cmd, "expcmp") == 0)
        return cmd_expcmp(arg_size(argc, argv, "--T", 100000), arg_size(argc, argv, "--reps", 3));
#endif
    fprintf(stderr, "usage: bench info | rng [--n N] | mc [--T --d --dk --draws] | "
            "dgemm [--n N] | tiled [--T N] | expcmp [--T N] [--reps R]\n");
    return 2;
}
