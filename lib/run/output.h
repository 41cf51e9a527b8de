/* output.h - everything an experiment writes: atomic files (afile.h), CSV
 * tables (table.h), provenance (provenance.h) and verdict rows (verdict.h).
 *
 * LEGACY: the verdict_exact / verdict_mc / verdict_timing calls below are the
 * old API, kept only while experiments move to verdict.h's rules-as-data;
 * they will be removed.
 */
#ifndef ATT_OUTPUT_H
#define ATT_OUTPUT_H

#include "afile.h"
#include "opts.h"
#include "provenance.h"
#include "table.h"
#include "verdict.h"

int verdict_exact(verdict_list *vl, const char *macro, const char *quantity,
                  double expected, double measured, double tolerance,
                  int pass, const char *rule);
int verdict_mc(verdict_list *vl, const char *macro, const char *quantity,
               double expected, double measured, double ci_low,
               double ci_high, size_t draws, int pass, const char *rule);
int verdict_timing(verdict_list *vl, const char *macro, const char *quantity,
                   double measured, int pass, const char *rule);
int legacy_verdicts_write(const verdict_list *vl, const opts *o);

#endif
