/* experiment.c - the skeleton every experiment runs in (see experiment.h). */
#include "experiment.h"
#include "par.h"
#include "mem.h"
#include "provenance.h"
#include "status.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void exp_meta(experiment *e, const char *fmt, ...)
{
    size_t room = sizeof e->meta - e->meta_len;
    if (room <= 1) return;
    if (e->meta_len) { e->meta[e->meta_len++] = '\n'; room--; }
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(e->meta + e->meta_len, room, fmt, ap);
    va_end(ap);
    if (n > 0) e->meta_len += (size_t)n < room ? (size_t)n : room - 1;
}

mc_config exp_mc(const experiment *e, const char *label)
{
    return (mc_config){.rng_name = e->o.rng_name, .seed = e->o.seed, .draws = e->o.draws,
                       .label = label ? label : e->o.id, .quiet = e->o.quiet};
}

int exp_usage(const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return att_fail(ATT_EUSAGE, "%s", msg);
}

int experiment_main(const experiment_def *def, int argc, char **argv)
{
    /* Under MPI (par.h) every rank runs all of this; the Monte Carlo engine
     * shares the draws out, and rank 0 alone writes and prints (opts_parse
     * and opts_exit frame the run: par_run_begin, par_run_end). */
    int st = par_init(&argc, &argv);
    att_init();
    static experiment e;         /* static: meta is large, and main runs once */
    memset(&e, 0, sizeof e);
    verdicts_init(&e.v);
    const opts_info info = {def->id, def->claim, def->common, def->seed, def->draws, def->extra};
    if (st == ATT_OK) st = opts_parse(&e.o, &info, argc, argv);
    if (st == ATT_OK) {
        mem_set_budget(e.o.max_memory, "--max-memory");
        /* test-only (par.h): one rank fails before its first Monte Carlo run */
        if (par_test_env("ATT_MPI_TEST_DIVERGE_RANK") == par_rank())
            st = att_fail(ATT_ERUNTIME, "a failure before the Monte Carlo (test-only: "
                          "ATT_MPI_TEST_DIVERGE_RANK)");
        else
            st = def->run(&e);
    }
    st = par_agree(st, PAR_SITE_RUN);    /* no verdict row is printed if any rank failed */
    if (st == ATT_OK && par_size() > 1) exp_meta(&e, "mpi_ranks: %d", par_size());
    if (st == ATT_OK) st = output_meta(&e.o, e.meta_len ? e.meta : NULL);
    if (st == ATT_OK) st = verdicts_write(&e.v, e.o.out_dir, e.o.id, e.o.seed, e.o.quiet || !par_is_root());
    if (st == ATT_OK) st = verdicts_status(&e.v);
    verdicts_free(&e.v);
    return opts_exit(&e.o, st);
}
