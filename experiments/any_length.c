/* any_length - one set of weights serves a sequence of any length.
 *
 * Claim (any_length): the three matrices W_Q, W_K, W_V of a head do not
 * depend on the sequence length, so the very same weights handle 5 tokens or
 * 100,000. The plain head holds the T x T score matrix (memory ~ T^2: S
 * alone is 80 GB at T = 100,000); a tiled head with an online softmax
 * (lib/tiled.h) never does, so its memory grows like T while its time grows
 * like T^2.
 *
 * Measured, with ONE fixed set of weights (d = d_k = d_v = 64, double,
 * W ~ N(0, 1/d)) and X ~ N(0, 1) drawn per T (stream T of --seed):
 *   - for T = 5 .. 100,000: time and peak resident memory of the tiled head
 *     (each T in its own child process, so ru_maxrss is that T's peak; fast
 *     runs repeated for 0.05 s and the median kept), and
 *     the same for the plain head where it fits (T <= --max-plain-T, 4096);
 *   - for T <= --max-plain-T: max |O_tiled - O_plain| against the tolerance
 *     of tiled.h (inner products of length d + d_k, sums over T keys);
 *   - the log-log slopes of memory (above a T = 1 baseline) and of time
 *     against T over T >= 5000.
 * Verdicts: tiled == plain within tolerance for every T <= 4096; the largest
 * T (100,000) completes; memory slope in [0.9, 1.1] (linear). Times are
 * reported as measured (a timing verdict row each).
 *
 * Writes into --out:
 *   any_length.csv          T, flops, model bytes (tiled, plain), the error
 *                           and its tolerance, the mean of O (deterministic)
 *   any_length_timing.csv   T, threads, seconds, GFLOP/s and peak RSS of both
 *                           heads (machine-dependent; not compared by verify)
 *   any_length.meta, any_length.verdicts.csv
 *
 * Cost: T = 100,000 is 2.6e12 flops, about 30 s on the project's 2-core
 * machine (T = 50,000 a quarter of that); the rest is small. --max-T 5000
 * gives a run of about a second (then no T = 100,000 verdict).
 */
#include "head.h"
#include "tol.h"
#include "mat.h"
#include "mc.h"
#include "opts.h"
#include "output.h"
#include "rng.h"
#include "stats.h"
#include "status.h"
#include "tiled.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <gsl/gsl_blas.h>
#include <omp.h>

#define ID "any_length"

enum { D = 64, DK = 64, DV = 64 };

/* The default lengths: the claim's 5, 50, ..., 100,000 and points between. */
static const size_t T_LIST[] = { 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 4096, 5000,
                                 10000, 20000, 50000, 100000 };
enum { NT_MAX = sizeof T_LIST / sizeof T_LIST[0] + 1 };

/* Fits (memory and time slopes) use T >= this. */
static const size_t FIT_MIN_T = 5000;
/* Small heads are run repeatedly for at least this long (s); the median run
 * is reported. */
static const double MIN_TIMED = 0.05;

/* What a child process reports back through its pipe. */
typedef struct {
    int status;            /* ATT_OK or the error            */
    double seconds;        /* per run                         */
    double reps;           /* runs timed                      */
    double out_mean;       /* mean of O (a checksum)          */
    char err[256];
} child_msg;

typedef struct {
    size_t T;
    double flops;
    child_msg tiled, plain;
    size_t tiled_rss, plain_rss;        /* bytes, ru_maxrss of the child */
    int has_plain;
    double err, tol;                    /* NAN where no plain reference  */
} point;

typedef struct {
    const opts *o;
    const head_params *p;
    size_t T;
    int plain;             /* 1: the plain head; 0: the tiled head */
    int blas_threads;      /* OpenBLAS threads for the plain head  */
} job;

/* OpenBLAS, when linked, exports these; with GSL's reference CBLAS they are absent. */
extern int openblas_get_num_threads(void) __attribute__((weak));
extern void openblas_set_num_threads(int) __attribute__((weak));

/* 2 T^2 (d_k + d_v) for S and A V, 2 T d (2 d_k + d_v) for the projections. */
static double head_flops(size_t T)
{
    double t = (double)T;
    return 2.0 * t * t * (DK + DV) + 2.0 * t * D * (2.0 * DK + DV);
}

