/* provenance.c - the .meta sidecar of a run (see provenance.h). */
#include "provenance.h"
#include "afile.h"
#include "status.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <gsl/gsl_version.h>
#include <omp.h>

extern char *openblas_get_config(void) __attribute__((weak));

/* The project's own tree: the nearest folder above the running binary
 * (bin/<ID>, bin-mpi/, build/tools/, ...) that holds this source file. Not
 * the current directory: a run from inside another git repository must not
 * record that repository's commit. 0 when there is none (an installed copy). */
static int project_root(char *root, size_t n)
{
    char exe[PATH_MAX];
    ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (len <= 0) return 0;
    exe[len] = '\0';
    for (char *slash = strrchr(exe, '/'); slash; slash = strrchr(exe, '/')) {
        *slash = '\0';
        char probe[PATH_MAX + 32];
        struct stat sb;
        snprintf(probe, sizeof probe, "%s/lib/run/provenance.c", exe[0] ? exe : "");
        if (stat(probe, &sb) == 0 && snprintf(root, n, "%s", exe[0] ? exe : "/") < (int)n) return 1;
    }
    return 0;
}

/* The commit of the code: "(modified)" when a tracked file outside results/
 * differs from it (results/ itself is what make reproduce is writing). */
static void git_describe(char *buf, size_t n)
{
    snprintf(buf, n, "unknown (no project tree above the binary)");
    char root[PATH_MAX], q[2 * PATH_MAX + 8], cmd[4 * PATH_MAX + 256];
    if (!project_root(root, sizeof root)) return;
    /* the root, single-quoted for the shell */
    size_t k = 0;
    q[k++] = '\'';
    for (const char *c = root; *c && k + 5 < sizeof q; c++) {
        if (*c == '\'') { memcpy(q + k, "'\\''", 4); k += 4; }
        else q[k++] = *c;
    }
    q[k++] = '\'';
    q[k] = '\0';
    snprintf(cmd, sizeof cmd,
             "git -C %s rev-parse --short=12 HEAD 2>/dev/null && "
             "git -C %s status --porcelain --untracked-files=no -- . ':(exclude)results' "
             "2>/dev/null | head -n 1",
             q, q);
    snprintf(buf, n, "unknown (the project tree is not a git checkout)");
    FILE *p = popen(cmd, "r");
    if (p == NULL) return;
    char line[128] = "", dirty[128] = "";
    if (fgets(line, sizeof line, p)) {
        line[strcspn(line, "\n")] = '\0';
        if (fgets(dirty, sizeof dirty, p) && dirty[0]) snprintf(buf, n, "%s (modified)", line);
        else if (line[0]) snprintf(buf, n, "%s", line);
    }
    pclose(p);
}

int provenance_write_meta(const opts *o, const char *extra)
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

