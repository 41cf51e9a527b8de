/* value_bias - "Biases, and the one that does nothing"
 *
 * Claim: rows of A sum to 1, so the value bias adds b_V to every output and
 * folds into the output bias:
 *   sum_j a_ij (v_j + b_V) = o_i + b_V,
 *   (o_i + b_V) W_O + b_O = o_i W_O + (b_O + b_V W_O) = o_i W_O + b_O'.
 * The argument needs rows summing to 1: with elementwise-sigmoid weights
 * folding fails, by exactly (sum_j a_ij - 1) b_V W_O (the negative control).
 *
 * Measured on --draws random heads (draw: T_q, T_k, d in 2..48, d_k, d_v in
 * 1..32, self-attention in half, W_Q sharpness in [0.3, 3], sigma(b_V)
 * log-uniform in [0.1, 10]; bias_vhead_draw: the Gaussians): pass-through and
 * folding in units of their rounding bounds; the control's folding error
 * relative to max|b_V W_O| against its row-sum defect.
 * Writes: value_bias.csv, value_bias_draws.csv, value_bias_example.csv (T = 5).
 */
#include "prelude.h"
#include "bias.h"

enum { MAX_T = 48, MAX_D = 48, MAX_DK = 32, EX_T = 5, EX_D = 8, EX_DK = 4, EX_DV = 2 };
static const double CONTROL_MIN = 1e-3;   /* the catalogue's "large" */

#define STATS(X) X(S_TQ, "T_q") X(S_TK, "T_k") X(S_D, "d") X(S_DK, "d_k") X(S_DV, "d_v")    \
    X(S_SELF, "self") X(S_SIGMA, "b_sigma") X(S_PASS, "pass_units") X(S_FOLD, "fold_units") \
    X(S_FOLD_BW, "fold_err_vs_bias") X(S_CTRL, "control_err_vs_bias")                       \
    X(S_DEFECT, "control_max_row_sum_defect") X(S_PRED, "control_pred_units")
SWEEP_STATS(STATS);

static void *work_alloc(const sweep_grid *g, const void *ctx)
{
    (void)g;
    (void)ctx;
    return bias_vhead_new(MAX_T, MAX_D, MAX_DK, MAX_DK);   /* d_v <= 32 too */
}

/* One head of the sizes in out[S_TQ .. S_SIGMA], run without and with b_V (bias_vhead_draw):
 * out[S_PASS ..]. b_V (d_v), b_O, b_f (d), W_O (d_v, d); h->O[0..3] (T_q, d_v) the outputs. */
static int head_draw(gsl_rng *rng, double *out, bias_vhead *h, double sharp)
{
    size_t T_q = (size_t)out[S_TQ], T_k = (size_t)out[S_TK], d = (size_t)out[S_D];
    size_t d_k = (size_t)out[S_DK], d_v = (size_t)out[S_DV];
    int self = out[S_SELF] != 0.0;
    int rc = bias_vhead_draw(rng, h, T_q, T_k, d, d_k, d_v, self, sharp, out[S_SIGMA]);
    if (rc) return rc;
    gsl_vector *b_V = &h->b_V.vector, *b_O = &h->b_O.vector, *b_f = &h->b_f.vector;
    gsl_matrix *W_O = &h->W_O_view.matrix, *E = &h->E.matrix, *Ac = &h->Ac.matrix;
    // pass-through: O(b_V) = O(0) + 1 b_V^T, relative to scale_O = max|V| + max|b_V|
    gsl_matrix_memcpy(E, h->s0.O);
    for (size_t i = 0; i < T_q; i++) {
        gsl_vector_view row = gsl_matrix_row(E, i);
        gsl_vector_add(&row.vector, b_V);
    }
    double scale_O = mat_max_abs(h->s0.V) + mat_vec_max_abs(b_V), fold, ctrl;
    out[S_PASS] = mat_max_abs_diff(h->s1.O, E) / scale_O / tol_eps(8, T_k, 1.0);
    // folding: b_O' = b_O + b_V W_O; Y_u = O(b_V) W_O + b_O against Y_f = O(0) W_O + b_O'
    rc = bias_fold_value(b_f, b_O, b_V, W_O);
    if (!rc)
        rc = bias_fold_error(&fold, h->O[1], h->O[0], h->s0.A, h->s1.V, h->s0.V, W_O, b_O, b_f);
    if (rc) return rc;
    // scale_Y = scale_O max_j sum_l |W_O,lj| + max|b_O|  (||W_O||_1, the largest column 1-norm)
    double scale_Y = scale_O * mat_norm1(W_O) + mat_vec_max_abs(b_O);
    out[S_FOLD] = fold / scale_Y / tol_eps(8, T_k + d_v, 1.0);
    // negative control: A = sigmoid(S), rows summing to anything in (0, T_k)
    rc = bias_sigmoid_weights(Ac, h->s0.S);
    if (!rc) rc = bias_fold_error(&ctrl, h->O[3], h->O[2], Ac, h->s1.V, h->s0.V, W_O, b_O, b_f);
    if (rc) return rc;
    // both errors relative to the folded term max|b_V W_O| = max|b_O' - b_O|
    double bw = DBL_MIN;
    for (size_t j = 0; j < d; j++)
        bw = fmax(bw, fabs(gsl_vector_get(b_f, j) - gsl_vector_get(b_O, j)));
    out[S_FOLD_BW] = fold / bw;
    out[S_CTRL] = ctrl / bw;
    // the prediction: control error / max|b_V W_O| = max_i |sum_j a_ij - 1| (row-sum defect),
    // up to rounding of outputs as large as T_k scale_Y, in units of that rounding
    out[S_DEFECT] = bias_row_sum_defect(Ac);
    double pred_tol = tol_eps(8, T_k + d_v, (double)T_k * (scale_Y / bw + 1.0));
    out[S_PRED] = fabs(out[S_CTRL] - out[S_DEFECT]) / pred_tol;
    return ATT_OK;
}