/* X (T, d) of length T: the same for every run with this seed. */
static gsl_matrix *input_make(const opts *o, size_t T)
{
    gsl_matrix *X = mat_new(T, D);
    gsl_rng *rng = rng_new("mt19937", rng_stream_seed(o->seed, 1, T));
    if (X && rng) mat_randn(X, rng, 1.0);
    if (rng) gsl_rng_free(rng);
    if (!rng) { mat_free(X); return NULL; }
    return X;
}

/* One run of the head the job names: O (T, d_v) from X (T, d). */
static int job_once(const job *jb, gsl_matrix *O, const gsl_matrix *X, head_state *st)
{
    if (!jb->plain) return tiled_forward(O, jb->p, X, X, tiled_tiles_default());
    int rc = head_forward(st, jb->p, X, X);
    if (!rc) gsl_matrix_memcpy(O, st->O);
    return rc;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* In the child: build X, run (repeatedly when fast), report. */
static child_msg job_run(const job *jb)
{
    child_msg m = { ATT_OK, NAN, 0, NAN, "" };
    size_t T = jb->T;
    gsl_matrix *X = input_make(jb->o, T), *O = mat_new(T, DV);
    head_state st = { 0 };
    int rc = (X && O) ? ATT_OK : ATT_ERUNTIME;
    // the plain head uses OpenBLAS's threads (the tiled head uses ours)
    if (jb->plain && jb->blas_threads > 1 && openblas_set_num_threads)
        openblas_set_num_threads(jb->blas_threads);
    if (!rc && jb->plain) rc = head_state_alloc(&st, T, T, D, DK, DV);
    if (!rc) {
        // one run, then repeat fast ones until MIN_TIMED seconds have passed
        double t0 = omp_get_wtime();
        rc = job_once(jb, O, X, &st);
        double t1 = omp_get_wtime() - t0;
        m.seconds = t1;
        m.reps = 1;
        if (!rc && t1 < MIN_TIMED) {
            // the median of the repeated runs: a run that the machine
            // interrupted (another process, a sleeping core) does not count
            size_t reps = (size_t)fmin(ceil(MIN_TIMED / fmax(t1, 1e-7)), 100000.0);
            double *ts = malloc(reps * sizeof *ts);
            if (!ts) rc = att_fail(ATT_ERUNTIME, "out of memory for %zu timings", reps);
            for (size_t r = 0; r < reps && !rc; r++) {
                t0 = omp_get_wtime();
                rc = job_once(jb, O, X, &st);
                ts[r] = omp_get_wtime() - t0;
            }
            if (!rc) {
                qsort(ts, reps, sizeof *ts, cmp_double);
                m.seconds = reps % 2 ? ts[reps / 2] : 0.5 * (ts[reps / 2 - 1] + ts[reps / 2]);
                m.reps = (double)reps;
            }
            free(ts);
        }
    }
    if (!rc) {
        double s = 0.0;
        for (size_t i = 0; i < T; i++)
            for (size_t c = 0; c < DV; c++) s += gsl_matrix_get(O, i, c);
        m.out_mean = s / ((double)T * DV);
    }
    m.status = rc;
    if (rc) snprintf(m.err, sizeof m.err, "%s", att_last_error());
    head_state_free(&st);
    mat_free(X);
    mat_free(O);
    return m;
}

/* Run the job in a child process; *rss = the child's peak resident bytes.
 * The parent holds nothing large at this point, so the peak is the job's
 * own (plus the small baseline every process has). */
static int job_in_child(const job *jb, child_msg *m, size_t *rss)
{
    int fd[2];
    if (pipe(fd) != 0) return att_fail(ATT_ERUNTIME, "pipe: %s", strerror(errno));
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        close(fd[0]); close(fd[1]);
        return att_fail(ATT_ERUNTIME, "fork: %s", strerror(errno));
    }
    if (pid == 0) {                                  /* the child */
        close(fd[0]);
        child_msg r = job_run(jb);
        ssize_t w = write(fd[1], &r, sizeof r);
        _exit(w == (ssize_t)sizeof r ? 0 : 1);
    }
    close(fd[1]);
    size_t got = 0;
    while (got < sizeof *m) {
        ssize_t n = read(fd[0], (char *)m + got, sizeof *m - got);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        got += (size_t)n;
    }
    close(fd[0]);
    int wst;
    struct rusage ru;
    while (wait4(pid, &wst, 0, &ru) < 0)
        if (errno != EINTR) return att_fail(ATT_ERUNTIME, "wait4: %s", strerror(errno));
    if (got != sizeof *m || !WIFEXITED(wst) || WEXITSTATUS(wst) != 0)
        return att_fail(ATT_ERUNTIME, "the %s head at T = %zu died (%s %d)",
                        jb->plain ? "plain" : "tiled", jb->T,
                        WIFSIGNALED(wst) ? "signal" : "exit status",
                        WIFSIGNALED(wst) ? WTERMSIG(wst) : WEXITSTATUS(wst));
    *rss = (size_t)ru.ru_maxrss * 1024u;             /* Linux: KiB */
    if (m->status != ATT_OK)
        return att_fail(m->status, "the %s head at T = %zu: %s", jb->plain ? "plain" : "tiled",
                        jb->T, m->err);
    return ATT_OK;
}

