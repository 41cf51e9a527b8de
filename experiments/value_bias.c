/* value_bias - the value bias passes straight through the weighted average,
 * so it can be folded into the output bias.
 *
 * Claim (value_bias): each row of A sums to 1, so
 *   sum_j a_ij (v_j + b_V) = o_i + b_V:
 * b_V just adds b_V to every output row. After the output projection,
 *   (o_i + b_V) W_O + b_O = o_i W_O + (b_O + b_V W_O),
 * so a head with b_V equals a head without it whose output bias is
 * b_O' = b_O + b_V W_O. The argument needs rows that sum to 1: with weights
 * that do not (for example an elementwise sigmoid of the scores) folding fails.
 *
 * Measured on --draws random heads (sizes T_q, T_k, d, d_k, d_v drawn per
 * head; self-attention in half of them; X ~ N(0, 1), W_Q, W_K, W_V ~ N(0, 1/d)
 * with W_Q scaled by a sharpness in [0.3, 3], W_O ~ N(0, 1/d_v), b_O ~ N(0, 1),
 * b_V ~ N(0, sigma^2) with sigma log-uniform in [0.1, 10]):
 *   - pass-through: max|O(b_V) - O(0) - 1 b_V^T| / scale_O with
 *     scale_O = max|V| + max|b_V|; PASS when <= 8 T_k eps in every head;
 *   - folding: max|Y_u - Y_f|, Y_u = O(b_V) W_O + b_O (unfolded) and
 *     Y_f = O(0) W_O + b_O' (folded), relative to the size of the output,
 *     scale_Y = scale_O max_j sum_l |W_O,lj| + max|b_O|; PASS when
 *     <= 8 (T_k + d_v) eps in every head;
 *   - negative control, the same heads with A = sigmoid(S) (rows summing to
 *     anything in (0, T_k)): max|Y_u - Y_f| relative to the folded term
 *     max|b_V W_O|. Its error is (sum_j a_ij - 1) b_V W_O, so this measures
 *     how far the rows are from summing to 1, whatever the size of b_V.
 *     PASS (the control fails to fold, as it must) when >= 1e-3 in every head.
 *   The figure shows the folding error of the softmax heads in the same
 *   normalization (relative to max|b_V W_O|) beside the control's.
 *
 * Writes into --out:
 *   value_bias.csv   one row per head: draw,T_q,T_k,d,d_k,d_v,self,b_sigma,
 *                    pass_err,pass_tol,fold_err,fold_tol,fold_err_vs_bias,
 *                    control_err_vs_bias,control_max_row_sum_defect
 *   value_bias.meta, value_bias.verdicts.csv
 */
#include "circuits.h"
#include "tol.h"
#include "head.h"
#include "mat.h"
#include "mc.h"
#include "opts.h"
#include "output.h"
#include "rng.h"
#include "stats.h"
#include "status.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define ID "value_bias"

enum { MAX_T = 48, MAX_D = 48, MAX_DK = 32 };
static const double CONTROL_MIN = 1e-3;   /* the catalogue's "large" */

enum { V_TQ, V_TK, V_D, V_DK, V_DV, V_SELF, V_SIGMA, V_PASS, V_PASS_TOL, V_FOLD, V_FOLD_TOL,
       V_FOLD_BW, V_CTRL, V_CTRL_DEFECT, V_PASS_OK, V_FOLD_OK, NV };
static const char *const COLS[NV] = { "T_q", "T_k", "d", "d_k", "d_v", "self", "b_sigma",
    "pass_err", "pass_tol", "fold_err", "fold_tol", "fold_err_vs_bias", "control_err_vs_bias",
    "control_max_row_sum_defect", "pass_ok", "fold_ok" };
enum { NCSV = V_CTRL_DEFECT + 1 };

typedef struct {
    double *rows;   /* draws x NV */
} ctx_t;

typedef struct {
    gsl_matrix *Xq, *Xkv, *W_Q, *W_K, *W_V, *W_O;
    gsl_vector *b_V, *b_O, *b_fold;
} scratch_t;

