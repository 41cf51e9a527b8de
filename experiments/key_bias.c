/* key_bias - the key bias changes nothing: its gradient is zero (unless RoPE comes after it).
 *
 * Claim (key_bias): with k_j = W_K^T x_j + b_K the score is
 *   s_ij = q_i . k_j = q_i . (W_K^T x_j) + q_i . b_K,
 * and the second term is the same for every key j of row i. Softmax ignores a
 * constant added to a row, so the weights, the output and any loss do not
 * depend on b_K: its gradient is exactly zero. With rotary position
 * embeddings after the bias, key j sees R_j b_K, a different vector for every
 * position, and the bias is no longer redundant.
 *
 * Measured, at T = 8, d = 16, d_k = d_v = 8 (X ~ N(0, 1), weights ~ N(0, 1/d),
 * b_Q, b_K, b_V ~ N(0, 1), loss L = sum(G .* O), G ~ N(0, 1)), --draws heads
 * without RoPE (grid point 0) and with RoPE, base 10000 (point 1), per draw:
 *   - ||dL/db_K|| / ||dL/db_Q|| from the backward pass (lib/math/head.h);
 *   - ||O(b_K) - O(0)||_F / ||O(0)||_F, the change when b_K is removed;
 *   - every backprop gradient (b_Q, b_K, b_V, W_Q, W_K, W_V) against central
 *     finite differences, h = 1e-5 (bias_fd_error, lib/claims/bias.h), relative
 *     to the larger of the group's gradient and the draw's largest gradient.
 * Rounding bounds per draw, without RoPE (the identity rows):
 *   output: the runs differ by the rounding of q_i . k_j, <= (d_k + 1) eps P,
 *     P = max_ij sum_l |q_il| |k_jl| (Higham 3.5), and of softmax and sum,
 *     ~ T eps; a score error D moves a weight row by <= 2 D in l1, so
 *     tol = 16 (d_k + T) eps (1 + P) sqrt(T) max_j ||v_j|| / ||O||_F;
 *   gradient: dL/db_K = sum_i q_i sum_j dS_ij, sum_j dS_ij = 0 up to rounding,
 *     ||dL/db_K|| <= 8 T eps sum_i ||q_i|| ||g_i|| max_j ||v_j||.
 *
 * Writes into --out:
 *   key_bias.csv        one row per mode (rope 0/1): draws, mean/CI/max of the
 *                       output change, the gradient ratio, the FD errors
 *   key_bias_draws.csv  one row per draw and mode: rope,draw,norm_dbq,norm_dbk,
 *                       ratio,fd_err,out_change (the figure)
 *   key_bias_shift.csv  one head without RoPE, row i = 0: j,score_without,
 *                       score_with,weight_without,weight_with (the shift figure)
 *   key_bias.meta, key_bias.verdicts.csv
 */
#include "bias.h"
#include "experiment.h"
#include "head.h"
#include "mat.h"
#include "mem.h"
#include "rng.h"
#include "status.h"
#include "table.h"
#include "tol.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <gsl/gsl_blas.h>

#define FD_STEP 1e-5

enum { NPARAM = BIAS_NPARAM };   /* b_Q, b_K, b_V, W_Q, W_K, W_V */
/* per-draw values */
enum { S_OUT, S_TOL, S_RATIO, S_FD, S_FD0, S_NQ = S_FD0 + NPARAM, S_NK, S_RATIO_REL, NSTAT };

typedef struct { size_t T, d, d_k, d_v; } ctx;     /* read-only during the draws */

typedef struct {
    bias_head h;                       /* the random head, with b_K and without (bias.h) */
    head_state stf;                    /* the finite differences' forward passes */
    head_grads g;
} scratch;

static void scratch_free(void *p)
{
    scratch *s = p;
    if (s == NULL) return;
    bias_head_free(&s->h);
    head_state_free(&s->stf);
    head_grads_free(&s->g);
    free(s);
}

static void *scratch_alloc(void *vc)
{
    const ctx *c = vc;
    scratch *s = calloc(1, sizeof *s);
    if (s == NULL) return NULL;
    if (bias_head_alloc(&s->h, c->T, c->d, c->d_k, c->d_v)
        || head_state_alloc(&s->stf, c->T, c->T, c->d, c->d_k, c->d_v)
        || head_grads_alloc(&s->g, c->T, c->T, c->d, c->d_k, c->d_v)) {
        scratch_free(s);
        return NULL;
    }
    return s;
}

/* max_j ||v_j||, V (T, d_v) */
static double max_row_norm(const gsl_matrix *V)
{
    double m = 0.0;
    for (size_t j = 0; j < V->size1; j++) {
        gsl_vector_const_view v = gsl_matrix_const_row(V, j);
        m = fmax(m, gsl_blas_dnrm2(&v.vector));
    }
    return m;
}

