/* key_bias - the key bias does nothing (unless RoPE comes after it).
 *
 * Claim (key_bias): with k_j = W_K^T x_j + b_K the score is
 *   s_ij = q_i . k_j = q_i . (W_K^T x_j) + q_i . b_K,
 * and the second term is the same for every key j of row i. Softmax ignores a
 * constant added to a row, so the weights, the output and any loss do not
 * depend on b_K: its gradient is exactly zero. With rotary position
 * embeddings applied after the bias, key j sees R_j b_K, a different vector
 * for every position, and the bias is no longer redundant.
 *
 * Measured, for T = 8, d = 16, d_k = d_v = 8 (X ~ N(0, 1), weights
 * ~ N(0, 1/d), biases b_Q, b_K, b_V ~ N(0, 1), loss L = sum(G .* O) with
 * G ~ N(0, 1)), without and with RoPE (base 10000), per draw:
 *   - ||O(b_K) - O(0)||_F / ||O(0)||_F, the change of the output when b_K is
 *     removed, against a rounding tolerance computed for that draw;
 *   - ||dL/db_K|| / ||dL/db_Q|| from the backward pass (lib/head.h);
 *   - every backprop gradient (b_Q, b_K, b_V, W_Q, W_K, W_V) against central
 *     finite differences (L(t + h) - L(t - h)) / 2h, h = 1e-5, as
 *     ||g_bp - g_fd|| / max(||g_bp||, ||g_fd||) per parameter group; where the
 *     exact gradient is zero (b_K without RoPE) the denominator is ||dL/db_Q||.
 *
 * Tolerance of the output change (no RoPE), per draw: the two runs share
 * Q, V and X W_K bit for bit; they differ by the rounding of the bias add
 * and of the dot products q_i . k_j, at most (d_k + 1) eps P with
 * P = max_ij sum_l |q_il| |k_jl| (Higham 3.5), and by the softmax and the
 * weighted sum, ~ T eps. A score error D moves each weight row by <= 2 D in
 * l1, so each output row by <= 2 D max_j ||v_j||. Hence
 *   tol = 16 (d_k + T) eps (1 + P) sqrt(T) max_j ||v_j|| / ||O||_F,
 * and the verdict compares the largest change with the smallest tol.
 *
 * Writes into --out:
 *   key_bias.csv        one row per mode (rope 0/1): draws, mean/CI/max of the
 *                       output change, the gradient ratio, the FD errors
 *   key_bias_draws.csv  one row per draw and mode: ||dL/db_Q||, ||dL/db_K||,
 *                       ratio, worst FD error, output change (the figure)
 *   key_bias.meta, key_bias.verdicts.csv
 * Options: --seed --draws (per mode) --rng --T (>= 2) --d --dk (even) --dv.
 */
#include "circuits.h"
#include "tol.h"
#include "head.h"
#include "mat.h"
#include "mc.h"
#include "opts.h"
#include "output.h"
#include "stats.h"
#include "status.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <gsl/gsl_blas.h>

#define ID "key_bias"
#define FD_STEP 1e-5

enum { P_BQ, P_BK, P_BV, P_WQ, P_WK, P_WV, NPARAM };
static const char *const param_names[NPARAM] = {"b_Q", "b_K", "b_V", "W_Q", "W_K", "W_V"};

/* per-draw statistics */
enum { S_OUT, S_TOL, S_RATIO, S_FD, S_FD0, S_NQ = S_FD0 + NPARAM, S_NK, NSTAT };

typedef struct {
    size_t T, d, d_k, d_v;
    int rope;
    double *norm_dbq, *norm_dbk, *ratio, *fd, *out;  /* per draw (draws) */
} kb_config;

typedef struct {
    gsl_matrix *X, *W[3], *G;          /* W_Q, W_K, W_V */
    gsl_vector *b[3];                  /* b_Q, b_K, b_V */
    head_state st, st0, stf;
    head_grads g;
} kb_scratch;

static void kb_free(void *p)
{
    kb_scratch *s = p;
    if (s == NULL) return;
    mat_free(s->X); mat_free(s->G);
    for (int k = 0; k < 3; k++) { mat_free(s->W[k]); vec_free(s->b[k]); }
    head_state_free(&s->st); head_state_free(&s->st0); head_state_free(&s->stf);
    head_grads_free(&s->g);
    free(s);
}