/* Bytes the tiled run holds: X, O (T, d), (T, d_v) plus K, V and the tiles. */
static size_t tiled_model_bytes(size_t T, int threads)
{
    size_t head = tiled_forward_bytes(T, T, D, DK, DV, tiled_tiles_default(), threads);
    size_t xo = mat_bytes(T, D + DV);
    return head && xo ? head + xo : 0;
}

/* The plain run: X, O and the head's state (Qb, Kb, Q, K, V, O, and S, A). */
static size_t plain_model_bytes(size_t T)
{
    size_t tt = mat_bytes(T, T), lin = mat_bytes(T, D + DV + 5 * DK + 2 * DV);
    if (tt == 0 || lin == 0 || tt > (SIZE_MAX - lin) / 2) return 0;
    return 2 * tt + lin;
}

/* In the parent, after every child: tiled vs plain on the same X. */
static int agreement(const opts *o, const head_params *p, point *pt)
{
    size_t T = pt->T;
    gsl_matrix *X = input_make(o, T), *O = mat_new(T, DV);
    head_state st = { 0 };
    int rc = (X && O) ? head_state_alloc(&st, T, T, D, DK, DV) : ATT_ERUNTIME;
    if (!rc) rc = head_forward(&st, p, X, X);
    if (!rc) rc = tiled_forward(O, p, X, X, tiled_tiles_default());
    if (!rc) {
        double err = 0.0;
        for (size_t i = 0; i < T; i++)
            for (size_t c = 0; c < DV; c++) {
                double e = fabs(gsl_matrix_get(O, i, c) - gsl_matrix_get(st.O, i, c));
                if (e > err || isnan(e)) err = e;
            }
        // score errors from inner products of length d (projection) + d_k;
        // the values' own projection error, d eps |x| |w_V|
        double xmax = 0.0, wmax = 0.0;
        for (size_t i = 0; i < T; i++) {
            gsl_vector_const_view r = gsl_matrix_const_row(X, i);
            xmax = fmax(xmax, gsl_blas_dnrm2(&r.vector));
        }
        for (size_t c = 0; c < DV; c++) {
            gsl_vector_const_view col = gsl_matrix_const_column(p->W_V, c);
            wmax = fmax(wmax, gsl_blas_dnrm2(&col.vector));
        }
        pt->err = err;
        pt->tol = tol_attention_output(T, D + DK, tol_score_bound(st.Q, st.K, p->scale),
                                  mat_max_abs(st.V))
                  + tol_eps(8, D, xmax * wmax);
    }
    head_state_free(&st);
    mat_free(X);
    mat_free(O);
    return rc;
}

/* ---- output ------------------------------------------------------------- */

static int write_data(const opts *o, const point *pts, size_t n)
{
    afile af;
    int st = afile_open(&af, o->out_dir, ID ".csv");
    if (st) return st;
    fprintf(af.f, "T,flops,tiled_data_bytes,plain_model_bytes,max_abs_err,tolerance,output_mean\n");
    for (size_t i = 0; i < n; i++) {
        const point *q = &pts[i];
        // X, K, V, O: what the tiled run holds besides its per-thread tiles
        double row[] = { (double)q->T, q->flops, (double)mat_bytes(q->T, D + DK + DV + DV),
                         (double)plain_model_bytes(q->T), q->err, q->tol, q->tiled.out_mean };
        for (size_t k = 0; k < sizeof row / sizeof row[0]; k++) {
            if (k) fputc(',', af.f);
            csv_num(af.f, row[k]);
        }
        fputc('\n', af.f);
    }
    return afile_commit(&af);
}

