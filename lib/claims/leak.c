/* leak.c - E[1 - a_ii] of the naive head by re-weighting (see leak.h). */
#include "leak.h"
#include "rng.h"
#include "selfweight.h"
#include "curve.h"
#include "randn.h"
#include "vexp.h"
#include "status.h"
#include "table.h"

#include <math.h>
#include <stdlib.h>
#include <gsl/gsl_randist.h>

double leak_c_draw(gsl_rng *rng, size_t T, double d)
{
    double r = gsl_ran_gamma(rng, 0.5 * d, 1.0), sr = sqrt(r);
    double v = sr * gsl_ran_gaussian_ziggurat(rng, 1.0), U = 0.0, z[256];
    /* U = sum over the T - 2 others of exp(-r + sr z_k), z_k ~ N(0, 1) in chunks (randn.h);
     * per chunk, with x_k = sr z_k and M = max(r, max_k x_k) (so every x_k - M <= 0, as
     * vexp.h needs): sum_k e^{x_k - r} = e^{M - r} sum_k e^{x_k - M} */
    for (size_t k = 0; k + 2 < T; k += 256) {
        size_t n = T - 2 - k < 256 ? T - 2 - k : 256;
        randn_fill(rng, z, n, 1.0);
        double M = r;
        for (size_t q = 0; q < n; q++) {
            z[q] *= sr;
            M = z[q] > M ? z[q] : M;
        }
        U += exp(M - r) * vexp_shifted(z, z, n, M);
    }
    /* the integrand 1/(1 + e^v + U) at v and -v */
    return 0.5 * (1.0 / (1.0 + exp(v) + U) + 1.0 / (1.0 + exp(-v) + U));
}

double leak_log_leak(size_t T, double d, double c)
{
    return log((double)T - 1.0) - 0.5 * d * M_LN2 + log(c);
}

static void c_at(gsl_rng *rng, size_t T, double d, size_t n, stat_acc *a)
{
    stat_init(a);
    for (size_t i = 0; i < n; i++) stat_push(a, leak_c_draw(rng, T, d));
}

int leak_dstar(gsl_rng *rng, size_t T, double level, size_t n, leak_width *w)
{
    if (T < 2 || !(level > 0.0 && level < 1.0) || n < 100)
        return att_fail(ATT_EUSAGE, "leak: T = %zu, level %g, n = %zu", T, level, n);
    double target = log(1.0 - level);
    /* the bracket: c <= 1/2, so the leak is at most (T - 1) 2^{-d/2 - 1} and d* is at most
     * the width d_law where that reaches 1 - level; step integer d down from just above
     * d_law (a pilot of n/8 pairs each) until ln leak(d) >= ln(1 - level) */
    stat_acc lo, hi;
    int d = (int)floor(2.0 * (log((double)T - 1.0) - M_LN2 - target) / M_LN2) + 1;   /* c = 1/2 */
    if (d < 1) d = 1;
    c_at(rng, T, d, n / 8 + 100, &hi);
    while (d > 1 && leak_log_leak(T, d, hi.mean) < target) {
        d--;
        c_at(rng, T, d, n / 8 + 100, &hi);
    }
    /* the precise estimates at d and d + 1 (fresh, independent draws) */
    c_at(rng, T, d, n, &lo);
    c_at(rng, T, d + 1, n, &hi);
    double y0 = leak_log_leak(T, d, lo.mean), y1 = leak_log_leak(T, d + 1, hi.mean);
    /* linear in d between the two, Var y = Var c / c^2 / n, y0 and y1 independent */
    curve_crossing x = curve_crossing_between(d, d + 1.0, y0, y1,
                                              stat_var(&lo) / (lo.mean * lo.mean * (double)lo.n),
                                              stat_var(&hi) / (hi.mean * hi.mean * (double)hi.n),
                                              0.0, target);
    *w = (leak_width){.d_star = x.l, .se = x.se, .lo = x.lo, .hi = x.hi, .d_below = d,
                      .c_below = lo.mean, .c_above = hi.mean, .n = n};
    return ATT_OK;
}

#define C(f) COL(leak_contour_row, f)
#define M(f) COL_MC(leak_contour_row, f, "d_star_lo", "d_star_hi")
static const table_col contour_cols[] = {C(T),         C(draws),     M(d_star),     M(d_star_lo),
                                         M(d_star_hi), M(d_star_se), C(d_below),    M(c_below),
                                         M(c_above),   C(d_law),     M(slope_local)};
#undef M
#undef C

/* the contour's stream of --seed: block T for length T */
enum { STREAM_CONTOUR = 0xC0DE };

