/* any_length - the same weights serve 5 tokens or 100,000.
 *
 * Claim (any_length): W_Q, W_K, W_V do not depend on the sequence length, so
 * one set of weights handles 5 tokens or 100,000. The plain head holds the
 * T x T scores (S alone is 80 GB at T = 100,000); a tiled head with an online
 * softmax (lib/fast/tiled.h) never does: memory like T, time like T^2.
 * Measured with ONE set of weights (d = d_k = d_v = 64, W ~ N(0, 1/d)), X ~ N(0, 1)
 * per T (stream T of --seed), T = 5 .. 100,000, each ONCE:
 *   - the claim (the headline) at the longest T (100,000): 64 rows of the tiled head's O
 *     against o_i = sum_j a_ij v_j recomputed for each row from X and the weights in long
 *     double, in units of the row's rounding bound, which grows with T (tiled_row_check,
 *     lib/fast/tiled.h; the rows drawn here, check_rows);
 *   - the tiled head at every T, the plain one too where it fits (T <= 4096):
 *     max |O_tiled - O_plain| against tol.h's tolerance;
 *   - the bytes each run allocates (mem.h; one thread's tiles) and their log-log
 *     slope: tiled about 1 (the claim), plain about 2 (the control);
 *   - times (reported, any_length_timing.csv): both heads on one thread, a child
 *     process per (head, T), T <= 10,000: min, median, max of 3 to --reps passes
 *     (each >= 0.02 s), until the median's order-statistic interval is within
 *     +-5% (timing.h) or the child used 0.15 CPU s (warm-up included). The
 *     whole sweep is bounded in CPU seconds too (--timing-budget, default 8):
 *     the tiled head at the slope's lengths (T >= 4096) first, then both heads from
 *     the shortest T, then the plain head at T >= 4096, each (head, T) only if its
 *     predicted cost fits in what is left of the budget.
 */
#include "experiment.h"
#include "blas.h"
#include "head.h"
#include "mat.h"
#include "mem.h"
#include "rng.h"
#include "statistics.h"
#include "status.h"
#include "table.h"
#include "tiled.h"
#include "timing.h"
#include "tol.h"
#include "vexp.h"

#include <math.h>
#include <omp.h>

enum { D = 64, DK = 64, DV = 64, NT_MAX = 16, CHECK_ROWS = 64 };
static const size_t T_LIST[] = {5, 10, 20, 50, 100, 200, 500, 1000, 2000, 4096, 5000,
                                10000, 20000, 100000};
static const size_t FIT_MIN_T = 5000;       /* the memory slope uses T >= this */
/* the time slope, T >= this (timed up to timing_max_T) */
static const size_t TIME_FIT_MIN_T = 4096;
static size_t max_T = 100000, max_plain_T = 4096, timing_max_T = 10000, reps = 9;
static double timing_budget = 8.0;          /* CPU seconds of the whole timing sweep */
enum { PER_POINT_CPU_CS = 15 };             /* and of one (head, T): 0.15 CPU s */

/* ---- one head, plain (head.h) or tiled (tiled.h), on one input of length T, with the bytes
 * it allocates and its times in a fresh process ----
 *
 * Shapes: X (T, d) ~ N(0, 1) on block T of stream 1 of the seed; W_Q, W_K (d, d_k),
 * W_V (d, d_v) given; O (T, d_v). The plain head also holds S, A (T, T).
 */

/* the streams of --seed (rng_stream_seed(seed, stream, block)): one per kind of draw */
enum { STREAM_WEIGHTS = 0,   /* W_Q, W_K, W_V: block 0, one set for every T */
       STREAM_X = 1,         /* X at length T: block T                      */
       STREAM_ROWS = 2 };    /* the checked rows at length T: block T       */

/* W[0] = W_Q, W[1] = W_K (d, d_k), W[2] = W_V (d, d_v), each ~ N(0, 1/d) from
 * block 0 of stream 0 of the seed, in this order. On failure W[k] may be NULL; mat_free them.
 * First checks ATT_VEXP (vexp_env_check: ATT_EUSAGE for a path this CPU lacks). */