static int write_timing(const opts *o, const point *pts, size_t n, int threads,
                        const size_t base[2])
{
    afile af;
    int st = afile_open(&af, o->out_dir, ID "_timing.csv");
    if (st) return st;
    fprintf(af.f, "# machine-dependent: wall-clock seconds and peak resident memory (ru_maxrss "
            "of one child process per run); baseline = a T = 1 run of the same head\n");
    fprintf(af.f, "T,threads,tiled_seconds,tiled_reps,tiled_gflops,tiled_peak_rss_bytes,"
            "tiled_rss_above_baseline_bytes,plain_seconds,plain_reps,plain_gflops,"
            "plain_peak_rss_bytes,plain_rss_above_baseline_bytes,tiled_baseline_rss_bytes,"
            "plain_baseline_rss_bytes\n");
    for (size_t i = 0; i < n; i++) {
        const point *q = &pts[i];
        double na = NAN;
        double row[] = {
            (double)q->T, threads, q->tiled.seconds, q->tiled.reps,
            q->flops / q->tiled.seconds / 1e9, (double)q->tiled_rss,
            (double)q->tiled_rss - (double)base[0],
            q->has_plain ? q->plain.seconds : na, q->has_plain ? q->plain.reps : na,
            q->has_plain ? q->flops / q->plain.seconds / 1e9 : na,
            q->has_plain ? (double)q->plain_rss : na,
            q->has_plain ? (double)q->plain_rss - (double)base[1] : na, (double)base[0],
            (double)base[1] };
        for (size_t k = 0; k < sizeof row / sizeof row[0]; k++) {
            if (k) fputc(',', af.f);
            csv_num(af.f, row[k]);
        }
        fputc('\n', af.f);
    }
    return afile_commit(&af);
}

/* Least-squares slope of log y against log T over the points with T >= FIT_MIN_T
 * (y > 0). NAN when fewer than 3 such points. */
static double loglog_slope(const point *pts, size_t n, int memory, size_t base)
{
    double x[NT_MAX], y[NT_MAX];
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        if (pts[i].T < FIT_MIN_T) continue;
        double v = memory ? (double)pts[i].tiled_rss - (double)base : pts[i].tiled.seconds;
        if (!(v > 0)) continue;
        x[m] = log((double)pts[i].T);
        y[m] = log(v);
        m++;
    }
    return m >= 3 ? stat_fit_line(x, y, m, NULL, NULL) : NAN;
}