/* One draw at grid point `rope` (0: no RoPE, 1: RoPE after the bias): the head
 * X (T, d), W_Q, W_K (d, d_k), W_V (d, d_v), b_Q, b_K (d_k), b_V (d_v), G (T, d_v)
 * with and without b_K, its gradients and their finite-difference check. */
static int draw_at(void *vc, void *vs, gsl_rng *rng, size_t rope, size_t draw, double *out)
{
    const ctx *c = vc;
    scratch *s = vs;
    (void)draw;
    bias_head *h = &s->h;
    int rc = bias_head_draw(h, rng, (int)rope);
    head_params p = bias_head_params(h, (int)rope, 1);
    // backprop of L = sum(G .* O)
    if (!rc) rc = head_backward(&s->g, &h->with, &p, h->X, h->X, h->G);
    if (rc) return rc;

    out[S_OUT] = mat_rel_diff(h->with.O, h->without.O);
    // tol = 16 (d_k + T) eps (1 + P) sqrt(T) max_j ||v_j|| / ||O||_F   (header comment)
    double P = fmax(tol_product_scale(h->with.Q, h->with.K), tol_product_scale(h->without.Q, h->without.K));
    double vmax = max_row_norm(h->with.V);
    out[S_TOL] = 16.0 * (double)(c->d_k + c->T) * DBL_EPSILON * (1.0 + P) * sqrt((double)c->T)
                 * vmax / mat_frob(h->without.O);
    double nq = gsl_blas_dnrm2(s->g.db_Q), nk = gsl_blas_dnrm2(s->g.db_K);
    out[S_RATIO] = nk / nq;
    out[S_NQ] = nq;
    out[S_NK] = nk;
    // ||dL/db_K|| in units of its bound 8 T eps sum_i ||q_i|| ||g_i|| max_j ||v_j||
    double qg = 0.0;
    for (size_t i = 0; i < c->T; i++) {
        gsl_vector_const_view q = gsl_matrix_const_row(h->with.Q, i), g = gsl_matrix_const_row(h->G, i);
        qg += gsl_blas_dnrm2(&q.vector) * gsl_blas_dnrm2(&g.vector);
    }
    out[S_RATIO_REL] = nk / tol_eps(8, c->T, qg * vmax);

    // every gradient against central differences (bias_head_fd_errors, bias.h)
    if ((rc = bias_head_fd_errors(&out[S_FD0], &s->stf, h, &s->g, (int)rope, FD_STEP))) return rc;
    out[S_FD] = 0.0;
    for (int k = 0; k < NPARAM; k++) out[S_FD] = fmax(out[S_FD], out[S_FD0 + k]);
    return ATT_OK;
}

typedef struct {
    int rope;
    size_t draws;
    double out_mean, out_lo, out_hi, out_max, tol_min, ratio_mean, ratio_lo, ratio_hi, ratio_min,
        ratio_max, fd_max, fd[NPARAM], dbq_mean, dbk_mean;
} mode_row;
typedef struct { int rope; size_t draw; double norm_dbq, norm_dbk, ratio, fd_err, out_change; } draw_row;
typedef struct { size_t j; double score_without, score_with, weight_without, weight_with; } shift_row;

/* make verify (table.h): without RoPE, b_K's effect is zero up to rounding
 * (below tol_min, or far below 1e-10): those rows compare by order of
 * magnitude, the BLAS kernel moves them; with RoPE they are Monte Carlo. */
#define ZERO "1e-10"
static const table_col mode_cols[] = {
    COL(mode_row, rope), COL(mode_row, draws), COL_MC_ROUND(mode_row, out_mean, "out_lo", "out_hi", "tol_min"),
    COL_MC_ROUND(mode_row, out_lo, "out_lo", "out_hi", "tol_min"),
    COL_MC_ROUND(mode_row, out_hi, "out_lo", "out_hi", "tol_min"), COL_ROUND(mode_row, out_max, "tol_min"),
    COL(mode_row, tol_min), COL_MC_ROUND(mode_row, ratio_mean, "ratio_lo", "ratio_hi", ZERO),
    COL_MC_ROUND(mode_row, ratio_lo, "ratio_lo", "ratio_hi", ZERO),
    COL_MC_ROUND(mode_row, ratio_hi, "ratio_lo", "ratio_hi", ZERO), COL_ROUND(mode_row, ratio_min, ZERO),
    COL_ROUND(mode_row, ratio_max, ZERO), COL_ROUND(mode_row, fd_max, NULL),
    COL_ROUND_AS(mode_row, fd[0], "fd_b_Q_max", NULL), COL_ROUND_AS(mode_row, fd[1], "fd_b_K_max", NULL),
    COL_ROUND_AS(mode_row, fd[2], "fd_b_V_max", NULL), COL_ROUND_AS(mode_row, fd[3], "fd_W_Q_max", NULL),
    COL_ROUND_AS(mode_row, fd[4], "fd_W_K_max", NULL), COL_ROUND_AS(mode_row, fd[5], "fd_W_V_max", NULL),
    COL(mode_row, dbq_mean), COL_ROUND(mode_row, dbk_mean, ZERO)};