static void scratch_free(void *s)
{
    scratch_t *w = s;
    if (w == NULL) return;
    mat_free(w->Xq); mat_free(w->Xkv); mat_free(w->W_Q); mat_free(w->W_K);
    mat_free(w->W_V); mat_free(w->W_O);
    vec_free(w->b_V); vec_free(w->b_O); vec_free(w->b_fold);
    free(w);
}

static void *scratch_alloc(void *c)
{
    (void)c;
    scratch_t *w = calloc(1, sizeof *w);
    if (w == NULL) return NULL;
    w->Xq = mat_new(MAX_T, MAX_D); w->Xkv = mat_new(MAX_T, MAX_D);
    w->W_Q = mat_new(MAX_D, MAX_DK); w->W_K = mat_new(MAX_D, MAX_DK);
    w->W_V = mat_new(MAX_D, MAX_DK); w->W_O = mat_new(MAX_DK, MAX_D);
    w->b_V = vec_new(MAX_DK); w->b_O = vec_new(MAX_D); w->b_fold = vec_new(MAX_D);
    if (!w->Xq || !w->Xkv || !w->W_Q || !w->W_K || !w->W_V || !w->W_O || !w->b_V || !w->b_O
        || !w->b_fold) {
        scratch_free(w);
        return NULL;
    }
    return w;
}

/* max_j sum_l |W_lj|: the largest column 1-norm of W (d_v, d) */
static double max_col_abs_sum(const gsl_matrix *W)
{
    double m = 0.0;
    for (size_t j = 0; j < W->size2; j++) {
        double s = 0.0;
        for (size_t l = 0; l < W->size1; l++) s += fabs(gsl_matrix_get(W, l, j));
        m = fmax(m, s);
    }
    return m;
}

/* The two final outputs of one weighting A (T_q, T_k):
 *   Y_u = (A V1) W_O + 1 b_O^T       (head with b_V, unfolded)
 *   Y_f = (A V0) W_O + 1 b_fold^T    (head without b_V, folded bias)
 * Returns max |Y_u - Y_f| in *err. Work matrices are allocated here. */
static int fold_error(double *err, const gsl_matrix *A, const gsl_matrix *V1,
                      const gsl_matrix *V0, const gsl_matrix *W_O, const gsl_vector *b_O,
                      const gsl_vector *b_fold)
{
    size_t T_q = A->size1, d_v = V1->size2, d = W_O->size2;
    gsl_matrix *O1 = mat_new(T_q, d_v), *O0 = mat_new(T_q, d_v);
    gsl_matrix *Yu = mat_new(T_q, d), *Yf = mat_new(T_q, d);
    int rc = (!O1 || !O0 || !Yu || !Yf) ? ATT_ERUNTIME : ATT_OK;
    if (!rc) rc = head_weighted_sum(O1, A, V1);
    if (!rc) rc = head_weighted_sum(O0, A, V0);
    if (!rc) rc = head_project(Yu, O1, W_O, b_O);
    if (!rc) rc = head_project(Yf, O0, W_O, b_fold);
    if (!rc) *err = mat_max_abs_diff(Yu, Yf);
    mat_free(O1); mat_free(O0); mat_free(Yu); mat_free(Yf);
    return rc;
}

/* One random head with and without b_V, then its two final outputs.
 * Xq (T_q, d), Xkv (T_k, d), W_Q, W_K (d, d_k), W_V (d, d_v), b_V (d_v),
 * W_O (d_v, d), b_O and b_O' (d); O (T_q, d_v), Y (T_q, d). */
