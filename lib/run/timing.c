/* timing.c - times with their spread (see timing.h). */
#include "timing.h"
#include "status.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <time.h>
#include <omp.h>

/* OpenBLAS exports these; with GSL's reference CBLAS they are absent. */
extern int openblas_get_num_threads(void) __attribute__((weak));

int timing_blas_threads(void) { return openblas_get_num_threads ? openblas_get_num_threads() : 1; }

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* P(Bin(n, 1/2) <= j) */
static double binom_half_cdf(size_t n, size_t j)
{
    double term = pow(0.5, (double)n), sum = 0.0;     /* C(n, 0) 2^-n */
    for (size_t i = 0; i <= j && i <= n; i++) {
        sum += term;
        term *= (double)(n - i) / (double)(i + 1);      /* C(n, i + 1) 2^-n */
    }
    return sum;
}

void timing_median_ci(const double *x, size_t n, timing *t)
{
    // largest k with 1 - 2 P(Bin(n, 1/2) <= k - 1) >= 0.95; else k = 1
    size_t k = 1;
    while (k + 1 <= (n + 1) / 2 && 1.0 - 2.0 * binom_half_cdf(n, k) >= 0.95) k++;
    t->ci_low = x[k - 1];
    t->ci_high = x[n - k];
    t->ci_level = 1.0 - 2.0 * binom_half_cdf(n, k - 1);
}

/* min, median, max and the median's interval of n samples s (sorted here) */
static void timing_summarise(double *s, size_t n, size_t inner, timing *t)
{
    qsort(s, n, sizeof *s, cmp_double);
    double med = n % 2 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
    *t = (timing){s[0], med, s[n - 1], n, inner, NAN, NAN, NAN};
    timing_median_ci(s, n, t);
}

double timing_process_cpu(void)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) != 0) return 0.0;
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int timing_measure_until(int (*fn)(void *), void *arg, const timing_rule *rule,
                         double min_sample, timing *t)
{
    if (rule->min_reps == 0 || rule->max_reps < rule->min_reps || !(rule->rel_ci >= 0)
        || !(rule->max_cpu_seconds >= 0))
        return att_fail(ATT_EUSAGE, "timing: repetitions %zu..%zu (need 1 <= min <= max), "
                        "relative CI %g (need >= 0), CPU budget %g s (need >= 0)", rule->min_reps,
                        rule->max_reps, rule->rel_ci, rule->max_cpu_seconds);
    double cpu0 = timing_process_cpu();
    double t0 = omp_get_wtime();
    int rc = fn(arg);                       /* warm-up: pages, threads, caches */
    if (rc) return rc;
    double once = omp_get_wtime() - t0;
    size_t inner = once >= min_sample ? 1 : (size_t)ceil(min_sample / fmax(once, 1e-7));
    size_t cap = rule->max_reps;
    double *s = malloc(cap * sizeof *s), *sorted = malloc(cap * sizeof *sorted);
    if (s == NULL || sorted == NULL) {
        free(s);
        free(sorted);
        return att_fail(ATT_ERUNTIME, "timing: out of memory");
    }
    size_t n = 0;
    while (!rc && n < cap) {
        t0 = omp_get_wtime();
        for (size_t k = 0; k < inner && !rc; k++) rc = fn(arg);
        double dt = omp_get_wtime() - t0;
        s[n++] = dt / (double)inner;
        if (rc || n < rule->min_reps) continue;
        // stop once the median's interval is narrow enough, or the CPU budget is spent
        memcpy(sorted, s, n * sizeof *s);
        timing_summarise(sorted, n, inner, t);
        if (0.5 * (t->ci_high - t->ci_low) <= rule->rel_ci * t->median
            || timing_process_cpu() - cpu0 >= rule->max_cpu_seconds) break;
    }
    if (!rc) {
        memcpy(sorted, s, n * sizeof *s);
        timing_summarise(sorted, n, inner, t);
    }
    free(s);
    free(sorted);
    return rc;
}

int timing_measure(int (*fn)(void *), void *arg, size_t reps, double min_sample, timing *t)
{
    if (reps == 0) return att_fail(ATT_EUSAGE, "timing: at least one repetition");
    timing_rule fixed = {reps, reps, 0.0, INFINITY};    /* exactly reps samples */
    return timing_measure_until(fn, arg, &fixed, min_sample, t);
}

