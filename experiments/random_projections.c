/* random_projections - "The naive version, where each token is its own query, key, and value"
 *
 * Claim: with two different random projections a token keeps only about 1/T of its weight
 * for itself: Q = X W_Q, K = X W_K, W_Q, W_K independent: T E[a_ii] in [0.95, 1.05] at every T.
 * About, not exactly: s_ii uses one token twice, E[s_ii^2] = (1 + 2/d) E[s_ij^2] (the excess's
 * soft-softmax law: lib/claims/selfweight.h's excess section, measured in the soft-law table
 * below). That law is second order in the score sd = c^2 sqrt(d_k), so it holds only for small
 * scores (the table: sd 0.0625 .. 0.5): at the main sweep's sd 4 (c = 1, d_k = 16) it would give
 * T E[a_ii] - 1 = d_k c^4 / d = 0.25 at large T, where the sweep's largest excess is about 0.016.
 * X (T, d) ~ N(0, 1), W (d, d_k) ~ N(0, c^2/d), S = Q K^T; per draw T a_ii, T [argmax is self],
 * s_ii^2 and s_ij^2 over d_k c^4, the control T a'_ii (own key replaced by a fresh token's:
 * exactly 1/T). T a_ii is averaged with its antithetic draw -W_K (every score flipped, same law:
 * selfweight_self_flipped), which cuts the draws the precision target needs about 2.8-fold at
 * T = 256 (T = 2 plain: the pair is exactly 1 there); T_excess stays the plain T (a_ii - a'_ii).
 * Three sweeps, each its CSV with the column score_sd = c^2 sqrt(d_k) after the statistics:
 *   main   d = 64, d_k = 16, c = --scale, T = 2 .. 256 (random_projections.csv; draws per T
 *          for the CI the precision control needs, exactly --draws when given; --T --d --dk
 *          --scale --control run it alone)
 *   width  T = 16, d_k = 4, d = 4 .. 256, c = 1, with the control (_width.csv)
 *   scale  T = 16, d_k = 4, d = 16, 64, c^2 = 1/4 .. 8, with the control (_scale.csv)
 * The side sweeps (width, scale) and the soft-law table draw (Q, K, K') through W's Gram
 * factor (selfweight_draw_gram, selfweight.h): their exact law, without X's d columns.
 * Two tables: the heatmap of one draw (_A.csv) and the soft-softmax law (_soft.csv; its draws per
 * row chosen by a pilot and topped up to the CI target, or max(--draws, 2000) when --draws is
 * given).
 */
#include "prelude.h"
#include "mc.h"
#include "selfweight.h"

/* the control's two statistics last: a sweep without the control has NSTAT - 2 columns */
#define STATS(X) X(S_TSELF, "T_self") X(S_TARGMAX, "T_argmax") X(S_DIAG, "diag_sq_norm") \
    X(S_OFF, "off_sq_norm") X(S_TCONTROL, "T_control") X(S_TEXCESS, "T_excess")
SWEEP_STATS(STATS);

static const double PRECISION = 0.01;   /* asked of T E[a_ii] at every main-sweep T */

/* the sweeps: main, width, scale; the side sweeps' T and d_k; the CI targets' pilot */
enum { NSWEEP = 3, SIDE_T = 16, SIDE_DK = 4, PILOT = 1024 };

/* a sweep's own settings: the fresh-token control on or off, the draws per point (or, when n
 * is not NULL, n[p] at point p: the pilot's choice), the last T, the draw through W's Gram
 * factor (the side sweeps) or of X and W themselves (the main sweep: its draw 0 is the
 * heatmap's, raw and projected panels of one X) */
typedef struct { int control; size_t draws, last_T; const size_t *n; int gram; } sweep_ctx;

/* one draw at (T, d, d_k, scale c): S = (X W_Q)(X W_K)^T (and the control's K' = X' W_K) and
 * a_ii, by selfweight_draw (lib/claims/selfweight.c: X, W_Q, W_K, X' drawn) in the main sweep,
 * by selfweight_draw_gram (selfweight.h) in the side sweeps: the same law of S and K' through
 * W's Gram factor, Z R for X W (T min(d, 2 d_k) Gaussians for X's T d: at T = 16, d_k = 4, a
 * draw with the control takes 228 of them, for 10,240 at d = 256 and 768 at d = 16) */
