/* output.c - atomic result files, CSV cells, provenance, verdict rows. */
#include "output.h"
#include "status.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <gsl/gsl_version.h>
#include <omp.h>

/* ---- temporaries removed on SIGINT / SIGTERM ------------------------- */

enum { MAX_TMP = 64 };
static char tmp_paths[MAX_TMP][PATH_MAX];      /* "" = free slot */
static volatile sig_atomic_t handlers_set;

static void on_signal(int sig)
{
    for (int i = 0; i < MAX_TMP; i++)
        if (tmp_paths[i][0]) unlink(tmp_paths[i]);     /* async-signal-safe */
    signal(sig, SIG_DFL);
    raise(sig);
}

static void install_handlers(void)
{
    if (handlers_set) return;
    handlers_set = 1;
    struct sigaction sa, old;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    /* a signal ignored at startup (nohup, a background job) stays ignored */
    const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
    for (int i = 0; i < 3; i++)
        if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler != SIG_IGN)
            sigaction(sigs[i], &sa, NULL);
}

static void tmp_register(const char *path, int on)
{
    sigset_t all, old;
    sigfillset(&all);
    sigprocmask(SIG_BLOCK, &all, &old);
    for (int i = 0; i < MAX_TMP; i++) {
        if (on && tmp_paths[i][0] == '\0') {
            snprintf(tmp_paths[i], PATH_MAX, "%s", path);
            break;
        }
        if (!on && strcmp(tmp_paths[i], path) == 0) {
            tmp_paths[i][0] = '\0';
            break;
        }
    }
    sigprocmask(SIG_SETMASK, &old, NULL);
}

/* Remove ".<name>.tmp.<pid>" files in dir left by a killed process. */
static void remove_stale(const char *dir, const char *name)
{
    char prefix[PATH_MAX];
    snprintf(prefix, sizeof prefix, ".%s.tmp.", name);
    size_t plen = strlen(prefix);
    DIR *d = opendir(dir);
    if (d == NULL) return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strncmp(e->d_name, prefix, plen) != 0) continue;
        long pid = strtol(e->d_name + plen, NULL, 10);
        if (pid > 0 && (kill((pid_t)pid, 0) == 0 || errno != ESRCH)) continue;
        char p[PATH_MAX];
        if (snprintf(p, sizeof p, "%s/%s", dir, e->d_name) < (int)sizeof p) unlink(p);
    }
    closedir(d);
}

static char *str_printf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *s = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (s == NULL) return NULL;
    va_start(ap, fmt);
    vsnprintf(s, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return s;
}

/* ---- atomic files ---------------------------------------------------- */

int afile_open(afile *af, const char *dir, const char *name)
{
    memset(af, 0, sizeof *af);
    af->fd = -1;
    install_handlers();
    remove_stale(dir, name);
    af->final_path = str_printf("%s/%s", dir, name);
    if (af->final_path == NULL) return att_fail(ATT_ERUNTIME, "out of memory");

    /* an unnamed file in dir: nothing to clean up if we are killed */
    af->fd = open(dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0666);
    if (af->fd < 0) {
        af->tmp_path = str_printf("%s/.%s.tmp.%ld", dir, name, (long)getpid());
        if (af->tmp_path == NULL) { afile_abort(af); return att_fail(ATT_ERUNTIME, "out of memory"); }
        tmp_register(af->tmp_path, 1);
        af->fd = open(af->tmp_path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0666);
        if (af->fd < 0) {
            int e = errno;
            tmp_register(af->tmp_path, 0);
            afile_abort(af);
            return att_fail(ATT_ERUNTIME, "cannot write in '%s': %s", dir, strerror(e));
        }
    }
    af->f = fdopen(af->fd, "w");
    if (af->f == NULL) {
        int e = errno;
        afile_abort(af);
        return att_fail(ATT_ERUNTIME, "cannot open a stream for '%s/%s': %s", dir, name, strerror(e));
    }
    return ATT_OK;
}

