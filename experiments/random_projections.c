/* random_projections - with two different random projections the diagonal
 * stops being special: a token's mean weight on itself is about 1/T.
 *
 * Claim (random_projections): replace Q = K = X by Q = X W_Q, K = X W_K with
 * independent random W_Q, W_K; averaged over many draws the self-weight a_ii
 * is about 1/T, as for any other token. Question asked by the issue: about
 * 1/T, or exactly?
 *
 * Setup: X (T, d) entries N(0, 1); W_Q, W_K (d, d_k) entries N(0, c^2 / d),
 * c = --scale (default 1); S = Q K^T with no 1/sqrt(d_k) (the section's
 * convention), so a score has sd c^2 sqrt(d_k): c sets how sharp the softmax
 * is. Per draw, averaged over the T rows (lib/selfweight.h): a_ii, whether
 * the row's largest score is its own, s_ii^2 and s_ij^2 (j != i), and with
 * the control, a'_ii: row i with its own key k_i replaced by the key of a
 * fresh independent token. Reported per point: T * mean a_ii with its 95% CI
 * (so 1 means exactly 1/T), T * mean a'_ii, and the paired excess
 * T * mean (a_ii - a'_ii).
 *
 * Sweeps:
 *   main    d = 64, d_k = 16, c = 1, T = 2, 3, 4, 8, ..., 256; --draws each
 *           (default 24576: the CI half-width of the mean self-weight stays
 *           below 1% of 1/T at every T), no control
 *   width   T = 16, d_k = 4, c = 1, d = 4, 8, ..., 256; --draws / 2 each,
 *           with the control
 *   scale   T = 16, d_k = 4, d = 16 and 64, c^2 = 1/4 .. 8 (score sd 0.5 ..
 *           16); --draws / 2 each, with the control
 *   heatmap one draw, T = 12, d = 64, d_k = 16: A raw (S = X X^T) next to A
 *           projected, same X
 * Every point draws from its own stream, a hash of (T, d, d_k, c, control),
 * so a point run alone gives the numbers it has in a sweep. --T, --d, --dk,
 * --scale, --control run only the main sweep with those values (e.g. a width
 * point: --T 16 --d 8 --dk 4 --control --draws 12288).
 *
 * Why not exactly 1/T (measured here, not assumed). Given the weights, the
 * other tokens' scores s_ij = x_i^T M x_j (M = W_Q W_K^T) are exchangeable,
 * but the self-score s_ii = x_i^T M x_i is a quadratic form in ONE token:
 * E[s_ii | W] = tr(M) != 0 for a given draw, and over draws
 *   E[s_ii^2] = d_k c^4 (1 + 2/d),   E[s_ij^2] = d_k c^4   (exact),
 * so the self-score is spread 2/d more widely than the others (verdict
 * rpSelfScoreSpread measures it). E[q_i . k_i] = 0, yet the softmax turns
 * extra spread into extra weight: for a soft softmax (second order in the
 * scores) T E[a_ii] - 1 = (1 - 1/T)(1 - 2/T) d_k c^4 / d. For T = 2 the
 * excess is exactly 0 at every scale (W_Q -> -W_Q flips every score and
 * a_ii(-S) = 1 - a_ii(S)); the fresh-token control is exactly 1/T at every
 * T by symmetry. So: not exactly 1/T for T >= 3, but the excess shrinks like
 * 1/d (width sweep, T = 16, d_k = 4: about 11% at d = 4, 3% at d = 16, in
 * the noise from d = 64 on); at the default d = 64, d_k = 16 it is inside
 * the CI up to T = 64 and a few percent at T = 256. It is largest for a
 * moderately sharp softmax (score sd 1 to 4) and vanishes at both ends.
 *
 * Verdicts:
 *   rpTMeanWorst       main sweep: T * mean a_ii at the T farthest from 1;
 *                      PASS when every T is within [0.95, 1.05]
 *   rpRelHalfWidth     main sweep: largest CI half-width of the mean
 *                      self-weight, relative to 1/T; PASS when <= 1%
 *   rpSelfScoreSpread  main sweep, largest T: E[s_ii^2] / (d_k c^4), exact
 *                      value 1 + 2/d; PASS within 4 se
 *   rpControlZ         width and scale sweeps: largest |T mean a'_ii - 1| in
 *                      standard errors; exactly 1/T by symmetry, PASS <= 4
 *   rpExcessSmallD     width sweep, d = 4: T mean (a_ii - a'_ii) with CI;
 *                      PASS when the CI lies above 0 (not exactly 1/T)
 * (With --T/--d/--dk/--scale only the main sweep runs, and the verdicts are
 * those of the main sweep.)
 *
 * Writes into --out:
 *   random_projections.csv         the main sweep, one row per T
 *   random_projections_width.csv   the width sweep, one row per d
 *   random_projections_scale.csv   the scale sweep, one row per (d, c)
 *   random_projections_A.csv       the heatmap draw: panel,i,j,a
 *   random_projections.meta, random_projections.verdicts.csv
 * Options: --seed --draws --rng --T --d --dk --scale --control.
 */