static void *kb_alloc(void *ctx)
{
    const kb_config *c = ctx;
    kb_scratch *s = calloc(1, sizeof *s);
    if (s == NULL) return NULL;
    s->X = mat_new(c->T, c->d);
    s->G = mat_new(c->T, c->d_v);
    s->W[0] = mat_new(c->d, c->d_k); s->W[1] = mat_new(c->d, c->d_k); s->W[2] = mat_new(c->d, c->d_v);
    s->b[0] = vec_new(c->d_k); s->b[1] = vec_new(c->d_k); s->b[2] = vec_new(c->d_v);
    int ok = s->X && s->G && s->W[0] && s->W[1] && s->W[2] && s->b[0] && s->b[1] && s->b[2]
             && !head_state_alloc(&s->st, c->T, c->T, c->d, c->d_k, c->d_v)
             && !head_state_alloc(&s->st0, c->T, c->T, c->d, c->d_k, c->d_v)
             && !head_state_alloc(&s->stf, c->T, c->T, c->d, c->d_k, c->d_v)
             && !head_grads_alloc(&s->g, c->T, c->T, c->d, c->d_k, c->d_v);
    if (!ok) { kb_free(s); return NULL; }
    return s;
}

static head_params kb_params(const kb_scratch *s, const kb_config *c, int with_bk)
{
    head_params p = head_params_make(s->W[0], s->W[1], s->W[2]);
    p.b_Q = s->b[0];
    p.b_K = with_bk ? s->b[1] : NULL;
    p.b_V = s->b[2];
    p.rope = c->rope;
    return p;
}

/* L = sum_ij G_ij O_ij */
static double kb_loss(const gsl_matrix *G, const gsl_matrix *O)
{
    double L = 0.0;
    for (size_t i = 0; i < O->size1; i++)
        for (size_t j = 0; j < O->size2; j++) L += gsl_matrix_get(G, i, j) * gsl_matrix_get(O, i, j);
    return L;
}

/* Group k (b_Q, b_K, b_V, W_Q, W_K, W_V) has kb_param_count values; entry i
 * (row-major for the matrices) of the parameter and of its gradient. */
static size_t kb_param_count(const kb_scratch *s, int k)
{
    return k < 3 ? s->b[k]->size : s->W[k - 3]->size1 * s->W[k - 3]->size2;
}

static double *kb_param_entry(kb_scratch *s, int k, size_t i)
{
    if (k < 3) return gsl_vector_ptr(s->b[k], i);
    gsl_matrix *W = s->W[k - 3];
    return gsl_matrix_ptr(W, i / W->size2, i % W->size2);
}

static double kb_grad_entry(const head_grads *g, int k, size_t i)
{
    const gsl_vector *db[3] = {g->db_Q, g->db_K, g->db_V};
    const gsl_matrix *dW[3] = {g->dW_Q, g->dW_K, g->dW_V};
    if (k < 3) return gsl_vector_get(db[k], i);
    const gsl_matrix *D = dW[k - 3];
    return gsl_matrix_get(D, i / D->size2, i % D->size2);
}

/* FD error of group k: ||g_bp - g_fd|| / max(||g_bp||, ||g_fd||, floor) */
static int kb_fd_group(kb_scratch *s, const kb_config *c, int k, double floor_norm, double *err)
{
    size_t n = kb_param_count(s, k);
    head_params p = kb_params(s, c, 1);
    double diff2 = 0.0, bp2 = 0.0, fd2 = 0.0;
    for (size_t i = 0; i < n; i++) {
        double *t = kb_param_entry(s, k, i);
        double t0 = *t, Lp, Lm;
        int rc;
        // dL/dt ~ (L(t + h) - L(t - h)) / 2h, error O(h^2)
        *t = t0 + FD_STEP;
        if ((rc = head_forward(&s->stf, &p, s->X, s->X))) { *t = t0; return rc; }
        Lp = kb_loss(s->G, s->stf.O);
        *t = t0 - FD_STEP;
        if ((rc = head_forward(&s->stf, &p, s->X, s->X))) { *t = t0; return rc; }
        Lm = kb_loss(s->G, s->stf.O);
        *t = t0;
        double fd = (Lp - Lm) / (2.0 * FD_STEP), bp = kb_grad_entry(&s->g, k, i);
        diff2 += (bp - fd) * (bp - fd);
        bp2 += bp * bp;
        fd2 += fd * fd;
    }
    double den = fmax(fmax(sqrt(bp2), sqrt(fd2)), floor_norm);
    *err = den > 0.0 ? sqrt(diff2) / den : sqrt(diff2);
    return ATT_OK;
}

