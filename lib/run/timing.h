/* timing.h - wall-clock times with their spread, and the machine they ran on.
 *
 * A time is never one number: timing_measure runs a function `reps` times
 * (>= 5 for anything cited) after one warm-up call and keeps the minimum,
 * median and maximum seconds per call. A call shorter than `min_sample`
 * seconds is repeated inside each sample (inner calls, the same for every
 * sample) so that the clock's resolution does not matter.
 *
 * Times are machine-dependent: they go into <ID>_timing.csv files, which
 * `make verify` never compares, and the machine (CPU model, cores, BLAS)
 * goes into the .meta beside them (timing_machine).
 */
#ifndef ATT_TIMING_H
#define ATT_TIMING_H

#include <stddef.h>

typedef struct {
    double min, median, max;   /* seconds per call                     */
    size_t reps;               /* samples                              */
    size_t inner;              /* calls per sample                     */
    double ci_low, ci_high;    /* the median's order-statistic interval */
    double ci_level;           /* ... and its coverage (timing_median_ci) */
} timing;

/* Time fn(arg): one warm-up call, then reps samples. Returns fn's first
 * error, or ATT_EUSAGE for reps == 0, or ATT_ERUNTIME without memory. */
int timing_measure(int (*fn)(void *), void *arg, size_t reps, double min_sample, timing *t);

/* The distribution-free interval of the median of n sorted samples x:
 *   [x_(k), x_(n+1-k)],  coverage 1 - 2 P(Bin(n, 1/2) <= k - 1),
 * with the largest k whose coverage is >= 95%; below n = 6 no k reaches
 * 95% and k = 1 (the min..max range, coverage 1 - 2^(1-n): 75% at n = 3).
 * Sets t->ci_low, ci_high, ci_level. */
void timing_median_ci(const double *x, size_t n, timing *t);

/* When to stop repeating: after at least min_reps samples, as soon as the
 * median's interval (above) has half-width <= rel_ci * median, or the
 * measurement has used max_cpu_seconds of CPU time (the process's, every
 * thread, CLOCK_PROCESS_CPUTIME_ID: a multi-threaded BLAS's helper threads
 * count; the warm-up included); at max_reps in any case.
 * A budget in CPU seconds, not in wall time: a loaded machine stretches
 * every sample's wall time (what a time reports) but not the work the
 * budget pays for, so the cost of a measurement does not grow with the load.
 * The samples themselves stay wall-clock seconds. */
typedef struct {
    size_t min_reps, max_reps;   /* 1 <= min_reps <= max_reps */
    double rel_ci;               /* target relative half-width, e.g. 0.02 */
    double max_cpu_seconds;      /* CPU budget of warm-up and samples together */
} timing_rule;

/* CPU seconds the process has used, all its threads (CLOCK_PROCESS_CPUTIME_ID). */
double timing_process_cpu(void);

/* timing_measure with the repetition count chosen by the measured spread
 * (rule): one warm-up call, then samples until the rule stops. t->reps is
 * the count actually run. ATT_EUSAGE for a rule that does not fit. */
int timing_measure_until(int (*fn)(void *), void *arg, const timing_rule *rule,
                         double min_sample, timing *t);

/* A sweep of timed points within one CPU budget (CPU seconds of the points'
 * measurements, warm-ups included). Every point runs `rule`, its CPU share
 * (the rule's max_cpu_seconds for that point) the smaller of rule.max_cpu_seconds
 * and what is left of the budget divided by the points left:
 *   share = min(cap, max(0, (budget - spent) / left)).
 * A point with share 0 still runs its min_reps passes: the budget bounds the
 * passes beyond those (a caller that leaves points out counts them in untimed). */
typedef struct {
    timing_rule rule;       /* every point's; rule.max_cpu_seconds caps a point's share */
    double budget, spent;   /* CPU seconds: the sweep's budget, and what it used so far */
    size_t untimed;         /* points a caller left out for the budget */
} timing_sweep;

/* *s = {rule, budget, 0, 0}. ATT_EUSAGE naming --timing-budget unless
 * 0 <= budget <= 86400. */
int timing_sweep_init(timing_sweep *s, timing_rule rule, double budget);

/* The rule of the next point when `left` points (it included, >= 1) remain. */
timing_rule timing_sweep_share(const timing_sweep *s, size_t left);

/* The sweep's lines of a .meta (no trailing newline): reps_min, reps_max,
 * reps_target_rel_ci, timing_cpu_per_point, timing_budget_cpu, timing_spent_cpu,
 * timing_untimed_for_budget. Returns buf. */
char *timing_sweep_meta(char *buf, size_t n, const timing_sweep *s);

/* "cpu: <model name>\ncores: <n>\nblas_threads: <n>" into buf (the BLAS
 * library itself is named by the provenance). Returns buf. */
char *timing_machine(char *buf, size_t n);

/* The number of threads OpenBLAS uses now (1 with another BLAS); to set it,
 * blas_single_thread (blas.h), the one call that does. */
int timing_blas_threads(void);

/* Run job(ctx, t) in a child process (fork) and bring back its timing, its
 * status and error message, the child's peak resident memory in bytes
 * (ru_maxrss; Linux) and, when cpu_seconds is not NULL, the CPU seconds the
 * child used (user + system, from wait4). A measurement of memory or time
 * then starts from a fresh process. ATT_ERUNTIME when the child dies. */
int timing_in_child(int (*job)(void *ctx, timing *t), void *ctx, timing *t, double *rss_bytes,
                    double *cpu_seconds);

#endif
