/* naivecontour.h - naive_self_attention's sweep read as the contour law (its extension).
 *
 * The sweep: X (T, d) ~ N(0, 1), S = X X^T, per (T, d) the mean self-weight a_ii, the
 * leak 1 - a_ii, the leak in units of the large-d law (T - 1) 2^(-d/2), argmax-is-self.
 * From it:
 *   - the derived columns of each point: the leak's se from its ratio to the law (no
 *     underflow), CIs of the leak and the self-weight, the leak's relative error (the
 *     larger of the sample's and the law's), whether the point is shown, the law, the
 *     exact T = 2 leak, the Wilson CI of argmax-is-self over the rows;
 *   - the plain contours d*(T) of the mean self-weight at 0.995 and 0.999 (written as
 *     <id>_contour.csv and <id>_contour_999.csv) and their rise per doubling of T - 1
 *     against the large-d law's 2 (verdicts naiveExactTwo, naiveContourSlope[High]);
 *   - where that law holds: fixed T, large d (naiveLawLargeD, naiveLeakSixtyFour), and
 *     the exact contour's local rise (naiveContourDrift).
 * No matrices here: only the sweep's statistics.
 */
#ifndef ATT_NAIVECONTOUR_H
#define ATT_NAIVECONTOUR_H

#include <stddef.h>
#include <gsl/gsl_rng.h>
#include "exp.h"
#include "naiveleak.h"
#include "selfweight.h"
#include "stat.h"
#include "sweep.h"
#include "table.h"

/* the derived columns after the sweep's statistics, in this order */
enum { NAIVECONTOUR_SLO, NAIVECONTOUR_SHI, NAIVECONTOUR_LLO, NAIVECONTOUR_LHI, NAIVECONTOUR_LSE,
       NAIVECONTOUR_RSE, NAIVECONTOUR_SHOWN, NAIVECONTOUR_LAW, NAIVECONTOUR_T2, NAIVECONTOUR_ALO,
       NAIVECONTOUR_AHI, NAIVECONTOUR_ND };
extern const table_col naivecontour_cols[NAIVECONTOUR_ND];
/* a point is shown (in the figure, in the contour) when its leak's rse is at most this */
#define NAIVECONTOUR_MAX_RSE 0.1
/* the contour levels of the mean self-weight: the section's 0.995, and 0.999 */
enum { NAIVECONTOUR_NLEVEL = 2 };
extern const double naivecontour_levels[NAIVECONTOUR_NLEVEL];

/* col[NAIVECONTOUR_ND] at point pt (T, d) from its accumulators of the leak 1 - a_ii,
 * of the leak / ((T - 1) 2^(-d/2)) and of argmax-is-self (each a mean over T rows). */
void naivecontour_derive(double *col, const sweep_point *pt, const stat_acc *leak, const stat_acc *ratio,
                         const stat_acc *argmax);

/* The raw head's workspace for the largest (T, d) of grid g (selfweight_scratch_new):
 * sweep_def.work_alloc; free it with selfweight_scratch_delete. */
void *naivecontour_work_new(const sweep_grid *g, const void *ctx);

/* The run's T list and the plain contours. */
typedef struct {
    size_t Tl[SWEEP_MAX_VALUES], nT, nd;   /* the run's lengths (T-major), widths per T   */
    size_t ht;                             /* index of the headline T in Tl (else 0)      */
    size_t ncont;                          /* lengths with a contour: nT, or 0            */
    selfweight_contour_row cont[NAIVECONTOUR_NLEVEL][SWEEP_MAX_VALUES];
} naivecontour;

/* From the sweep r of def (def->derive fills the derived columns; statistic s_leak is
 * the leak): the T list, the index of headline_T, and the contours d*(T) at both levels
 * (selfweight_contours, the leak's se = rse x leak per point), written as
 * <id>_contour.csv and <id>_contour_999.csv. No contour (ncont = 0, a note on stderr
 * unless --quiet) when the widths run do not bracket both levels at every T. */
int naivecontour_plain(experiment *e, const sweep_def *def, const sweep_result *r, size_t s_leak,
                       size_t headline_T, naivecontour *nc);

/* A small run's own points (statistic s_self: the self-weight): with one width per T a
 * reported row "mean self-weight at d, T" per point (its CI from the leak's); with at
 * most 4 points a summary line per point. */
void naivecontour_points(experiment *e, const sweep_def *def, const sweep_result *r, size_t s_self,
                         const naivecontour *nc);

/* The contour law on the plain contours: the provenance lines of each T's d*, the
 * control naiveExactTwo (d* at T = 2 against its exact 2 log2(1/(2 (1 - 0.995)))) and
 * the weighted slope of d* on log2(T - 1) at each level (naiveContourSlope[High]). */
void naivecontour_law(experiment *e, const naivecontour *nc);

/* Where the law holds, after the exact contour ex[0 .. nT-1] of Tl: its last local rise
 * (naiveContourDrift); at the largest T and d = 64, 2 c(T, d) = 1 to 1% (naiveLawLargeD,
 * rng reseeded to rng_stream_seed(seed, 0xC0DE, 0x64)); the mean leak at d = 64,
 * T = headline_T (naiveLeakSixtyFour), both by naiveleak_c_draw. */
void naivecontour_large_d(experiment *e, gsl_rng *rng, const size_t *Tl, size_t nT, size_t headline_T,
                          const naiveleak_contour_row *ex);

#endif