static int draw(gsl_rng *rng, double *out, const sweep_point *pt, void *work, const void *ctx)
{
    double T = (double)pt->T;
    double scale = pt->x;                                  /* the sweep's own axis: c */
    double score_var = (double)pt->dk * pow(scale, 4);   /* d_k c^4 */
    /* W entries N(0, c^2 / d): sigma_w = c / sqrt(d) */
    const sweep_ctx *c = ctx;
    selfweight_config config = {pt->T, pt->d, pt->dk, scale / sqrt((double)pt->d), c->control};
    double sw[SW_NSTAT];
    int st = c->gram ? selfweight_draw_gram(rng, &config, work, sw)
                     : selfweight_draw(rng, &config, work, sw);
    /* the antithetic pair: -W_K flips every score, same law; T (a_ii(S) + a_ii(-S)) / 2.
     * Not at T = 2, where the pair is exactly 1 (a_11(S) + a_11(-S) = 1): the plain draw
     * keeps that point a Monte Carlo check */
    double flip = NAN;
    if (!st && pt->T != 2) st = selfweight_self_flipped(((const selfweight_work *)work)->S, &flip);
    if (st) return st;
    out[S_TSELF] = T * (pt->T == 2 ? sw[SW_SELF] : 0.5 * (sw[SW_SELF] + flip));   // T mean a_ii
    out[S_TARGMAX] = T * sw[SW_ARGMAX];        // T (1/T) #{i: s_ii > s_ij for all j != i}
    out[S_DIAG] = sw[SW_DIAG_SQ] / score_var;  // (1/T) sum_i s_ii^2 / (d_k c^4)
    out[S_OFF] = sw[SW_OFF_SQ] / score_var;    // mean_{i != j} s_ij^2 / (d_k c^4)
    if (!config.control) return st;
    out[S_TCONTROL] = T * sw[SW_CONTROL];      // T (1/T) sum_i a'_ii (own key k_i -> k'_i)
    out[S_TEXCESS] = sw[SW_EXCESS];            // T (self_weight - control)
    return st;
}

/* ---- the three sweeps ---- */

/* g[k] for the three sweeps (main's c = --scale; its T, d, d_k the --T, --d, --dk lists when
 * given: the run's grid, whose points the pilot runs); ctx[0] the main sweep's settings
 * (control as asked, --draws, the last T run), ctx[1] the side sweeps' (control on,
 * --draws / 2, at least 1) */
static void sweeps_init(sweep_grid g[NSWEEP], sweep_ctx ctx[2], const opts *o,
                        const double *scale, int control)
{
    static const size_t MAIN_T[] = {2, 3, 4, 8, 16, 32, 64, 128, 256}, MAIN_D[] = {64},
                        MAIN_DK[] = {16}, WIDTH_D[] = {4, 8, 16, 32, 64, 128, 256},
                        SIDE_D[] = {16, 64}, ONE_T[] = {SIDE_T}, ONE_DK[] = {SIDE_DK};
    const double SCALES[] = {sqrt(0.25), sqrt(0.5), 1.0, sqrt(2.0), 2.0, sqrt(8.0)},
                 ONE[] = {1.0};
    size_t last_T = o->T_list.n ? o->T_list.v[o->T_list.n - 1] : MAIN_T[8];
    ctx[0] = (sweep_ctx){control, o->draws, last_T, NULL, 0};
    ctx[1] = (sweep_ctx){1, o->draws / 2 ? o->draws / 2 : 1, 0, NULL, 1};
    for (int k = 0; k < NSWEEP; k++) sweep_grid_init(&g[k]);
    const opts_list *l[3] = {&o->T_list, &o->d_list, &o->dk_list};
    sweep_axis(&g[0], AX_T, l[0]->n ? l[0]->n : 9, l[0]->n ? l[0]->v : MAIN_T);
    sweep_axis(&g[0], AX_D, l[1]->n ? l[1]->n : 1, l[1]->n ? l[1]->v : MAIN_D);
    sweep_axis(&g[0], AX_DK, l[2]->n ? l[2]->n : 1, l[2]->n ? l[2]->v : MAIN_DK);
    sweep_axis_x(&g[0], "scale", 1, scale);
    sweep_axis(&g[1], AX_T, 1, ONE_T);
    sweep_axis(&g[1], AX_D, 7, WIDTH_D);
    sweep_axis(&g[1], AX_DK, 1, ONE_DK);
    sweep_axis_x(&g[1], "scale", 1, ONE);
    sweep_axis(&g[2], AX_T, 1, ONE_T);
    sweep_axis(&g[2], AX_D, 2, SIDE_D);
    sweep_axis(&g[2], AX_DK, 1, ONE_DK);
    sweep_axis_x(&g[2], "scale", 6, SCALES);
}

