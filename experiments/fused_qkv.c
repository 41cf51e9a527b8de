/* fused_qkv - "The whole head, batched"
 *
 * One product X W_QKV gives Q, K and V at once.
 *
 * Claim (fused_qkv): with W_QKV = [W_Q | W_K | W_V] (d x (2 d_k + d_v)), one
 * product X W_QKV split into column blocks is exactly [X W_Q | X W_K | X W_V];
 * the same over B sequences stacked as rows; frameworks store a linear
 * layer's weight as (out, in) = W_QKV^T (checked against PyTorch by
 * tests/test_torch.py); and one big product runs faster than three small
 * ones (the section says so for GPUs: here a CPU is measured and labelled).
 * Measured: agreement for GPT-2 sizes (d = 768, d_k = d_v = 64, 1 and 12
 * heads, T up to 1024) and small odd sizes: fused vs three products, vs 3 H
 * per-head products, (out, in) storage vs W_QKV, the batched head vs each
 * sequence alone, against size-scaled rounding tolerances. Timing on this
 * CPU (OpenBLAS, all its threads), T = 64 .. 4096: min, median and max over
 * --reps samples (each at least 2 ms) of every variant; the speed-up of
 * fusing with its spread, reported as measured.
 * Writes into --out: fused_qkv.csv (case, sizes, check, max |difference|,
 * tolerance), fused_qkv_timing.csv (T, heads, variant, min/median/max s),
 * fused_qkv_speedup_timing.csv (T, heads, speed-up median and range),
 * fused_qkv.meta (with the machine), fused_qkv.verdicts.csv
 */
#include "prelude.h"
#include "fused.h"
#include "fusedtime.h"
#include "randmat.h"
#include "timing.h"

typedef struct {
    const char *name;
    size_t B, T, d, d_k, d_v, heads;    /* W_Q (d, heads d_k), W_V (d, heads d_v) */
} agree_case;

static const agree_case CASES[] = {
    {"tiny", 1, 5, 16, 4, 4, 1},           {"odd_sizes", 3, 17, 50, 7, 11, 1},
    {"gpt2_one_head", 4, 64, 768, 64, 64, 1}, {"gpt2_12_heads", 4, 64, 768, 64, 64, 12},
    {"gpt2_context", 2, 1024, 768, 64, 64, 12}};
enum { NCASES = sizeof CASES / sizeof CASES[0] };
enum { CHECK_SEPARATE, CHECK_PER_HEAD, CHECK_OUT_IN, CHECK_BATCHED, NCHECKS };
static const char *const CHECK_NAME[NCHECKS] = {"fused_vs_separate", "fused_vs_per_head",
                                                "out_in_vs_fused", "batched_vs_one_by_one"};

typedef struct {
    const char *name;
    size_t B, T, d, d_k, d_v, heads;
    const char *check;
    double max_abs_err, tolerance;
} check_row;
static const table_col COLS[] = {
    COL_AS(check_row, name, "case"), COL(check_row, B), COL(check_row, T), COL(check_row, d),
    COL(check_row, d_k), COL(check_row, d_v), COL(check_row, heads), COL(check_row, check),
    COL_ROUND(check_row, max_abs_err, "tolerance"),
    COL_ROUND(check_row, tolerance, NULL)};   /* the tolerance of the worst head: rounding picks it */

/* Case c: X (B T, d), W_Q, W_K (d, H d_k), W_V (d, H d_v) ~ N(0, 1/d);
 * W = [W_Q | W_K | W_V] (d, n), Wt = W^T (n, d); err/tol per check. */
