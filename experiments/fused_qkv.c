/* fused_qkv - "The whole head, batched"
 *
 * Claim: with W_QKV = [W_Q | W_K | W_V] (d x (2 d_k + d_v)), one product
 * X W_QKV split into column blocks is exactly [X W_Q | X W_K | X W_V]; the
 * same over B sequences stacked as rows; frameworks store a linear layer's
 * weight as (out, in) = W_QKV^T (checked against PyTorch by tests/test_torch.py);
 * and one big product runs faster than three small ones (the section says so
 * for GPUs: here a CPU is measured and labelled).
 * Measured: for GPT-2 sizes (d = 768, d_k = d_v = 64, 1 and 12 heads, T up to
 * 1024) and small odd sizes, fused vs three products, vs 3 H per-head
 * products (fusedcheck.h), (out, in) storage vs W_QKV, the batched head vs
 * each sequence alone, against size-scaled rounding tolerances; on this CPU
 * (OpenBLAS, all its threads), T = 64 .. 4096, the time of every variant
 * (fusedtime.h) and the speed-up of fusing with its spread, reported.
 * Writes: fused_qkv.csv (per case and check), fused_qkv_timing.csv and
 * fused_qkv_speedup_timing.csv (columns: their .schema.csv).
 */
#include "prelude.h"
#include "fused.h"
#include "fusedcheck.h"
#include "fusedtime.h"
#include "randmat.h"
#include "timing.h"

static const fusedcheck_case CASES[] = {
    {"tiny", 1, 5, 16, 4, 4, 1},           {"odd_sizes", 3, 17, 50, 7, 11, 1},
    {"gpt2_one_head", 4, 64, 768, 64, 64, 1}, {"gpt2_12_heads", 4, 64, 768, 64, 64, 12},
    {"gpt2_context", 2, 1024, 768, 64, 64, 12}};
enum { NCASES = sizeof CASES / sizeof CASES[0], NCHECKS = FUSEDCHECK_N };

/* Case c: X (B T, d), W_Q, W_K (d, H d_k), W_V (d, H d_v) ~ N(0, 1/d);
 * W = [W_Q | W_K | W_V] (d, n), Wt = W^T (n, d); F, S, R: fused, separate and
 * (out, in) Q, K, V (B T, H w); err/tol per check. */
static int check_case(const experiment *e, size_t ci, double err[NCHECKS], double tol[NCHECKS])
{
    const fusedcheck_case *c = &CASES[ci];
    size_t N = c->B * c->T, d = c->d, nq = c->heads * c->d_k, nv = c->heads * c->d_v, n = 2 * nq + nv;
    enum { X, WQ, WK, WV, W, WT, QKV, F, S = F + 3, R = S + 3, O = R + 3, Y, NMAT };
    const size_t shape[NMAT][2] = {[X] = {N, d}, [WQ] = {d, nq}, [WK] = {d, nq}, [WV] = {d, nv}, [W] = {d, n},
        [WT] = {n, d}, [QKV] = {N, n}, [F] = {N, nq}, {N, nq}, {N, nv}, [S] = {N, nq}, {N, nq}, {N, nv},
        [R] = {N, nq}, {N, nq}, {N, nv}, [O] = {N, c->d_v}, [Y] = {N, c->d_k > c->d_v ? c->d_k : c->d_v}};
    const size_t head[1][5] = {{c->T, c->T, d, c->d_k, c->d_v}};
    gsl_rng *rng = rng_new("mt19937", rng_stream_seed(e->o.seed, 0, ci));
    workset *w = workset_new(NMAT, shape, 0, NULL, 1, head);
    int rc = rng && w ? ATT_OK : att_alloc_status();
    if (rc) goto done;
    gsl_matrix **m = w->m;
    const gsl_matrix *Wsrc[3] = {m[WQ], m[WK], m[WV]}, *Fk[3] = {m[F], m[F + 1], m[F + 2]};
    // X ~ N(0, 1), then W_Q, W_K, W_V ~ N(0, 1/d)
    randmat_head(rng, m[X], m[WQ], m[WK], m[WV], NULL);
    if ((rc = fused_pack(m[W], m[WQ], m[WK], m[WV]))) goto done;
    gsl_matrix_transpose_memcpy(m[WT], m[W]);
    // |fl(x.w) - x.w| <= d eps |x| |w| for each of two computations
    double tol_proj = tol_eps(2, d, mat_max_row_norm(m[X]) * mat_max_col_norm(m[W]));
    for (int k = 0; k < NCHECKS; k++) { err[k] = 0.0; tol[k] = tol_proj; }

    // [Q | K | V] = X W_QKV, split;  X W_Q, X W_K, X W_V;  X Wt^T, split
    if ((rc = fused_project(m[F], m[F + 1], m[F + 2], m[QKV], m[X], m[W]))
        || (rc = fused_project_out_in(m[R], m[R + 1], m[R + 2], m[QKV], m[X], m[WT])))
        goto done;
    for (int k = 0; k < 3 && !rc; k++) {
        if ((rc = head_project(m[S + k], m[X], Wsrc[k], NULL))) break;
        err[FUSEDCHECK_SEPARATE] = fmax(err[FUSEDCHECK_SEPARATE], mat_max_abs_diff(m[F + k], m[S + k]));
        err[FUSEDCHECK_OUT_IN] = fmax(err[FUSEDCHECK_OUT_IN], mat_max_abs_diff(m[R + k], m[F + k]));
    }
    // per head h: X W^h against column block h of the fused result; the batched head
    // on B T rows against the head on each sequence, worst relative to its tolerance
    if (!rc) rc = fusedcheck_per_head(&err[FUSEDCHECK_PER_HEAD], c, m[X], Wsrc, Fk, m[Y]);
    if (!rc) rc = fusedcheck_batched(&err[FUSEDCHECK_BATCHED], &tol[FUSEDCHECK_BATCHED], c, m[X], Wsrc, m[O], &w->h[0]);
done:
    workset_free(w);
    if (rng) gsl_rng_free(rng);
    return rc;
}

