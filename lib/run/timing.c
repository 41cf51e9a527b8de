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
#include <omp.h>

/* OpenBLAS exports these; with GSL's reference CBLAS they are absent. */
extern int openblas_get_num_threads(void) __attribute__((weak));

int timing_blas_threads(void) { return openblas_get_num_threads ? openblas_get_num_threads() : 1; }

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int timing_measure(int (*fn)(void *), void *arg, size_t reps, double min_sample, timing *t)
{
    if (reps == 0) return att_fail(ATT_EUSAGE, "timing: at least one repetition");
    double t0 = omp_get_wtime();
    int rc = fn(arg);                       /* warm-up: pages, threads, caches */
    if (rc) return rc;
    double once = omp_get_wtime() - t0;
    size_t inner = once >= min_sample ? 1 : (size_t)ceil(min_sample / fmax(once, 1e-7));
    double *s = malloc(reps * sizeof *s);
    if (s == NULL) return att_fail(ATT_ERUNTIME, "timing: out of memory");
    for (size_t r = 0; r < reps && !rc; r++) {
        t0 = omp_get_wtime();
        for (size_t k = 0; k < inner && !rc; k++) rc = fn(arg);
        s[r] = (omp_get_wtime() - t0) / (double)inner;
    }
    if (!rc) {
        qsort(s, reps, sizeof *s, cmp_double);
        *t = (timing){s[0], reps % 2 ? s[reps / 2] : 0.5 * (s[reps / 2 - 1] + s[reps / 2]),
                      s[reps - 1], reps, inner};
    }
    free(s);
    return rc;
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

int timing_in_child(int (*job)(void *ctx, timing *t), void *ctx, timing *t, double *rss_bytes)
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
    if (m.status) return att_fail(m.status, "%s", m.err);
    *t = m.t;
    return ATT_OK;
}