int timing_sweep_init(timing_sweep *s, timing_rule rule, double budget)
{
    if (!(budget >= 0 && budget <= 86400))
        return att_fail(ATT_EUSAGE, "--timing-budget %g: CPU seconds, 0 .. 86400", budget);
    *s = (timing_sweep){rule, budget, 0.0, 0};
    return ATT_OK;
}

timing_rule timing_sweep_share(const timing_sweep *s, size_t left)
{
    // share = min(cap, max(0, (budget - spent) / left))
    timing_rule r = s->rule;
    double share = (s->budget - s->spent) / (double)(left ? left : 1);
    r.max_cpu_seconds = fmin(r.max_cpu_seconds, fmax(0.0, share));
    return r;
}

char *timing_sweep_meta(char *buf, size_t n, const timing_sweep *s)
{
    snprintf(buf, n,
             "reps_min: %zu\nreps_max: %zu\nreps_target_rel_ci: %g\ntiming_cpu_per_point: %g\n"
             "timing_budget_cpu: %g\ntiming_spent_cpu: %.2f\ntiming_untimed_for_budget: %zu",
             s->rule.min_reps, s->rule.max_reps, s->rule.rel_ci, s->rule.max_cpu_seconds,
             s->budget, s->spent, s->untimed);
    return buf;
}

char *timing_machine(char *buf, size_t n)
{
    char model[256] = "unknown", line[512];
    FILE *f = fopen("/proc/cpuinfo", "r");
    while (f && fgets(line, sizeof line, f)) {
        char *colon = strchr(line, ':');
        if (!strncmp(line, "model name", 10) && colon) {
            snprintf(model, sizeof model, "%s", colon + 2);
            model[strcspn(model, "\n")] = '\0';
            break;
        }
    }
    if (f) fclose(f);
    snprintf(buf, n, "cpu: %s\ncores: %d\nblas_threads: %d", model, omp_get_num_procs(),
             timing_blas_threads());
    return buf;
}

/* What the child sends back through its pipe. */
typedef struct {
    int status;
    timing t;
    char err[512];
} child_msg;

int timing_in_child(int (*job)(void *ctx, timing *t), void *ctx, timing *t, double *rss_bytes,
                    double *cpu_seconds)
{
    int fd[2];
    if (pipe(fd) != 0) return att_fail(ATT_ERUNTIME, "timing: pipe: %s", strerror(errno));
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        close(fd[0]);
        close(fd[1]);
        return att_fail(ATT_ERUNTIME, "timing: fork: %s", strerror(errno));
    }
    if (pid == 0) {                                       /* the child */
        close(fd[0]);
        child_msg c = {.status = job(ctx, &c.t)};
        if (c.status) snprintf(c.err, sizeof c.err, "%s", att_last_error());
        _exit(write(fd[1], &c, sizeof c) == (ssize_t)sizeof c ? 0 : 1);
    }
    close(fd[1]);
    child_msg m;
    size_t got = 0;
    while (got < sizeof m) {
        ssize_t r = read(fd[0], (char *)&m + got, sizeof m - got);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) break;
        got += (size_t)r;
    }
    close(fd[0]);
    int wst;
    struct rusage ru;
    while (wait4(pid, &wst, 0, &ru) < 0)
        if (errno != EINTR) return att_fail(ATT_ERUNTIME, "timing: wait4: %s", strerror(errno));
    if (got != sizeof m || !WIFEXITED(wst) || WEXITSTATUS(wst) != 0)
        return att_fail(ATT_ERUNTIME, "timing: the child process died (%s %d)",
                        WIFSIGNALED(wst) ? "signal" : "exit status",
                        WIFSIGNALED(wst) ? WTERMSIG(wst) : WEXITSTATUS(wst));
    *rss_bytes = (double)ru.ru_maxrss * 1024.0;           /* Linux: KiB */
    if (cpu_seconds)
        *cpu_seconds = (double)ru.ru_utime.tv_sec + 1e-6 * (double)ru.ru_utime.tv_usec
                     + (double)ru.ru_stime.tv_sec + 1e-6 * (double)ru.ru_stime.tv_usec;
    if (m.status) return att_fail(m.status, "%s", m.err);
    *t = m.t;
    return ATT_OK;
}
