/* value_bias - b_V just shifts every output, so it folds into the output bias.
 *
 * Claim (value_bias): each row of A sums to 1, so
 *   sum_j a_ij (v_j + b_V) = o_i + b_V:
 * b_V adds b_V to every output row. After the output projection,
 *   (o_i + b_V) W_O + b_O = o_i W_O + (b_O + b_V W_O),
 * so a head with b_V equals a head without it whose output bias is
 * b_O' = b_O + b_V W_O. The argument needs rows that sum to 1: with weights
 * that do not (an elementwise sigmoid of the scores) folding fails, by
 * exactly (sum_j a_ij - 1) b_V W_O.
 *
 * Measured on --draws random heads (sizes T_q, T_k, d, d_k, d_v drawn per
 * head; self-attention in half of them; X ~ N(0, 1), W_Q, W_K, W_V ~ N(0, 1/d)
 * with W_Q scaled by a sharpness in [0.3, 3], W_O ~ N(0, 1/d_v), b_O ~ N(0, 1),
 * b_V ~ N(0, sigma^2) with sigma log-uniform in [0.1, 10]):
 *   - pass-through: max|O(b_V) - O(0) - 1 b_V^T| / scale_O with
 *     scale_O = max|V| + max|b_V|, against 8 T_k eps, head by head;
 *   - folding: max|Y_u - Y_f|, Y_u = O(b_V) W_O + b_O (unfolded) and
 *     Y_f = O(0) W_O + b_O' (folded), relative to
 *     scale_Y = scale_O max_j sum_l |W_O,lj| + max|b_O|, against
 *     8 (T_k + d_v) eps, head by head;
 *   - negative control, the same heads with A = sigmoid(S): max|Y_u - Y_f|
 *     relative to the folded term max|b_V W_O| (= how far the rows are from
 *     summing to 1), >= 1e-3 in every head.
 * And one example head with d_v = 2 (T = 5) for the figure.
 *
 * Writes into --out:
 *   value_bias.csv          one row per head: draw,T_q,T_k,d,d_k,d_v,self,b_sigma,
 *                           pass_err,pass_tol,fold_err,fold_tol,fold_err_vs_bias,
 *                           control_err_vs_bias,control_max_row_sum_defect
 *   value_bias_example.csv  i,token,softmax_shift,row_sum: how far each output
 *                           moves along b_V, in units of b_V (softmax, sigmoid)
 *   value_bias.meta, value_bias.verdicts.csv
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

enum { MAX_T = 48, MAX_D = 48, MAX_DK = 32 };
enum { EX_T = 5, EX_D = 8, EX_DK = 4, EX_DV = 2 };
static const char *const example_tokens[EX_T] = {"the", "cat", "sat", "on", "mats"};
static const double CONTROL_MIN = 1e-3;   /* the catalogue's "large" */

/* per-draw values, in the order of value_bias.csv */
enum { V_TQ, V_TK, V_D, V_DK, V_DV, V_SELF, V_SIGMA, V_PASS, V_PASS_TOL, V_FOLD, V_FOLD_TOL,
       V_FOLD_BW, V_CTRL, V_CTRL_DEFECT, V_CTRL_PRED, NV };

typedef struct {                  /* one random head at the largest sizes, used through views */
    gsl_matrix *Xq, *Xkv, *W_Q, *W_K, *W_V, *W_O;
    gsl_vector *b_V, *b_O, *b_fold;
} scratch;

static void scratch_free(void *p)
{
    scratch *s = p;
    if (s == NULL) return;
    mat_free(s->Xq); mat_free(s->Xkv); mat_free(s->W_Q); mat_free(s->W_K);
    mat_free(s->W_V); mat_free(s->W_O);
    vec_free(s->b_V); vec_free(s->b_O); vec_free(s->b_fold);
    free(s);
}