#include "mat.h"
#include "mc.h"
#include "opts.h"
#include "output.h"
#include "rng.h"
#include "selfweight.h"
#include "softmax.h"
#include "stats.h"
#include "status.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ID "random_projections"

static const size_t MAIN_T[] = {2, 3, 4, 8, 16, 32, 64, 128, 256};
enum { MAIN_NT = sizeof MAIN_T / sizeof MAIN_T[0], MAIN_D = 64, MAIN_DK = 16 };
static const size_t WIDTH_D[] = {4, 8, 16, 32, 64, 128, 256};
enum { WIDTH_ND = sizeof WIDTH_D / sizeof WIDTH_D[0], SIDE_T = 16, SIDE_DK = 4 };
static const size_t SCALE_D[] = {16, 64};
static const double SCALE_C2[] = {0.25, 0.5, 1.0, 2.0, 4.0, 8.0};
enum { SCALE_ND = sizeof SCALE_D / sizeof SCALE_D[0],
       SCALE_NC = sizeof SCALE_C2 / sizeof SCALE_C2[0] };
enum { HEAT_T = 12 };

/* per-draw values */
enum { S_SELF, S_ARGMAX, S_CTRL, S_EXCESS, S_DSQ, S_OSQ, NSTAT };

typedef struct {
    size_t T, d, d_k;
    double c;           /* weights N(0, c^2 / d)                  */
    int control;
} rp_config;

typedef struct {
    rp_config cfg;
    size_t draws;
    stat_acc acc[NSTAT];
} rp_point;

static void *rp_alloc(void *ctx)
{
    const rp_config *c = ctx;
    selfweight_work *w = malloc(sizeof *w);
    if (w && selfweight_work_alloc(w, c->T, c->d, c->d_k, c->control) != ATT_OK) {
        free(w);
        return NULL;
    }
    return w;
}

static void rp_free(void *p)
{
    selfweight_work_free(p);
    free(p);
}

/* one draw: X, W_Q, W_K (and X'); S = (X W_Q)(X W_K)^T; the row stats */
static int rp_draw(void *ctx, void *scratch, gsl_rng *rng, size_t draw, double *out)
{
    (void)draw;
    const rp_config *c = ctx;
    selfweight_work *w = scratch;
    selfweight_stats r;
    selfweight_draw_inputs(w, rng, c->c / sqrt((double)c->d));
    int st = selfweight_projected(w, &r);
    out[S_SELF] = r.self_weight;
    out[S_ARGMAX] = r.argmax_self;
    out[S_CTRL] = c->control ? r.control : 0.0;
    out[S_EXCESS] = c->control ? (double)c->T * (r.self_weight - r.control) : 0.0;
    out[S_DSQ] = r.diag_sq;
    out[S_OSQ] = r.off_sq;
    return st;
}

/* FNV-1a over (T, d, d_k, bits of c, control): the point's stream */
static uint64_t rp_stream(const rp_config *c)
{
    uint64_t v[5] = {c->T, c->d, c->d_k, 0, (uint64_t)c->control}, h = 1469598103934665603ULL;
    memcpy(&v[3], &c->c, sizeof c->c);
    const unsigned char *p = (const unsigned char *)v;
    for (size_t i = 0; i < sizeof v; i++) { h ^= p[i]; h *= 1099511628211ULL; }
    return h;
}

