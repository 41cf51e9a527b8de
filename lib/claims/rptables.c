/* rptables.c - random_projections' heatmap and soft-law tables (rptables.h). */
#include "rptables.h"
#include "mat.h"
#include "rng.h"
#include "rpexcess.h"
#include "selfweight.h"
#include "att.h"
#include "sweep.h"
#include "table.h"

#include <math.h>
#include <stdio.h>

/* the section's opening sentence in GPT-2's 12 tokens: names for random vectors */
static const char *const TOKENS[] = {"The", "animal", "didn", "'t", "cross", "the", "street",
                                     "because", "it", "was", "too", "tired"};
typedef struct { const char *panel; size_t i, j; double a; const char *query, *key; } heat_row;
static const table_col heat_cols[] = {COL(heat_row, panel), COL(heat_row, i), COL(heat_row, j),
                                      COL(heat_row, a), COL(heat_row, query), COL(heat_row, key)};

/* A (T, T) raw and projected for the same X */
int rptables_heatmap(const experiment *e, size_t T, size_t d, size_t dk)
{
    static heat_row rows[2 * RPT_HEAT_MAX * RPT_HEAT_MAX];
    static char names[RPT_HEAT_MAX][24];
    for (size_t i = 0; i < T; i++)
        if (i < 12) snprintf(names[i], sizeof names[i], "%s", TOKENS[i]);
        else snprintf(names[i], sizeof names[i], "t%zu", i + 1);
    sweep_point pt = {.T = T, .d = d, .dk = dk, .x = 1.0};
    gsl_rng *rng = sweep_rng(e, &pt);
    gsl_matrix *A[2] = {mat_new(T, T), mat_new(T, T)};
    int st = rng && A[0] && A[1] ? selfweight_heatmaps(rng, d, dk, A[0], A[1])
                                 : att_last_code() == ATT_EUSAGE ? ATT_EUSAGE : ATT_ERUNTIME;
    for (size_t n = 0; n < 2 * T * T && !st; n++) {
        size_t i = n % (T * T) / T, j = n % T;
        rows[n] = (heat_row){n < T * T ? "raw" : "projected", i + 1, j + 1, gsl_matrix_get(A[n / (T * T)], i, j),
                             names[i], names[j]};
    }
    if (!st) st = TABLE_WRITE(e->o.out_dir, "random_projections_A.csv", heat_cols, rows, 2 * T * T);
    mat_free(A[0]);
    mat_free(A[1]);
    if (rng) gsl_rng_free(rng);
    return st;
}

static const double SOFT_SD[RPT_SOFT_N] = {0.5, 0.25, 0.125, 0.0625};
static const table_col soft_cols[] = {
    COL(rpt_soft_row, sd), COL(rpt_soft_row, c), COL(rpt_soft_row, draws), COL(rpt_soft_row, law),
    COL_MC(rpt_soft_row, excess, "excess_lo", "excess_hi"), COL_MC(rpt_soft_row, excess_lo, "excess_lo", "excess_hi"),
    COL_MC(rpt_soft_row, excess_hi, "excess_lo", "excess_hi"), COL_MC(rpt_soft_row, ratio, "ratio_lo", "ratio_hi"),
    COL_MC(rpt_soft_row, ratio_lo, "ratio_lo", "ratio_hi"), COL_MC(rpt_soft_row, ratio_hi, "ratio_lo", "ratio_hi"),
    COL_MC(rpt_soft_row, departure, "departure_lo", "departure_hi"),
    COL_MC(rpt_soft_row, departure_lo, "departure_lo", "departure_hi"),
    COL_MC(rpt_soft_row, departure_hi, "departure_lo", "departure_hi")};

/* the 95% half-width asked of the ratio at score sd: 0.005 (the ratio to +-0.5%), and 0.1 sd^2
 * (the departure (ratio - 1) / sd^2 to +-0.1), whichever is smaller */
static double soft_target(double sd) { return fmin(RPT_SOFT_HW, RPT_SOFT_DEP_HW * sd * sd); }

/* per score sd: Y_anti = T (a_ii - a'_ii) averaged with its antithetic -W_K, on the control
 * Q2 - law (rpexcess_estimate); ratio = Y / law, departure = (ratio - 1) / sd^2, both CIs
 * the excess's CI mapped through these increasing maps. Draws: a pilot of RPT_SOFT_PILOT on
 * stream (seed, 0x50F7, 16 + k) gives the ratio's half-width h0, then
 *   n = RPT_SOFT_PILOT (h0 / target)^2 x 1.5 (a margin for h0's own error), within
 *   [RPT_SOFT_PILOT, RPT_SOFT_MAX], on stream (seed, 0x50F7, k). */