static int draw(void *c, void *s, gsl_rng *rng, size_t di, double *out)
{
    ctx_t *cx = c;
    scratch_t *w = s;
    int self = gsl_rng_uniform(rng) < 0.5;
    size_t T_q = rng_uniform_size(rng, 2, MAX_T), T_k = self ? T_q : rng_uniform_size(rng, 2, MAX_T);
    size_t d = rng_uniform_size(rng, 2, MAX_D), d_k = rng_uniform_size(rng, 1, MAX_DK);
    size_t d_v = rng_uniform_size(rng, 1, MAX_DK);
    double sharp = rng_log_uniform(rng, log10(0.3), log10(3.0)), sigma = rng_log_uniform(rng, -1, 1);
    gsl_matrix_view Xq = gsl_matrix_submatrix(w->Xq, 0, 0, T_q, d);
    gsl_matrix_view Xkv = gsl_matrix_submatrix(self ? w->Xq : w->Xkv, 0, 0, T_k, d);
    gsl_matrix_view W_Q = gsl_matrix_submatrix(w->W_Q, 0, 0, d, d_k);
    gsl_matrix_view W_K = gsl_matrix_submatrix(w->W_K, 0, 0, d, d_k);
    gsl_matrix_view W_V = gsl_matrix_submatrix(w->W_V, 0, 0, d, d_v);
    gsl_matrix_view W_O = gsl_matrix_submatrix(w->W_O, 0, 0, d_v, d);
    gsl_vector_view b_V = gsl_vector_subvector(w->b_V, 0, d_v);
    gsl_vector_view b_O = gsl_vector_subvector(w->b_O, 0, d);
    gsl_vector_view b_fold = gsl_vector_subvector(w->b_fold, 0, d);
    mat_randn(&Xq.matrix, rng, 1.0);
    if (!self) mat_randn(&Xkv.matrix, rng, 1.0);
    mat_randn(&W_Q.matrix, rng, sharp / sqrt((double)d));
    mat_randn(&W_K.matrix, rng, 1.0 / sqrt((double)d));
    mat_randn(&W_V.matrix, rng, 1.0 / sqrt((double)d));
    mat_randn(&W_O.matrix, rng, 1.0 / sqrt((double)d_v));
    vec_randn(&b_V.vector, rng, sigma);
    vec_randn(&b_O.vector, rng, 1.0);

    head_state s0, s1;
    gsl_matrix *E = NULL, *Ac = NULL;
    int rc = head_state_alloc(&s0, T_q, T_k, d, d_k, d_v);
    if (!rc) rc = head_state_alloc(&s1, T_q, T_k, d, d_k, d_v);
    else s1 = (head_state){ 0 };
    if (rc) goto done;
    if (!(E = mat_new(T_q, d_v)) || !(Ac = mat_new(T_q, T_k))) { rc = ATT_ERUNTIME; goto done; }
    head_params p0 = head_params_make(&W_Q.matrix, &W_K.matrix, &W_V.matrix), p1 = p0;
    p1.b_V = &b_V.vector;
    if ((rc = head_forward(&s0, &p0, &Xq.matrix, &Xkv.matrix))
        || (rc = head_forward(&s1, &p1, &Xq.matrix, &Xkv.matrix)))
        goto done;

    // pass-through: E = O(b_V) - (O(0) + 1 b_V^T)
    gsl_matrix_memcpy(E, s0.O);
    for (size_t i = 0; i < T_q; i++) {
        gsl_vector_view row = gsl_matrix_row(E, i);
        gsl_vector_add(&row.vector, &b_V.vector);
    }
    double scale_O = mat_max_abs(s0.V) + vec_max_abs(&b_V.vector);
    double pass = mat_max_abs_diff(s1.O, E) / scale_O, pass_tol = tol_eps(8, T_k, 1.0);

    // folding: b_O' = b_O + W_O^T b_V; Y_u vs Y_f with the softmax weights
    if ((rc = circuit_fold_value_bias(&b_fold.vector, &b_O.vector, &b_V.vector, &W_O.matrix)))
        goto done;
    double colsum = max_col_abs_sum(&W_O.matrix);
    double bO = vec_max_abs(&b_O.vector);
    double fold_abs, ctrl_abs;
    if ((rc = fold_error(&fold_abs, s0.A, s1.V, s0.V, &W_O.matrix, &b_O.vector, &b_fold.vector)))
        goto done;
    double fold = fold_abs / (scale_O * colsum + bO), fold_tol = tol_eps(8, T_k + d_v, 1.0);

    // negative control: A = sigmoid(S), rows summing to anything in (0, T_k)
    if ((rc = circuit_sigmoid_weights(Ac, s0.S))
        || (rc = fold_error(&ctrl_abs, Ac, s1.V, s0.V, &W_O.matrix, &b_O.vector, &b_fold.vector)))
        goto done;
    double defect = 0.0;
    for (size_t i = 0; i < T_q; i++) {
        double sum = 0.0;
        for (size_t j = 0; j < T_k; j++) sum += gsl_matrix_get(Ac, i, j);
        defect = fmax(defect, fabs(sum - 1.0));
    }
    // the figure's normalization: errors relative to the folded term b_V W_O
    //   (the control's error is (sum_j a_ij - 1) (b_V W_O), so this is its row-sum defect)
    double bw = 0.0;
    for (size_t j = 0; j < d; j++)
        bw = fmax(bw, fabs(gsl_vector_get(&b_fold.vector, j) - gsl_vector_get(&b_O.vector, j)));
    bw = fmax(bw, DBL_MIN);
    double fold_bw = fold_abs / bw, ctrl = ctrl_abs / bw;

    const double v[NV] = { (double)T_q, (double)T_k, (double)d, (double)d_k, (double)d_v,
                           (double)self, sigma, pass, pass_tol, fold, fold_tol, fold_bw, ctrl, defect,
                           pass <= pass_tol, fold <= fold_tol };
    for (int k = 0; k < NV; k++) {
        out[k] = v[k];
        cx->rows[di * NV + k] = v[k];
    }
done:
    mat_free(E); mat_free(Ac);
    head_state_free(&s0); head_state_free(&s1);
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
    char q[200];
    snprintf(q, sizeof q, "max |O(b_V) - O(0) - 1 b_V^T| / (max|V| + max|b_V|), over %zu random heads", n);
    if ((rc = verdict_exact(&vl, "valueBiasPassThrough", q, 0.0, acc[V_PASS].max,
                            acc[V_PASS_TOL].max, acc[V_PASS_OK].min == 1.0,
                            "<= 8 T_k eps for every head")))
        goto done;
    vl.v[vl.n - 1].m.draws = n;
    if ((rc = verdict_exact(&vl, "valueBiasFoldError",
                            "folded vs unfolded final output, b_O' = b_O + b_V W_O (relative max error)",
                            0.0, acc[V_FOLD].max, acc[V_FOLD_TOL].max, acc[V_FOLD_OK].min == 1.0,
                            "<= 8 (T_k + d_v) eps for every head")))
        goto done;
    vl.v[vl.n - 1].m.draws = n;
    if ((rc = verdict_exact(&vl, "valueBiasControlError",
                            "negative control, sigmoid weights: smallest folding error relative to |b_V W_O| over the heads",
                            NAN, acc[V_CTRL].min, CONTROL_MIN, acc[V_CTRL].min >= CONTROL_MIN,
                            ">= 1e-3 in every head: folding fails when rows do not sum to 1")))
        goto done;
    vl.v[vl.n - 1].m.draws = n;
    if (opts_verbose(o))
        printf("control (sigmoid weights): folding error / max|b_V W_O|: min %.3g, mean %.3g, max %.3g; "
               "largest |row sum - 1| %.3g\n", acc[V_CTRL].min, acc[V_CTRL].mean, acc[V_CTRL].max,
               acc[V_CTRL_DEFECT].max);
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
    const opts_info info = { ID, "the value bias passes through and folds into the output bias; sigmoid control",
                             OPT_MC, 42, 2000, NULL };
    opts o;
    int st = opts_parse(&o, &info, argc, argv);
    if (st) return opts_exit(&o, st);
    return opts_exit(&o, run(&o));
}