static int draw_weights(gsl_matrix *W[3], size_t d, size_t d_k, size_t d_v, unsigned long seed)
{
    W[0] = W[1] = W[2] = NULL;
    int rc = vexp_env_check();         /* a bad ATT_VEXP stops the run before any pass */
    if (rc) return rc;
    W[0] = mat_new(d, d_k); W[1] = mat_new(d, d_k); W[2] = mat_new(d, d_v);
    gsl_rng *rng = rng_new("mt19937", rng_stream_seed(seed, STREAM_WEIGHTS, 0));
    rc = W[0] && W[1] && W[2] && rng ? ATT_OK : att_alloc_status();
    for (int k = 0; k < 3 && !rc; k++) mat_randn(rng, W[k], 1.0 / sqrt((double)d));
    if (rng) gsl_rng_free(rng);
    return rc;
}

/* One head on one input. */
typedef struct {
    const head_params *p;
    int plain;              /* 1: head_forward (S, A held), 0: tiled_forward */
    gsl_matrix *X, *O;      /* (T, d), (T, d_v) */
    head_state st;          /* the plain head's state */
} head_case;

/* Allocate X (drawn), O and, for the plain head, its state; a refusal by the
 * memory budget is ATT_EUSAGE. case_free is always safe after it. */
static int case_alloc(head_case *c, const head_params *p, unsigned long seed, int plain, size_t T)
{
    size_t d = p->W_Q->size1, d_k = p->W_Q->size2, d_v = p->W_V->size2;
    *c = (head_case){.p = p, .plain = plain, .X = mat_new(T, d), .O = mat_new(T, d_v)};
    // X (T, d) ~ N(0, 1) on stream (STREAM_X, T) of the seed
    gsl_rng *rng = rng_new("mt19937", rng_stream_seed(seed, STREAM_X, T));
    int rc = c->X && c->O && rng ? ATT_OK : att_alloc_status();
    if (!rc) mat_randn(rng, c->X, 1.0);
    if (rng) gsl_rng_free(rng);
    // the plain head's state: a refusal by --max-memory is ATT_EUSAGE (att_last_code)
    if (rc || !plain) return rc;
    return head_state_alloc(&c->st, T, T, d, d_k, d_v) ? att_alloc_status() : ATT_OK;
}

static void case_free(head_case *c)
{
    head_state_free(&c->st);
    mat_free(c->X);
    mat_free(c->O);
    c->X = c->O = NULL;
}

/* one forward pass: O = softmax(scale (X W_Q)(X W_K)^T)(X W_V) */
static int case_once(void *arg)
{
    head_case *c = arg;
    if (!c->plain) return tiled_forward(c->O, c->p, c->X, c->X, tiled_tiles_default());
    int rc = head_forward(&c->st, c->p, c->X, c->X);
    if (!rc) gsl_matrix_memcpy(c->O, c->st.O);
    return rc;
}

/* case_alloc, then one forward pass into c->O; *bytes = the most it
 * allocated at once, with ONE thread's tiles for the tiled head (tiled.h:
 * each further thread adds the same constant), so the bytes do not depend
 * on OMP_NUM_THREADS. */
static int case_counted(head_case *c, const head_params *p, unsigned long seed, int plain,
                        size_t T, double *bytes)
{
    mem_reset_peak();
    size_t before = mem_live();
    int rc = case_alloc(c, p, seed, plain, T);
    if (!rc) rc = case_once(c);
    *bytes = (double)(mem_peak() - before);
    if (!plain) {   // minus the tiles of every thread but one
        tiled_tiles tl = tiled_tiles_default();
        size_t d_k = p->W_Q->size2, d_v = p->W_V->size2;
        *bytes -= (double)(tiled_threads(T, T, d_k, d_v, tl) - 1) *
                  (double)tiled_thread_bytes(tl, d_k, d_v);
    }
    return rc;
}

typedef struct {
    const head_params *p;
    unsigned long seed;
    int plain;
    size_t T;
    const timing_rule *rule;
} case_timed;