static int kb_draw(void *ctx, void *scratch, gsl_rng *rng, size_t draw, double *out)
{
    kb_config *c = ctx;
    kb_scratch *s = scratch;
    double sw = 1.0 / sqrt((double)c->d);
    mat_randn(s->X, rng, 1.0);
    for (int k = 0; k < 3; k++) mat_randn(s->W[k], rng, sw);
    for (int k = 0; k < 3; k++) vec_randn(s->b[k], rng, 1.0);
    mat_randn(s->G, rng, 1.0);

    // the head with b_K and without it
    head_params p = kb_params(s, c, 1), p0 = kb_params(s, c, 0);
    int rc = head_forward(&s->st, &p, s->X, s->X);
    if (!rc) rc = head_forward(&s->st0, &p0, s->X, s->X);
    // backprop of L = sum(G .* O)
    if (!rc) rc = head_backward(&s->g, &s->st, &p, s->X, s->X, s->G);
    if (rc) return rc;

    out[S_OUT] = mat_rel_diff(s->st.O, s->st0.O);
    // tol = 16 (d_k + T) eps (1 + P) sqrt(T) max_j ||v_j|| / ||O||_F   (header comment)
    double P = fmax(tol_product_scale(s->st.Q, s->st.K), tol_product_scale(s->st0.Q, s->st0.K));
    double vmax = 0.0;
    for (size_t j = 0; j < c->T; j++) {
        gsl_vector_const_view v = gsl_matrix_const_row(s->st.V, j);
        vmax = fmax(vmax, gsl_blas_dnrm2(&v.vector));
    }
    out[S_TOL] = 16.0 * (double)(c->d_k + c->T) * DBL_EPSILON * (1.0 + P) * sqrt((double)c->T)
                 * vmax / mat_frob(s->st0.O);
    double nq = gsl_blas_dnrm2(s->g.db_Q), nk = gsl_blas_dnrm2(s->g.db_K);
    out[S_RATIO] = nk / nq;
    out[S_NQ] = nq;
    out[S_NK] = nk;

    // finite differences, every parameter of every group
    out[S_FD] = 0.0;
    for (int k = 0; k < NPARAM; k++) {
        double floor_norm = (k == P_BK && !c->rope) ? nq : 0.0;
        if ((rc = kb_fd_group(s, c, k, floor_norm, &out[S_FD0 + k]))) return rc;
        out[S_FD] = fmax(out[S_FD], out[S_FD0 + k]);
    }
    c->norm_dbq[draw] = nq;
    c->norm_dbk[draw] = nk;
    c->ratio[draw] = out[S_RATIO];
    c->fd[draw] = out[S_FD];
    c->out[draw] = out[S_OUT];
    return ATT_OK;
}

static void put(FILE *f, double x) { fputc(',', f); csv_num(f, x); }

static int kb_write(const opts *o, kb_config cfg[2], stat_acc acc[2][NSTAT])
{
    afile af;
    int st = afile_open(&af, o->out_dir, ID ".csv");
    if (st) return st;
    fputs("rope,draws,out_mean,out_lo,out_hi,out_max,tol_min,ratio_mean,ratio_lo,ratio_hi,"
          "ratio_min,ratio_max,fd_max", af.f);
    for (int k = 0; k < NPARAM; k++) fprintf(af.f, ",fd_%s_max", param_names[k]);
    fputs(",dbq_mean,dbk_mean\n", af.f);
    for (int m = 0; m < 2; m++) {
        double lo, hi, rlo, rhi;
        stat_ci95(&acc[m][S_OUT], &lo, &hi);
        stat_ci95(&acc[m][S_RATIO], &rlo, &rhi);
        fprintf(af.f, "%d,%zu", cfg[m].rope, acc[m][S_OUT].n);
        put(af.f, acc[m][S_OUT].mean); put(af.f, lo); put(af.f, hi); put(af.f, acc[m][S_OUT].max);
        put(af.f, acc[m][S_TOL].min);
        put(af.f, acc[m][S_RATIO].mean); put(af.f, rlo); put(af.f, rhi);
        put(af.f, acc[m][S_RATIO].min); put(af.f, acc[m][S_RATIO].max);
        put(af.f, acc[m][S_FD].max);
        for (int k = 0; k < NPARAM; k++) put(af.f, acc[m][S_FD0 + k].max);
        put(af.f, acc[m][S_NQ].mean); put(af.f, acc[m][S_NK].mean);
        fputc('\n', af.f);
    }
    if ((st = afile_commit(&af))) return st;

    if ((st = afile_open(&af, o->out_dir, ID "_draws.csv"))) return st;
    fputs("rope,draw,norm_dbq,norm_dbk,ratio,fd_err,out_change\n", af.f);
    for (int m = 0; m < 2; m++)
        for (size_t i = 0; i < o->draws; i++) {
            fprintf(af.f, "%d,%zu", cfg[m].rope, i);
            put(af.f, cfg[m].norm_dbq[i]); put(af.f, cfg[m].norm_dbk[i]); put(af.f, cfg[m].ratio[i]);
            put(af.f, cfg[m].fd[i]); put(af.f, cfg[m].out[i]);
            fputc('\n', af.f);
        }
    return afile_commit(&af);
}