static int check_case(const experiment *e, size_t ci, double err[NCHECKS], double tol[NCHECKS])
{
    const agree_case *c = &CASES[ci];
    size_t N = c->B * c->T, d = c->d, nq = c->heads * c->d_k, nv = c->heads * c->d_v, n = 2 * nq + nv;
    gsl_rng *rng = rng_new("mt19937", rng_stream_seed(e->o.seed, 0, ci));
    gsl_matrix *X = mat_new(N, d), *W_Q = mat_new(d, nq), *W_K = mat_new(d, nq), *W_V = mat_new(d, nv);
    gsl_matrix *W = mat_new(d, n), *Wt = mat_new(n, d), *QKV = mat_new(N, n);
    gsl_matrix *F[3] = {mat_new(N, nq), mat_new(N, nq), mat_new(N, nv)};   /* fused Q, K, V */
    gsl_matrix *S[3] = {mat_new(N, nq), mat_new(N, nq), mat_new(N, nv)};   /* separate      */
    gsl_matrix *R[3] = {mat_new(N, nq), mat_new(N, nq), mat_new(N, nv)};   /* (out, in)     */
    gsl_matrix *O = mat_new(N, c->d_v), *Y = mat_new(N, c->d_k > c->d_v ? c->d_k : c->d_v);
    const gsl_matrix *Wsrc[3] = {W_Q, W_K, W_V};
    head_state st = {0};
    int rc = rng && X && W_Q && W_K && W_V && W && Wt && QKV && O && Y ? ATT_OK : att_alloc_status();
    for (int k = 0; k < 3; k++) rc = rc ? rc : (F[k] && S[k] && R[k] ? ATT_OK : att_alloc_status());
    if (!rc && head_state_alloc(&st, c->T, c->T, d, c->d_k, c->d_v)) rc = att_alloc_status();
    if (rc) goto done;
    // X ~ N(0, 1), then W_Q, W_K, W_V ~ N(0, 1/d)
    randmat_head(rng, X, W_Q, W_K, W_V, NULL);
    if ((rc = fused_pack(W, W_Q, W_K, W_V))) goto done;
    gsl_matrix_transpose_memcpy(Wt, W);
    // |fl(x.w) - x.w| <= d eps |x| |w| for each of two computations
    double tol_proj = tol_eps(2, d, mat_max_row_norm(X) * mat_max_col_norm(W));
    for (int k = 0; k < NCHECKS; k++) { err[k] = 0.0; tol[k] = tol_proj; }

    // [Q | K | V] = X W_QKV, split;  X W_Q, X W_K, X W_V;  X Wt^T, split
    if ((rc = fused_project(F[0], F[1], F[2], QKV, X, W))
        || (rc = fused_project_out_in(R[0], R[1], R[2], QKV, X, Wt)))
        goto done;
    for (int k = 0; k < 3 && !rc; k++) {
        if ((rc = head_project(S[k], X, Wsrc[k], NULL))) break;
        err[CHECK_SEPARATE] = fmax(err[CHECK_SEPARATE], mat_max_abs_diff(F[k], S[k]));
        err[CHECK_OUT_IN] = fmax(err[CHECK_OUT_IN], mat_max_abs_diff(R[k], F[k]));
    }
    // per head h: X W^h (d, width) against the column block h of the fused result
    for (size_t h = 0; h < c->heads && !rc; h++)
        for (int k = 0; k < 3 && !rc; k++) {
            size_t wd = k < 2 ? c->d_k : c->d_v;
            gsl_matrix_const_view Wh = gsl_matrix_const_submatrix(Wsrc[k], 0, h * wd, d, wd);
            gsl_matrix_const_view Fh = gsl_matrix_const_submatrix(F[k], 0, h * wd, N, wd);
            gsl_matrix_view Yh = gsl_matrix_submatrix(Y, 0, 0, N, wd);
            if (!(rc = head_project(&Yh.matrix, X, &Wh.matrix, NULL)))
                err[CHECK_PER_HEAD] = fmax(err[CHECK_PER_HEAD], mat_max_abs_diff(&Yh.matrix, &Fh.matrix));
        }
    // batched vs one by one, every head h: keep the worst error relative to its tolerance
    tol[CHECK_BATCHED] = NAN;
    for (size_t h = 0; h < c->heads && !rc; h++) {
        gsl_matrix_const_view WQh = gsl_matrix_const_submatrix(W_Q, 0, h * c->d_k, d, c->d_k);
        gsl_matrix_const_view WKh = gsl_matrix_const_submatrix(W_K, 0, h * c->d_k, d, c->d_k);
        gsl_matrix_const_view WVh = gsl_matrix_const_submatrix(W_V, 0, h * c->d_v, d, c->d_v);
        head_params p = head_params_make(&WQh.matrix, &WKh.matrix, &WVh.matrix);
        if ((rc = head_forward_batched(O, &p, X, c->B, c->T))) break;
        for (size_t b = 0; b < c->B && !rc; b++) {
            gsl_matrix_const_view Xb = gsl_matrix_const_submatrix(X, b * c->T, 0, c->T, d);
            gsl_matrix_const_view Ob = gsl_matrix_const_submatrix(O, b * c->T, 0, c->T, c->d_v);
            if ((rc = head_forward(&st, &p, &Xb.matrix, &Xb.matrix))) break;
            double t = tol_head_output(&st, &Xb.matrix, &WVh.matrix, 1.0);   /* tol.h */
            double x = mat_max_abs_diff(&Ob.matrix, st.O);
            if (isnan(tol[CHECK_BATCHED]) || isnan(x) || x * tol[CHECK_BATCHED] > err[CHECK_BATCHED] * t) {
                err[CHECK_BATCHED] = x;
                tol[CHECK_BATCHED] = t;
            }
        }
    }
done:
    head_state_free(&st);
    for (int k = 0; k < 3; k++) { mat_free(F[k]); mat_free(S[k]); mat_free(R[k]); }
    mat_free(X); mat_free(W_Q); mat_free(W_K); mat_free(W_V); mat_free(W); mat_free(Wt);
    mat_free(QKV); mat_free(O); mat_free(Y);
    if (rng) gsl_rng_free(rng);
    return rc;
}

static size_t reps = 5;
static int no_timing;