/* scratch for the grid's largest point (the Gram factor's rows min(d, 2 d_k) grow with d, d_k) */
static void *work_alloc(const sweep_grid *g, const void *ctx)
{
    const sweep_ctx *c = ctx;
    size_t d = sweep_max(g, AX_D), dk = sweep_max(g, AX_DK);
    selfweight_config max = {sweep_max(g, AX_T), c->gram ? selfweight_gram_rows(d, dk) : d, dk,
                             0.0, c->control};
    return selfweight_scratch_new(&max);
}

/* the draws at point pt: the pilot's choice, or the sweep's count */
static size_t draws_of(const sweep_point *pt, const void *ctx)
{
    const sweep_ctx *c = ctx;
    return c->n ? c->n[pt->index] : c->draws;
}

static const table_col sd_col[] = {SWEEP_DERIVED(0, "score_sd", NAT_COMPUTED, NULL, NULL, NULL)};
/* score sd c^2 sqrt(d_k) */
static void derive(double *col, const sweep_point *pt, const stat_acc *a, const void *ctx)
{
    (void)a;
    (void)ctx;
    double scale = pt->x;   /* the sweep's own axis: c */
    col[0] = scale * scale * sqrt((double)pt->dk);
}

/* sweep k's definition: work buffers, draws per point, settings ctx[k ? 1 : 0], CSV, score sd */
static sweep_def sweep_def_of(size_t k, const sweep_ctx ctx[2])
{
    static const char *const csv[NSWEEP] = {"random_projections.csv",
                                            "random_projections_width.csv",
                                            "random_projections_scale.csv"};
    sweep_def def = SWEEP_DEF(draw);
    def.work_alloc = work_alloc;
    def.work_free = selfweight_scratch_delete;
    def.draws_of = draws_of;
    def.ctx = &ctx[k ? 1 : 0];
    def.csv = csv[k];
    def.nderived = 1;
    def.derived = sd_col;
    def.derive = derive;
    def.nstats = ctx[k ? 1 : 0].control ? NSTAT : NSTAT - 2;
    return def;
}

/* ---- the main sweep's draws per T: a pilot, then what the CI targets need ---- */

/* the pilot's streams: each point's own, salted (never a point's own stream), so the final
 * draws are independent of the pilot and their CI is that of a fixed count */
static const uint64_t PILOT_SALT = 0x9110751ea5ULL;

/* *n (allocated; free it): n[p] for point p of the main grid g (sweep_run's order), without
 * --draws: a pilot of PILOT
 * draws gives the 95% CI half-width h_k of each target: T E[a_ii] to 0.9 x its precision
 * bound at every T, E[s_ii^2] / (d_k c^4) to 0.004 (its window 0.0103) at the last T only
 * (its control's point); then
 *   n_p = max_k PILOT (h_k / target_k)^2, in whole blocks, within [PILOT, 4 --draws]
 * (stat_draws_for). Blocks and their merge order depend on the seed alone, so n_p is the same
 * for any thread count and MPI ranks; the pilot's draws are not in the estimate. */
static int pilot_draws(experiment *e, const sweep_grid *g, const sweep_def *def, size_t **n)
{
    const sweep_ctx *c = def->ctx;
    size_t np = sweep_npoints(g);
    if (np > SWEEP_MAX_POINTS) return ATT_OK;   /* sweep_run refuses the grid, saying so */
    sweep_point *pts = calloc(np, sizeof *pts);
    size_t *draws = *n = calloc(np, sizeof *draws);
    int st = pts && draws ? ATT_OK : att_fail(ATT_ERUNTIME, "out of memory for the pilot");
    for (size_t p = 0; p < np && !st; p++) {
        pts[p] = sweep_grid_point(g, p);
        pts[p].stream ^= PILOT_SALT;
    }
    sweep_def pd = *def;
    pd.draws_of = NULL;
    pd.draws = PILOT;
    pd.csv = "";   /* no table */
    sweep_result r = {0};
    if (!st) st = sweep_run_points(e, g, pts, np, &pd, &r);
    /* h_k = half the pilot's 95% CI; n_p = max_k PILOT (h_k / target_k)^2 */
    for (size_t p = 0; p < np && !st; p++) {
        measure self = sweep_measure(&r, p, S_TSELF), diag = sweep_measure(&r, p, S_DIAG);
        draws[p] = stat_draws_for(PILOT, 0.5 * (self.ci_high - self.ci_low), 0.9 * PRECISION,
                                  MC_BLOCK, 4 * c->draws);
        size_t nd = stat_draws_for(PILOT, 0.5 * (diag.ci_high - diag.ci_low), 0.004, MC_BLOCK,
                                   4 * c->draws);
        if (pts[p].T == c->last_T && nd > draws[p]) draws[p] = nd;
    }
    sweep_result_free(&r);
    free(pts);
    return st;
}

