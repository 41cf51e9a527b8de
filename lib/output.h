/* output.h - atomic result files, verdict rows, provenance.
 *
 * Every file is written to an unnamed temporary in the target directory
 * (O_TMPFILE where the filesystem has it, else a hidden ".name.tmp.PID"
 * removed on SIGINT/SIGTERM and on the next run) and renamed over the target
 * only after a successful flush and fsync. An error, a signal or a SIGKILL in
 * the middle of a run therefore leaves the previous file intact.
 *
 * Numbers go into CSVs with "%.17g" so that they read back exactly. Data CSVs
 * never hold timestamps: one seed gives byte-identical files.
 */
#ifndef ATT_OUTPUT_H
#define ATT_OUTPUT_H

#include <stddef.h>
#include <stdio.h>
#include "opts.h"

typedef struct {
    FILE *f;
    char *final_path;
    char *tmp_path;     /* NULL when O_TMPFILE is used */
    int fd;
} afile;

/* Open dir/name for atomic writing. ATT_ERUNTIME (naming the path) on error. */
int afile_open(afile *af, const char *dir, const char *name);
/* Flush, fsync, check for write errors, then rename into place. */
int afile_commit(afile *af);
/* Throw the temporary away; the previous file stays. Safe after commit. */
void afile_abort(afile *af);

/* Write a double as %.17g ("" for NaN: an empty CSV cell). */
void csv_num(FILE *f, double x);
/* Write a CSV field, quoted if it holds a comma, quote or newline. */
void csv_str(FILE *f, const char *s);

/* Write dir/name atomically: a header "index_col,cols[0],...", then for each
 * of nrows rows its index and ncols numbers rows[i * stride + k] (csv_num). */
int csv_write_table(const char *dir, const char *name, const char *index_col,
                    const char *const *cols, size_t ncols, const double *rows,
                    size_t nrows, size_t stride);

/* Provenance sidecar dir/<id>.meta: command line, seed, draws, RNG, GSL and
 * BLAS versions, compiler, git commit. `extra` (may be NULL) is appended. */
int output_meta(const opts *o, const char *extra);

/* ---- verdict rows ---------------------------------------------------- */

typedef struct {
    char *quantity;    /* what was measured, in words                     */
    char *macro;       /* LaTeX macro name, letters only (may be "")      */
    char *rule;        /* PASS rule in words, e.g. "in [0.994, 0.996]"    */
    const char *kind;  /* "exact", "mc" or "timing"                       */
    double expected;   /* the section's value, NAN if it states none      */
    double measured;
    double ci_low, ci_high;   /* 95% CI (Monte Carlo), NAN otherwise       */
    double tolerance;         /* exact checks, NAN otherwise                */
    size_t draws;             /* 0 for exact checks                         */
    int pass;
} verdict;

typedef struct {
    verdict *v;
    size_t n, cap;
} verdict_list;

void verdicts_init(verdict_list *vl);
void verdicts_free(verdict_list *vl);

/* Exact check: PASS when pass != 0. */
int verdict_exact(verdict_list *vl, const char *macro, const char *quantity,
                  double expected, double measured, double tolerance,
                  int pass, const char *rule);
/* Monte Carlo check with its CI and draw count. */
int verdict_mc(verdict_list *vl, const char *macro, const char *quantity,
               double expected, double measured, double ci_low,
               double ci_high, size_t draws, int pass, const char *rule);
/* A timing, reported as measured (pass as decided by the caller). */
int verdict_timing(verdict_list *vl, const char *macro, const char *quantity,
                   double measured, int pass, const char *rule);

/* Write dir/<id>.verdicts.csv with the header
 *   id,quantity,expected,measured,ci_low,ci_high,tolerance,draws,seed,
 *   verdict,kind,macro,rule
 * and print the rows on stdout unless --quiet. */
int verdicts_write(const verdict_list *vl, const opts *o);

/* ATT_OK if every verdict passed, ATT_FAIL otherwise. */
int verdicts_status(const verdict_list *vl);

#endif