static const table_col draw_cols[] = {
    COL(draw_row, rope), COL(draw_row, draw), COL(draw_row, norm_dbq), COL_ROUND(draw_row, norm_dbk, ZERO),
    COL_ROUND(draw_row, ratio, ZERO), COL_ROUND(draw_row, fd_err, NULL), COL_ROUND(draw_row, out_change, ZERO)};
static const table_col shift_cols[] = {
    COL(shift_row, j), COL(shift_row, score_without), COL(shift_row, score_with),
    COL(shift_row, weight_without), COL(shift_row, weight_with)};

/* The figure's example: one head without RoPE (its own stream), query row 0,
 * scores and weights with and without b_K; the shift q_0 . b_K into *shift. */
static int shift_example(const experiment *e, const ctx *c, double *shift)
{
    bias_head h;
    gsl_rng *rng = rng_new(e->o.rng_name, rng_stream_seed(e->o.seed, 2, 0));
    shift_row *rows = mem_calloc(c->T, sizeof *rows, "key_bias shift rows");
    int rc = bias_head_alloc(&h, c->T, c->d, c->d_k, c->d_v);
    if (!rc) rc = (rng && rows) ? bias_head_draw(&h, rng, 0) : att_alloc_status();
    // s_0j with and without b_K differ by q_0 . b_K for every key j
    for (size_t j = 0; j < c->T && !rc; j++)
        rows[j] = (shift_row){j, gsl_matrix_get(h.without.S, 0, j), gsl_matrix_get(h.with.S, 0, j),
                              gsl_matrix_get(h.without.A, 0, j), gsl_matrix_get(h.with.A, 0, j)};
    if (!rc) {
        gsl_vector_const_view q = gsl_matrix_const_row(h.with.Q, 0);
        gsl_blas_ddot(&q.vector, h.b_K, shift);
        rc = TABLE_WRITE(e->o.out_dir, "key_bias_shift.csv", shift_cols, rows, c->T);
    }
    if (rows) mem_free(rows, c->T, sizeof *rows);
    if (rng) gsl_rng_free(rng);
    bias_head_free(&h);
    return rc;
}