/* ---- the heatmap: A (T, T) raw and projected for the same X ---- */

/* random_projections_A.csv (panel,i,j,a,query,key): the sweep point (T, d, d_k, c = 1)'s
 * draw 0; T <= HEAT_MAX, tokens named by the section's opening sentence in GPT-2's 12
 * tokens, then t13, t14, ... */
enum { HEAT_MAX = 32 };
static const char *const TOKENS[] = {"The", "animal", "didn", "'t", "cross", "the", "street",
                                     "because", "it", "was", "too", "tired"};
typedef struct { const char *panel; size_t i, j; double a; const char *query, *key; } heat_row;
static const table_col heat_cols[] = {COL(heat_row, panel), COL(heat_row, i), COL(heat_row, j),
                                      COL(heat_row, a), COL(heat_row, query), COL(heat_row, key)};

static int heatmap(const experiment *e, size_t T, size_t d, size_t dk)
{
    static heat_row rows[2 * HEAT_MAX * HEAT_MAX];
    static char names[HEAT_MAX][24];
    for (size_t i = 0; i < T; i++)
        if (i < 12) snprintf(names[i], sizeof names[i], "%s", TOKENS[i]);
        else snprintf(names[i], sizeof names[i], "t%zu", i + 1);
    sweep_point pt = {.T = T, .d = d, .dk = dk, .x = 1.0};   /* x: the scale c = 1 */
    gsl_rng *rng = sweep_rng(e, &pt);
    gsl_matrix *A[2] = {mat_new(T, T), mat_new(T, T)};
    int st = ATT_OK;
    if (rng && A[0] && A[1]) st = selfweight_heatmaps(rng, d, dk, A[0], A[1]);
    else st = att_last_code() == ATT_EUSAGE ? ATT_EUSAGE : ATT_ERUNTIME;
    for (size_t n = 0; n < 2 * T * T && !st; n++) {
        size_t i = n % (T * T) / T;
        size_t j = n % T;
        rows[n] = (heat_row){n < T * T ? "raw" : "projected", i + 1, j + 1,
                             gsl_matrix_get(A[n / (T * T)], i, j), names[i], names[j]};
    }
    if (!st) st = TABLE_WRITE(e->o.out_dir, "random_projections_A.csv", heat_cols, rows, 2 * T * T);
    mat_free(A[0]);
    mat_free(A[1]);
    if (rng) gsl_rng_free(rng);
    return st;
}

/* ---- the soft-softmax law of the excess (lib/claims/selfweight.h) ---- */

/* T = 16, d = 16, d_k = 4, score sd = c^2 sqrt(d_k) = 0.5, 0.25, 0.125, 0.0625: the excess
 * T E[a_ii] - 1 by antithetic pairs with the second-order term as control variate
 * (excess_estimate), its ratio to the law and the departure (ratio - 1) / sd^2, each with
 * its 95% CI: random_projections_soft.csv */