int leak_contour(gsl_rng *rng, const char *dir, const char *name, unsigned long seed,
                 const size_t *Tl, size_t nT, double level, size_t pairs, leak_contour_row *ex)
{
    int st = ATT_OK;
    for (size_t t = 0; t < nT && !st; t++) {
        leak_width w;
        size_t T = Tl[t];
        gsl_rng_set(rng, rng_stream_seed(seed, STREAM_CONTOUR, T));   /* each T its own block */
        if ((st = leak_dstar(rng, T, level, pairs, &w))) break;
        ex[t] = (leak_contour_row){T,
                                   w.n,
                                   w.d_star,
                                   w.lo,
                                   w.hi,
                                   w.se,
                                   w.c_below,
                                   w.c_above,
                                   2.0 * log2(((double)T - 1.0) / (2.0 * (1.0 - level))),
                                   NAN,
                                   (size_t)w.d_below};
        // the contour's local rise per doubling of T - 1
        if (t)
            ex[t].slope_local =
                (ex[t].d_star - ex[t - 1].d_star) / log2((T - 1.0) / (ex[t - 1].T - 1.0));
    }
    return st ? st : TABLE_WRITE(dir, name, contour_cols, ex, nT);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int leak_median(gsl_rng *rng, size_t T, size_t d, size_t rows, double *median, double *lo,
                double *hi)
{
    double *lk = malloc(rows * sizeof *lk), *x = malloc(T * d * sizeof *x),
           *sc = malloc(T * sizeof *sc);
    int st = lk && x && sc ? ATT_OK : att_fail(ATT_ERUNTIME, "naive median leak: out of memory");
    for (size_t i = 0; i < rows && !st; i++) {
        randn_fill(rng, x, T * d, 1.0);   /* x_j (d) ~ N(0, I), j = 0 .. T-1, row after row */
        for (size_t j = 0; j < T; j++) {
            sc[j] = 0.0;   // s_j = x_0 . x_j
            for (size_t m = 0; m < d; m++) sc[j] += x[m] * x[j * d + m];
        }
        selfweight_row_t r;
        if ((st = selfweight_row(&r, sc, T, 0))) break;
        lk[i] = r.leak;
    }
    if (!st) {
        qsort(lk, rows, sizeof lk[0], cmp_double);
        double z = STAT_Z95 * sqrt((double)rows) / 2.0, m = rows / 2.0;
        *median = lk[rows / 2], *lo = lk[(size_t)(m - z)], *hi = lk[(size_t)(m + z)];
    }
    free(lk), free(x), free(sc);
    return st;
}

double leak_t2_quadrature_gap(int d_max)
{
    double q = 0.0;
    for (int d = 1; d <= d_max; d++)
        q = fmax(q, fabs(selfweight_leak_t2_numeric(d) / selfweight_leak_t2(d) - 1.0));
    return q;
}

/* ---- the derived columns of the sweep ---- */

#define NL_COL(k, name) SWEEP_DERIVED(k, name, NAT_COMPUTED, NULL, NULL, NULL)
const table_col leak_cols[LEAK_ND] = {
    NL_COL(LEAK_SLO, "self_ci_lo"), NL_COL(LEAK_SHI, "self_ci_hi"),
    NL_COL(LEAK_LLO, "leak_ci_lo"), NL_COL(LEAK_LHI, "leak_ci_hi"),
    NL_COL(LEAK_LSE, "leak_se"), NL_COL(LEAK_RSE, "leak_rse"),
    NL_COL(LEAK_SHOWN, "shown"), NL_COL(LEAK_LAW, "leak_law"),
    NL_COL(LEAK_T2, "leak_exact_t2"),
    NL_COL(LEAK_ALO, "argmax_ci_lo"), NL_COL(LEAK_AHI, "argmax_ci_hi")};

void leak_derive(double *col, const sweep_point *pt, const stat_acc *leak_acc,
                 const stat_acc *ratio, const stat_acc *argmax)
{
    double T = (double)pt->T, d = (double)pt->d, n = (double)leak_acc->n, leak = leak_acc->mean;
    col[LEAK_LAW] = selfweight_leak_law(pt->T, d);
    col[LEAK_T2] = pt->T == 2 ? selfweight_leak_t2(d) : NAN;
    // se(leak) = law * se(leak / law): the ratio is O(1), its variance never underflows
    col[LEAK_LSE] = col[LEAK_LAW] * stat_se(ratio);
    col[LEAK_LLO] = leak - STAT_Z95 * col[LEAK_LSE];
    col[LEAK_LHI] = leak + STAT_Z95 * col[LEAK_LSE];
    col[LEAK_SLO] = 1.0 - col[LEAK_LHI];
    col[LEAK_SHI] = 1.0 - col[LEAK_LLO];
    // rse of the mean leak: the sample's, or the law's sqrt(4 2^(d/2) / (sqrt(pi d)(T - 1)) / (n
    // T)) (from the T = 2 second moment ~ 2^(-d/2) / sqrt(pi d): the mean is carried by rare draws)
    col[LEAK_RSE] = fmax(col[LEAK_LSE] / leak,
                         sqrt(4.0 * exp2(0.5 * d) / (sqrt(M_PI * d) * (T - 1.0)) / (n * T)));
    col[LEAK_SHOWN] = col[LEAK_RSE] <= LEAK_MAX_RSE;
    /* n T rows */
    stat_ci95_wilson(round(argmax->mean * n * T), n * T, &col[LEAK_ALO], &col[LEAK_AHI]);
}