/* the child: one thread, passes until the rule stops (samples >= 0.02 s) */
static int case_time_child(void *ctx, timing *t)
{
    const case_timed *h = ctx;
    omp_set_num_threads(1);
    blas_single_thread();
    head_case c;
    int rc = case_alloc(&c, h->p, h->seed, h->plain, h->T);
    if (!rc) rc = timing_measure_until(case_once, &c, h->rule, 0.02, t);
    case_free(&c);
    return rc;
}

/* The head at T timed on ONE thread in a child process (timing_in_child):
 * one warm-up pass, then passes until `rule` stops (timing.h); *rss = the
 * child's peak resident bytes, *cpu = the CPU seconds the child used. */
static int case_time(const head_params *p, unsigned long seed, int plain, size_t T,
                     const timing_rule *rule, timing *t, double *rss, double *cpu)
{
    case_timed h = {p, seed, plain, T, rule};
    return timing_in_child(case_time_child, &h, t, rss, cpu);
}

/* The rows tiled_row_check compares at length T: min(T, n) of them, 0, T - 1, then uniform
 * (with repeats possible) from stream (STREAM_ROWS, T) of the seed. Returns how many. */
static size_t check_rows(size_t *rows, size_t n, unsigned long seed, size_t T)
{
    if (n > T) n = T;
    gsl_rng *rng = rng_new("mt19937", rng_stream_seed(seed, STREAM_ROWS, T));
    if (!rng) return 0;
    for (size_t r = 0; r < n; r++)
        rows[r] = r == 0 ? 0 : r == 1 ? T - 1 : (size_t)gsl_rng_uniform_int(rng, (unsigned long)T);
    gsl_rng_free(rng);
    return n;
}

/* mean of O (T, d_v): sum_ic O_ic / (T d_v), summed row by row (a checksum) */
static double output_mean(const gsl_matrix *O)
{
    double s = 0.0;
    for (size_t i = 0; i < O->size1; i++)
        for (size_t c = 0; c < O->size2; c++) s += gsl_matrix_get(O, i, c);
    return s / ((double)O->size1 * (double)O->size2);
}

/* Least-squares slope of log y against log T over the points with T >= t_min
 * and y > 0 (NaN below 3 such points). */
static double loglog_slope(const size_t *T, const double *y, size_t n, size_t t_min)
{
    double lx[64], ly[64];
    size_t m = 0;
    for (size_t i = 0; i < n && m < 64; i++)
        if (T[i] >= t_min && y[i] > 0) { lx[m] = log((double)T[i]); ly[m++] = log(y[i]); }
    return m >= 3 ? stat_fit_line(lx, ly, m, NULL, NULL) : NAN;
}

/* One row of any_length.csv: the flops of a pass, 2 T^2 (d_k + d_v) + 2 T d (2 d_k + d_v),
 * max |O_tiled - O_plain| and its tolerance (NaN where the plain head did not
 * run), the mean of the tiled head's O. */
typedef struct { size_t T; double flops, max_abs_err, tolerance, output_mean; } length_row;

static const table_col COLS[] = {COL(length_row, T), COL(length_row, flops),
                                 COL_ROUND(length_row, max_abs_err, "tolerance"),
                                 COL(length_row, tolerance), COL(length_row, output_mean)};

static int write_lengths(const char *dir, const length_row *rows, size_t n)
{
    return TABLE_WRITE(dir, "any_length.csv", COLS, rows, n);
}

/* One row of any_length_timing.csv: both heads at T, one thread each. */
typedef struct {
    size_t T, threads;
    timing tiled, plain;
    double tiled_gflops, plain_gflops, tiled_counted_bytes, plain_counted_bytes;
    double tiled_rss_above_baseline_bytes, plain_rss_above_baseline_bytes;
} time_row;

