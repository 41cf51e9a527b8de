/* naivecontour.h - the derived columns of naive_self_attention's sweep (the naive head).
 *
 * The sweep: X (T, d) ~ N(0, 1), S = X X^T, per (T, d) the mean self-weight a_ii, the
 * leak 1 - a_ii, the leak in units of the large-d law (T - 1) 2^(-d/2), argmax-is-self.
 * The derived columns of each point: the leak's se from its ratio to the law (no
 * underflow), CIs of the leak and the self-weight, the leak's relative error (the
 * larger of the sample's and the law's), whether the point is shown, the law, the
 * exact T = 2 leak, the Wilson CI of argmax-is-self over the rows. The contours and
 * the contour law read from them are the experiment's (experiments/naive_self_attention.c).
 * No matrices here: only the sweep's statistics.
 */
#ifndef ATT_NAIVECONTOUR_H
#define ATT_NAIVECONTOUR_H

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

/* col[NAIVECONTOUR_ND] at point pt (T, d) from its accumulators of the leak 1 - a_ii,
 * of the leak / ((T - 1) 2^(-d/2)) and of argmax-is-self (each a mean over T rows). */
void naivecontour_derive(double *col, const sweep_point *pt, const stat_acc *leak, const stat_acc *ratio,
                         const stat_acc *argmax);

#endif
