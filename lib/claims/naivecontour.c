/* naivecontour.c - the derived columns of the naive head's sweep (naivecontour.h). */
#include "naivecontour.h"

#include <math.h>

#define NC_COL(k, name) SWEEP_DERIVED(k, name, NAT_COMPUTED, NULL, NULL, NULL)
const table_col naivecontour_cols[NAIVECONTOUR_ND] = {
    NC_COL(NAIVECONTOUR_SLO, "self_ci_lo"), NC_COL(NAIVECONTOUR_SHI, "self_ci_hi"),
    NC_COL(NAIVECONTOUR_LLO, "leak_ci_lo"), NC_COL(NAIVECONTOUR_LHI, "leak_ci_hi"),
    NC_COL(NAIVECONTOUR_LSE, "leak_se"), NC_COL(NAIVECONTOUR_RSE, "leak_rse"),
    NC_COL(NAIVECONTOUR_SHOWN, "shown"), NC_COL(NAIVECONTOUR_LAW, "leak_law"),
    NC_COL(NAIVECONTOUR_T2, "leak_exact_t2"),
    NC_COL(NAIVECONTOUR_ALO, "argmax_ci_lo"), NC_COL(NAIVECONTOUR_AHI, "argmax_ci_hi")};

void naivecontour_derive(double *col, const sweep_point *pt, const stat_acc *leak_acc, const stat_acc *ratio,
                         const stat_acc *argmax)
{
    double T = (double)pt->T, d = (double)pt->d, n = (double)leak_acc->n, leak = leak_acc->mean;
    col[NAIVECONTOUR_LAW] = selfweight_leak_law(pt->T, d);
    col[NAIVECONTOUR_T2] = pt->T == 2 ? selfweight_leak_t2(d) : NAN;
    // se(leak) = law * se(leak / law): the ratio is O(1), its variance never underflows
    col[NAIVECONTOUR_LSE] = col[NAIVECONTOUR_LAW] * stat_se(ratio);
    col[NAIVECONTOUR_LLO] = leak - STAT_Z95 * col[NAIVECONTOUR_LSE];
    col[NAIVECONTOUR_LHI] = leak + STAT_Z95 * col[NAIVECONTOUR_LSE];
    col[NAIVECONTOUR_SLO] = 1.0 - col[NAIVECONTOUR_LHI];
    col[NAIVECONTOUR_SHI] = 1.0 - col[NAIVECONTOUR_LLO];
    // rse of the mean leak: the sample's, or the law's sqrt(4 2^(d/2) / (sqrt(pi d)(T - 1)) / (n T))
    // (from the T = 2 second moment ~ 2^(-d/2) / sqrt(pi d): the mean is carried by rare draws)
    col[NAIVECONTOUR_RSE] = fmax(col[NAIVECONTOUR_LSE] / leak,
                                 sqrt(4.0 * exp2(0.5 * d) / (sqrt(M_PI * d) * (T - 1.0)) / (n * T)));
    col[NAIVECONTOUR_SHOWN] = col[NAIVECONTOUR_RSE] <= NAIVECONTOUR_MAX_RSE;
    /* n T rows */
    stat_ci95_wilson(round(argmax->mean * n * T), n * T, &col[NAIVECONTOUR_ALO], &col[NAIVECONTOUR_AHI]);
}