#define TCOL(f, name) COL_AS(time_row, f, name)
static const table_col TIME_COLS[] = {
    COL(time_row, T), COL(time_row, threads), TCOL(tiled.reps, "tiled_reps"),
    TCOL(tiled.min, "tiled_min_seconds"), TCOL(tiled.median, "tiled_median_seconds"),
    TCOL(tiled.max, "tiled_max_seconds"), COL(time_row, tiled_gflops),
    TCOL(plain.min, "plain_min_seconds"), TCOL(plain.median, "plain_median_seconds"),
    TCOL(plain.max, "plain_max_seconds"), COL(time_row, plain_gflops),
    COL(time_row, tiled_counted_bytes), COL(time_row, plain_counted_bytes),
    COL(time_row, tiled_rss_above_baseline_bytes),
    COL(time_row, plain_rss_above_baseline_bytes),
    TCOL(plain.reps, "plain_reps"),
    TCOL(tiled.ci_low, "tiled_median_ci_low"), TCOL(tiled.ci_high, "tiled_median_ci_high"),
    TCOL(tiled.ci_level, "tiled_median_ci_level"),
    TCOL(plain.ci_low, "plain_median_ci_low"), TCOL(plain.ci_high, "plain_median_ci_high"),
    TCOL(plain.ci_level, "plain_median_ci_level")};

/* Write any_length_timing.csv into dir (machine-dependent: times with their
 * repetition counts and median intervals, GFLOP/s, counted and resident bytes). */
static int write_timing(const char *dir, const time_row *rows, size_t n)
{
    return TABLE_WRITE(dir, "any_length_timing.csv", TIME_COLS, rows, n);
}

/* ---- the experiment ---- */

/* The predicted CPU seconds of timing one (head, T): a warm-up and min_reps passes of
 * `pass` seconds (the last timed length's CPU per pass scaled by T^2), or the per-point
 * budget and one more pass, whichever is more; `pass` NaN (nothing timed yet): the budget. */
static double timing_cost(const timing_rule *rule, double pass)
{
    if (isnan(pass)) return rule->max_cpu_seconds;
    return fmax((double)(1 + rule->min_reps) * pass, rule->max_cpu_seconds + pass);
}