static void *scratch_alloc(void *c)
{
    (void)c;
    scratch *s = calloc(1, sizeof *s);
    if (s == NULL) return NULL;
    s->Xq = mat_new(MAX_T, MAX_D); s->Xkv = mat_new(MAX_T, MAX_D);
    s->W_Q = mat_new(MAX_D, MAX_DK); s->W_K = mat_new(MAX_D, MAX_DK);
    s->W_V = mat_new(MAX_D, MAX_DK); s->W_O = mat_new(MAX_DK, MAX_D);
    s->b_V = vec_new(MAX_DK); s->b_O = vec_new(MAX_D); s->b_fold = vec_new(MAX_D);
    if (!s->Xq || !s->Xkv || !s->W_Q || !s->W_K || !s->W_V || !s->W_O || !s->b_V || !s->b_O || !s->b_fold) {
        scratch_free(s);
        return NULL;
    }
    return s;
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

/* The measurement on one head of sizes (T_q, T_k, d, d_k, d_v), drawn into the
 * scratch views: v[V_PASS .. V_CTRL_DEFECT]; the softmax and sigmoid outputs
 * with and without b_V into the four (T_q, d_v) matrices if not NULL. */
static int measure_head(double *v, scratch *s, gsl_rng *rng, size_t T_q, size_t T_k, size_t d, size_t d_k,
                        size_t d_v, int self, double sharp, double sigma, gsl_matrix *out[4])
{
    gsl_matrix_view Xq = gsl_matrix_submatrix(s->Xq, 0, 0, T_q, d);
    gsl_matrix_view Xkv = gsl_matrix_submatrix(self ? s->Xq : s->Xkv, 0, 0, T_k, d);
    gsl_matrix_view W_Q = gsl_matrix_submatrix(s->W_Q, 0, 0, d, d_k);
    gsl_matrix_view W_K = gsl_matrix_submatrix(s->W_K, 0, 0, d, d_k);
    gsl_matrix_view W_V = gsl_matrix_submatrix(s->W_V, 0, 0, d, d_v);
    gsl_matrix_view W_O = gsl_matrix_submatrix(s->W_O, 0, 0, d_v, d);
    gsl_vector_view b_V = gsl_vector_subvector(s->b_V, 0, d_v);
    gsl_vector_view b_O = gsl_vector_subvector(s->b_O, 0, d);
    gsl_vector_view b_fold = gsl_vector_subvector(s->b_fold, 0, d);
    mat_randn(&Xq.matrix, rng, 1.0);
    if (!self) mat_randn(&Xkv.matrix, rng, 1.0);
    mat_randn(&W_Q.matrix, rng, sharp / sqrt((double)d));
    mat_randn(&W_K.matrix, rng, 1.0 / sqrt((double)d));
    mat_randn(&W_V.matrix, rng, 1.0 / sqrt((double)d));
    mat_randn(&W_O.matrix, rng, 1.0 / sqrt((double)d_v));
    vec_randn(&b_V.vector, rng, sigma);
    vec_randn(&b_O.vector, rng, 1.0);

    head_state s0 = {0}, s1 = {0};
    gsl_matrix *E = mat_new(T_q, d_v), *Ac = mat_new(T_q, T_k);
    head_params p0 = head_params_make(&W_Q.matrix, &W_K.matrix, &W_V.matrix), p1 = p0;
    p1.b_V = &b_V.vector;
    int rc = (E && Ac) ? ATT_OK : att_alloc_status();
    if (!rc) rc = head_state_alloc(&s0, T_q, T_k, d, d_k, d_v);
    if (!rc) rc = head_state_alloc(&s1, T_q, T_k, d, d_k, d_v);
    if (!rc) rc = head_forward(&s0, &p0, &Xq.matrix, &Xkv.matrix);
    if (!rc) rc = head_forward(&s1, &p1, &Xq.matrix, &Xkv.matrix);
    if (rc) goto done;

    // pass-through: E = O(0) + 1 b_V^T against O(b_V)
    gsl_matrix_memcpy(E, s0.O);
    for (size_t i = 0; i < T_q; i++) {
        gsl_vector_view row = gsl_matrix_row(E, i);
        gsl_vector_add(&row.vector, &b_V.vector);
    }
    double scale_O = mat_max_abs(s0.V) + vec_max_abs(&b_V.vector);
    v[V_PASS] = mat_max_abs_diff(s1.O, E) / scale_O;
    v[V_PASS_TOL] = tol_eps(8, T_k, 1.0);

    // folding: b_O' = b_O + W_O^T b_V; Y_u vs Y_f with the softmax weights
    double fold_abs, ctrl_abs;
    if ((rc = bias_fold_value(&b_fold.vector, &b_O.vector, &b_V.vector, &W_O.matrix))
        || (rc = bias_fold_error(&fold_abs, out ? out[1] : NULL, out ? out[0] : NULL, s0.A, s1.V, s0.V, &W_O.matrix,
                            &b_O.vector, &b_fold.vector)))
        goto done;
    double scale_Y = scale_O * max_col_abs_sum(&W_O.matrix) + vec_max_abs(&b_O.vector);
    v[V_FOLD] = fold_abs / scale_Y;
    v[V_FOLD_TOL] = tol_eps(8, T_k + d_v, 1.0);

    // negative control: A = sigmoid(S), rows summing to anything in (0, T_k)
    if ((rc = bias_sigmoid_weights(Ac, s0.S))
        || (rc = bias_fold_error(&ctrl_abs, out ? out[3] : NULL, out ? out[2] : NULL, Ac, s1.V, s0.V, &W_O.matrix,
                            &b_O.vector, &b_fold.vector)))
        goto done;
    // errors relative to the folded term b_V W_O (the control's is its row-sum defect)
    double bw = 0.0;
    for (size_t j = 0; j < d; j++)
        bw = fmax(bw, fabs(gsl_vector_get(&b_fold.vector, j) - gsl_vector_get(&b_O.vector, j)));
    bw = fmax(bw, DBL_MIN);
    v[V_FOLD_BW] = fold_abs / bw;
    v[V_CTRL] = ctrl_abs / bw;
    v[V_CTRL_DEFECT] = bias_row_sum_defect(Ac);
    // the prediction: control error / max|b_V W_O| = max_i |sum_j a_ij - 1|, up to
    // rounding of outputs as large as T_k scale_Y, in units of that rounding
    v[V_CTRL_PRED] = fabs(v[V_CTRL] - v[V_CTRL_DEFECT]) / tol_eps(8, T_k + d_v, (double)T_k * (scale_Y / bw + 1.0));
done:
    mat_free(E); mat_free(Ac);
    head_state_free(&s0); head_state_free(&s1);
    return rc;
}

/* One random head: its sizes, then measure_head; out[] in the order of value_bias.csv. */
static int draw(void *c, void *vs, gsl_rng *rng, size_t di, double *out)
{
    (void)c; (void)di;
    int self = gsl_rng_uniform(rng) < 0.5;
    size_t T_q = rng_uniform_size(rng, 2, MAX_T), T_k = self ? T_q : rng_uniform_size(rng, 2, MAX_T);
    size_t d = rng_uniform_size(rng, 2, MAX_D), d_k = rng_uniform_size(rng, 1, MAX_DK);
    size_t d_v = rng_uniform_size(rng, 1, MAX_DK);
    double sharp = rng_log_uniform(rng, log10(0.3), log10(3.0)), sigma = rng_log_uniform(rng, -1, 1);
    out[V_TQ] = (double)T_q; out[V_TK] = (double)T_k; out[V_D] = (double)d; out[V_DK] = (double)d_k;
    out[V_DV] = (double)d_v; out[V_SELF] = self; out[V_SIGMA] = sigma;
    return measure_head(out, vs, rng, T_q, T_k, d, d_k, d_v, self, sharp, sigma, NULL);
}

typedef struct {
    size_t draw, T_q, T_k, d, d_k, d_v;
    int self;
    double b_sigma, pass_err, pass_tol, fold_err, fold_tol, fold_err_vs_bias, control_err_vs_bias,
        control_max_row_sum_defect;
} head_row;
typedef struct { size_t i; const char *token; double softmax_shift, row_sum; } example_row;

static const table_col head_cols[] = {
    COL(head_row, draw), COL(head_row, T_q), COL(head_row, T_k), COL(head_row, d), COL(head_row, d_k),
    COL(head_row, d_v), COL(head_row, self), COL(head_row, b_sigma), COL_ROUND(head_row, pass_err, "pass_tol"),
    COL(head_row, pass_tol), COL_ROUND(head_row, fold_err, "fold_tol"), COL(head_row, fold_tol), COL_ROUND(head_row, fold_err_vs_bias, "1e-10"),
    COL(head_row, control_err_vs_bias), COL(head_row, control_max_row_sum_defect)};
static const table_col example_cols[] = {
    COL(example_row, i), COL(example_row, token), COL(example_row, softmax_shift), COL(example_row, row_sum)};

/* The figure's head (its own stream): T = 5 self-attention, d = 8, d_k = 4,
 * d_v = 2 (outputs are points in a plane), b_V ~ N(0, 1). */
static int example(const experiment *e)
{
    gsl_rng *rng = rng_new(e->o.rng_name, rng_stream_seed(e->o.seed, 1, 0));
    scratch *s = scratch_alloc(NULL);
    gsl_matrix *O[4] = {mat_new(EX_T, EX_DV), mat_new(EX_T, EX_DV), mat_new(EX_T, EX_DV), mat_new(EX_T, EX_DV)};
    double v[NV];
    int rc = (rng && s && O[0] && O[1] && O[2] && O[3]) ? ATT_OK : att_alloc_status();
    if (!rc) rc = measure_head(v, s, rng, EX_T, EX_T, EX_D, EX_DK, EX_DV, 1, 1.0, 1.0, O);
    example_row rows[EX_T];
    for (size_t i = 0; i < EX_T && !rc; i++) {
        // output i moves by (sum_j a_ij) b_V: the shift along b_V, (delta . b_V) / |b_V|^2,
        // is 1 for softmax rows and the row sum r_i for sigmoid rows
        double bx = gsl_vector_get(s->b_V, 0), by = gsl_vector_get(s->b_V, 1), bb = bx * bx + by * by;
        double dx = gsl_matrix_get(O[3], i, 0) - gsl_matrix_get(O[2], i, 0);
        double dy = gsl_matrix_get(O[3], i, 1) - gsl_matrix_get(O[2], i, 1);
        double sx = gsl_matrix_get(O[1], i, 0) - gsl_matrix_get(O[0], i, 0);
        double sy = gsl_matrix_get(O[1], i, 1) - gsl_matrix_get(O[0], i, 1);
        rows[i] = (example_row){i, example_tokens[i], (sx * bx + sy * by) / bb, (dx * bx + dy * by) / bb};
    }
    if (!rc) rc = TABLE_WRITE(e->o.out_dir, "value_bias_example.csv", example_cols, rows, EX_T);
    for (int k = 0; k < 4; k++) mat_free(O[k]);
    scratch_free(s);
    if (rng) gsl_rng_free(rng);
    return rc;
}

static int run(experiment *e)
{
    size_t n = e->o.draws;
    mc_config cfg = exp_mc(e, "value_bias");
    cfg.nstats = NV, cfg.draw = draw, cfg.alloc = scratch_alloc, cfg.free = scratch_free;
    cfg.values = mem_calloc(n * NV, sizeof(double), "value_bias per-draw values");
    head_row *rows = cfg.values ? mem_calloc(n, sizeof *rows, "value_bias rows") : NULL;
    stat_acc acc[NV];
    int rc = rows ? mc_run(&cfg, acc) : att_alloc_status();
    // the identities head by head: the error in units of its own tolerance
    double pass = 0.0, fold = 0.0, pred = 0.0;
    for (size_t i = 0; i < n && !rc; i++) {
        const double *v = cfg.values + i * NV;
        rows[i] = (head_row){i, (size_t)v[V_TQ], (size_t)v[V_TK], (size_t)v[V_D], (size_t)v[V_DK], (size_t)v[V_DV],
                             (int)v[V_SELF], v[V_SIGMA], v[V_PASS], v[V_PASS_TOL], v[V_FOLD], v[V_FOLD_TOL],
                             v[V_FOLD_BW], v[V_CTRL], v[V_CTRL_DEFECT]};
        pass = fmax(pass, v[V_PASS] / v[V_PASS_TOL]);
        fold = fmax(fold, v[V_FOLD] / v[V_FOLD_TOL]);
        pred = fmax(pred, v[V_CTRL_PRED]);
    }
    if (!rc) rc = example(e);      /* its allocations before anything is written */
    if (!rc) rc = TABLE_WRITE(e->o.out_dir, "value_bias.csv", head_cols, rows, n);
    mem_free(rows, n, sizeof *rows);
    mem_free(cfg.values, n * NV, sizeof(double));
    if (rc) return rc;
    exp_meta(e, "heads: %zu\nexample_T: %d\nexample_d_v: %d", n, EX_T, EX_DV);

    exp_identity(e, "valueBiasFoldError", 0.0, measure_exact(fold, n), rule_at_most(1.0),
                 "folded vs unfolded final output, b_O' = b_O + b_V W_O (relative max error in "
                 "units of 8 (T_k + d_v) eps); largest over the heads");
    exp_headline(e);
    exp_identity(e, "valueBiasPassThrough", 0.0, measure_exact(pass, n), rule_at_most(1.0),
                 "max |O(b_V) - O(0) - 1 b_V^T| / (max|V| + max|b_V|) in units of 8 T_k eps; "
                 "largest over %zu random heads", n);
    exp_control(e, "valueBiasControlError", NAN, measure_exact(acc[V_CTRL].min, n),
                rule_at_least(CONTROL_MIN), "negative control, sigmoid weights (rows do not sum "
                "to 1): smallest folding error relative to max|b_V W_O| over the heads");
    exp_reported(e, "valueBiasControlMean", NAN, measure_stat(&acc[V_CTRL]),
                 "negative control: mean folding error relative to max|b_V W_O|");
    exp_identity(e, "valueBiasControlExplained", 0.0, measure_exact(pred, n), rule_at_most(1.0),
                 "prediction: the control's relative error equals its largest row-sum defect "
                 "max_i |sum_j a_ij - 1|; largest difference in units of its rounding tolerance "
                 "8 (T_k + d_v) eps T_k (scale_Y / |b_V W_O| + 1)");
    exp_summary(e, "b_V folds into b_O' = b_O + b_V W_O: worst error %.3g of its rounding "
                "tolerance over %zu random heads (the section: exact)", fold, n);
    exp_summary(e, "b_V passes through: worst %.3g of tolerance", pass);
    exp_summary(e, "control, sigmoid rows not summing to 1: folding error at least %.3g of "
                "|b_V W_O| (mean %.3g), as the row-sum defect predicts", acc[V_CTRL].min, acc[V_CTRL].mean);
    return ATT_OK;
}

int main(int argc, char **argv)
{
    static const experiment_def def = {"value_bias", NULL,
                                       OPT_MC, 42, 2000, NULL, run};
    return experiment_main(&def, argc, argv);
}