static int run(experiment *e)
{
    const opts *o = &e->o;
    ctx c = {o->T ? o->T : 8, o->d ? o->d : 16, o->dk ? o->dk : 8, o->dv ? o->dv : 8};
    if (o->draws < 2) return exp_usage("--draws %zu: a 95%% CI needs at least 2 draws", o->draws);
    if (c.d_k % 2 != 0) return exp_usage("--dk %zu: RoPE rotates pairs, d_k must be even", c.d_k);
    if (c.T < 2)
        return exp_usage("--T %zu: the claim needs T >= 2 keys (with one key its weight is 1 "
                         "whatever the scores, and every score gradient is zero)", c.T);
    // point 0: no RoPE (stream 0), point 1: RoPE after the bias (stream 1)
    mc_config cfg = exp_mc(e, "key_bias");
    cfg.points = 2, cfg.nstats = NSTAT, cfg.draw_at = draw_at, cfg.ctx = &c;
    cfg.alloc = scratch_alloc, cfg.free = scratch_free;
    size_t n = o->draws;
    stat_acc acc[2 * NSTAT];
    cfg.values = mem_calloc(2 * n * NSTAT, sizeof(double), "key_bias per-draw values");
    if (cfg.values == NULL) return att_alloc_status();
    int rc = mc_run(&cfg, acc);

    mode_row m[2];
    draw_row *dr = rc ? NULL : mem_calloc(2 * n, sizeof *dr, "key_bias per-draw rows");
    if (!rc && dr == NULL) rc = att_alloc_status();
    for (int r = 0; r < 2 && !rc; r++) {
        const stat_acc *a = acc + r * NSTAT;
        m[r] = (mode_row){.rope = r, .draws = a[S_OUT].n, .out_mean = a[S_OUT].mean, .out_max = a[S_OUT].max,
                          .tol_min = a[S_TOL].min, .ratio_mean = a[S_RATIO].mean, .ratio_min = a[S_RATIO].min,
                          .ratio_max = a[S_RATIO].max, .fd_max = a[S_FD].max, .dbq_mean = a[S_NQ].mean,
                          .dbk_mean = a[S_NK].mean};
        stat_ci95(&a[S_OUT], &m[r].out_lo, &m[r].out_hi);
        stat_ci95(&a[S_RATIO], &m[r].ratio_lo, &m[r].ratio_hi);
        for (int k = 0; k < NPARAM; k++) m[r].fd[k] = a[S_FD0 + k].max;
        for (size_t i = 0; i < n; i++) {
            const double *v = cfg.values + (r * n + i) * NSTAT;
            dr[r * n + i] = (draw_row){r, i, v[S_NQ], v[S_NK], v[S_RATIO], v[S_FD], v[S_OUT]};
        }
    }
    double shift = NAN;
    if (!rc) rc = shift_example(e, &c, &shift);
    if (!rc) rc = TABLE_WRITE(o->out_dir, "key_bias.csv", mode_cols, m, 2);
    if (!rc) rc = TABLE_WRITE(o->out_dir, "key_bias_draws.csv", draw_cols, dr, 2 * n);
    if (dr) mem_free(dr, 2 * n, sizeof *dr);
    mem_free(cfg.values, 2 * n * NSTAT, sizeof(double));
    if (rc) return rc;
    exp_meta(e, "T: %zu\nd: %zu\nd_k: %zu\nd_v: %zu\nrope_base: 10000\nfd_step: %g", c.T, c.d, c.d_k,
             c.d_v, FD_STEP);
    exp_meta(e, "shift_example: %.17g", shift);

    const stat_acc *a0 = acc, *a1 = acc + NSTAT;
    double worst = fmax(a0[S_FD].max, a1[S_FD].max);
    int wk = 0;
    for (int k = 0; k < NPARAM; k++)
        if (fmax(a0[S_FD0 + k].max, a1[S_FD0 + k].max) == worst) wk = k;
    // the headline: with RoPE the key bias gets a real gradient
    if ((rc = verdict_add(&e->v, KIND_CLAIM, "keyBiasGradRatioRope", NAN, measure_stat(&a1[S_RATIO]),
                          rule_ci_above(1e-3), "mean ||dL/db_K|| / ||dL/db_Q|| with RoPE after the bias "
                          "(T = %zu, d = %zu, d_k = %zu, d_v = %zu)", c.T, c.d, c.d_k, c.d_v))
        || (rc = verdict_add(&e->v, KIND_REPORTED, "keyBiasGradRatioMax", NAN,
                               measure_as(measure_exact(a0[S_RATIO].max, n), NAT_ROUNDING),
                             rule_none(), "largest ||dL/db_K|| / ||dL/db_Q|| without RoPE (zero up to rounding)"))
        || (rc = verdict_add(&e->v, KIND_IDENTITY, "keyBiasGradRoundingMax", 0.0,
                             measure_exact(a0[S_RATIO_REL].max, n), rule_at_most(1.0),
                             "largest ||dL/db_K|| without RoPE in units of its per-draw rounding bound "
                             "8 T eps sum_i ||q_i|| ||g_i|| max_j ||v_j||"))
        || (rc = verdict_add(&e->v, KIND_IDENTITY, "keyBiasOutChangeMax", 0.0, measure_exact(a0[S_OUT].max, n),
                             rule_at_most(a0[S_TOL].min), "largest relative change of O when b_K is removed, "
                             "without RoPE (bound: the smallest per-draw rounding tolerance)"))
        || (rc = verdict_add(&e->v, KIND_CLAIM, "keyBiasOutChangeRope", NAN, measure_stat(&a1[S_OUT]),
                             rule_ci_above(1e-3), "mean relative change of O when b_K is removed, with RoPE"))
        || (rc = verdict_add(&e->v, KIND_REPORTED, "keyBiasGradRatioRopeMin", NAN,
                             measure_exact(a1[S_RATIO].min, n), rule_none(),
                             "smallest ||dL/db_K|| / ||dL/db_Q|| with RoPE over the draws"))
        || (rc = verdict_add(&e->v, KIND_IDENTITY, "keyBiasFDErrMax", 0.0, measure_exact(worst, 2 * n),
                             rule_at_most(1e-6), "worst disagreement of backprop and central differences "
                             "(h = %g: error O(h^2) + O(eps/h)), relative to the draw's gradient, over b_Q b_K "
                             "b_V W_Q W_K W_V, with and without RoPE (worst: %s)", FD_STEP, bias_param_names[wk])))
        return rc;
    return ATT_OK;
}

int main(int argc, char **argv)
{
    static const experiment_def def = {"key_bias", "the key bias changes nothing and gets a zero gradient, "
                                       "unless RoPE follows it", OPT_MC | OPT_T | OPT_D | OPT_DK | OPT_DV,
                                       20261129UL, 400, NULL, run};
    return experiment_main(&def, argc, argv);
}