static int kb_verdicts(const opts *o, const kb_config *c, stat_acc acc[2][NSTAT])
{
    verdict_list vl;
    verdicts_init(&vl);
    char q[256], rule[128];
    size_t n = o->draws;
    double lo, hi;
    int st;

    const stat_acc *a0 = acc[0], *a1 = acc[1];
    /* min and max skip NaN; a NaN ratio (0/0 in some draw) shows in the mean
     * and must fail the ratio verdicts instead of passing them */
    int ratios_ok = !isnan(a0[S_RATIO].mean) && !isnan(a1[S_RATIO].mean);
    /* first row: the headline of the claim, the key bias gets no gradient */
    snprintf(q, sizeof q, "largest ||dL/db_K|| / ||dL/db_Q|| without RoPE (T = %zu, d = %zu, "
             "d_k = %zu, d_v = %zu; mean %.3g)", c->T, c->d, c->d_k, c->d_v, a0[S_RATIO].mean);
    st = verdict_exact(&vl, "keyBiasGradRatioMax", q, 0.0, a0[S_RATIO].max, 1e-12,
                       ratios_ok && a0[S_RATIO].max <= 1e-12, "<= 1e-12");
    if (!st) vl.v[vl.n - 1].m.draws = n;
    if (!st) {
        snprintf(q, sizeof q, "largest relative change of the output O when b_K is removed, no RoPE");
        snprintf(rule, sizeof rule, "<= the smallest per-draw rounding tolerance");
        st = verdict_exact(&vl, "keyBiasOutChangeMax", q, 0.0, a0[S_OUT].max, a0[S_TOL].min,
                           a0[S_OUT].max <= a0[S_TOL].min, rule);
        if (!st) vl.v[vl.n - 1].m.draws = n;
    }
    if (!st) {
        snprintf(q, sizeof q, "smallest ||dL/db_K|| / ||dL/db_Q|| with RoPE (base 10000)");
        st = verdict_exact(&vl, "keyBiasGradRatioRopeMin", q, NAN, a1[S_RATIO].min, 1e-3,
                           ratios_ok && a1[S_RATIO].min >= 1e-3, ">= 1e-3");
        if (!st) vl.v[vl.n - 1].m.draws = n;
    }
    if (!st) {
        stat_ci95(&a1[S_RATIO], &lo, &hi);
        snprintf(q, sizeof q, "mean ||dL/db_K|| / ||dL/db_Q|| with RoPE (base 10000)");
        st = verdict_mc(&vl, "keyBiasGradRatioRope", q, NAN, a1[S_RATIO].mean, lo, hi, n,
                        lo >= 1e-3, "CI low >= 1e-3");
    }
    if (!st) {
        stat_ci95(&a1[S_OUT], &lo, &hi);
        snprintf(q, sizeof q, "mean relative change of the output when b_K is removed, with RoPE");
        st = verdict_mc(&vl, "keyBiasOutChangeRope", q, NAN, a1[S_OUT].mean, lo, hi, n,
                        lo >= 1e-3, "CI low >= 1e-3 (b_K matters)");
    }
    if (!st) {
        double worst = fmax(a0[S_FD].max, a1[S_FD].max);
        int wk = 0;
        for (int k = 0; k < NPARAM; k++)
            if (fmax(a0[S_FD0 + k].max, a1[S_FD0 + k].max) == worst) wk = k;
        snprintf(q, sizeof q, "worst relative disagreement of backprop and central finite differences "
                 "(h = %g), over b_Q b_K b_V W_Q W_K W_V, with and without RoPE (worst: %s)",
                 FD_STEP, param_names[wk]);
        st = verdict_exact(&vl, "keyBiasFDErrMax", q, 0.0, worst, 1e-6, worst <= 1e-6, "<= 1e-6");
        if (!st) vl.v[vl.n - 1].m.draws = 2 * n;
    }
    if (!st) st = legacy_verdicts_write(&vl, o);
    if (!st) st = verdicts_status(&vl);
    verdicts_free(&vl);
    return st;
}

