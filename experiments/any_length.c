/* any_length - the same weights serve 5 tokens or 100,000.
 *
 * Claim (any_length): W_Q, W_K, W_V do not depend on the sequence length,
 * so one set of weights handles 5 tokens or 100,000. The plain head holds
 * the T x T scores (S alone is 80 GB at T = 100,000); a tiled head with an
 * online softmax (lib/fast/tiled.h) never does: its memory grows like T,
 * its time like T^2.
 * Measured, with ONE set of weights (d = d_k = d_v = 64, W ~ N(0, 1/d)) and
 * X ~ N(0, 1) per T (stream T of --seed), T = 5 .. 100,000:
 *   - every T runs through the tiled head; where the plain head fits
 *     (T <= --max-plain-T, 4096) through it too, and max |O_tiled - O_plain|
 *     is checked against the tolerance of tol.h (inner products of length
 *     d + d_k, sums over T keys);
 *   - the bytes each run allocates (counted by lib/math/mem.h, which also
 *     refuses a run over --max-memory before it starts; the tiled head's with
 *     one thread's tiles, so no number depends on the thread count), and the log-log
 *     slope of that memory against T: tiled about 1 (the claim), plain
 *     about 2 (the control);
 *   - times: both heads under the SAME threading (one thread each, in a child
 *     process per (head, T), which also gives the peak resident memory), min,
 *     median and max of --reps runs, for T <= --timing-max-T.
 * Writes into --out: any_length.csv (T, flops, error, tolerance, mean of O),
 * any_length_timing.csv (seconds with spread, GFLOP/s, counted and resident
 * bytes: machine- and thread-dependent), any_length.meta, any_length.verdicts.csv
 */
#include "experiment.h"
#include "blas.h"
#include "head.h"
#include "mat.h"
#include "mem.h"
#include "rng.h"
#include "status.h"
#include "table.h"
#include "tiled.h"
#include "timing.h"
#include "tol.h"

#include <math.h>
#include <stdio.h>
#include <unistd.h>
#include <omp.h>

enum { D = 64, DK = 64, DV = 64 };
static const size_t T_LIST[] = {5, 10, 20, 50, 100, 200, 500, 1000, 2000, 4096, 5000,
                                10000, 20000, 50000, 100000};
enum { NT_MAX = sizeof T_LIST / sizeof T_LIST[0] + 1 };
static const size_t FIT_MIN_T = 5000;       /* slopes of memory and time use T >= this */

static size_t max_T = 100000, max_plain_T = 4096, timing_max_T = 20000, reps = 5;

typedef struct { size_t T; double flops, max_abs_err, tolerance, output_mean; } length_row;
static const table_col COLS[] = {COL(length_row, T), COL(length_row, flops), COL_ROUND(length_row, max_abs_err, "tolerance"),
                                 COL(length_row, tolerance), COL(length_row, output_mean)};

/* times (seconds per run, min/median/max) and bytes of both heads at one T */
typedef struct {
    size_t T, threads, reps;
    timing tiled, plain;
    double tiled_gflops, plain_gflops, tiled_counted_bytes, plain_counted_bytes;
    double tiled_rss_above_baseline_bytes, plain_rss_above_baseline_bytes;
} timing_row;
#define TCOL(f, name) COL_AS(timing_row, f, name)
static const table_col TIME_COLS[] = {
    COL(timing_row, T), COL(timing_row, threads), COL(timing_row, reps),
    TCOL(tiled.min, "tiled_min_seconds"), TCOL(tiled.median, "tiled_median_seconds"),
    TCOL(tiled.max, "tiled_max_seconds"), COL(timing_row, tiled_gflops),
    TCOL(plain.min, "plain_min_seconds"), TCOL(plain.median, "plain_median_seconds"),
    TCOL(plain.max, "plain_max_seconds"), COL(timing_row, plain_gflops),
    COL(timing_row, tiled_counted_bytes), COL(timing_row, plain_counted_bytes),
    COL(timing_row, tiled_rss_above_baseline_bytes), COL(timing_row, plain_rss_above_baseline_bytes)};

/* One head on one input: X (T, d) -> O (T, d_v); st is the plain head's state. */
typedef struct {
    const head_params *p;
    int plain;
    gsl_matrix *X, *O;
    head_state st;
} head_run;

static int head_once(void *arg)
{
    head_run *r = arg;
    if (!r->plain) return tiled_forward(r->O, r->p, r->X, r->X, tiled_tiles_default());
    int rc = head_forward(&r->st, r->p, r->X, r->X);
    if (!rc) gsl_matrix_memcpy(r->O, r->st.O);
    return rc;
}

