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
 *   5. write <id>.verdicts.csv last (it stands for the whole run), unless a
 *      verdict call failed (a bad macro name, a CI rule without a CI, no
 *      memory: the first such error is sticky, and the run exits 3 with no
 *      verdict file); name INCONCLUSIVE rows on stderr;
 *   6. print the plain summary (unless --quiet): the claim, the experiment's
 *      summary lines (experiment_summary; by default the headline row), a count of
 *      the verdicts; every verdict row only with --verbose;
 *   7. exit: 0 no FAIL, 1 some FAIL, 2 bad usage or input, 3 runtime error.
 *
 * The verdict calls, the summary lines and a whole experiment, by example: doc/engine.md
 * ("Verdicts and the summary"; experiments/concentration.c is the model). Sweeps: sweep.h.
 */
#ifndef ATT_EXPERIMENT_H
#define ATT_EXPERIMENT_H

#include <stddef.h>
#include <stdint.h>
#include <gsl/gsl_rng.h>
#include "opts.h"
#include "verdict.h"

typedef struct {
    opts o;              /* the parsed options: o.out_dir, o.seed, o.draws, ... */
    verdict_list v;      /* the verdict rows (verdict_add(&e->v, ...))            */
    char meta[4096];     /* "key: value" provenance lines (experiment_meta)              */
    size_t meta_len;
    char summary[4096];  /* the plain summary lines (experiment_summary)                 */
    size_t summary_len;
} experiment;

typedef struct {
    const char *id;          /* the claim ID = the program's name              */
    const char *claim;       /* NULL: the registry's words (registry.h); text
                                only for a program the registry does not list */
    unsigned common;         /* OPT_* mask of the common options it takes      */
    unsigned long seed;      /* default seed                                   */
    size_t draws;            /* default draws                                  */
    const opt_spec *extra;   /* its own options (NULL-terminated), or NULL     */
    int (*run)(experiment *e);
} experiment_def;

/* The whole program: returns the exit status. */
int experiment_main(const experiment_def *def, int argc, char **argv);

/* Append a "key: value" line to the provenance (printf format). */
void experiment_meta(experiment *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A side stream (a table or a figure's example outside the sweep): the generator of
 * block `block` of stream `stream`, seeded as the engine seeds a Monte Carlo block,
 * rng_stream_seed(--seed, stream, block), of the run's --rng. An experiment names its
 * streams (an enum). NULL + error on failure; gsl_rng_free. */
gsl_rng *experiment_rng(const experiment *e, uint64_t stream, uint64_t block);
/* The same stream into an existing generator r (reseeded). */
void experiment_rng_set(const experiment *e, gsl_rng *r, uint64_t stream, uint64_t block);

/* Verdict rows by kind (verdict.h); an error is sticky (exit 3, no verdict
 * file), so there is nothing to check. verdict_reported has rule none. */
void verdict_claim(experiment *e, const char *macro, double expected, measure m, verdict_rule r,
               const char *fmt, ...) __attribute__((format(printf, 6, 7)));
void verdict_identity(experiment *e, const char *macro, double expected, measure m, verdict_rule r,
                  const char *fmt, ...) __attribute__((format(printf, 6, 7)));
void verdict_control(experiment *e, const char *macro, double expected, measure m, verdict_rule r,
                 const char *fmt, ...) __attribute__((format(printf, 6, 7)));
void verdict_reported(experiment *e, const char *macro, double expected, measure m,
                  const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* Mark the row added last as the claim's headline. */
void experiment_headline(experiment *e);

/* A line of the plain summary (printf format; indented on output). */
void experiment_summary(experiment *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* "<label> <value> (<section's value>), 95% CI [lo, hi], N draws": the
 * section's value as printf text (NULL: none); no CI part for an exact m. */
void experiment_summary_measure(experiment *e, const char *label, measure m,
                                const char *section_fmt, ...) __attribute__((format(printf, 4, 5)));

/* A usage error about an option value (exit 2): "--T 1: <why>". */
int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