enum { SOFT_N = 4, SOFT_T = 16, SOFT_D = 16, SOFT_DK = 4, SOFT_PILOT = 2000, SOFT_MAX = 200000 };
static const double SOFT_SD[SOFT_N] = {0.5, 0.25, 0.125, 0.0625};
static const double SOFT_HW = 0.005;      /* the ratio to +-0.5% (95%) ...                   */
static const double SOFT_DEP_HW = 0.1;    /* ... and the departure (ratio - 1) / sd^2 to +-0.1 */
typedef struct {
    double sd, c, law, ratio, ratio_lo, ratio_hi, excess, excess_lo, excess_hi;
    double departure, departure_lo, departure_hi;
    size_t draws;
} soft_row;
#define MC(f, lo, hi) COL_MC(soft_row, f, lo, hi)
static const table_col soft_cols[] = {
    COL(soft_row, sd), COL(soft_row, c), COL(soft_row, draws), COL(soft_row, law),
    MC(excess, "excess_lo", "excess_hi"), MC(excess_lo, "excess_lo", "excess_hi"),
    MC(excess_hi, "excess_lo", "excess_hi"), MC(ratio, "ratio_lo", "ratio_hi"),
    MC(ratio_lo, "ratio_lo", "ratio_hi"), MC(ratio_hi, "ratio_lo", "ratio_hi"),
    MC(departure, "departure_lo", "departure_hi"), MC(departure_lo, "departure_lo", "departure_hi"),
    MC(departure_hi, "departure_lo", "departure_hi")};
#undef MC

/* the 95% half-width asked of the ratio at score sd: 0.005 (the ratio to +-0.5%), and 0.1 sd^2
 * (the departure (ratio - 1) / sd^2 to +-0.1), whichever is smaller */
static double soft_target(double sd) { return fmin(SOFT_HW, SOFT_DEP_HW * sd * sd); }

/* per score sd: Y_anti = T (a_ii - a'_ii) averaged with its antithetic -W_K, on the control
 * Q2 - law (excess_estimate_to); ratio = Y / law, departure = (ratio - 1) / sd^2, both CIs
 * the excess's CI mapped through these increasing maps. Draws: a pilot of SOFT_PILOT on
 * stream (STREAM_SOFT, 16 + k) gives the ratio's half-width h0, then
 *   n = SOFT_PILOT (h0 / target)^2 x 1.1, within [SOFT_PILOT, SOFT_MAX], on stream
 *   (STREAM_SOFT, k), topped up on that stream while the half-width exceeds the target
 *   (the pilot's h0 is rough: Y_anti is heavy-tailed; a 2000-draw pilot's n at score sd 0.5
 *   ranged over 0.55 .. 1.35 of what 40,000 draws say, 20 seeds);
 * with --draws N: n = max(N, SOFT_PILOT), no pilot (a CI from fewer draws would rest on too
 * rough a standard error) and no top-up, so that a quick run is quick and a long one as long
 * as asked. */
enum { STREAM_SOFT = 0x50F7 };   /* the soft-law table's stream, outside the sweep */
static int soft_law(const experiment *e, soft_row sr[SOFT_N])
{
    gsl_rng *rng = rng_new(e->o.rng_name, 0);
    if (!rng) return ATT_EUSAGE;
    int st = ATT_OK;
    for (size_t k = 0; k < SOFT_N && !st; k++) {
        double yh, se;
        double scale = sqrt(SOFT_SD[k] / sqrt((double)SOFT_DK));   /* sd = c^2 sqrt(d_k) */
        double sd_sq = SOFT_SD[k] * SOFT_SD[k];
        double law = excess_law(SOFT_T, SOFT_D, SOFT_DK, scale);
        size_t n = e->o.draws > SOFT_PILOT ? e->o.draws : SOFT_PILOT;
        if (!e->o.draws_given) {
            experiment_rng_set(e, rng, STREAM_SOFT, 16 + k);   /* the pilot */
            st = excess_estimate(rng, SOFT_T, SOFT_D, SOFT_DK, scale, SOFT_PILOT, 0.0, &yh, &se);
            if (st) break;
            double h0 = STAT_Z95 * se / law;   /* the pilot's ratio half-width */
            double want = SOFT_PILOT * pow(h0 / soft_target(SOFT_SD[k]), 2) * 1.1;
            n = SOFT_PILOT;
            if (isfinite(want) && want > SOFT_PILOT)
                n = want < SOFT_MAX ? (size_t)ceil(want) : SOFT_MAX;
        }
        experiment_rng_set(e, rng, STREAM_SOFT, k);
        /* the ratio's half-width Z95 se / law <= target: se <= target law / Z95 */
        double se_target = e->o.draws_given ? 0.0 : soft_target(SOFT_SD[k]) * law / STAT_Z95;
        st = excess_estimate_to(rng, SOFT_T, SOFT_D, SOFT_DK, scale, n, SOFT_MAX, se_target, 0.0,
                                &yh, &se, &n);
        if (st) break;
        double half = STAT_Z95 * se;   /* the excess's 95% half-width */
        double ratio = yh / law;
        double ratio_lo = (yh - half) / law;
        double ratio_hi = (yh + half) / law;
        /* departure = (ratio - 1) / sd^2 */
        sr[k] = (soft_row){SOFT_SD[k], scale, law, ratio, ratio_lo, ratio_hi, yh, yh - half,
                           yh + half, (ratio - 1.0) / sd_sq, (ratio_lo - 1.0) / sd_sq,
                           (ratio_hi - 1.0) / sd_sq, n};
    }
    gsl_rng_free(rng);
    if (st) return st;
    return TABLE_WRITE(e->o.out_dir, "random_projections_soft.csv", soft_cols, sr, SOFT_N);
}

