/* experiment.h - one skeleton runs every experiment.
 *
 * An experiment is a description (its ID, the claim in one line, the options
 * it takes, its default seed and draws) and a run function that measures,
 * writes its tables and adds its verdict rows. experiment_main does the rest,
 * in this order:
 *   1. parse the options strictly (opts.h); --help prints and exits 0;
 *   2. set the memory budget (--max-memory, default 4G): every matrix, vector
 *      and counted buffer is checked against it as it is allocated (mem.h),
 *      so a run that would not fit stops at its first allocation, before
 *      anything is written, with exit 2 naming the budget;
 *   3. run: the measurement, its CSV tables, its verdict rows;
 *   4. write the provenance <id>.meta (with the run's "key: value" lines);
 *   5. write <id>.verdicts.csv last (it stands for the whole run), print the
 *      rows unless --quiet, and name INCONCLUSIVE rows on stderr;
 *   6. exit: 0 no FAIL, 1 some FAIL, 2 bad usage or input, 3 runtime error.
 *
 *     static int run(experiment *e) { ... measure, TABLE_WRITE, verdict_add ... }
 *     int main(int argc, char **argv)
 *     {
 *         static const experiment_def def = {"key_bias", "the key bias ...",
 *             OPT_MC | OPT_T, 20261129UL, 400, NULL, run};
 *         return experiment_main(&def, argc, argv);
 *     }
 */
#ifndef ATT_EXPERIMENT_H
#define ATT_EXPERIMENT_H

#include <stddef.h>
#include "mc.h"
#include "opts.h"
#include "verdict.h"

typedef struct {
    opts o;              /* the parsed options: o.out_dir, o.seed, o.draws, ... */
    verdict_list v;      /* the verdict rows (verdict_add(&e->v, ...))            */
    char meta[4096];     /* "key: value" provenance lines (exp_meta)              */
    size_t meta_len;
} experiment;

typedef struct {
    const char *id;          /* the claim ID = the program's name              */
    const char *claim;       /* the claim in one line, for --help              */
    unsigned common;         /* OPT_* mask of the common options it takes      */
    unsigned long seed;      /* default seed                                   */
    size_t draws;            /* default draws                                  */
    const opt_spec *extra;   /* its own options (NULL-terminated), or NULL     */
    int (*run)(experiment *e);
} experiment_def;

/* The whole program: returns the exit status. */
int experiment_main(const experiment_def *def, int argc, char **argv);

/* Append a "key: value" line to the provenance (printf format). */
void exp_meta(experiment *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A Monte Carlo config with the run's generator, seed and --quiet filled in;
 * the caller sets draws, nstats, the draw function and the rest. */
mc_config exp_mc(const experiment *e, const char *label);

/* A usage error about an option value (exit 2): "--T 1: <why>". */
int exp_usage(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
