/* query_bias - the query bias is a preference for some keys that does not
 * depend on the query.
 *
 * Claim (query_bias): with q_i = W_Q^T x_i + b_Q the score becomes
 *   s_ij = (q_i + b_Q) . k_j = q_i . k_j + b_Q . k_j,
 * and the added term b_Q . k_j depends on the key j but not on the query i:
 * S(b_Q) - S(0) = 1 (K b_Q)^T has identical rows. Unlike b_K (whose term is
 * constant along a row and cancels in the softmax), it changes the weights.
 * With W_Q = 0 every query is b_Q, so every row of A equals softmax(K b_Q).
 *
 * Measured on --draws random heads (sizes T_q, T_k, d, d_k drawn per head;
 * self-attention in half of them; X ~ N(0, 1), weights ~ N(0, 1/d) with W_Q
 * scaled by a sharpness in [0.1, 10], b_Q ~ N(0, sigma^2) with sigma
 * log-uniform in [0.01, 100]):
 *   - row spread of D = S(b_Q) - S(0), max_ij |D_ij - D_0j|, relative to the
 *     rounding scale r = max_ij sum_l |q_il| |k_jl| of both score matrices;
 *     PASS when <= 4 d_k eps for every head (Higham's dot-product bound);
 *   - max_ij |D_ij - (K b_Q)_j| relative to the same scale plus that of K b_Q;
 *   - W_Q = 0: max_ij |a_ij - softmax(K b_Q)_j|, K b_Q by dgemv, PASS when
 *     <= 8 d_k eps r(K b_Q) + 4 T_k eps for every head;
 *   - how much b_Q moves the weights, ||A(b_Q) - A(0)||_F / ||A(0)||_F
 *     (mean and 95% CI): a real effect, not a no-op like b_K.
 *
 * Writes into --out:
 *   query_bias.csv   one row per head: draw,T_q,T_k,d,d_k,self,b_sigma,
 *                    rel_row_spread,tol_row_spread,rel_shift_err,
 *                    zero_wq_err,zero_wq_tol,rel_change_A
 *   query_bias.meta, query_bias.verdicts.csv
 */
#include "circuits.h"
#include "tol.h"
#include "head.h"
#include "mat.h"
#include "mc.h"
#include "opts.h"
#include "output.h"
#include "rng.h"
#include "softmax.h"
#include "stats.h"
#include "status.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <gsl/gsl_blas.h>

#define ID "query_bias"

enum { MAX_T = 48, MAX_D = 48, MAX_DK = 32 };

/* per-draw values: pushed to the statistics and kept for the CSV */
enum { V_TQ, V_TK, V_D, V_DK, V_SELF, V_SIGMA, V_SPREAD, V_SPREAD_TOL, V_SHIFT, V_ZERO,
       V_ZERO_TOL, V_CHANGE, V_SPREAD_OK, V_SHIFT_OK, V_ZERO_OK, NV };
static const char *const COLS[NV] = { "T_q", "T_k", "d", "d_k", "self", "b_sigma",
    "rel_row_spread", "tol_row_spread", "rel_shift_err", "zero_wq_err", "zero_wq_tol",
    "rel_change_A", "spread_ok", "shift_ok", "zero_ok" };
enum { NCSV = V_CHANGE + 1 };   /* the pass flags stay out of the CSV */

typedef struct {
    double *rows;   /* draws x NV, row `draw` written by that draw only */
} ctx_t;

/* One random head: every matrix at its maximum size, used through views. */
typedef struct {
    gsl_matrix *Xq, *Xkv, *W_Q, *W_K, *W_V, *Z;
    gsl_vector *b, *kb, *astar;
} scratch_t;

static void scratch_free(void *s)
{
    scratch_t *w = s;
    if (w == NULL) return;
    mat_free(w->Xq); mat_free(w->Xkv); mat_free(w->W_Q); mat_free(w->W_K);
    mat_free(w->W_V); mat_free(w->Z);
    vec_free(w->b); vec_free(w->kb); vec_free(w->astar);
    free(w);
}

static void *scratch_alloc(void *c)
{
    (void)c;
    scratch_t *w = calloc(1, sizeof *w);
    if (w == NULL) return NULL;
    w->Xq = mat_new(MAX_T, MAX_D); w->Xkv = mat_new(MAX_T, MAX_D);
    w->W_Q = mat_new(MAX_D, MAX_DK); w->W_K = mat_new(MAX_D, MAX_DK);
    w->W_V = mat_new(MAX_D, MAX_DK); w->Z = mat_new(MAX_D, MAX_DK);
    w->b = vec_new(MAX_DK); w->kb = vec_new(MAX_T); w->astar = vec_new(MAX_T);
    if (!w->Xq || !w->Xkv || !w->W_Q || !w->W_K || !w->W_V || !w->Z || !w->b || !w->kb
        || !w->astar) {
        scratch_free(w);
        return NULL;
    }
    return w;
}