static int report(const opts *o, const point *pts, size_t n, size_t base, size_t max_plain_T)
{
    verdict_list vl;
    verdicts_init(&vl);
    char q[256], rule[160];
    int st = ATT_OK;

    // tiled == plain where the plain head fits. Shown: the largest error over
    // those T against the smallest tolerance (a stricter rule than T by T,
    // and both numbers are reproducible); then the count that pass T by T.
    double err = 0.0, tol = INFINITY;
    size_t nplain = 0, failed = 0;
    for (size_t i = 0; i < n; i++) {
        if (!pts[i].has_plain) continue;
        nplain++;
        if (pts[i].err > err || isnan(pts[i].err)) err = pts[i].err;
        tol = fmin(tol, pts[i].tol);
        if (!(pts[i].err <= pts[i].tol)) failed++;
    }
    if (nplain > 0) {
        snprintf(q, sizeof q, "max |O_tiled - O_plain| over %zu lengths T <= %zu", nplain,
                 max_plain_T);
        st = verdict_exact(&vl, "anyLengthTiledErr", q, 0.0, err, tol, err <= tol,
                           "<= the smallest tolerance over T, each 8 eps (2 (d + d_k) |q||k| "
                           "+ 2 T) max|v| + 8 d eps |x||w_V|");
        snprintf(q, sizeof q, "lengths T <= %zu where the tiled head agrees with the plain one "
                 "within that T's tolerance", max_plain_T);
        if (!st)
            st = verdict_exact(&vl, "anyLengthAgreeCount", q, (double)nplain,
                               (double)(nplain - failed), 0.0, failed == 0, "all of them");
    }

    // the longest sequence completes
    size_t Tmax = pts[n - 1].T;
    if (!st && Tmax >= 100000) {
        snprintf(q, sizeof q, "longest sequence the same weights ran on (tiled head; T x T "
                 "scores would need %.0f GB)", 8.0 * (double)Tmax * (double)Tmax / 1e9);
        st = verdict_exact(&vl, "anyLengthLongestT", q, 100000.0, (double)Tmax, 0.0,
                           Tmax >= 100000, ">= 100000, completed");
        snprintf(q, sizeof q, "time of the tiled head at T = %zu (s)", Tmax);
        if (!st)
            st = verdict_timing(&vl, "anyLengthLongestSeconds", q, pts[n - 1].tiled.seconds, 1,
                                "reported as measured");
        snprintf(q, sizeof q, "peak resident memory at T = %zu (MiB)", Tmax);
        if (!st)
            st = verdict_timing(&vl, "anyLengthLongestMiB", q,
                                (double)pts[n - 1].tiled_rss / 1048576.0, 1,
                                "reported as measured");
        snprintf(q, sizeof q, "tiled head GFLOP/s at T = %zu", Tmax);
        if (!st)
            st = verdict_timing(&vl, "anyLengthLongestGflops", q,
                                pts[n - 1].flops / pts[n - 1].tiled.seconds / 1e9, 1,
                                "reported as measured");
    }

    // memory linear, time quadratic (log-log slopes over T >= FIT_MIN_T)
    double sm = loglog_slope(pts, n, 1, base), stime = loglog_slope(pts, n, 0, base);
    if (!st && !isnan(sm)) {
        snprintf(q, sizeof q, "log-log slope of the tiled head's peak memory (above a T = 1 run) vs T, T >= %zu",
                 FIT_MIN_T);
        snprintf(rule, sizeof rule, "in [0.9, 1.1] (linear in T)");
        st = verdict_timing(&vl, "anyLengthMemSlope", q, sm, sm >= 0.9 && sm <= 1.1, rule);
        double bpt = ((double)pts[n - 1].tiled_rss - (double)base) / (double)Tmax;
        snprintf(q, sizeof q, "bytes per token at T = %zu (X, K, V, O hold %d)", Tmax,
                 8 * (D + DK + DV + DV));
        if (!st) st = verdict_timing(&vl, "anyLengthBytesPerToken", q, bpt, 1, "reported as measured");
    }
    if (!st && !isnan(stime)) {
        snprintf(q, sizeof q, "log-log slope of time vs T, T >= %zu", FIT_MIN_T);
        st = verdict_timing(&vl, "anyLengthTimeSlope", q, stime, 1,
                            "reported as measured (about 2: quadratic)");
    }
    if (!st) st = legacy_verdicts_write(&vl, o);
    if (!st) st = verdicts_status(&vl);
    verdicts_free(&vl);
    return st;
}

/* ---- main ----------------------------------------------------------------- */

