/* naivecontour.c - naive_self_attention's sweep read as the contour law (naivecontour.h). */
#include "naivecontour.h"
#include "att.h"
#include "rng.h"
#include "verdict.h"

#include <math.h>
#include <stdio.h>

const double naivecontour_levels[NAIVECONTOUR_NLEVEL] = {0.995, 0.999};

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
    col[NAIVECONTOUR_SLO] = 1.0 - col[NAIVECONTOUR_LHI], col[NAIVECONTOUR_SHI] = 1.0 - col[NAIVECONTOUR_LLO];
    // rse of the mean leak: the sample's, or the law's sqrt(4 2^(d/2) / (sqrt(pi d)(T - 1)) / (n T))
    // (from the T = 2 second moment ~ 2^(-d/2) / sqrt(pi d): the mean is carried by rare draws)
    col[NAIVECONTOUR_RSE] = fmax(col[NAIVECONTOUR_LSE] / leak,
                                 sqrt(4.0 * exp2(0.5 * d) / (sqrt(M_PI * d) * (T - 1.0)) / (n * T)));
    col[NAIVECONTOUR_SHOWN] = col[NAIVECONTOUR_RSE] <= NAIVECONTOUR_MAX_RSE;
    /* n T rows */
    stat_ci95_wilson(round(argmax->mean * n * T), n * T, &col[NAIVECONTOUR_ALO], &col[NAIVECONTOUR_AHI]);
}

void *naivecontour_work_new(const sweep_grid *g, const void *ctx)
{
    (void)ctx;
    selfweight_config max = {sweep_max(g, AX_T), sweep_max(g, AX_D), 0, 0.0, 0};
    return selfweight_scratch_new(&max);
}

int naivecontour_plain(experiment *e, const sweep_def *def, const sweep_result *r, size_t s_leak,
                       size_t headline_T, naivecontour *nc)
{
    nc->nT = nc->nd = nc->ht = nc->ncont = 0;
    /* the run's T and d lists (T-major, d fastest) */
    for (size_t p = 0; p < r->npoints; p++) {
        if (p == 0 || r->pt[p].T != r->pt[p - 1].T) nc->Tl[nc->nT++] = r->pt[p].T;
        if (r->pt[p].T == r->pt[0].T) nc->nd++;
    }
    for (size_t t = 0; t < nc->nT; t++) if (nc->Tl[t] == headline_T) nc->ht = t;
    /* the contours d*(T) of 0.995 and 0.999 (level-major): the leak's se = rse x leak per point */
    static double dd[SWEEP_MAX_POINTS], leak[SWEEP_MAX_POINTS], se[SWEEP_MAX_POINTS];
    static size_t dmin[SWEEP_MAX_POINTS];
    double col[NAIVECONTOUR_ND];
    for (size_t p = 0; p < r->npoints; p++) {
        def->derive(col, &r->pt[p], sweep_acc(r, p, 0), def->ctx);
        dd[p] = (double)r->pt[p].d, leak[p] = sweep_acc(r, p, s_leak)->mean;
        se[p] = col[NAIVECONTOUR_RSE] * leak[p];
        dmin[p] = r->pt[p].draws;
    }
    int st = ATT_OK, bracketed = 1;   /* the widths run put each level between two of them, at every T */
    if (nc->nd >= 2)
        st = selfweight_contours(dd, leak, se, dmin, nc->Tl, nc->nT, nc->nd, naivecontour_levels,
                                 NAIVECONTOUR_NLEVEL, &nc->cont[0][0], SWEEP_MAX_VALUES, &bracketed);
    nc->ncont = nc->nd >= 2 ? nc->nT : 0;
    if (!bracketed) {
        nc->ncont = 0;
        if (!e->o.quiet)
            fprintf(stderr, "naive_self_attention: the widths run do not put the mean self-weight's 0.995 and "
                    "0.999 levels between two of them at every T: no contour d*(T) (give widths on both "
                    "sides, e.g. --d 16..40)\n");
    }
    static const char *const names[NAIVECONTOUR_NLEVEL] = {"naive_self_attention_contour.csv",
                                                           "naive_self_attention_contour_999.csv"};
    if (nc->ncont && !st)
        st = selfweight_contours_write(e->o.out_dir, names, &nc->cont[0][0], SWEEP_MAX_VALUES, NAIVECONTOUR_NLEVEL,
                                       nc->ncont);
    return st;
}

void naivecontour_points(experiment *e, const sweep_def *def, const sweep_result *r, size_t s_self,
                         const naivecontour *nc)
{
    double col[NAIVECONTOUR_ND];
    for (size_t p = 0; p < r->npoints && (nc->nd == 1 || r->npoints <= 4); p++) {
        def->derive(col, &r->pt[p], sweep_acc(r, p, 0), def->ctx);
        double self = sweep_acc(r, p, s_self)->mean, lo = col[NAIVECONTOUR_SLO], hi = col[NAIVECONTOUR_SHI];
        if (nc->nd == 1)
            exp_reported(e, "", NAN, verdict_measure_ci(self, lo, hi, r->pt[p].draws), "mean self-weight at d = %zu, "
                         "T = %zu", r->pt[p].d, r->pt[p].T);
        if (r->npoints <= 4)
            exp_summary(e, "at d = %zu, T = %zu: mean self-weight %.6g, 95%% CI [%.6g, %.6g] (%zu draws)",
                        r->pt[p].d, r->pt[p].T, self, lo, hi, r->pt[p].draws);
    }
}

