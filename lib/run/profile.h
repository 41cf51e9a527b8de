/* profile.h - a figure's profiles: vectors of each point's example draw as
 * the columns of one table.
 *
 * A figure sometimes shows, per grid point, one vector of its first draw (a
 * spectrum, a row of weights). profile_write draws every point of a run
 * again as its draw 0 (example.h, on the point alone: its stream and its
 * sizes) and writes dir/<name>: a column "i" = 1 .. n (exact), then for each
 * vector k < nvec and each point p the workset's vector vec[k] (the def's
 * shape words, workset.h), headed by names(k, point), of nature nat with
 * the given bound (table.h). Every point's vectors must have one length n:
 * when they do not, no table is written and the result is ATT_OK.
 *
 *     static void name(char *buf, size_t n, size_t k, const sweep_point *pt, const void *ctx)
 *     { snprintf(buf, n, k ? "d_v=%zu" : "d_k=%zu", pt->dk); }
 *     const size_t vec[2] = {SPEC_QK, SPEC_OV};
 *     st = profile_write(e, "x_spectra.csv", &r, &def, 2, vec, name, NAT_ROUNDING, "1e-10");
 */
#ifndef ATT_PROFILE_H
#define ATT_PROFILE_H

#include "experiment.h"
#include "sweep.h"

typedef void (*profile_name_fn)(char *buf, size_t size, size_t k, const sweep_point *pt,
                                const void *ctx);

int profile_write(experiment *e, const char *name, const sweep_result *r, const sweep_def *def,
                  size_t nvec, const size_t *vec, profile_name_fn names, col_nature nat,
                  const char *bound);

#endif