int rptables_soft_law(const experiment *e, rpt_soft_row sr[RPT_SOFT_N])
{
    gsl_rng *rng = rng_new(e->o.rng_name, 0);
    if (!rng) return ATT_EUSAGE;
    int st = ATT_OK;
    for (size_t k = 0; k < RPT_SOFT_N && !st; k++) {
        double c = sqrt(SOFT_SD[k] / sqrt((double)RPT_SOFT_DK)), yh, se, v = SOFT_SD[k] * SOFT_SD[k];
        double law = rpexcess_law(RPT_SOFT_T, RPT_SOFT_D, RPT_SOFT_DK, c);
        gsl_rng_set(rng, rng_stream_seed(e->o.seed, 0x50F7, 16 + k));
        if ((st = rpexcess_estimate(rng, RPT_SOFT_T, RPT_SOFT_D, RPT_SOFT_DK, c, RPT_SOFT_PILOT, 0.0, &yh, &se))) break;
        double h0 = STAT_Z95 * se / law, want = RPT_SOFT_PILOT * pow(h0 / soft_target(SOFT_SD[k]), 2) * 1.5;
        size_t n = isfinite(want) && want > RPT_SOFT_PILOT ? (want < RPT_SOFT_MAX ? (size_t)ceil(want) : RPT_SOFT_MAX)
                                                            : RPT_SOFT_PILOT;
        gsl_rng_set(rng, rng_stream_seed(e->o.seed, 0x50F7, k));
        if ((st = rpexcess_estimate(rng, RPT_SOFT_T, RPT_SOFT_D, RPT_SOFT_DK, c, n, 0.0, &yh, &se))) break;
        double h = STAT_Z95 * se, r = yh / law, rl = (yh - h) / law, rh = (yh + h) / law;
        sr[k] = (rpt_soft_row){SOFT_SD[k], c, law, r, rl, rh, yh, yh - h, yh + h, (r - 1.0) / v, (rl - 1.0) / v,
                               (rh - 1.0) / v, n};
    }
    gsl_rng_free(rng);
    return st ? st : TABLE_WRITE(e->o.out_dir, "random_projections_soft.csv", soft_cols, sr, RPT_SOFT_N);
}

int rptables_soft_verdicts(experiment *e)
{
    rpt_soft_row sr[RPT_SOFT_N];
    int st;
    if ((st = rptables_soft_law(e, sr))) return st;
    const rpt_soft_row *a = &sr[0], *z = &sr[RPT_SOFT_N - 1];
    exp_reported(e, "rpSoftExcess", 1.0, verdict_measure_ci(a->ratio, a->ratio_lo, a->ratio_hi, a->draws),
                 "measured excess T E[a_ii] - 1 over the soft-softmax law (1 - 1/T)(1 - 2/T) d_k c^4 / d = %.4g at "
                 "score sd %g (T = %d, d = 16, d_k = %d; antithetic pairs, a control variate): the law is the sd -> 0 limit", a->law,
                 a->sd, RPT_SOFT_T, RPT_SOFT_DK);
    exp_claim(e, "rpSoftLimit", 1.0, verdict_measure_ci(z->ratio, z->ratio_lo, z->ratio_hi, z->draws),
              verdict_rule_ci_within(0.98, 1.02), "the same ratio at score sd %g: -> 1 as sd -> 0 (a law off by 5%% would "
              "fail)", z->sd);
    const rpt_soft_row *p = &sr[RPT_SOFT_N - 2], *q = &sr[1];
    exp_reported(e, "rpSoftDeparture", NAN, verdict_measure_ci(p->departure, p->departure_lo, p->departure_hi, p->draws),
                 "fourth-order departure (ratio - 1) / sd^2 at score sd %g (%.3f [%.3f, %.3f] at %g, %.3f [%.3f, %.3f] "
                 "at %g): the ratio is 1 + this sd^2 + ...", p->sd, q->departure, q->departure_lo, q->departure_hi,
                 q->sd, z->departure, z->departure_lo, z->departure_hi, z->sd);
    exp_summary(e, "the excess over 1/T is second order in the scores: measured / law %.4f at score sd %g "
                "(the section: about 1/T)", z->ratio, z->sd);
    return ATT_OK;
}
