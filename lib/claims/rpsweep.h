/* rpsweep.h - random_projections' three sweeps: their grids, the draws and work buffers
 * of each, the score-sd column, the CI targets' points, and the side tables and meta lines
 * that follow the main sweep.
 *   main   d = 64, d_k = 16, c = --scale, T = 2 .. 256 (--T --d --dk replace them)
 *   width  T = 16, d_k = 4, d = 4 .. 256, c = 1
 *   scale  T = 16, d_k = 4, d = 16, 64, c^2 = 1/4 .. 8
 * Each writes its CSV (random_projections.csv, _width.csv, _scale.csv) with the column
 * score_sd = c^2 sqrt(d_k) after the statistics.
 */
#ifndef ATT_RPSWEEP_H
#define ATT_RPSWEEP_H

#include <stddef.h>
#include "exp.h"
#include "sweep.h"

enum { RPSWEEP_N = 3, RPSWEEP_SIDE_T = 16, RPSWEEP_SIDE_DK = 4, RPSWEEP_PILOT = 1024 };

/* a sweep's own settings: the fresh-token control on or off, the draws per point, the last T */
typedef struct { int control; size_t draws, last_T; } rpsweep_ctx;

/* g[k] for the three sweeps (main's c = scale); c[0] the main sweep's settings (control as
 * asked, --draws, the last T run), c[1] the side sweeps' (control on, --draws / 2, at least 1) */
void rpsweep_init(sweep_grid g[RPSWEEP_N], rpsweep_ctx c[2], const opts *o, double scale, int control);

/* sweep k's work buffers (selfweight scratch for its grid's largest point), draws per point
 * (when no CI target applies), settings c[k ? 1 : 0], CSV name and score-sd column */
void rpsweep_def(sweep_def *def, size_t k, const rpsweep_ctx c[2]);

/* the CI targets' half-width at pt: target 0 (T E[a_ii]) at every T, target 1
 * (E[s_ii^2] / (d_k c^4)) at the last T only (its control's point) */
double rpsweep_target_at(const sweep_point *pt, size_t k, double hw, const void *ctx);

/* after the main sweep m: the heatmap (rptables_heatmap at its d, d_k: T = 12, or with --T
 * its first T up to RPT_HEAT_MAX) and the run's meta lines (precision: the main sweep's
 * precision bound on T E[a_ii]) */
int rpsweep_side_tables(experiment *e, const sweep_result *m, double scale, double precision);

#endif
