/* rptables.h - random_projections' two side tables: the heatmap of one draw and the
 * soft-softmax law of the self-weight's excess (lib/claims/rpexcess.h), each written
 * as its CSV; the experiment reads the soft-law rows for its verdicts.
 */
#ifndef ATT_RPTABLES_H
#define ATT_RPTABLES_H

#include <stddef.h>
#include "exp.h"

/* random_projections_A.csv (panel,i,j,a,query,key): A (T, T) raw and projected for
 * the same X, the sweep point (T, d, d_k, c = 1)'s draw 0; T <= RPT_HEAT_MAX, tokens
 * named by the section's opening sentence in GPT-2's 12 tokens, then t13, t14, ... */
enum { RPT_HEAT_MAX = 32 };
int rptables_heatmap(const experiment *e, size_t T, size_t d, size_t dk);

/* The soft-law sweep: T = 16, d = 16, d_k = 4, score sd = c^2 sqrt(d_k) = 0.5, 0.25,
 * 0.125, 0.0625, on stream (seed, 0x50F7, k) as many draws as a 95% half-width of the ratio
 * min(RPT_SOFT_HW, RPT_SOFT_DEP_HW sd^2) needs (from a pilot; rptables.c); the excess
 * T E[a_ii] - 1 by antithetic pairs with the second-order term as control variate
 * (rpexcess_estimate), its ratio to the law and the departure (ratio - 1) / sd^2, each
 * with its 95% CI. Writes random_projections_soft.csv. */
enum { RPT_SOFT_N = 4, RPT_SOFT_T = 16, RPT_SOFT_D = 16, RPT_SOFT_DK = 4, RPT_SOFT_PILOT = 2000, RPT_SOFT_MAX = 200000 };
#define RPT_SOFT_HW 0.005      /* the ratio to +-0.5% (95%) ...                   */
#define RPT_SOFT_DEP_HW 0.1    /* ... and the departure (ratio - 1) / sd^2 to +-0.1 */
typedef struct {
    double sd, c, law, ratio, ratio_lo, ratio_hi, excess, excess_lo, excess_hi, departure, departure_lo, departure_hi;
    size_t draws;
} rpt_soft_row;
int rptables_soft_law(const experiment *e, rpt_soft_row rows[RPT_SOFT_N]);

/* The soft-softmax law's verdict rows, from rptables_soft_law: measured / law -> 1 as the
 * score sd -> 0 (rpSoftExcess, rpSoftLimit, rpSoftDeparture and a summary line). */
int rptables_soft_verdicts(experiment *e);

#endif