/* ---- the verdict rows ---- */

/* the main sweep m: T E[a_ii] within [0.95, 1.05] at every T; the macro on the T farthest
 * from 1; its precision and the self-score's spread E[s_ii^2] = (1 + 2/d) d_k c^4 */
static void main_verdicts(experiment *e, const sweep_result *m, double scale)
{
    size_t d = m->pt[0].d;
    size_t dk = m->pt[0].dk;
    size_t worst = 0;
    size_t wide = 0;
    for (size_t p = 0; p < m->npoints; p++) {
        measure here = sweep_measure(m, p, S_TSELF);
        measure farthest = sweep_measure(m, worst, S_TSELF);
        measure widest = sweep_measure(m, wide, S_TSELF);
        if (fabs(here.value - 1.0) > fabs(farthest.value - 1.0)) worst = p;
        if (here.ci_high - here.ci_low > widest.ci_high - widest.ci_low) wide = p;
    }
    for (size_t p = 0; p < m->npoints; p++) {
        measure here = sweep_measure(m, p, S_TSELF);
        /* "about": a CI inside the band that excludes 1 says the 1/T is not exact there */
        int about = (here.ci_low > 1.0 || here.ci_high < 1.0) && here.ci_low >= 0.95 &&
                    here.ci_high <= 1.05;
        const char *exact = about ? "; its CI excludes 1: about 1/T, not exactly" : "";
        verdict_claim(e, p == worst ? "rpTMeanWorst" : "", 1.0, here,
                  verdict_rule_ci_within(0.95, 1.05),
                  "T times the mean self-weight at T = %zu%s (d = %zu, d_k = %zu, "
                  "W ~ N(0, %g/d))%s",
                  m->pt[p].T, p == worst ? ", the T farthest from 1" : "", d, dk, scale * scale,
                  exact);
        if (p == worst) experiment_headline(e);
    }
    experiment_summary_measure(e, "T x mean self-weight", sweep_measure(m, worst, S_TSELF),
                        "the section: about 1/T, i.e. 1; T = %zu, %s", m->pt[worst].T,
                        m->npoints > 1 ? "the farthest from 1 of the T run" : "the only T run");
    /* and how often a token is its own best match: T P(argmax_j s_ij = i), about 1 when its
     * own key is like any other (raw scores: T, every token finds itself) */
    verdict_reported(e, "rpTArgmaxSelf", 1.0, sweep_measure(m, worst, S_TARGMAX),
                     "T times the fraction of draws in which a token's own score is the largest "
                     "of its row, at T = %zu (d = %zu, d_k = %zu): about 1, as for any other key",
                     m->pt[worst].T, d, dk);
    measure aw = sweep_measure(m, worst, S_TSELF);    /* the same mean, / T: a_ii itself */
    double Tw = (double)m->pt[worst].T;
    aw.value /= Tw;
    aw.ci_low /= Tw;
    aw.ci_high /= Tw;
    experiment_summary_measure(e, "mean self-weight a_ii", aw, "1/T = %.4g", 1.0 / Tw);
    verdict_control(e, "rpPrecision", NAN, sweep_measure(m, wide, S_TSELF),
                verdict_rule_precision(PRECISION),
                "precision: T times the mean self-weight at T = %zu, the main sweep's widest "
                "95%% CI (its half-width, relative to 1/T, is the rule's: rpPrecisionHalfWidth)",
                m->pt[wide].T);
    size_t last = m->npoints - 1;
    double e2 = 1.0 + 2.0 / (double)d;   /* E[s_ii^2] / (d_k c^4) */
    verdict_control(e, "rpSelfScoreSpread", e2, sweep_measure(m, last, S_DIAG),
                verdict_rule_ci_within(0.99 * e2, 1.01 * e2),
                "E[s_ii^2] / (d_k c^4), exactly 1 + 2/d = %.5g (the others' E[s_ij^2] / (d_k c^4) "
                "= 1), within 1%% (T = %zu, d = %zu)", e2, m->pt[last].T, d);
}