static size_t reps = 5;
static int no_timing;
static const opt_spec OPTIONS[] = {
    {"reps", OPT_SIZE, &reps, "N", "timed samples per point, >= 5 (default 5): min, median, max"},
    {"no-timing", OPT_FLAG, &no_timing, NULL, "agreement checks only"},
    {NULL, 0, NULL, NULL, NULL}};

static int run(experiment *e)
{
    double err[NCASES][NCHECKS], tol[NCASES][NCHECKS];
    int rc = ATT_OK;
    if (no_timing && e->o.T)    /* --T picks a timed length; the checks have fixed cases */
        return exp_usage("--T %zu with --no-timing: --T restricts the timing sweep, which "
                         "--no-timing skips (drop one of the two)", e->o.T);
    for (size_t i = 0; i < NCASES && !rc; i++) rc = check_case(e, i, err[i], tol[i]);
    if (reps < 5 && !no_timing) return exp_usage("--reps %zu: at least 5 samples per time", reps);
    // the timer keeps every sample twice (timing.h): reps*16 bytes, checked before (opts.h)
    if (opts_need(&e->o, NULL, 2 * sizeof(double), "reps", reps)) return ATT_EUSAGE;
    // the timing sweep (lib/claims/fusedtime.h): fused vs three vs 3 H products
    fusedtime_speedup sr[FUSEDTIME_MAX_SPEEDUPS];
    size_t ns = 0;
    if (!rc && !no_timing) rc = fusedtime_run(e->o.out_dir, e->o.seed, e->o.T, reps, sr, &ns);
    if (!rc) rc = fusedcheck_write(e->o.out_dir, "fused_qkv.csv", CASES, NCASES, err, tol);
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
                     k == FUSEDCHECK_BATCHED ? "8 eps (2 (d + d_k) |q||k| + 2 T) max|v| + 8 d eps |x||w_V|"
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
        exp_reported(e, m, NAN, verdict_measure_time(sr[s].speedup_median, sr[s].speedup_low, sr[s].speedup_high, reps),
                     "CPU time of %s products / one fused product, T = %zu, %zu head%s: median of %zu "
                     "(range %.3f to %.3f)", sr[s].versus, sr[s].T, sr[s].heads, sr[s].heads > 1 ? "s" : "",
                     reps, sr[s].speedup_low, sr[s].speedup_high);
    }
    return rc;
}

int main(int argc, char **argv)
{
    static const experiment_def def = {"fused_qkv", NULL, OPT_SEED | OPT_T, 20261129UL, 0, OPTIONS, run};
    return exp_main(&def, argc, argv);
}