static int run(const opts *o, size_t max_T, size_t max_plain_T)
{
    // the T list: --T alone, or the default list up to --max-T
    point pts[NT_MAX];
    size_t n = 0;
    if (o->T) {
        pts[n++] = (point){ .T = o->T };
    } else {
        for (size_t i = 0; i < sizeof T_LIST / sizeof T_LIST[0]; i++)
            if (T_LIST[i] <= max_T) pts[n++] = (point){ .T = T_LIST[i] };
        if (n == 0 || pts[n - 1].T != max_T) pts[n++] = (point){ .T = max_T };
    }
    int threads = omp_get_max_threads();
    for (size_t i = 0; i < n; i++) {
        point *q = &pts[i];
        q->flops = head_flops(q->T);
        q->err = q->tol = NAN;
        q->has_plain = q->T <= max_plain_T;
        int st = opts_check_memory(o, tiled_model_bytes(q->T, threads), "the tiled head");
        if (!st && q->has_plain) st = opts_check_memory(o, plain_model_bytes(q->T), "the plain head");
        if (st) return st;
    }

    // one fixed set of weights for every T
    gsl_matrix *W_Q = mat_new(D, DK), *W_K = mat_new(D, DK), *W_V = mat_new(D, DV);
    gsl_rng *rng = rng_new("mt19937", rng_stream_seed(o->seed, 0, 0));
    int st = (W_Q && W_K && W_V && rng) ? ATT_OK : ATT_ERUNTIME;
    if (!st) {
        double sw = 1.0 / sqrt((double)D);
        mat_randn(W_Q, rng, sw);
        mat_randn(W_K, rng, sw);
        mat_randn(W_V, rng, sw);
    }
    head_params p = head_params_make(W_Q, W_K, W_V);
    int verbose = opts_verbose(o), progress = verbose && isatty(STDERR_FILENO);

    // BLAS single-threaded here, before any child is forked: a child that
    // changed the count itself would restart OpenBLAS's thread pool, whose
    // threads spin for about 0.1 s on the cores the tiled head is timed on
    int blas_threads = openblas_get_num_threads ? openblas_get_num_threads() : 1;
    mc_blas_single_thread();

    // the baselines: a T = 1 run of each head (libraries, threads, BLAS buffers)
    size_t base[2] = { 0, 0 };
    child_msg m;
    job jb = { o, &p, 1, 0, blas_threads };
    if (!st) st = job_in_child(&jb, &m, &base[0]);
    jb.plain = 1;
    if (!st) st = job_in_child(&jb, &m, &base[1]);

    // every T in its own child: tiled, then plain where it fits
    for (size_t i = 0; i < n && !st; i++) {
        point *q = &pts[i];
        if (progress) fprintf(stderr, "\r" ID ": T = %zu ...          ", q->T);
        jb = (job){ o, &p, q->T, 0, blas_threads };
        st = job_in_child(&jb, &q->tiled, &q->tiled_rss);
        if (!st && q->has_plain) {
            jb.plain = 1;
            st = job_in_child(&jb, &q->plain, &q->plain_rss);
        }
    }
    if (progress) fprintf(stderr, "\r%40s\r", "");

    // agreement where the plain head fits (in this process, after the children)
    for (size_t i = 0; i < n && !st; i++)
        if (pts[i].has_plain) st = agreement(o, &p, &pts[i]);

    if (!st && verbose) {
        printf("%8s %12s %9s %10s %12s %10s %11s %11s\n", "T", "tiled s", "GFLOP/s", "peak MiB",
               "plain s", "plain MiB", "max err", "tolerance");
        for (size_t i = 0; i < n; i++) {
            const point *q = &pts[i];
            printf("%8zu %12.4g %9.2f %10.1f", q->T, q->tiled.seconds,
                   q->flops / q->tiled.seconds / 1e9, (double)q->tiled_rss / 1048576.0);
            if (q->has_plain)
                printf(" %12.4g %10.1f %11.3g %11.3g\n", q->plain.seconds,
                       (double)q->plain_rss / 1048576.0, q->err, q->tol);
            else
                printf(" %12s %10s %11s %11s\n", "-", "-", "-", "-");
        }
        printf("baseline (T = 1) peak: tiled %.1f MiB, plain %.1f MiB; %d threads; tiles %zu x %zu\n",
               (double)base[0] / 1048576.0, (double)base[1] / 1048576.0, threads,
               tiled_tiles_default().bq, tiled_tiles_default().bk);
    }
    if (!st) st = write_data(o, pts, n);
    if (!st) st = write_timing(o, pts, n, threads, base);
    if (!st) {
        char extra[256];
        snprintf(extra, sizeof extra, "d = d_k = d_v = %d; tiles %zu x %zu; threads %d; "
                 "plain head up to T = %zu", D, tiled_tiles_default().bq,
                 tiled_tiles_default().bk, threads, max_plain_T);
        st = output_meta(o, extra);
    }
    if (!st) st = report(o, pts, n, base[0], max_plain_T);
    mat_free(W_Q); mat_free(W_K); mat_free(W_V);
    if (rng) gsl_rng_free(rng);
    return st;
}

int main(int argc, char **argv)
{
    att_init();
    size_t max_T = 100000, max_plain_T = 4096;
    const opt_spec extra[] = {
        {"max-T", OPT_SIZE, &max_T, "N", "largest T of the default list (default 100000)"},
        {"max-plain-T", OPT_SIZE, &max_plain_T, "N",
         "run and compare the plain head (T x T scores) up to this T (default 4096)"},
        {NULL, 0, NULL, NULL, NULL}
    };
    const opts_info info = { ID, "one head, fixed weights, T = 5 .. 100,000: tiled vs plain, "
                             "time and memory", OPT_SEED | OPT_T, 20261129UL, 0, extra };
    opts o;
    int st = opts_parse(&o, &info, argc, argv);
    if (st) return opts_exit(&o, st);
    return opts_exit(&o, run(&o, max_T, max_plain_T));
}
