/* provenance.c - the .meta sidecar of a run (see provenance.h). */
#include "provenance.h"
#include "afile.h"
#include "status.h"

#include <stdio.h>
#include <string.h>
#include <gsl/gsl_version.h>
#include <omp.h>

extern char *openblas_get_config(void) __attribute__((weak));

/* The commit of the code: "(modified)" when a tracked file outside results/
 * differs from it (results/ itself is what make reproduce is writing). */
static void git_describe(char *buf, size_t n)
{
    snprintf(buf, n, "unknown");
    FILE *p = popen("git rev-parse --short=12 HEAD 2>/dev/null && "
                    "git status --porcelain --untracked-files=no -- . ':(exclude)results' 2>/dev/null | head -n 1", "r");
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