int afile_commit(afile *af)
{
    if (af->f == NULL) return att_fail(ATT_ERUNTIME, "commit of a file that is not open");
    int bad = fflush(af->f) != 0 || ferror(af->f) || fsync(af->fd) != 0;
    int e = errno;
    if (bad) {
        afile_abort(af);
        return att_fail(ATT_ERUNTIME, "write error on '%s': %s", af->final_path, strerror(e));
    }
    if (af->tmp_path == NULL) {
        /* O_TMPFILE: give it a hidden name, then rename over the target */
        char proc[64];
        snprintf(proc, sizeof proc, "/proc/self/fd/%d", af->fd);
        char *slash = strrchr(af->final_path, '/');
        af->tmp_path = str_printf("%.*s/.%s.tmp.%ld", (int)(slash - af->final_path),
                                  af->final_path, slash + 1, (long)getpid());
        if (af->tmp_path == NULL) { afile_abort(af); return att_fail(ATT_ERUNTIME, "out of memory"); }
        tmp_register(af->tmp_path, 1);
        unlink(af->tmp_path);
        if (linkat(AT_FDCWD, proc, AT_FDCWD, af->tmp_path, AT_SYMLINK_FOLLOW) != 0) {
            e = errno;
            afile_abort(af);
            return att_fail(ATT_ERUNTIME, "cannot create '%s': %s", af->final_path, strerror(e));
        }
    }
    if (rename(af->tmp_path, af->final_path) != 0) {
        e = errno;
        afile_abort(af);
        return att_fail(ATT_ERUNTIME, "cannot rename into '%s': %s", af->final_path, strerror(e));
    }
    tmp_register(af->tmp_path, 0);
    fclose(af->f);
    af->f = NULL;
    af->fd = -1;
    free(af->tmp_path);
    free(af->final_path);
    af->tmp_path = af->final_path = NULL;
    return ATT_OK;
}

void afile_abort(afile *af)
{
    if (af->f) fclose(af->f);
    else if (af->fd >= 0) close(af->fd);
    if (af->tmp_path) {
        unlink(af->tmp_path);
        tmp_register(af->tmp_path, 0);
    }
    free(af->tmp_path);
    free(af->final_path);
    memset(af, 0, sizeof *af);
    af->fd = -1;
}

/* ---- CSV cells ------------------------------------------------------- */

void csv_num(FILE *f, double x)
{
    if (isnan(x)) return;
    if (isinf(x)) fputs(x > 0 ? "inf" : "-inf", f);
    else fprintf(f, "%.17g", x);
}