/* One random head, run three times: with b_Q, without, and with W_Q = 0.
 * Xq (T_q, d), Xkv (T_k, d), W_Q, W_K, W_V (d, d_k), b_Q (d_k);
 * S, A (T_q, T_k); K b_Q and softmax(K b_Q) (T_k). */
static int draw(void *c, void *s, gsl_rng *rng, size_t di, double *out)
{
    ctx_t *cx = c;
    scratch_t *w = s;
    // sizes, and views of the scratch at these sizes
    int self = gsl_rng_uniform(rng) < 0.5;
    size_t T_q = rng_uniform_size(rng, 1, MAX_T), T_k = self ? T_q : rng_uniform_size(rng, 2, MAX_T);
    if (self && T_q < 2) T_q = T_k = 2;
    size_t d = rng_uniform_size(rng, 1, MAX_D), d_k = rng_uniform_size(rng, 1, MAX_DK);
    double sharp = rng_log_uniform(rng, -1, 1), sigma = rng_log_uniform(rng, -2, 2);
    gsl_matrix_view Xq = gsl_matrix_submatrix(w->Xq, 0, 0, T_q, d);
    gsl_matrix_view Xkv = gsl_matrix_submatrix(self ? w->Xq : w->Xkv, 0, 0, T_k, d);
    gsl_matrix_view W_Q = gsl_matrix_submatrix(w->W_Q, 0, 0, d, d_k);
    gsl_matrix_view W_K = gsl_matrix_submatrix(w->W_K, 0, 0, d, d_k);
    gsl_matrix_view W_V = gsl_matrix_submatrix(w->W_V, 0, 0, d, d_k);
    gsl_matrix_view Z = gsl_matrix_submatrix(w->Z, 0, 0, d, d_k);
    gsl_vector_view b = gsl_vector_subvector(w->b, 0, d_k);
    gsl_vector_view kb = gsl_vector_subvector(w->kb, 0, T_k);
    gsl_vector_view astar = gsl_vector_subvector(w->astar, 0, T_k);
    mat_randn(&Xq.matrix, rng, 1.0);
    if (!self) mat_randn(&Xkv.matrix, rng, 1.0);
    mat_randn(&W_Q.matrix, rng, sharp / sqrt((double)d));
    mat_randn(&W_K.matrix, rng, 1.0 / sqrt((double)d));
    mat_randn(&W_V.matrix, rng, 1.0 / sqrt((double)d));
    vec_randn(&b.vector, rng, sigma);
    gsl_matrix_set_zero(&Z.matrix);

    head_state s0, sb, sz;
    int rc = head_state_alloc(&s0, T_q, T_k, d, d_k, d_k);
    if (!rc) rc = head_state_alloc(&sb, T_q, T_k, d, d_k, d_k);
    else sb = (head_state){ 0 };
    if (!rc) rc = head_state_alloc(&sz, T_q, T_k, d, d_k, d_k);
    else sz = (head_state){ 0 };
    if (rc) goto done;
    head_params p0 = head_params_make(&W_Q.matrix, &W_K.matrix, &W_V.matrix);
    head_params pb = p0, pz = head_params_make(&Z.matrix, &W_K.matrix, &W_V.matrix);
    pb.b_Q = &b.vector;
    pz.b_Q = &b.vector;
    if ((rc = head_forward(&s0, &p0, &Xq.matrix, &Xkv.matrix))
        || (rc = head_forward(&sb, &pb, &Xq.matrix, &Xkv.matrix))
        || (rc = head_forward(&sz, &pz, &Xq.matrix, &Xkv.matrix)))
        goto done;

    // D = S(b_Q) - S(0), in place of S(b_Q); exactly D = 1 (K b_Q)^T
    double r0 = tol_product_scale(s0.Q, s0.K), rb = tol_product_scale(sb.Q, sb.K);
    gsl_matrix_sub(sb.S, s0.S);
    double spread = circuit_row_spread(sb.S);
    double rel_spread = spread / fmax(rb + r0, DBL_MIN), tol_spread = tol_eps(4, d_k, 1.0);

    // kb = K b_Q by dgemv;  rows of D against kb^T
    gsl_blas_dgemv(CblasNoTrans, 1.0, s0.K, &b.vector, 0.0, &kb.vector);
    double rkb = 0.0;
    for (size_t j = 0; j < T_k; j++) {
        double sum = 0.0;
        for (size_t l = 0; l < d_k; l++)
            sum += fabs(gsl_matrix_get(s0.K, j, l)) * fabs(gsl_vector_get(&b.vector, l));
        rkb = fmax(rkb, sum);
    }
    double shift = 0.0;
    for (size_t i = 0; i < T_q; i++)
        for (size_t j = 0; j < T_k; j++)
            shift = fmax(shift, fabs(gsl_matrix_get(sb.S, i, j) - gsl_vector_get(&kb.vector, j)));
    double rel_shift = shift / fmax(rb + r0 + rkb, DBL_MIN);

    // W_Q = 0: every row of A against a* = softmax(K b_Q)
    if ((rc = softmax_vec(astar.vector.data, kb.vector.data, T_k))) goto done;
    double zero = 0.0;
    for (size_t i = 0; i < T_q; i++)
        for (size_t j = 0; j < T_k; j++)
            zero = fmax(zero, fabs(gsl_matrix_get(sz.A, i, j) - gsl_vector_get(&astar.vector, j)));
    double tol_zero = tol_eps(8, d_k, rkb) + tol_eps(4, T_k, 1.0);

    // the effect: ||A(b_Q) - A(0)||_F / ||A(0)||_F
    double change = mat_rel_diff(sb.A, s0.A);

    const double v[NV] = { (double)T_q, (double)T_k, (double)d, (double)d_k, (double)self,
                           sigma, rel_spread, tol_spread, rel_shift, zero, tol_zero, change,
                           rel_spread <= tol_spread, rel_shift <= tol_spread, zero <= tol_zero };
    for (int k = 0; k < NV; k++) {
        out[k] = v[k];
        cx->rows[di * NV + k] = v[k];
    }
done:
    head_state_free(&s0); head_state_free(&sb); head_state_free(&sz);
    return rc;
}