void naivecontour_law(experiment *e, const naivecontour *nc)
{
    const selfweight_contour_row (*cont)[SWEEP_MAX_VALUES] = nc->cont;
    size_t ncont = nc->ncont;
    for (size_t t = 0; t < ncont; t++)
        exp_meta(e, "contour 0.995 at T = %zu: d* = %.2f [%.2f, %.2f]; 0.999: %.2f [%.2f, %.2f]",
                 cont[0][t].T, cont[0][t].d_star, cont[0][t].d_star_lo, cont[0][t].d_star_hi,
                 cont[1][t].d_star, cont[1][t].d_star_lo, cont[1][t].d_star_hi);
    if (ncont && nc->Tl[0] == 2) {   /* T = 2: the estimator against the exact crossing */
        const selfweight_contour_row *t2 = &cont[0][0];
        exp_control(e, "naiveExactTwo", t2->d_star_t2_law, verdict_measure_ci(t2->d_star, t2->d_star_lo, t2->d_star_hi,
                    t2->draws_min), verdict_rule_ci_within(t2->d_star_t2_law - 0.5, t2->d_star_t2_law + 0.5),
                    "d* of 0.995 at T = 2 against the exact 2 log2(1/(2 (1 - 0.995))) = %.3f "
                    "(E[1 - a_ii] = 2^(-d/2 - 1))", t2->d_star_t2_law);
    }
    /* d*(T) = a + b log2(T - 1), weighted least squares: the law says b = 2 */
    for (size_t l = 0; l < NAIVECONTOUR_NLEVEL && ncont >= 3; l++) {
        double x[SWEEP_MAX_VALUES], y[SWEEP_MAX_VALUES], sy[SWEEP_MAX_VALUES], s_se;
        for (size_t t = 0; t < ncont; t++)
            x[t] = log2((double)cont[l][t].T - 1.0), y[t] = cont[l][t].d_star, sy[t] = cont[l][t].d_star_se;
        double s = selfweight_weighted_slope(x, y, sy, ncont, &s_se);
        if (l == 0) exp_meta(e, "slope: %.3f\nslope_ci: %.3f", s, STAT_Z95 * s_se);
        exp_reported(e, l ? "naiveContourSlopeHigh" : "naiveContourSlope", 2.0,
                     verdict_measure_ci(s, s - STAT_Z95 * s_se, s + STAT_Z95 * s_se, cont[l][ncont - 1].draws_min),
                     "rise of the %.3f contour d*(T) per doubling of T - 1, weighted fit over %zu T "
                     "(plain Monte Carlo; the large-d law's 2 holds at fixed T, naiveLawLargeD, not along the "
                     "contour, naiveContourDrift)", naivecontour_levels[l], ncont);
    }
}

enum { LARGE_D = 64, LARGE_D_PAIRS = 20000 };

void naivecontour_large_d(experiment *e, gsl_rng *rng, const size_t *Tl, size_t nT, size_t headline_T,
                          const naiveleak_contour_row *ex)
{
    if (nT >= 2)
        exp_reported(e, "naiveContourDrift", NAN, verdict_measure_exact(ex[nT - 1].slope_local, nT),
                     "local rise of the 0.995 contour per doubling of T - 1 between T = %zu and %zu (first "
                     "pair: %.3f; the large-d law says 2: along the contour d stays small, the other tokens' "
                     "weight bends it)", ex[nT - 2].T, ex[nT - 1].T, ex[1].slope_local);
    /* where the law holds: fixed T, large d, c(T, d) = 1/2 to (T - 2)(2/3)^(d/2) */
    size_t Tmax = Tl[nT - 1];
    if (Tmax <= 2) return;
    stat_acc a;
    stat_init(&a);
    gsl_rng_set(rng, rng_stream_seed(e->o.seed, 0xC0DE, 0x64));
    for (size_t i = 0; i < LARGE_D_PAIRS; i++) stat_push(&a, 2.0 * naiveleak_c_draw(rng, Tmax, LARGE_D));
    exp_claim(e, "naiveLawLargeD", 1.0, verdict_measure_stat(&a), verdict_rule_ci_within(0.99, 1.01),
              "2 c(T, d) at T = %zu, d = %d: E[1 - a_ii] = (T - 1) 2^(-d/2 - 1) to 1%%, so at fixed large d the "
              "leak doubles with T - 1 (d* + 2 per doubling)", Tmax, LARGE_D);
    // E[1 - a_ii] = (T - 1) 2^(-d/2) c(T, d)
    double leak = (Tmax - 1.0) * exp2(-0.5 * LARGE_D) * a.mean / 2.0;
    stat_acc b;
    stat_init(&b);
    for (size_t i = 0; i < LARGE_D_PAIRS; i++) stat_push(&b, naiveleak_c_draw(rng, headline_T, LARGE_D));
    double f = (headline_T - 1.0) * exp2(-0.5 * LARGE_D), lo, hi;
    stat_ci95(&b, &lo, &hi);
    exp_reported(e, "naiveLeakSixtyFour", NAN, verdict_measure_ci(f * b.mean, f * lo, f * hi, b.n),
                 "mean leak 1 - a_ii at d = %d, T = %zu (the section's 99.5%% is 1 - 0.005; at a realistic "
                 "width the raw self-weight is 1 - %.2g; at T = %zu: 1 - %.2g)", LARGE_D, headline_T, f * b.mean,
                 Tmax, leak);
}