static int rp_run_point(const opts *o, const rp_config *cfg, size_t draws, rp_point *p)
{
    char label[96];
    snprintf(label, sizeof label, ID " T=%zu d=%zu dk=%zu c=%g", cfg->T, cfg->d, cfg->d_k, cfg->c);
    p->cfg = *cfg;
    p->draws = draws;
    mc_config mc = {.rng_name = o->rng_name, .seed = o->seed, .stream = rp_stream(cfg),
                    .draws = draws, .nstats = NSTAT, .draw = rp_draw, .alloc = rp_alloc,
                    .free = rp_free, .ctx = &p->cfg, .label = label, .quiet = o->quiet};
    return mc_run(&mc, p->acc);
}

/* ---- derived numbers of a point --------------------------------------- */

typedef struct {
    double v, lo, hi, se;
} est;

/* k * (mean, CI, se) of statistic s */
static est rp_est(const rp_point *p, int s, double k)
{
    est e;
    stat_ci95(&p->acc[s], &e.lo, &e.hi);
    e.v = k * p->acc[s].mean;
    e.lo *= k;
    e.hi *= k;
    e.se = k * stat_se(&p->acc[s]);
    return e;
}

static double score_var(const rp_config *c) { return (double)c->d_k * pow(c->c, 4); }

/* ---- output ----------------------------------------------------------- */

static void put(FILE *f, double x) { fputc(',', f); csv_num(f, x); }
static void put_est(FILE *f, est e) { put(f, e.v); put(f, e.lo); put(f, e.hi); }

static int rp_write(const opts *o, const char *name, const rp_point *p, size_t n)
{
    afile af;
    int st = afile_open(&af, o->out_dir, name);
    if (st) return st;
    fputs("T,d,d_k,scale,score_sd,draws,control,self_weight,self_weight_lo,self_weight_hi,"
          "T_self,T_self_lo,T_self_hi,rel_halfwidth,ci_contains_1,"
          "T_argmax,T_argmax_lo,T_argmax_hi,T_control,T_control_lo,T_control_hi,"
          "T_excess,T_excess_lo,T_excess_hi,soft_excess_theory,"
          "diag_sq_norm,diag_sq_norm_lo,diag_sq_norm_hi,off_sq_norm,off_sq_norm_lo,"
          "off_sq_norm_hi,diag_sq_expected\n", af.f);
    for (size_t i = 0; i < n; i++) {
        const rp_config *c = &p[i].cfg;
        double T = (double)c->T, v = score_var(c);
        est self = rp_est(&p[i], S_SELF, 1.0), Tself = rp_est(&p[i], S_SELF, T);
        fprintf(af.f, "%zu,%zu,%zu", c->T, c->d, c->d_k);
        put(af.f, c->c); put(af.f, sqrt(v));
        fprintf(af.f, ",%zu,%d", p[i].draws, c->control);
        put_est(af.f, self);
        put_est(af.f, Tself);
        put(af.f, 0.5 * (Tself.hi - Tself.lo));
        fprintf(af.f, ",%d", Tself.lo <= 1.0 && 1.0 <= Tself.hi);
        put_est(af.f, rp_est(&p[i], S_ARGMAX, T));
        if (c->control) {
            put_est(af.f, rp_est(&p[i], S_CTRL, T));
            put_est(af.f, rp_est(&p[i], S_EXCESS, 1.0));
        } else {
            for (int k = 0; k < 6; k++) put(af.f, NAN);
        }
        put(af.f, (1.0 - 1.0 / T) * (1.0 - 2.0 / T) * v / (double)c->d);
        put_est(af.f, rp_est(&p[i], S_DSQ, 1.0 / v));
        put_est(af.f, rp_est(&p[i], S_OSQ, 1.0 / v));
        put(af.f, 1.0 + 2.0 / (double)c->d);
        fputc('\n', af.f);
    }
    return afile_commit(&af);
}