int main(int argc, char **argv)
{
    att_init();
    const opts_info info = {ID, "the key bias changes nothing and gets a zero gradient, unless RoPE follows it",
                            OPT_MC | OPT_T | OPT_D | OPT_DK | OPT_DV, 20261129UL, 400, NULL};
    opts o;
    int st = opts_parse(&o, &info, argc, argv);
    if (st) return opts_exit(&o, st);
    kb_config base = {o.T ? o.T : 8, o.d ? o.d : 16, o.dk ? o.dk : 8, o.dv ? o.dv : 8, 0,
                      NULL, NULL, NULL, NULL, NULL};
    if (base.d_k % 2 != 0)
        return opts_exit(&o, att_fail(ATT_EUSAGE, "--dk %zu: RoPE rotates pairs, d_k must be even", base.d_k));
    if (base.T < 2)
        return opts_exit(&o, att_fail(ATT_EUSAGE, "--T %zu: the claim needs T >= 2 keys (with one key "
                                      "its weight is 1 whatever the scores, and every score "
                                      "gradient is zero)", base.T));
    /* per thread: inputs, weights, three head states, the gradients and the
     * backward pass's temporaries (kb_alloc, head_backward) */
    double T = (double)base.T, d = (double)base.d, dk = (double)base.d_k, dv = (double)base.d_v;
    double scratch = 3 * T * d + 4 * d * dk + 2 * d * dv + 14 * T * dk + 8 * T * dv + 7 * T * T
                     + 3 * (dk + dv + T);
    if ((st = opts_check_memory(&o, mat_bytes(o.draws, 10), "key_bias per-draw records"))
        || (st = opts_check_memory(&o, mc_run_bytes(mat_bytes_approx(scratch), o.draws, NSTAT),
                                   "key_bias scratch (per thread) and Monte Carlo blocks")))
        return opts_exit(&o, st);

    kb_config cfg[2] = {base, base};
    stat_acc acc[2][NSTAT];
    double *mem = calloc(10 * o.draws, sizeof *mem);
    if (mem == NULL) return opts_exit(&o, att_fail(ATT_ERUNTIME, "out of memory for %zu draws", o.draws));
    for (int m = 0; m < 2 && !st; m++) {
        double *b = mem + 5 * o.draws * (size_t)m;
        cfg[m].rope = m;
        cfg[m].norm_dbq = b; cfg[m].norm_dbk = b + o.draws; cfg[m].ratio = b + 2 * o.draws;
        cfg[m].fd = b + 3 * o.draws; cfg[m].out = b + 4 * o.draws;
        // stream m: mode 0 (no RoPE) and mode 1 (RoPE) have their own draws
        mc_config mc = {.rng_name = o.rng_name, .seed = o.seed, .stream = (uint64_t)m,
                        .draws = o.draws, .nstats = NSTAT, .draw = kb_draw, .alloc = kb_alloc,
                        .free = kb_free, .ctx = &cfg[m], .label = m ? ID " (RoPE)" : ID,
                        .quiet = o.quiet};
        st = mc_run(&mc, acc[m]);
    }
    if (!st) st = kb_write(&o, cfg, acc);
    if (!st) {
        char meta[160];
        snprintf(meta, sizeof meta, "T: %zu\nd: %zu\nd_k: %zu\nd_v: %zu\nrope_base: 10000\nfd_step: %g",
                 base.T, base.d, base.d_k, base.d_v, FD_STEP);
        st = output_meta(&o, meta);
    }
    if (!st) st = kb_verdicts(&o, &base, acc);
    free(mem);
    return opts_exit(&o, st);
}