/* one random head: its sizes, sharpness and b_V scale, then head_draw */
static int draw(gsl_rng *rng, double *out, const sweep_point *pt, void *work, const void *ctx)
{
    (void)pt;
    (void)ctx;
    out[S_SELF] = gsl_rng_uniform(rng) < 0.5;
    out[S_TQ] = (double)rng_uniform_size(rng, 2, MAX_T);
    out[S_TK] = out[S_SELF] != 0.0 ? out[S_TQ] : (double)rng_uniform_size(rng, 2, MAX_T);
    out[S_D] = (double)rng_uniform_size(rng, 2, MAX_D);
    out[S_DK] = (double)rng_uniform_size(rng, 1, MAX_DK);
    out[S_DV] = (double)rng_uniform_size(rng, 1, MAX_DK);
    double sharp = rng_log_uniform(rng, log10(0.3), log10(3.0));
    out[S_SIGMA] = rng_log_uniform(rng, -1, 1);
    return head_draw(rng, out, work, sharp);
}

typedef struct {
    size_t i;
    const char *token;
    double softmax_shift, row_sum;
} vex_row;

/* The figure's head (T = 5 self-attention, d = 8, d_k = 4, d_v = 2, b_V ~ N(0, 1)) on its
 * point's stream: output i moves by (sum_j a_ij) b_V: 1 b_V with softmax rows, r_i b_V with
 * sigmoid rows. Writes value_bias_example.csv (i, token, softmax_shift, row_sum): per output
 * i its shift along b_V in units of b_V, ((O1 - O0)_i . b_V) / |b_V|^2, with softmax rows
 * (O[0] without b_V, O[1] with it: 1) and sigmoid rows (O[2], O[3]: the row sum r_i). */
static int figure_example(const experiment *e)
{
    static const char *const tokens[EX_T] = {"the", "cat", "sat", "on", "mats"};
    static const table_col cols[] = {COL(vex_row, i), COL(vex_row, token),
                                     COL(vex_row, softmax_shift), COL(vex_row, row_sum)};
    gsl_rng *rng = sweep_rng(e, &(sweep_point){.T = EX_T, .d = EX_D, .dk = EX_DK, .dv = EX_DV});
    bias_vhead *w = work_alloc(NULL, NULL);
    double v[NSTAT] = {[S_TQ] = EX_T, [S_TK] = EX_T, [S_D] = EX_D, [S_DK] = EX_DK, [S_DV] = EX_DV,
                       [S_SELF] = 1, [S_SIGMA] = 1.0};
    int st = ATT_OK;
    if ((st = rng && w ? ATT_OK : att_alloc_status())) goto done;
    if ((st = head_draw(rng, v, w, 1.0))) goto done;
    // O[k] (T, 2), b_V (2): shift_i = ((O1 - O0)_i . b_V) / |b_V|^2
    gsl_matrix *const *O = w->O;
    double bx = gsl_vector_get(&w->b_V.vector, 0), by = gsl_vector_get(&w->b_V.vector, 1);
    double bb = bx * bx + by * by;
    vex_row rows[EX_T];
    for (size_t i = 0; i < EX_T; i++) {
        double sx = gsl_matrix_get(O[1], i, 0) - gsl_matrix_get(O[0], i, 0);
        double sy = gsl_matrix_get(O[1], i, 1) - gsl_matrix_get(O[0], i, 1);
        double dx = gsl_matrix_get(O[3], i, 0) - gsl_matrix_get(O[2], i, 0);
        double dy = gsl_matrix_get(O[3], i, 1) - gsl_matrix_get(O[2], i, 1);
        rows[i] = (vex_row){i, tokens[i], (sx * bx + sy * by) / bb, (dx * bx + dy * by) / bb};
    }
    if ((st = TABLE_WRITE(e->o.out_dir, "value_bias_example.csv", cols, rows, EX_T))) goto done;
done:
    bias_vhead_free(w);
    if (rng) gsl_rng_free(rng);
    return st;
}