/* One draw, its own stream: A = softmax(X X^T) and A = softmax(X W_Q (X W_K)^T)
 * for the same X (T = 12, d = 64, d_k = 16, c = 1). */
static int rp_heatmap(const opts *o)
{
    rp_config c = {HEAT_T, MAIN_D, MAIN_DK, 1.0, 0};
    gsl_rng *rng = rng_new(o->rng_name, rng_stream_seed(o->seed, rp_stream(&c), 0xA11));
    if (rng == NULL) return ATT_EUSAGE;
    selfweight_work w;
    gsl_matrix *A = mat_new(c.T, c.T);
    int st = A ? selfweight_work_alloc(&w, c.T, c.d, c.d_k, 0) : ATT_ERUNTIME;
    if (st) { gsl_rng_free(rng); mat_free(A); return st; }
    selfweight_draw_inputs(&w, rng, c.c / sqrt((double)c.d));
    afile af;
    if ((st = afile_open(&af, o->out_dir, ID "_A.csv"))) {
        selfweight_work_free(&w); mat_free(A); gsl_rng_free(rng);
        return st;
    }
    fputs("panel,i,j,a\n", af.f);
    for (int panel = 0; panel < 2 && !st; panel++) {
        if (panel == 0) {                 /* raw: S = X X^T */
            st = mat_gemm(w.S, 1.0, w.X, 0, w.X, 1, 0.0);
        } else {                          /* projected: S = (X W_Q)(X W_K)^T */
            st = mat_gemm(w.Q, 1.0, w.X, 0, w.W_Q, 0, 0.0);
            if (!st) st = mat_gemm(w.K, 1.0, w.X, 0, w.W_K, 0, 0.0);
            if (!st) st = mat_gemm(w.S, 1.0, w.Q, 0, w.K, 1, 0.0);
        }
        if (!st) st = softmax_rows(A, w.S);
        for (size_t i = 0; i < c.T && !st; i++)
            for (size_t j = 0; j < c.T; j++) {
                fprintf(af.f, "%s,%zu,%zu", panel == 0 ? "raw" : "projected", i + 1, j + 1);
                put(af.f, gsl_matrix_get(A, i, j));
                fputc('\n', af.f);
            }
    }
    if (st) afile_abort(&af);
    else st = afile_commit(&af);
    selfweight_work_free(&w);
    mat_free(A);
    gsl_rng_free(rng);
    return st;
}

/* ---- main ------------------------------------------------------------- */