static int run(experiment *e)
{
    check_row rows[NCASES * NCHECKS];
    double err[NCASES][NCHECKS], tol[NCASES][NCHECKS];
    int rc = ATT_OK;
    if (no_timing && e->o.T)    /* --T picks a timed length; the checks have fixed cases */
        return exp_usage("--T %zu with --no-timing: --T restricts the timing sweep, which "
                         "--no-timing skips (drop one of the two)", e->o.T);
    for (size_t i = 0; i < NCASES && !rc; i++) rc = check_case(e, i, err[i], tol[i]);
    for (size_t i = 0; i < NCASES && !rc; i++)
        for (int k = 0; k < NCHECKS; k++) {
            const agree_case *c = &CASES[i];
            rows[i * NCHECKS + k] = (check_row){c->name, c->B, c->T, c->d, c->d_k, c->d_v, c->heads,
                                                CHECK_NAME[k], err[i][k], tol[i][k]};
        }
    if (reps < 5 && !no_timing) return exp_usage("--reps %zu: at least 5 samples per time", reps);
    // the timing sweep (lib/claims/fusedtime.h): fused vs three vs 3 H products
    fusedtime_speedup sr[FUSEDTIME_MAX_SPEEDUPS];
    size_t ns = 0;
    if (!rc && !no_timing) rc = fusedtime_run(e->o.out_dir, e->o.seed, e->o.T, reps, sr, &ns);
    if (!rc) rc = TABLE_WRITE(e->o.out_dir, "fused_qkv.csv", COLS, rows, NCASES * NCHECKS);
    if (rc) return rc;
    char machine[512];
    exp_meta(e, "%s\nreps: %zu\nd: %d\nd_k: %d\ntiming: %s", timing_machine(machine, sizeof machine),
             reps, FUSEDTIME_D, FUSEDTIME_DK, no_timing ? "skipped (--no-timing)" : "OpenBLAS dgemm, CPU");

    static const char *const macro[NCHECKS] = {"fusedQKVSeparateErr", "fusedQKVPerHeadErr",
                                               "fusedQKVOutInErr", "fusedQKVBatchedErr"};
    static const char *const what[NCHECKS] = {
        "max |fused split - three separate products|", "max |fused split - 3 H per-head products|",
        "max |X Wt^T ((out, in) storage) - X W_QKV|", "max |batched head - head on each sequence|"};
    // the largest error over the cases against the smallest tolerance (stricter than case by case)
    double worst_all = 0.0;
    for (int k = 0; k < NCHECKS; k++) {
        double worst = 0.0, tmin = INFINITY;
        for (size_t i = 0; i < NCASES; i++) {
            if (err[i][k] > worst || isnan(err[i][k])) worst = err[i][k];
            tmin = fmin(tmin, tol[i][k]);
        }
        exp_identity(e, macro[k], 0.0, verdict_measure_exact(worst, NCASES), verdict_rule_at_most(tmin),
                    "%s over %d cases (tolerance: the smallest of the cases, each %s)", what[k], (int)NCASES,
                    k == CHECK_BATCHED ? "8 eps (2 (d + d_k) |q||k| + 2 T) max|v| + 8 d eps |x||w_V|"
                                       : "2 d eps max|x| max|w|");
        if (k == 0) exp_headline(e);
        worst_all = fmax(worst_all, worst);
    }
    exp_summary(e, "fused split = three separate projections, per head, (out, in) storage and "
                "batched: largest difference %.3g over %d cases (the section: equal)", worst_all, (int)NCASES);
    // times: the speed-up of fusing at every T, with its spread (reported: a CPU, not a GPU)
    for (size_t s = 0; s < ns && !rc; s++) {
        int cited = sr[s].T == 1024;
        const char *m = !cited ? "" : sr[s].heads == 1 ? "fusedQKVSpeedupOneHead"
                      : sr[s].versus[0] == 's' ? "fusedQKVSpeedupTwelveHeads" : "fusedQKVSpeedupPerHead";
        if (cited) exp_summary(e, "CPU, T = %zu, %zu head%s: %s products take %.2fx the time of one fused "
                               "product (median of %zu)", sr[s].T, sr[s].heads, sr[s].heads > 1 ? "s" : "",
                               sr[s].versus, sr[s].speedup_median, reps);
        exp_reported(e, m, NAN, verdict_measure_time(sr[s].speedup_median, sr[s].speedup_low, sr[s].speedup_high, reps), "CPU time of %s products / one fused product, T = %zu, %zu head%s: median of %zu "
                         "(range %.3f to %.3f)", sr[s].versus, sr[s].T, sr[s].heads,
                         sr[s].heads > 1 ? "s" : "", reps, sr[s].speedup_low, sr[s].speedup_high);
    }
    return rc;
}

int main(int argc, char **argv)
{
    static const opt_spec extra[] = {
        {"reps", OPT_SIZE, &reps, "N", "timed samples per point, >= 5 (default 5): min, median, max"},
        {"no-timing", OPT_FLAG, &no_timing, NULL, "agreement checks only"},
        {NULL, 0, NULL, NULL, NULL}};
    static const experiment_def def = {"fused_qkv", NULL,
                                       OPT_SEED | OPT_T, 20261129UL, 0, extra, run};
    return exp_main(&def, argc, argv);
}