static int run(experiment *e)
{
    sweep_result r = {0};
    int st = ATT_OK;
    sweep_grid g;
    sweep_grid_init(&g);
    sweep_def def = SWEEP_DEF(draw);
    def.work_alloc = work_alloc;
    def.work_free = bias_vhead_free;
    def.draws_csv = "value_bias_draws.csv";
    if ((st = figure_example(e))) goto done;
    if ((st = sweep_run(e, &g, &def, &r))) goto done;
    const stat_acc *a = sweep_acc(&r, 0, 0);
    size_t n = a[S_FOLD].n;
    double fold = a[S_FOLD].max, pass = a[S_PASS].max, ctrl_min = a[S_CTRL].min;
    measure ctrl_mean = verdict_measure_stat(&a[S_CTRL]);
    experiment_meta(e, "heads: %zu\nexample_T: %d\nexample_d_v: %d", n, EX_T, EX_DV);

    verdict_identity(e, "valueBiasFoldError", 0.0, verdict_measure_exact(fold, n),
                 verdict_rule_at_most(1.0),
                 "folded vs unfolded final output, b_O' = b_O + b_V W_O (relative max error in "
                 "units of 8 (T_k + d_v) eps); largest over the heads");
    experiment_headline(e);
    verdict_identity(e, "valueBiasPassThrough", 0.0, verdict_measure_exact(pass, n),
                 verdict_rule_at_most(1.0),
                 "max |O(b_V) - O(0) - 1 b_V^T| / (max|V| + max|b_V|) in units of 8 T_k eps; "
                 "largest over %zu random heads", n);
    verdict_control(e, "valueBiasControlError", NAN, verdict_measure_exact(ctrl_min, n),
                verdict_rule_at_least(CONTROL_MIN),
                "negative control, sigmoid weights (rows do not sum to 1): smallest folding error "
                "relative to max|b_V W_O| over the heads");
    verdict_reported(e, "valueBiasControlMean", NAN, ctrl_mean,
                 "negative control: mean folding error relative to max|b_V W_O|");
    verdict_identity(e, "valueBiasControlExplained", 0.0, verdict_measure_exact(a[S_PRED].max, n),
                 verdict_rule_at_most(1.0),
                 "prediction: the control's relative error equals its largest row-sum defect max_i "
                 "|sum_j a_ij - 1|; largest difference in units of its rounding tolerance 8 (T_k + "
                 "d_v) eps T_k (scale_Y / |b_V W_O| + 1)");
    experiment_summary(e, "b_V folds into b_O' = b_O + b_V W_O: worst error %.3g of its rounding "
                "tolerance over %zu random heads (the section: exact)", fold, n);
    experiment_summary(e,
                       "b_V passes through to every output: worst %.3g of tolerance (the section: "
                       "o_i + b_V)",
                       pass);
    experiment_summary(e, "control, sigmoid rows not summing to 1: folding error at least %.3g of "
                "|b_V W_O| (mean %.3g), as the row-sum defect predicts", ctrl_min, ctrl_mean.value);
done:
    sweep_result_free(&r);
    return st;
}

/* how make verify compares the statistics: Monte Carlo (SW_MC, sweep.h) but these */
SWEEP_VERIFY(stat_names, {"pass_units", SW_ROUND_MAX(1)}, {"fold_units", SW_ROUND_MAX(1)},
             {"fold_err_vs_bias", SW_ROUND_MAX(1e-10)}, {"control_pred_units", SW_ROUND_MAX(1)})

int main(int argc, char **argv)
{
    static const experiment_def def = {"value_bias", NULL, OPT_MC, 42, 2000, NULL, run};
    return experiment_main(&def, argc, argv);
}
