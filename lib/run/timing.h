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
} timing;

/* Time fn(arg): one warm-up call, then reps samples. Returns fn's first
 * error, or ATT_EUSAGE for reps == 0, or ATT_ERUNTIME without memory. */
int timing_measure(int (*fn)(void *), void *arg, size_t reps, double min_sample, timing *t);

/* "cpu: <model name>\ncores: <n>\nblas_threads: <n>" into buf (the BLAS
 * library itself is named by the provenance). Returns buf. */
char *timing_machine(char *buf, size_t n);

/* The number of threads OpenBLAS uses now (1 with another BLAS); to set it,
 * blas_single_thread (blas.h), the one call that does. */
int timing_blas_threads(void);

/* Run job(ctx, t) in a child process (fork) and bring back its timing, its
 * status and error message, and the child's peak resident memory in bytes
 * (ru_maxrss; Linux). A measurement of memory or time then starts from a
 * fresh process. ATT_ERUNTIME when the child dies. */
int timing_in_child(int (*job)(void *ctx, timing *t), void *ctx, timing *t, double *rss_bytes);

#endif