/* Allocate X (T, d) ~ N(0, 1) on stream (1, T) of the seed, O (T, d_v), and
 * for the plain head its state (S and A are T x T). */
static int head_run_alloc(head_run *r, const experiment *e, const head_params *p, int plain, size_t T)
{
    *r = (head_run){.p = p, .plain = plain, .X = mat_new(T, D), .O = mat_new(T, DV)};
    gsl_rng *rng = rng_new("mt19937", rng_stream_seed(e->o.seed, 1, T));
    int rc = r->X && r->O && rng ? ATT_OK : att_alloc_status();
    if (!rc) mat_randn(r->X, rng, 1.0);
    if (rng) gsl_rng_free(rng);
    // the state: a refusal by --max-memory is recorded as ATT_EUSAGE (att_last_code)
    return rc || !plain ? rc : head_state_alloc(&r->st, T, T, D, DK, DV) ? att_alloc_status() : ATT_OK;
}

static void head_run_free(head_run *r)
{
    head_state_free(&r->st);
    mat_free(r->X);
    mat_free(r->O);
}

/* One run of a head at T; *bytes = the most it had allocated at once, with
 * the tiles of ONE thread for the tiled head (tiled.h: each further thread
 * adds its own tiles, a constant), so the bytes, their slope and the cited
 * MiB do not depend on OMP_NUM_THREADS. */
static int counted_run(const experiment *e, const head_params *p, int plain, size_t T, head_run *r, double *bytes)
{
    mem_reset_peak();
    size_t before = mem_live();
    int rc = head_run_alloc(r, e, p, plain, T);
    if (!rc) rc = head_once(r);
    *bytes = (double)(mem_peak() - before);
    if (!plain) {
        tiled_tiles tl = tiled_tiles_default();
        *bytes -= (double)(tiled_threads(T, T, DK, DV, tl) - 1) * (double)tiled_thread_bytes(tl, DK, DV);
    }
    return rc;
}

/* A timing child: head `plain` at T on one thread (the plain and the tiled
 * head alike), --reps runs. */
typedef struct { const experiment *e; const head_params *p; int plain; size_t T; } timed_head;

static int time_head(void *ctx, timing *t)
{
    const timed_head *h = ctx;
    omp_set_num_threads(1);
    head_run r;
    int rc = head_run_alloc(&r, h->e, h->p, h->plain, h->T);
    if (!rc) rc = timing_measure(head_once, &r, reps, 0.05, t);
    head_run_free(&r);
    return rc;
}

/* Least-squares slope of log y against log T over T >= t_min, y > 0 (NaN below 3 points). */
static double loglog_slope(const size_t *T, const double *y, size_t n, size_t t_min)
{
    double lx[NT_MAX], ly[NT_MAX];
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (T[i] >= t_min && y[i] > 0) { lx[m] = log((double)T[i]); ly[m++] = log(y[i]); }
    return m >= 3 ? stat_fit_line(lx, ly, m, NULL, NULL) : NAN;
}