/* the side sweeps r[1], r[2]: the control is exactly 1/T (the largest |T mean a'_ii - 1| in
 * standard errors), and the excess over it is positive at small d */
static void control_verdicts(experiment *e, const sweep_result r[NSWEEP])
{
    double zmax = 0.0;
    const sweep_point *zp = &r[1].pt[0];
    for (int k = 1; k < NSWEEP; k++)
        for (size_t p = 0; p < r[k].npoints; p++) {
            const stat_acc *a = sweep_acc(&r[k], p, S_TCONTROL);
            double z = fabs(a->mean - 1.0) / stat_se(a);
            if (z > zmax) {
                zmax = z;
                zp = &r[k].pt[p];
            }
        }
    verdict_control(e, "rpControlZ", 0.0, verdict_measure_ci(zmax, NAN, NAN, zp->draws),
                verdict_rule_at_most(4.0),
                "control (own key replaced by a fresh token's key, exactly 1/T): largest "
                "|T mean a'_ii - 1| / se over the %zu width and scale points (at d = %zu, "
                "c^2 = %g)",
                r[1].npoints + r[2].npoints, zp->d, zp->x * zp->x);   // x: the scale c
    verdict_claim(e, "rpExcessSmallD", NAN, sweep_measure(&r[1], 0, S_TEXCESS),
              verdict_rule_ci_above(0.0),
              "excess T mean (a_ii - a'_ii) over the exact-1/T control at d = %zu (T = %d, "
              "d_k = %d, c = 1): not exactly 1/T", r[1].pt[0].d, SIDE_T, SIDE_DK);
}

/* the soft-law table: measured / law -> 1 as the score sd -> 0 */
static void soft_verdicts(experiment *e, const soft_row sr[SOFT_N])
{
    const soft_row *a = &sr[0];
    const soft_row *z = &sr[SOFT_N - 1];
    verdict_reported(e, "rpSoftExcess", 1.0,
                 verdict_measure_ci(a->ratio, a->ratio_lo, a->ratio_hi, a->draws),
                 "measured excess T E[a_ii] - 1 over the soft-softmax law "
                 "(1 - 1/T)(1 - 2/T) d_k c^4 / d = %.4g at score sd %g (T = %d, d = 16, d_k = %d; "
                 "antithetic pairs, a control variate): the law is the sd -> 0 limit", a->law,
                 a->sd, SOFT_T, SOFT_DK);
    verdict_claim(e, "rpSoftLimit", 1.0,
              verdict_measure_ci(z->ratio, z->ratio_lo, z->ratio_hi, z->draws),
              verdict_rule_ci_within(0.98, 1.02),
              "the same ratio at score sd %g: -> 1 as sd -> 0 (a law off by 5%% would fail)",
              z->sd);
    const soft_row *p = &sr[SOFT_N - 2];
    const soft_row *q = &sr[1];
    verdict_reported(e, "rpSoftDeparture", NAN,
                 verdict_measure_ci(p->departure, p->departure_lo, p->departure_hi, p->draws),
                 "fourth-order departure (ratio - 1) / sd^2 at score sd %g "
                 "(%.3f [%.3f, %.3f] at %g, %.3f [%.3f, %.3f] at %g): the ratio is 1 + this "
                 "sd^2 + ...", p->sd, q->departure, q->departure_lo, q->departure_hi, q->sd,
                 z->departure, z->departure_lo, z->departure_hi, z->sd);
    experiment_summary(e,
                       "the excess over 1/T is second order in the scores: measured / law %.4f at "
                       "score sd %g (the section: about 1/T)",
                       z->ratio, z->sd);
}