static int run(experiment *e)
{
    if (reps < 3) return usage_error("--reps %zu: at least 3 passes per time", reps);
    timing_sweep sw;   /* the rule of every (head, T) and the sweep's budget (timing.h) */
    int st = timing_sweep_init(&sw, (timing_rule){3, reps, 0.05, PER_POINT_CPU_CS / 100.0},
                               timing_budget);
    if (st) return st;
    const timing_rule rule = sw.rule;
    size_t Ts[NT_MAX], n = 0;
    for (size_t i = 0; i < sizeof T_LIST / sizeof T_LIST[0] && !e->o.T; i++)
        if (T_LIST[i] <= max_T) Ts[n++] = T_LIST[i];
    if (e->o.T || Ts[n - 1] != max_T) Ts[n++] = e->o.T ? e->o.T : max_T;
    // sizes that cannot overflow (opts.h), before any buffer: the tiled head holds X, K, V, O
    // (T x 64 each) at the longest T; the plain head its T x T scores at the longest T it runs
    size_t Tp = 0, TpTp = 0;
    for (size_t k = 0; k < n; k++) if (Ts[k] <= max_plain_T) Tp = Ts[k];
    int over = __builtin_mul_overflow(Tp, Tp, &TpTp);
    // (and the timer keeps every sample twice: reps*16 bytes)
    if (opts_need(&e->o, NULL, 8 * (D + DK + DV + DV), e->o.T ? "T" : "max-T", Ts[n - 1]) ||
        opts_need(&e->o, NULL, 2 * sizeof(double), "reps", reps) ||
        (Tp && opts_need_for(&e->o, "--max-plain-T", max_plain_T,
                             "the plain head's T x T scores at its longest T", TpTp, over, 8)))
        return ATT_EUSAGE;
    gsl_matrix *W[3] = {NULL, NULL, NULL};
    head_case pc = {0}, tc = {0};   /* the plain and the tiled head's run at one T */
    // one fixed set of weights for every T: W_Q, W_K (d, d_k), W_V (d, d_v) ~ N(0, 1/d)
    if ((st = draw_weights(W, D, DK, DV, e->o.seed))) goto done;
    head_params p = head_params_make(W[0], W[1], W[2]);
    // the plain head's buffers at its longest T, Tp, first: a budget too small is refused (exit 2)
    if (Tp && (st = case_alloc(&pc, &p, e->o.seed, 1, Tp))) goto done;
    case_free(&pc);

    // every T from the largest, once: the tiled head, and the plain one where it fits
    length_row rows[NT_MAX];
    time_row tr[NT_MAX];
    double tiled_bytes[NT_MAX], plain_bytes[NT_MAX], med[NT_MAX], rss, base[2] = {0, 0};
    size_t nplain = 0, failed = 0;   /* lengths compared, and failed */
    double err = 0.0, tol = INFINITY, long_units = NAN, long_err = NAN;
    for (size_t k = n; k-- > 0;) {
        size_t T = Ts[k];
        // flops = 2 T^2 (d_k + d_v) + 2 T d (2 d_k + d_v)
        rows[k] = (length_row){T, 2.0 * T * T * (DK + DV) + 2.0 * T * D * (2.0 * DK + DV), NAN, NAN,
                               NAN};
        plain_bytes[k] = NAN;
        if (T <= max_plain_T && (st = case_counted(&pc, &p, e->o.seed, 1, T, &plain_bytes[k])))
            goto done;
        if ((st = case_counted(&tc, &p, e->o.seed, 0, T, &tiled_bytes[k]))) goto done;
        // the mean of O (a checksum of the tiled run): sum_ic O_ic / (T d_v)
        rows[k].output_mean = output_mean(tc.O);
        // the claim at the longest T: sampled rows against the formula in long double
        if (k == n - 1) {
            size_t chk[CHECK_ROWS], nchk = check_rows(chk, CHECK_ROWS, e->o.seed, T);
            if (!nchk) { st = att_alloc_status(); goto done; }
            if ((st = tiled_row_check(&p, tc.X, tc.O, chk, nchk, &long_units, &long_err)))
                goto done;
        }
        if (T <= max_plain_T) {
            rows[k].max_abs_err = mat_max_abs_diff(tc.O, pc.O);
            rows[k].tolerance = tol_head_output(&pc.st, pc.X, W[2], p.scale);   /* tol.h */
            nplain++;
            failed += !(rows[k].max_abs_err <= rows[k].tolerance);
            // the largest error (NaN sticks) against the smallest tolerance
            if (rows[k].max_abs_err > err || isnan(rows[k].max_abs_err)) err = rows[k].max_abs_err;
            tol = fmin(tol, rows[k].tolerance);
        }
        case_free(&pc);
        case_free(&tc);
    }

    // times, one thread for both heads, each (head, T) in its own process, within
    // timing_budget CPU seconds: first the tiled head at the slope's lengths
    // (T >= TIME_FIT_MIN_T), then both heads from the shortest T, then the plain head at those
    timing none = {NAN, NAN, NAN, 0, 0, NAN, NAN, NAN}, m;
    double cpu, pass[2] = {NAN, NAN};   /* CPU per pass at the last timed T */
    size_t Tlast[2] = {0, 0}, job[2 * NT_MAX], nj = 0;   /* job: 2 k + head */
    for (size_t k = 0; k < n; k++) if (Ts[k] >= TIME_FIT_MIN_T) job[nj++] = 2 * k;
    for (size_t k = 0; k < n; k++)
        if (Ts[k] < TIME_FIT_MIN_T) job[nj++] = 2 * k, job[nj++] = 2 * k + 1;
    for (size_t k = 0; k < n; k++) if (Ts[k] >= TIME_FIT_MIN_T) job[nj++] = 2 * k + 1;
    for (int h = 0; h < 2; h++) {
        if ((st = case_time(&p, e->o.seed, h, 1, &rule, &m, &base[h], &cpu))) goto done;
        sw.spent += cpu;
    }
    for (size_t k = 0; k < n; k++) {
        tr[k] = (time_row){Ts[k], 1, none, none, NAN, NAN, tiled_bytes[k], plain_bytes[k],
                                    NAN, NAN};
        med[k] = NAN;
    }
    for (size_t j = 0; j < nj; j++) {
        size_t k = job[j] / 2, T = Ts[k];
        int h = (int)(job[j] % 2);
        if (T > timing_max_T || (h && T > max_plain_T)) continue;
        if (Tlast[h] > T) pass[h] = NAN;   /* back to a shorter length: no prediction */
        // pass CPU at T = at the last timed T times (T / T_last)^2 (the T^2 terms)
        double r = Tlast[h] ? (double)T / (double)Tlast[h] : NAN;
        double want = timing_cost(&rule, pass[h] * r * r);
        if (sw.spent + want > sw.budget) { sw.untimed++; continue; }
        timing *t = h ? &tr[k].plain : &tr[k].tiled;
        if ((st = case_time(&p, e->o.seed, h, T, &rule, t, &rss, &cpu))) goto done;
        sw.spent += cpu;
        // CPU per call: a warm-up and reps x inner calls
        pass[h] = cpu / (1.0 + (double)(t->reps * t->inner)), Tlast[h] = T;
        if (h) tr[k].plain_rss_above_baseline_bytes = rss - base[h];
        else tr[k].tiled_rss_above_baseline_bytes = rss - base[h];
        if (h) tr[k].plain_gflops = rows[k].flops / t->median / 1e9;
        else tr[k].tiled_gflops = rows[k].flops / t->median / 1e9, med[k] = t->median;
    }
    if ((st = write_lengths(e->o.out_dir, rows, n))) goto done;
    if ((st = write_timing(e->o.out_dir, tr, n))) goto done;
    char machine[512], sweep[512];
    experiment_meta(
        e,
        "%s\nd: %d\nd_k: %d\nd_v: %d\ntiles: %zu x %zu\nmax_T: %zu\nmax_plain_T: %zu\n"
        "timing_max_T: %zu\n%s\nvexp: %s\n"
        "timing_threads: 1 (both heads)\nthreads: %d",
        timing_machine(machine, sizeof machine), D, DK, DV, tiled_tiles_default().bq,
        tiled_tiles_default().bk, max_T, max_plain_T, timing_max_T,
        timing_sweep_meta(sweep, sizeof sweep, &sw), vexp_path(), omp_get_max_threads());

    // tiled == plain where the plain head fits
    if (nplain) {
        verdict_identity(e, "anyLengthTiledErr", 0.0, verdict_measure_exact(err, nplain),
                     verdict_rule_at_most(tol),
                     "max |O_tiled - O_plain| over %zu lengths T <= %zu (tolerance: the smallest "
                     "over T, each 8 eps (2 (d + d_k) |q||k| + 2 T) max|v| + 8 d eps |x||w_V|)",
                     nplain, max_plain_T);
        verdict_identity(e, "anyLengthAgreeCount", (double)nplain,
                     verdict_measure_exact((double)(nplain - failed), nplain),
                     verdict_rule_at_least((double)nplain), "lengths T <= %zu where the tiled head "
                     "agrees with the plain one within that T's tolerance", max_plain_T);
    }
    size_t Tmax = Ts[n - 1];
    // the claim: the same weights give the right attention at the longest T (at most 1)
    size_t nchk = Tmax < CHECK_ROWS ? Tmax : CHECK_ROWS;   /* the rows tiled_row_check compared */
    verdict_claim(e, "anyLengthRowErr", 0.0,
              verdict_measure_as(verdict_measure_exact(long_units, nchk), NAT_ROUNDING),
              verdict_rule_at_most(1.0), "T = %zu (tiled head; its T x T scores would need %.0f "
              "GB): largest |o_ic - sum_j a_ij v_jc| over %zu rows (sampled), the sum recomputed "
              "per row from X and the weights in long double, in units of the row's rounding bound "
              "8 eps (2 (d + d_k) qk_i + 2 T) max|v| + 8 d eps max||x|| max||w_V,c||", Tmax,
              8.0 * (double)Tmax * (double)Tmax / 1e9, nchk);
    experiment_headline(e);
    // the same error in absolute terms (a rounding-level number: its own row, not in the label)
    verdict_reported(e, "anyLengthLongestErr", NAN,
                 verdict_measure_as(verdict_measure_exact(long_err, nchk), NAT_ROUNDING),
                 "largest |o_ic - sum_j a_ij v_jc| of those rows at T = %zu", Tmax);
    verdict_reported(e, "anyLengthMaxT", NAN, verdict_measure_exact((double)Tmax, 1),
                 "longest sequence the same weights ran on (a setting, --max-T: the row above "
                 "checks it)");
    double sm = loglog_slope(Ts, tiled_bytes, n, FIT_MIN_T);
    double sp = loglog_slope(Ts, plain_bytes, n, 500);
    double stime = loglog_slope(Ts, med, n, TIME_FIT_MIN_T);
    if (!isnan(sm))
        verdict_claim(e, "anyLengthMemSlope", 1.0, verdict_measure_exact(sm, n),
                  verdict_rule_between(0.9, 1.1), "log-log slope of the bytes the tiled head "
                  "allocates vs T, T >= %zu (linear: 1)", FIT_MIN_T);
    if (!isnan(sp))
        verdict_control(e, "anyLengthPlainMemSlope", 2.0, verdict_measure_exact(sp, n),
                    verdict_rule_at_least(1.5), "log-log slope of the bytes the plain head "
                    "allocates vs T, 500 <= T <= %zu (T x T terms: toward 2)", max_plain_T);
    verdict_reported(e, "anyLengthLongestMiB", NAN,
                 verdict_measure_exact(tiled_bytes[n - 1] / 1048576.0, 1),
                 "MiB the tiled head allocates at T = %zu (one thread's tiles; each further "
                 "thread adds %.2f MiB)", Tmax,
                 (double)tiled_thread_bytes(tiled_tiles_default(), DK, DV) / 1048576.0);
    verdict_reported(e, "anyLengthBytesPerToken", NAN,
                 verdict_measure_exact(tiled_bytes[n - 1] / (double)Tmax, 1),
                 "bytes per token at T = %zu, one thread's tiles (X, K, V, O hold %d)", Tmax,
                 8 * (D + DK + DV + DV));
    // the row whenever the sweep reaches the slope's lengths, NaN if the CPU budget left them
    // untimed: the rows do not depend on the machine's speed
    if (!isnan(stime) || timing_max_T >= TIME_FIT_MIN_T)
        verdict_reported(e, "anyLengthTimeSlope", NAN,
                     verdict_measure_time(stime, NAN, NAN, rule.min_reps), "log-log slope of the "
                     "tiled head's median time vs T, %zu <= T <= %zu, one thread (about 2; NaN: "
                     "fewer than 3 lengths timed within --timing-budget)", TIME_FIT_MIN_T,
                     timing_max_T);
    experiment_summary(e, "the same W_Q, W_K, W_V ran on T = %zu .. %zu tokens (the section: 5 or "
                "100,000)", Ts[0], Tmax);
    if (nplain)
        experiment_summary(e, "tiled = plain head within tolerance at %zu of %zu lengths T <= %zu "
                    "(largest difference %.3g)", nplain - failed, nplain, max_plain_T, err);
    if (!isnan(sm) && !isnan(sp))
        experiment_summary(e, "memory grows like T^%.3f (tiled) against T^%.3f (plain, its T x T "
                    "scores)", sm, sp);
done:
    case_free(&pc);
    case_free(&tc);
    for (int k = 0; k < 3; k++) mat_free(W[k]);
    return st;
}

int main(int argc, char **argv)
{
    static const opt_spec extra[] = {
        {"max-T", OPT_SIZE, &max_T, "N", "largest T of the default list (default 100000)"},
        {"max-plain-T", OPT_SIZE, &max_plain_T, "N",
         "run and compare the plain head up to this T (default 4096)"},
        {"timing-max-T", OPT_SIZE, &timing_max_T, "N",
         "time both heads up to this T (default 10000)"},
        {"reps", OPT_SIZE, &reps, "N", "most timed passes per (head, T), >= 3 (default 9; fewer "
         "once the median is known to +-5%)"},
        {"timing-budget", OPT_DOUBLE, &timing_budget, "S",
         "CPU seconds for all the times (default 8; "
         "a (head, T) whose predicted cost does not fit is not timed)"},
        {NULL, 0, NULL, NULL, NULL}};
    static const experiment_def def = {"any_length", NULL, OPT_SEED | OPT_T, 20261129UL, 0, extra,
                                       run};
    return experiment_main(&def, argc, argv);
}
