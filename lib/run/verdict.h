/* verdict.h - a verdict row is data: what kind of check it is, its rule as a
 * comparison with bounds, the numbers, and the outcome that follows from them.
 *
 * Kinds (doc/verdicts.md says what each means to a reader): claim, identity (exact up to
 * rounding), control, reported (no rule: its outcome is always REPORTED).
 *
 * Rules (one function, verdict_decide, turns a rule and the numbers into the
 * outcome; verdict_rule_text writes the same rule in words):
 *   at_most b      measured <= b                          PASS / FAIL
 *   at_least a     measured >= a                          PASS / FAIL
 *   between a b    a <= measured <= b                     PASS / FAIL
 *   ci_within a b  95% CI inside [a, b]: PASS; CI outside (disjoint): FAIL;
 *                  CI across a bound: INCONCLUSIVE (more draws decide it)
 *   ci_above a     ci_low >= a: PASS; ci_high < a: FAIL; else INCONCLUSIVE
 *   ci_below b     ci_high <= b: PASS; ci_low > b: FAIL; else INCONCLUSIVE
 *   precision b    CI half-width <= b: PASS; else INCONCLUSIVE (a wish about
 *                  the draws, never a statement about attention: never FAIL)
 *   none           REPORTED (only for kind reported)
 * A NaN measurement fails every rule but precision (an error cannot hide).
 *
 * The row written to <id>.verdicts.csv (and gathered into claims.csv):
 *   id,kind,quantity,expected,measured,ci_low,ci_high,tolerance,draws,seed,
 *   verdict,rule,bound_lo,bound_hi,rule_text,macro,run_dependent,headline,nature
 * `tolerance` repeats bound_hi for an at_most rule (the tolerance of an
 * identity). run_dependent = 1 marks a time: its value is the median and
 * ci_low/ci_high are the min and max over `draws` repetitions, and make
 * verify does not compare its numbers. headline = 1 marks the row that cites
 * the claim (verdict_headline); without one, the report takes the first claim
 * row with a macro. The report re-derives `verdict` and `rule_text` from the other
 * columns and refuses a row that disagrees.
 * `nature` says how make verify compares measured, ci_low and ci_high with a rerun (the
 * natures of table.h; doc/verify.md): the measure's own (verdict_measure_as), else derived
 * once, here (row_nature in verdict.c), and stored. The other columns have fixed natures
 * (verdict_list_write_schema).
 */
#ifndef ATT_VERDICT_H
#define ATT_VERDICT_H

#include <stddef.h>
#include "statistics.h"
#include "table.h"

typedef enum { KIND_CLAIM, KIND_IDENTITY, KIND_CONTROL, KIND_REPORTED, KIND_N } verdict_kind;

typedef enum {
    RULE_NONE, RULE_AT_MOST, RULE_AT_LEAST, RULE_BETWEEN,
    RULE_CI_WITHIN, RULE_CI_ABOVE, RULE_CI_BELOW, RULE_PRECISION, RULE_N
} rule_cmp;

typedef enum { OUT_PASS, OUT_FAIL, OUT_INCONCLUSIVE, OUT_REPORTED, OUT_N } verdict_outcome;

typedef struct {
    rule_cmp cmp;
    double lo, hi;      /* the bounds the comparison uses (NaN where unused) */
} verdict_rule;

verdict_rule verdict_rule_none(void);
verdict_rule verdict_rule_at_most(double b);
verdict_rule verdict_rule_at_least(double a);
verdict_rule verdict_rule_between(double a, double b);
verdict_rule verdict_rule_ci_within(double a, double b);
verdict_rule verdict_rule_ci_above(double a);
verdict_rule verdict_rule_ci_below(double b);
verdict_rule verdict_rule_precision(double half_width);

/* What was measured: a value, with a 95% CI and a draw count for Monte Carlo
 * numbers (NaN CI and the number of cases checked for exact ones). */
typedef struct {
    double value, ci_low, ci_high;
    size_t draws;
    int run_dependent;  /* a time: differs from run to run (not compared by
                           make verify); ci_low/ci_high hold min and max over
                           the `draws` repetitions, value the median */
    col_nature nature;  /* how make verify compares it; NAT_AUTO: derived
                           by verdict_add (see the top of this file) */
} measure;