static int run(const opts *o)
{
    int rc = opts_check_memory(o, mat_bytes(o->draws, NV), "the per-draw table");
    if (rc) return rc;
    ctx_t cx = { malloc(mat_bytes(o->draws, NV)) };
    if (cx.rows == NULL) return att_fail(ATT_ERUNTIME, "out of memory for %zu draws", o->draws);
    stat_acc acc[NV];
    mc_config cfg = { .rng_name = o->rng_name, .seed = o->seed, .draws = o->draws, .nstats = NV,
                      .draw = draw, .alloc = scratch_alloc, .free = scratch_free, .ctx = &cx,
                      .label = ID, .quiet = o->quiet };
    verdict_list vl;
    verdicts_init(&vl);
    if ((rc = mc_run(&cfg, acc)) || (rc = csv_write_table(o->out_dir, ID ".csv", "draw", COLS, NCSV, cx.rows, o->draws, NV))
        || (rc = output_meta(o, NULL)))
        goto done;

    size_t n = o->draws;
    double tol_spread = tol_eps(4, MAX_DK, 1.0), lo, hi;
    stat_ci95(&acc[V_CHANGE], &lo, &hi);
    char q[200];
    snprintf(q, sizeof q, "row spread of S(b_Q) - S(0), relative to the rounding scale, max over "
             "%zu random heads", n);
    if ((rc = verdict_exact(&vl, "queryBiasRowSpread", q, 0.0, acc[V_SPREAD].max, tol_spread,
                            acc[V_SPREAD_OK].min == 1.0, "<= 4 d_k eps for every head: rows identical")))
        goto done;
    vl.v[vl.n - 1].m.draws = n;
    if ((rc = verdict_exact(&vl, "queryBiasShift",
                            "max |S(b_Q) - S(0) - 1 (K b_Q)^T|, relative to the rounding scale",
                            0.0, acc[V_SHIFT].max, tol_spread, acc[V_SHIFT_OK].min == 1.0,
                            "<= 4 d_k eps for every head: the added score is b_Q . k_j")))
        goto done;
    vl.v[vl.n - 1].m.draws = n;
    if ((rc = verdict_exact(&vl, "queryBiasZeroQuery",
                            "W_Q = 0: max |a_ij - softmax(K b_Q)_j| over every row",
                            0.0, acc[V_ZERO].max, acc[V_ZERO_TOL].max, acc[V_ZERO_OK].min == 1.0,
                            "<= 8 d_k eps |K||b_Q| + 4 T_k eps for every head")))
        goto done;
    vl.v[vl.n - 1].m.draws = n;
    if ((rc = verdict_mc(&vl, "queryBiasEffect",
                         "relative change of A caused by b_Q, ||A(b_Q) - A(0)|| / ||A(0)||",
                         NAN, acc[V_CHANGE].mean, lo, hi, n, lo >= 1e-3,
                         "CI above 1e-3: b_Q moves the weights (b_K would not)")))
        goto done;
    if ((rc = legacy_verdicts_write(&vl, o))) goto done;
    rc = verdicts_status(&vl);
done:
    verdicts_free(&vl);
    free(cx.rows);
    return rc;
}

int main(int argc, char **argv)
{
    att_init();
    const opts_info info = { ID, "the query bias adds a key-only preference: S(b_Q) - S(0) has identical rows",
                             OPT_MC, 42, 5000, NULL };
    opts o;
    int st = opts_parse(&o, &info, argc, argv);
    if (st) return opts_exit(&o, st);
    return opts_exit(&o, run(&o));
}
