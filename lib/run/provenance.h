/* provenance.h - where a run's numbers came from: the sidecar <id>.meta.
 *
 * Command line, seed, draws, generator, GSL and BLAS versions, compiler,
 * OpenMP threads and the git commit. Never inside a CSV: the data of two runs
 * with one seed are byte-identical.
 */
#ifndef ATT_PROVENANCE_H
#define ATT_PROVENANCE_H

#include "opts.h"

/* Write <out>/<id>.meta; `extra` (may be NULL) is appended: "key: value"
 * lines, such as the run's sizes, that the plot scripts read. */
int provenance_write_meta(const opts *o, const char *extra);

#endif