/* m with its comparison nature declared: NAT_TRAINING for a trained model's
 * result over seeds, NAT_ROUNDING for a rounding-level value that is not an
 * identity's (a reported residual), NAT_EXACT for a count. */
measure verdict_measure_as(measure m, col_nature nature);

measure verdict_measure_exact(double value, size_t cases);
/* A time (or rate) measured `reps` times: the median, with min and max. */
measure verdict_measure_time(double median, double min, double max, size_t reps);
measure verdict_measure_ci(double mean, double ci_low, double ci_high, size_t draws);
measure verdict_measure_stat(const stat_acc *a);          /* mean and its 95% CI */

typedef struct {
    verdict_kind kind;
    char *quantity, *macro;
    verdict_rule rule;
    double expected;    /* the section's value, NaN when it states none */
    measure m;
    verdict_outcome outcome;
    int headline;       /* the number that carries the claim's meaning */
} verdict;

typedef struct {
    verdict *v;
    size_t n, cap;
    int status;         /* sticky: the first verdict_add error (ATT_OK: none) */
    char err[512];      /* ... and its message                                 */
} verdict_list;

void verdict_list_init(verdict_list *vl);
void verdict_list_free(verdict_list *vl);

/* Add a row; its outcome is decided here from m and r. `macro` is the LaTeX
 * macro name (letters only) that cites `measured`, or "" for none. The
 * quantity is printf-formatted. ATT_ERUNTIME on a bad macro name, a kind
 * that does not fit the rule (reported needs rule none and the others a
 * rule), or no memory. The first error is also kept in vl->status and
 * vl->err (sticky): experiment_main turns it into exit 3 and writes no
 * verdict file, so an ignored return value cannot drop a row silently. */
int verdict_add(verdict_list *vl, verdict_kind kind, const char *macro, double expected,
                measure m, verdict_rule r, const char *quantity_fmt, ...)
    __attribute__((format(printf, 7, 8)));

/* Mark the row added last as the claim's headline: the number the README
 * and the handout cite for it (one per experiment). */
void verdict_headline(verdict_list *vl);

/* The outcome a rule gives to these numbers: the one function per rule. */
verdict_outcome verdict_decide(verdict_rule r, measure m);
/* The rule in words, e.g. "95% CI inside [0.95, 1.05]"; returns buf. */
char *verdict_rule_text(verdict_rule r, char *buf, size_t n);
/* For an INCONCLUSIVE Monte Carlo row: roughly how many draws would decide
 * it (the CI shrinks as 1/sqrt(draws)); 0 when no number of draws would
 * (the value sits on a bound). */
double verdict_draws_to_decide(verdict_rule r, measure m);

const char *verdict_kind_name(verdict_kind k);
const char *verdict_outcome_name(verdict_outcome o);
const char *verdict_rule_cmp_name(rule_cmp c);
/* Name -> value; -1 when unknown. */
int verdict_kind_parse(const char *s);
int verdict_outcome_parse(const char *s);
int verdict_rule_cmp_parse(const char *s);

/* The header of a verdicts CSV (no newline). */
extern const char *const verdict_csv_header;

/* Write dir/<base>.schema.csv for a verdicts file (or claims.csv) `name`:
 * measured, ci_low, ci_high compared by the row's `nature`; the rest exact,
 * or computed for the bounds, tolerance and expected value. */
int verdict_list_write_schema(const char *dir, const char *name);

/* Write dir/<id>.verdicts.csv (and its schema); with VERDICTS_ROWS print the
 * rows on stdout, with VERDICTS_NOTES the INCONCLUSIVE ones, with the draws
 * that would decide them, on stderr. */
enum { VERDICTS_ROWS = 1, VERDICTS_NOTES = 2 };
int verdict_list_write(const verdict_list *vl, const char *dir, const char *id,
                       unsigned long seed, int print);

/* ATT_FAIL when some row FAILs, ATT_OK otherwise (INCONCLUSIVE is not a
 * failure of the claim: exit 0). */
int verdict_list_status(const verdict_list *vl);
size_t verdict_list_count(const verdict_list *vl, verdict_outcome o);

#endif