void csv_str(FILE *f, const char *s)
{
    if (strpbrk(s, ",\"\n\r") == NULL) { fputs(s, f); return; }
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"') fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

int csv_write_table(const char *dir, const char *name, const char *index_col,
                    const char *const *cols, size_t ncols, const double *rows,
                    size_t nrows, size_t stride)
{
    afile af;
    int rc = afile_open(&af, dir, name);
    if (rc) return rc;
    csv_str(af.f, index_col);
    for (size_t k = 0; k < ncols; k++) { fputc(',', af.f); csv_str(af.f, cols[k]); }
    fputc('\n', af.f);
    for (size_t i = 0; i < nrows; i++) {
        fprintf(af.f, "%zu", i);
        for (size_t k = 0; k < ncols; k++) { fputc(',', af.f); csv_num(af.f, rows[i * stride + k]); }
        fputc('\n', af.f);
    }
    return afile_commit(&af);
}

/* ---- provenance ------------------------------------------------------ */

extern char *openblas_get_config(void) __attribute__((weak));

static void git_describe(char *buf, size_t n)
{
    snprintf(buf, n, "unknown");
    FILE *p = popen("git rev-parse --short=12 HEAD 2>/dev/null && "
                    "git status --porcelain --untracked-files=no 2>/dev/null | head -n 1", "r");
    if (p == NULL) return;
    char line[128] = "", dirty[128] = "";
    if (fgets(line, sizeof line, p)) {
        line[strcspn(line, "\n")] = '\0';
        if (fgets(dirty, sizeof dirty, p) && dirty[0]) snprintf(buf, n, "%s (modified)", line);
        else if (line[0]) snprintf(buf, n, "%s", line);
    }
    pclose(p);
}

int output_meta(const opts *o, const char *extra)
{
    char name[256], git[160];
    snprintf(name, sizeof name, "%s.meta", o->id);
    git_describe(git, sizeof git);
    afile af;
    int st = afile_open(&af, o->out_dir, name);
    if (st) return st;
    fprintf(af.f, "# provenance of %s (not data: the CSVs hold no timestamps)\ncommand:", o->id);
    for (int i = 0; i < o->argc; i++) fprintf(af.f, " %s", o->argv[i]);
    fprintf(af.f, "\nseed: %lu\ndraws: %zu\nrng: %s\n", o->seed, o->draws, o->rng_name);
    fprintf(af.f, "gsl: %s\nblas: %s\n", GSL_VERSION,
            openblas_get_config ? openblas_get_config() : "gslcblas (GSL reference CBLAS)");
    fprintf(af.f, "compiler: %s\nopenmp_max_threads: %d\ngit: %s\n", __VERSION__,
            omp_get_max_threads(), git);
    if (extra) fprintf(af.f, "%s\n", extra);
    return afile_commit(&af);
}

/* ---- verdicts -------------------------------------------------------- */

void verdicts_init(verdict_list *vl) { memset(vl, 0, sizeof *vl); }

void verdicts_free(verdict_list *vl)
{
    for (size_t i = 0; i < vl->n; i++) {
        free(vl->v[i].quantity);
        free(vl->v[i].macro);
        free(vl->v[i].rule);
    }
    free(vl->v);
    memset(vl, 0, sizeof *vl);
}

static int verdict_add(verdict_list *vl, const verdict *v, const char *macro,
                       const char *quantity, const char *rule)
{
    for (const char *p = macro ? macro : ""; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z')))
            return att_fail(ATT_ERUNTIME, "macro name '%s' must be letters only", macro);
    if (vl->n == vl->cap) {
        size_t cap = vl->cap ? 2 * vl->cap : 16;
        verdict *nv = realloc(vl->v, cap * sizeof *nv);
        if (nv == NULL) return att_fail(ATT_ERUNTIME, "out of memory");
        vl->v = nv;
        vl->cap = cap;
    }
    verdict *d = &vl->v[vl->n];
    *d = *v;
    d->quantity = strdup(quantity ? quantity : "");
    d->macro = strdup(macro ? macro : "");
    d->rule = strdup(rule ? rule : "");
    if (!d->quantity || !d->macro || !d->rule) {
        free(d->quantity);
        free(d->macro);
        free(d->rule);
        return att_fail(ATT_ERUNTIME, "out of memory");
    }
    vl->n++;
    return ATT_OK;
}

int verdict_exact(verdict_list *vl, const char *macro, const char *quantity,
                  double expected, double measured, double tolerance, int pass, const char *rule)
{
    verdict v = {.kind = "exact", .expected = expected, .measured = measured,
                 .ci_low = NAN, .ci_high = NAN, .tolerance = tolerance, .draws = 0,
                 .pass = pass != 0};
    return verdict_add(vl, &v, macro, quantity, rule);
}

int verdict_mc(verdict_list *vl, const char *macro, const char *quantity, double expected,
               double measured, double ci_low, double ci_high, size_t draws, int pass,
               const char *rule)
{
    verdict v = {.kind = "mc", .expected = expected, .measured = measured, .ci_low = ci_low,
                 .ci_high = ci_high, .tolerance = NAN, .draws = draws, .pass = pass != 0};
    return verdict_add(vl, &v, macro, quantity, rule);
}

int verdict_timing(verdict_list *vl, const char *macro, const char *quantity, double measured,
                   int pass, const char *rule)
{
    verdict v = {.kind = "timing", .expected = NAN, .measured = measured, .ci_low = NAN,
                 .ci_high = NAN, .tolerance = NAN, .draws = 0, .pass = pass != 0};
    return verdict_add(vl, &v, macro, quantity, rule);
}

int verdicts_write(const verdict_list *vl, const opts *o)
{
    char name[256];
    snprintf(name, sizeof name, "%s.verdicts.csv", o->id);
    afile af;
    int st = afile_open(&af, o->out_dir, name);
    if (st) return st;
    fputs("id,quantity,expected,measured,ci_low,ci_high,tolerance,draws,seed,verdict,kind,macro,rule\n",
          af.f);
    for (size_t i = 0; i < vl->n; i++) {
        const verdict *v = &vl->v[i];
        csv_str(af.f, o->id);              fputc(',', af.f);
        csv_str(af.f, v->quantity);        fputc(',', af.f);
        csv_num(af.f, v->expected);        fputc(',', af.f);
        csv_num(af.f, v->measured);        fputc(',', af.f);
        csv_num(af.f, v->ci_low);          fputc(',', af.f);
        csv_num(af.f, v->ci_high);         fputc(',', af.f);
        csv_num(af.f, v->tolerance);       fputc(',', af.f);
        fprintf(af.f, "%zu,", v->draws);
        fprintf(af.f, "%lu", o->seed);
        fprintf(af.f, ",%s,%s,", v->pass ? "PASS" : "FAIL", v->kind);
        csv_str(af.f, v->macro);           fputc(',', af.f);
        csv_str(af.f, v->rule);            fputc('\n', af.f);
        if (opts_verbose(o)) {
            printf("%s  %-58s %.6g", v->pass ? "PASS" : "FAIL", v->quantity, v->measured);
            if (!isnan(v->ci_low)) printf("  95%% CI [%.6g, %.6g], %zu draws", v->ci_low, v->ci_high, v->draws);
            if (!isnan(v->tolerance)) printf("  (tolerance %.3g)", v->tolerance);
            printf("  [%s]\n", v->rule);
        }
    }
    return afile_commit(&af);
}

int verdicts_status(const verdict_list *vl)
{
    for (size_t i = 0; i < vl->n; i++)
        if (!vl->v[i].pass) return ATT_FAIL;
    return ATT_OK;
}