static int run(experiment *e)
{
    if (reps < 5) return exp_usage("--reps %zu: at least 5 runs per time", reps);
    size_t Ts[NT_MAX], n = 0;
    for (size_t i = 0; i < NT_MAX - 1 && !e->o.T; i++) if (T_LIST[i] <= max_T) Ts[n++] = T_LIST[i];
    if (e->o.T || Ts[n - 1] != max_T) Ts[n++] = e->o.T ? e->o.T : max_T;
    // one fixed set of weights for every T: W_Q, W_K, W_V (d, 64) ~ N(0, 1/d)
    gsl_matrix *W[3] = {mat_new(D, DK), mat_new(D, DK), mat_new(D, DV)};
    gsl_rng *rng = rng_new("mt19937", rng_stream_seed(e->o.seed, 0, 0));
    int rc = W[0] && W[1] && W[2] && rng ? ATT_OK : att_alloc_status();
    for (int k = 0; k < 3 && !rc; k++) mat_randn(W[k], rng, 1.0 / sqrt((double)D));
    if (rng) gsl_rng_free(rng);
    head_params p = head_params_make(W[0], W[1], W[2]);

    // the plain head's buffers at its largest T, then every T from the largest:
    // a budget too small is refused (exit 2) before any long run
    size_t largest_plain = 0;
    for (size_t k = 0; k < n; k++) if (Ts[k] <= max_plain_T) largest_plain = Ts[k];
    if (!rc && largest_plain) {
        head_run probe;
        rc = head_run_alloc(&probe, e, &p, 1, largest_plain);
        head_run_free(&probe);
    }
    length_row rows[NT_MAX];
    timing_row tr[NT_MAX];
    double tiled_bytes[NT_MAX], plain_bytes[NT_MAX];
    size_t nplain = 0, failed = 0;
    for (size_t k = n; k-- > 0 && !rc;) {
        size_t T = Ts[k];
        head_run pr = {0}, tr_run = {0};
        rows[k] = (length_row){T, 2.0 * T * T * (DK + DV) + 2.0 * T * D * (2.0 * DK + DV), NAN, NAN, NAN};
        plain_bytes[k] = NAN;
        if (T <= max_plain_T) rc = counted_run(e, &p, 1, T, &pr, &plain_bytes[k]);
        if (!rc) rc = counted_run(e, &p, 0, T, &tr_run, &tiled_bytes[k]);
        if (!rc) {
            // the mean of O (a checksum of the tiled run)
            double s = 0.0;
            for (size_t i = 0; i < T; i++)
                for (size_t c = 0; c < DV; c++) s += gsl_matrix_get(tr_run.O, i, c);
            rows[k].output_mean = s / ((double)T * DV);
        }
        if (!rc && T <= max_plain_T) {
            rows[k].max_abs_err = mat_max_abs_diff(tr_run.O, pr.O);
            rows[k].tolerance = tol_head_output(&pr.st, pr.X, W[2], p.scale);   /* tol.h */
            nplain++;
            failed += !(rows[k].max_abs_err <= rows[k].tolerance);
        }
        head_run_free(&pr);
        head_run_free(&tr_run);
    }

    // times, one thread for both heads, each (head, T) in its own process
    blas_single_thread();
    timing m;
    double base[2] = {0, 0}, rss;
    for (int h = 0; h < 2 && !rc; h++) rc = timing_in_child(time_head, &(timed_head){e, &p, h, 1}, &m, &base[h]);
    for (size_t k = 0; k < n && !rc; k++) {
        size_t T = Ts[k];
        timing none = {NAN, NAN, NAN, 0, 0};
        tr[k] = (timing_row){T, 1, reps, none, none, NAN, NAN, tiled_bytes[k], plain_bytes[k], NAN, NAN};
        if (T > timing_max_T) continue;
        if (opts_verbose(&e->o) && isatty(STDERR_FILENO)) fprintf(stderr, "\rany_length: timing T = %zu   ", T);
        if ((rc = timing_in_child(time_head, &(timed_head){e, &p, 0, T}, &tr[k].tiled, &rss))) break;
        tr[k].tiled_gflops = rows[k].flops / tr[k].tiled.median / 1e9;
        tr[k].tiled_rss_above_baseline_bytes = rss - base[0];
        if (T > max_plain_T || (rc = timing_in_child(time_head, &(timed_head){e, &p, 1, T}, &tr[k].plain, &rss))) continue;
        tr[k].plain_gflops = rows[k].flops / tr[k].plain.median / 1e9;
        tr[k].plain_rss_above_baseline_bytes = rss - base[1];
    }
    if (opts_verbose(&e->o) && isatty(STDERR_FILENO)) fprintf(stderr, "\r%40s\r", "");
    for (int k = 0; k < 3; k++) mat_free(W[k]);
    if (!rc) rc = TABLE_WRITE(e->o.out_dir, "any_length.csv", COLS, rows, n);
    if (!rc) rc = TABLE_WRITE(e->o.out_dir, "any_length_timing.csv", TIME_COLS, tr, n);
    if (rc) return rc;
    char machine[512];
    exp_meta(e, "%s\nd: %d\nd_k: %d\nd_v: %d\ntiles: %zu x %zu\nmax_T: %zu\nmax_plain_T: %zu\n"
             "timing_max_T: %zu\nreps: %zu\ntiming_threads: 1 (both heads)\nthreads: %d",
             timing_machine(machine, sizeof machine), D, DK, DV, tiled_tiles_default().bq,
             tiled_tiles_default().bk, max_T, max_plain_T, timing_max_T, reps, omp_get_max_threads());

    // tiled == plain where the plain head fits: the largest error against the smallest tolerance
    double err = 0.0, tol = INFINITY, med[NT_MAX];
    for (size_t k = 0; k < n; k++) {
        if (isnan(rows[k].tolerance)) continue;
        if (rows[k].max_abs_err > err || isnan(rows[k].max_abs_err)) err = rows[k].max_abs_err;
        tol = fmin(tol, rows[k].tolerance);
    }
    for (size_t k = 0; k < n; k++) med[k] = tr[k].tiled.median;
    if (nplain) {
        exp_identity(e, "anyLengthTiledErr", 0.0, measure_exact(err, nplain), rule_at_most(tol),
                    "max |O_tiled - O_plain| over %zu lengths T <= %zu (tolerance: the smallest over T, each "
                    "8 eps (2 (d + d_k) |q||k| + 2 T) max|v| + 8 d eps |x||w_V|)", nplain, max_plain_T);
        exp_identity(e, "anyLengthAgreeCount", (double)nplain,
                    measure_exact((double)(nplain - failed), nplain), rule_at_least((double)nplain),
                    "lengths T <= %zu where the tiled head agrees with the plain one within that T's tolerance",
                    max_plain_T);
    }
    size_t Tmax = Ts[n - 1];
    if (Tmax >= 100000)
        exp_claim(e, "anyLengthLongestT", 100000.0, measure_exact((double)Tmax, 1),
                    rule_at_least(100000), "longest sequence the same weights ran on (tiled head; its T x T "
                    "scores would need %.0f GB)", 8.0 * (double)Tmax * (double)Tmax / 1e9);
    if (Tmax >= 100000) exp_headline(e);
    double sm = loglog_slope(Ts, tiled_bytes, n, FIT_MIN_T), sp = loglog_slope(Ts, plain_bytes, n, 500);
    double st = loglog_slope(Ts, med, n, FIT_MIN_T);
    if (!isnan(sm))
        exp_claim(e, "anyLengthMemSlope", 1.0, measure_exact(sm, n), rule_between(0.9, 1.1),
                    "log-log slope of the bytes the tiled head allocates vs T, T >= %zu (linear: 1)", FIT_MIN_T);
    if (!isnan(sp))
        exp_control(e, "anyLengthPlainMemSlope", 2.0, measure_exact(sp, n), rule_at_least(1.5),
                    "log-log slope of the bytes the plain head allocates vs T, 500 <= T <= %zu (T x T terms: toward 2)", max_plain_T);
    exp_reported(e, "anyLengthLongestMiB", NAN, measure_exact(tiled_bytes[n - 1] / 1048576.0, 1),
                 "MiB the tiled head allocates at T = %zu (one thread's tiles; each further "
                 "thread adds %.2f MiB)", Tmax, (double)tiled_thread_bytes(tiled_tiles_default(), DK, DV) / 1048576.0);
    exp_reported(e, "anyLengthBytesPerToken", NAN, measure_exact(tiled_bytes[n - 1] / (double)Tmax, 1),
                 "bytes per token at T = %zu, one thread's tiles (X, K, V, O hold %d)", Tmax,
                 8 * (D + DK + DV + DV));
    if (!isnan(st))
        exp_reported(e, "anyLengthTimeSlope", NAN, measure_time(st, NAN, NAN, reps), "log-log slope of the tiled head's median time vs T, %zu <= T <= %zu, one thread (about 2)",
                    FIT_MIN_T, timing_max_T);
    exp_summary(e, "the same W_Q, W_K, W_V ran on T = %zu .. %zu tokens (the section: 5 or 100,000)", Ts[0], Tmax);
    if (nplain)
        exp_summary(e, "tiled = plain head within tolerance at %zu of %zu lengths T <= %zu (largest "
                    "difference %.3g)", nplain - failed, nplain, max_plain_T, err);
    if (!isnan(sm) && !isnan(sp))
        exp_summary(e, "memory grows like T^%.3f (tiled) against T^%.3f (plain, its T x T scores)", sm, sp);
    return ATT_OK;
}

int main(int argc, char **argv)
{
    static const opt_spec extra[] = {
        {"max-T", OPT_SIZE, &max_T, "N", "largest T of the default list (default 100000)"},
        {"max-plain-T", OPT_SIZE, &max_plain_T, "N", "run and compare the plain head up to this T (default 4096)"},
        {"timing-max-T", OPT_SIZE, &timing_max_T, "N", "time both heads up to this T (default 20000)"},
        {"reps", OPT_SIZE, &reps, "N", "timed runs per (head, T), >= 5 (default 5): min, median, max"},
        {NULL, 0, NULL, NULL, NULL}};
    static const experiment_def def = {"any_length", NULL,
                                       OPT_SEED | OPT_T, 20261129UL, 0, extra, run};
    return experiment_main(&def, argc, argv);
}