int main(int argc, char **argv)
{
    att_init();
    double scale = 1.0;
    int control = 0;
    const opt_spec extra[] = {
        {"scale", OPT_DOUBLE, &scale, "C", "weights N(0, C^2/d): scores have sd C^2 sqrt(d_k) (default 1; 1e-50 .. 1e50)"},
        {"control", OPT_FLAG, &control, NULL, "also compute the fresh-token control (main sweep)"},
        {NULL, 0, NULL, NULL, NULL}
    };
    const opts_info info = {ID, "self-weight with random W_Q != W_K: about 1/T, or exactly?",
                            OPT_MC | OPT_T | OPT_D | OPT_DK, 20261129UL, 24576, extra};
    opts o;
    int st = opts_parse(&o, &info, argc, argv);
    if (st) return opts_exit(&o, st);
    /* scores have sd C^2 sqrt(d_k): keep them and their squares finite, and
     * the weights N(0, C^2/d) from underflowing to 0 */
    if (!(scale >= 1e-50 && scale <= 1e50))
        return opts_exit(&o, att_fail(ATT_EUSAGE, "--scale: must lie in [1e-50, 1e50], got %g", scale));
    int restricted = o.T || o.d || o.dk || scale != 1.0 || control;
    size_t d = o.d ? o.d : MAIN_D, dk = o.dk ? o.dk : MAIN_DK, Tmax = o.T ? o.T : 256;
    size_t side = o.draws / 2 ? o.draws / 2 : 1;
    /* per thread, selfweight_work with the control: X, X' (T, d), S (T, T),
     * W_Q, W_K (d, d_k), Q, K, K' (T, d_k), s' (T) */
    double T = (double)Tmax, dd = (double)d, ddk = (double)dk;
    double scratch = 2 * T * dd + T * T + 2 * dd * ddk + 3 * T * ddk + T;
    if ((st = opts_check_memory(&o, mc_run_bytes(mat_bytes_approx(scratch), o.draws, NSTAT),
                                "one draw's matrices (per thread) and Monte Carlo blocks")))
        return opts_exit(&o, st);

    /* the main sweep */
    rp_point mainp[MAIN_NT], widthp[WIDTH_ND], scalep[SCALE_ND * SCALE_NC];
    size_t nmain = 0;
    for (size_t t = 0; t < MAIN_NT && !st; t++) {
        rp_config c = {o.T ? o.T : MAIN_T[t], d, dk, scale, control};
        st = rp_run_point(&o, &c, o.draws, &mainp[nmain++]);
        if (o.T) break;
    }
    if (!st) st = rp_write(&o, ID ".csv", mainp, nmain);

    /* the width and scale sweeps, and the heatmap */
    if (!restricted) {
        for (size_t k = 0; k < WIDTH_ND && !st; k++) {
            rp_config c = {SIDE_T, WIDTH_D[k], SIDE_DK, 1.0, 1};
            st = rp_run_point(&o, &c, side, &widthp[k]);
        }
        if (!st) st = rp_write(&o, ID "_width.csv", widthp, WIDTH_ND);
        for (size_t k = 0; k < SCALE_ND * SCALE_NC && !st; k++) {
            rp_config c = {SIDE_T, SCALE_D[k / SCALE_NC], SIDE_DK, sqrt(SCALE_C2[k % SCALE_NC]), 1};
            st = rp_run_point(&o, &c, side, &scalep[k]);
        }
        if (!st) st = rp_write(&o, ID "_scale.csv", scalep, SCALE_ND * SCALE_NC);
        if (!st) st = rp_heatmap(&o);
    }
    if (st) return opts_exit(&o, st);

    /* ---- verdicts ---- */
    verdict_list vl;
    verdicts_init(&vl);
    char q[512], meta[4096];
    int len = snprintf(meta, sizeof meta,
        "main sweep: d = %zu, d_k = %zu, W ~ N(0, %g^2/d), draws %zu per T\n", d, dk, scale, o.draws);
    /* T * mean self-weight per T; the T farthest from 1; the widest CI */
    est tm[MAIN_NT];
    size_t worst = 0, wide = 0;
    int all_in = 1;
    for (size_t i = 0; i < nmain; i++) {
        tm[i] = rp_est(&mainp[i], S_SELF, (double)mainp[i].cfg.T);
        if (fabs(tm[i].v - 1.0) > fabs(tm[worst].v - 1.0)) worst = i;
        if (tm[i].hi - tm[i].lo > tm[wide].hi - tm[wide].lo) wide = i;
        all_in &= tm[i].v >= 0.95 && tm[i].v <= 1.05;
        if (len > 0 && (size_t)len < sizeof meta)
            len += snprintf(meta + len, sizeof meta - (size_t)len,
                            "T = %3zu: T * mean self-weight %.4f [%.4f, %.4f]%s\n", mainp[i].cfg.T,
                            tm[i].v, tm[i].lo, tm[i].hi,
                            tm[i].lo <= 1.0 && 1.0 <= tm[i].hi ? "  (CI contains 1)" : "");
    }
    est ew = tm[worst], eh = tm[wide];
    snprintf(q, sizeof q, "T * mean self-weight, the T farthest from 1 (T = %zu; d = %zu, d_k = %zu, "
             "W ~ N(0, %g/d))", mainp[worst].cfg.T, d, dk, scale * scale);
    st = verdict_mc(&vl, "rpTMeanWorst", q, 1.0, ew.v, ew.lo, ew.hi, mainp[worst].draws, all_in,
                    "every T within [0.95, 1.05]");
    double rel = 0.5 * (eh.hi - eh.lo);
    snprintf(q, sizeof q, "largest CI half-width of the mean self-weight, relative to 1/T (T = %zu)",
             mainp[wide].cfg.T);
    if (!st) st = verdict_exact(&vl, "rpRelHalfWidth", q, NAN, rel, 0.01, rel <= 0.01, "<= 1% of 1/T");
    if (!st) {
        const rp_point *p = &mainp[nmain - 1];
        double v = score_var(&p->cfg), expect = 1.0 + 2.0 / (double)p->cfg.d;
        est e = rp_est(p, S_DSQ, 1.0 / v);
        snprintf(q, sizeof q, "E[s_ii^2] / (d_k c^4), exact value 1 + 2/d = %.5g: the self-score "
                 "spreads wider than E[s_ij^2] / (d_k c^4) = 1 (T = %zu, d = %zu)", expect,
                 p->cfg.T, p->cfg.d);
        st = verdict_mc(&vl, "rpSelfScoreSpread", q, expect, e.v, e.lo, e.hi, p->draws,
                        fabs(e.v - expect) <= 4.0 * e.se, "within 4 se of 1 + 2/d");
    }
    if (!st && !restricted) {
        double zmax = 0.0;
        const rp_point *zp = &widthp[0];
        for (size_t k = 0; k < WIDTH_ND + SCALE_ND * SCALE_NC; k++) {
            const rp_point *p = k < WIDTH_ND ? &widthp[k] : &scalep[k - WIDTH_ND];
            est e = rp_est(p, S_CTRL, (double)p->cfg.T);
            double z = fabs(e.v - 1.0) / e.se;
            if (z > zmax) { zmax = z; zp = p; }
        }
        snprintf(q, sizeof q, "control (own key replaced by a fresh token's key, exactly 1/T): "
                 "largest |T mean a'_ii - 1| / se over the %d width and scale points (at d = %zu, "
                 "c^2 = %g)", WIDTH_ND + SCALE_ND * SCALE_NC, zp->cfg.d, zp->cfg.c * zp->cfg.c);
        st = verdict_mc(&vl, "rpControlZ", q, 0.0, zmax, NAN, NAN, zp->draws, zmax <= 4.0, "<= 4");
        est ex = rp_est(&widthp[0], S_EXCESS, 1.0);
        snprintf(q, sizeof q, "excess T mean (a_ii - a'_ii) over the exact-1/T control at d = %zu "
                 "(T = %d, d_k = %d, c = 1): not exactly 1/T", widthp[0].cfg.d, SIDE_T, SIDE_DK);
        if (!st)
            st = verdict_mc(&vl, "rpExcessSmallD", q, NAN, ex.v, ex.lo, ex.hi, widthp[0].draws,
                            ex.lo > 0.0, "CI above 0");
        for (size_t k = 0; k < WIDTH_ND && len > 0 && (size_t)len < sizeof meta; k++) {
            est a = rp_est(&widthp[k], S_SELF, SIDE_T), b = rp_est(&widthp[k], S_CTRL, SIDE_T);
            len += snprintf(meta + len, sizeof meta - (size_t)len,
                            "width d = %3zu (T = 16, d_k = 4): T * mean %.4f [%.4f, %.4f], "
                            "control %.4f [%.4f, %.4f]\n", widthp[k].cfg.d, a.v, a.lo, a.hi,
                            b.v, b.lo, b.hi);
        }
    }
    if (!st && len > 0 && (size_t)len < sizeof meta)
        snprintf(meta + len, sizeof meta - (size_t)len,
                 "why not exactly 1/T: the self-score x_i^T W_Q W_K^T x_i is a quadratic form in one "
                 "token: given the weights its mean is tr(W_Q W_K^T), not 0, and over draws "
                 "E[s_ii^2] = (1 + 2/d) E[s_ij^2]; the softmax turns that extra spread into extra "
                 "weight. Exactly 1/T for T = 2 (sign symmetry W_Q -> -W_Q) and for the "
                 "fresh-token control; the excess shrinks like 1/d.");
    if (!st) st = output_meta(&o, meta);
    if (!st) st = legacy_verdicts_write(&vl, &o);
    if (!st) st = verdicts_status(&vl);
    verdicts_free(&vl);
    return opts_exit(&o, st);
}