static double scale = 1.0;   /* --scale */
static int control = 0;      /* --control */
static const opt_spec options[] = {
    {"scale", OPT_DOUBLE, &scale, "C",
     "weights N(0, C^2/d): scores have sd C^2 sqrt(d_k) (default 1; 1e-50 .. 1e50)"},
    {"control", OPT_FLAG, &control, NULL, "also compute the fresh-token control (main sweep)"},
    {"draws", OPT_SIZE, NULL, NULL,
     "per T, the draws the CI targets need after a 1024-draw pilot,\n"
     "                     at most 4 x 24576 = 98304 (the CSV's draws column); the width and\n"
     "                     scale sweeps 12288; --draws N: N per T (N/2 in the other sweeps,\n"
     "                     max(N, 2000) per row of the soft-law table)"},
    {NULL, 0, NULL, NULL, NULL}};

static int run(experiment *e)
{
    /* scores have sd C^2 sqrt(d_k): keep them, their squares and N(0, C^2/d) finite */
    if (!(scale >= 1e-50 && scale <= 1e50))
        return usage_error("--scale: must lie in [1e-50, 1e50], got %g", scale);
    const opts *o = &e->o;
    /* a point run (--T, --d, --dk, --scale or --control given) runs the main sweep alone: the
     * side sweeps, the soft-law table and their rows are the default run's */
    int main_only = o->T || o->d || o->dk || scale != 1.0 || control;
    sweep_grid g[NSWEEP];
    sweep_ctx ctx[2];
    sweeps_init(g, ctx, o, &scale, control);
    sweep_result r[NSWEEP] = {{0}};
    size_t *n = NULL;   /* the main sweep's draws per point, from the pilot */
    int st = ATT_OK;
    if (!o->draws_given) {   /* --draws N: exactly N per T, no pilot */
        sweep_def def = sweep_def_of(0, ctx);
        if ((st = pilot_draws(e, &g[0], &def, &n))) goto done;
        ctx[0].n = n;
    }
    for (int k = 0; k < (main_only ? 1 : NSWEEP); k++) {   /* main, width, scale */
        sweep_def def = sweep_def_of(k, ctx);
        if ((st = sweep_run(e, &g[k], &def, &r[k]))) goto done;
    }
    const sweep_result *m = &r[0];
    size_t d = m->pt[0].d;
    size_t dk = m->pt[0].dk;
    /* the heatmap at the main sweep's d, d_k: T = 12, or with --T its first T up to HEAT_MAX */
    size_t heat_T = !o->T ? 12 : m->pt[0].T < HEAT_MAX ? m->pt[0].T : HEAT_MAX;
    if ((st = heatmap(e, heat_T, d, dk))) goto done;
    if (o->draws_given)
        experiment_meta(e, "main sweep: d = %zu, d_k = %zu, W ~ N(0, %g^2/d); draws per T: "
                        "--draws %zu", d, dk, scale, o->draws);
    else
        experiment_meta(e, "main sweep: d = %zu, d_k = %zu, W ~ N(0, %g^2/d); draws per T: the "
                        "draws column, chosen by a %d-draw pilot for 95%% CI half-widths %g of "
                        "T E[a_ii] and 0.004 of E[s_ii^2] / (d_k c^4), at most %zu (the draws "
                        "line above is the side sweeps')", d, dk, scale, PILOT, 0.9 * PRECISION,
                        4 * o->draws);
    experiment_meta(e, "a main-sweep draw at T >= 3: T a_ii averaged over the antithetic pair "
                    "(W_K, -W_K), one draw of X and W; at T = 2 one plain draw");
    experiment_meta(e, "d: %zu\nd_k: %zu\nscale: %g\nheatmap_T: %zu", d, dk, scale, heat_T);
    main_verdicts(e, m, scale);
    if (main_only) goto done;
    control_verdicts(e, r);
    /* the excess is second order in the scores: the soft-softmax law, measured / law -> 1 */
    soft_row sr[SOFT_N];
    if ((st = soft_law(e, sr))) goto done;
    soft_verdicts(e, sr);
done:
    for (int k = 0; k < NSWEEP; k++) sweep_result_free(&r[k]);
    free(n);
    return st;
}

/* how make verify compares the statistics: Monte Carlo (SW_MC, sweep.h) but these */
SWEEP_VERIFY_MC(stat_names)

int main(int argc, char **argv)
{
    static const experiment_def def = {"random_projections", NULL,
                                       OPT_MC | OPT_T | OPT_D | OPT_DK | OPT_LISTS,
                                       20261129UL, 24576, options, run};
    return experiment_main(&def, argc, argv);
}
