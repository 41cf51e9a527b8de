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
 * (time_run: 3 to --reps passes each, until the median is known to +-5%, within
 * --timing-budget CPU seconds for the sweep) and the speed-up of fusing with its
 * spread, reported.
 * Writes: fused_qkv.csv (per case and check), fused_qkv_timing.csv and
 * fused_qkv_speedup_timing.csv (columns: their .schema.csv).
 */
#include "prelude.h"
#include "fused.h"
#include "fusedcheck.h"
#include "randmat.h"
#include "timing.h"

static const fusedcheck_case CASES[] = {
    {"tiny", 1, 5, 16, 4, 4, 1},           {"odd_sizes", 3, 17, 50, 7, 11, 1},
    {"gpt2_one_head", 4, 64, 768, 64, 64, 1}, {"gpt2_12_heads", 4, 64, 768, 64, 64, 12},
    {"gpt2_context", 2, 1024, 768, 64, 64, 12}};
enum { NCASES = sizeof CASES / sizeof CASES[0], NCHECKS = FUSEDCHECK_N };
/* the random streams (experiment_rng): a check case's (block: the case), a timed point's
 * (block: 100 T + H) */
enum { STREAM_CHECK, STREAM_TIMING };

/* Case c: X (B T, d), W_Q, W_K (d, H d_k), W_V (d, H d_v) ~ N(0, 1/d);
 * W = [W_Q | W_K | W_V] (d, n), Wt = W^T (n, d); F, S, R: fused, separate and
 * (out, in) Q, K, V (B T, H w); err/tol per check. */
static int check_case(const experiment *e, size_t ci, double err[NCHECKS], double tol[NCHECKS])
{
    const fusedcheck_case *c = &CASES[ci];
    size_t N = c->B * c->T, d = c->d, nq = c->heads * c->d_k, nv = c->heads * c->d_v;
    size_t n = 2 * nq + nv, wmax = c->d_k > c->d_v ? c->d_k : c->d_v;
    enum { X, WQ, WK, WV, W, WT, QKV, F, S = F + 3, R = S + 3, O = R + 3, Y, NMAT };
    const size_t shape[NMAT][2] = {
        [X] = {N, d}, [WQ] = {d, nq}, [WK] = {d, nq}, [WV] = {d, nv}, [W] = {d, n}, [WT] = {n, d},
        [QKV] = {N, n}, [F] = {N, nq}, {N, nq}, {N, nv}, [S] = {N, nq}, {N, nq}, {N, nv},
        [R] = {N, nq}, {N, nq}, {N, nv}, [O] = {N, c->d_v}, [Y] = {N, wmax}};
    const size_t head[1][5] = {{c->T, c->T, d, c->d_k, c->d_v}};
    gsl_rng *rng = experiment_rng(e, STREAM_CHECK, ci);
    workset *w = workset_new(NMAT, shape, 0, NULL, 1, head);
    int st = ATT_OK;
    if ((st = rng && w ? ATT_OK : att_alloc_status())) goto done;
    gsl_matrix **m = w->m;
    const gsl_matrix *Wsrc[3] = {m[WQ], m[WK], m[WV]}, *Fk[3] = {m[F], m[F + 1], m[F + 2]};
    // X ~ N(0, 1), then W_Q, W_K, W_V ~ N(0, 1/d)
    randmat_head(rng, m[X], m[WQ], m[WK], m[WV], NULL);
    if ((st = fused_pack(m[W], m[WQ], m[WK], m[WV]))) goto done;
    gsl_matrix_transpose_memcpy(m[WT], m[W]);
    // |fl(x.w) - x.w| <= d eps |x| |w| for each of two computations
    double tol_proj = tol_eps(2, d, mat_max_row_norm(m[X]) * mat_max_col_norm(m[W]));
    for (int k = 0; k < NCHECKS; k++) {
        err[k] = 0.0;
        tol[k] = tol_proj;
    }

    // [Q | K | V] = X W_QKV, split;  X W_Q, X W_K, X W_V;  X Wt^T, split
    if ((st = fused_project(m[F], m[F + 1], m[F + 2], m[QKV], m[X], m[W]))) goto done;
    if ((st = fused_project_out_in(m[R], m[R + 1], m[R + 2], m[QKV], m[X], m[WT]))) goto done;
    for (int k = 0; k < 3; k++) {
        if ((st = head_project(m[S + k], m[X], Wsrc[k], NULL))) goto done;
        double sep = mat_max_abs_diff(m[F + k], m[S + k]);
        double out_in = mat_max_abs_diff(m[R + k], m[F + k]);
        err[FUSEDCHECK_SEPARATE] = fmax(err[FUSEDCHECK_SEPARATE], sep);
        err[FUSEDCHECK_OUT_IN] = fmax(err[FUSEDCHECK_OUT_IN], out_in);
    }
    // per head h: X W^h against column block h of the fused result; the batched head
    // on B T rows against the head on each sequence, worst relative to its tolerance
    if ((st = fusedcheck_per_head(&err[FUSEDCHECK_PER_HEAD], c, m[X], Wsrc, Fk, m[Y]))) goto done;
    if ((st = fusedcheck_batched(&err[FUSEDCHECK_BATCHED], &tol[FUSEDCHECK_BATCHED], c, m[X], Wsrc,
                                 m[O], &w->h[0])))
        goto done;
done:
    workset_free(w);
    if (rng) gsl_rng_free(rng);
    return st;
}

typedef struct {
    const char *name;
    size_t B, T, d, d_k, d_v, heads;
    const char *check;
    double max_abs_err, tolerance;
} check_row;

/* fused_qkv.csv: per case i and check k (case, B, T, d, d_k, d_v, heads, check,
 * max_abs_err, tolerance) from err[i][k], tol[i][k]. */
static int check_write(const char *dir, const fusedcheck_case *cases, size_t ncases,
                       double (*err)[FUSEDCHECK_N], double (*tol)[FUSEDCHECK_N])
{
    static const char *const check_name[FUSEDCHECK_N] = {"fused_vs_separate", "fused_vs_per_head",
                                                        "out_in_vs_fused", "batched_vs_one_by_one"};
    static const table_col cols[] = {
        COL_AS(check_row, name, "case"), COL(check_row, B), COL(check_row, T), COL(check_row, d),
        COL(check_row, d_k), COL(check_row, d_v), COL(check_row, heads), COL(check_row, check),
        COL_ROUND(check_row, max_abs_err, "tolerance"),
        /* the tolerance of the worst head: rounding picks it */
        COL_ROUND(check_row, tolerance, NULL)};
    check_row rows[64];
    if (ncases * FUSEDCHECK_N > sizeof rows / sizeof rows[0])
        return att_fail(ATT_EUSAGE, "check_write: %zu cases, at most 16", ncases);
    for (size_t i = 0; i < ncases; i++)
        for (int k = 0; k < FUSEDCHECK_N; k++) {
            const fusedcheck_case *c = &cases[i];
            rows[i * FUSEDCHECK_N + k] = (check_row){c->name, c->B, c->T, c->d, c->d_k, c->d_v,
                                                     c->heads, check_name[k], err[i][k], tol[i][k]};
        }
    return TABLE_WRITE(dir, "fused_qkv.csv", cols, rows, ncases * FUSEDCHECK_N);
}

/* The timing: one product X W_QKV against three and 3 H.
 *
 * At GPT-2 widths (d = 768, d_k = d_v = 64) on this CPU (OpenBLAS, all its
 * threads): for T = 64 .. 4096 with one head and T = 64, 256, 1024, 4096 with
 * 12 heads (or only T = --T, both head counts), every variant is timed
 * (timing_measure_until, samples of at least 2 ms): one warm-up call, then at least 3
 * and at most --reps samples, stopping once the median's order-statistic interval is
 * within +-5% (timing.h) or the variant used its CPU share: at most 0.15 CPU s (every
 * thread's, the warm-up included), and at most what is left of --timing-budget over the
 * variants left (timing_sweep_share). No point is left out: a point whose share is spent
 * still gets its 3 samples, so a slow machine can exceed the budget by those.
 *   fused      QKV = X W_QKV              X (T, d), W_QKV (d, 3 H 64)
 *   separate   X W_Q, X W_K, X W_V        (d, H 64) each
 *   per_head   X W^h for each of the 3 H blocks (d, 64), 12 heads only
 * and the speed-up of fusing, separate / fused: median / median, the range
 * min / max .. max / min (of each variant's own samples). Writes fused_qkv_timing.csv (T, heads,
 * threads, variant, reps, inner, min/median/max seconds, median GFLOP/s)
 * and fused_qkv_speedup_timing.csv (T, heads, versus, speed-up median and
 * range).
 */
enum { TIME_D = 768, TIME_DK = 64, MAX_SPEEDUPS = 24 };

typedef struct {
    size_t T, heads;
    const char *versus;     /* "separate" or "per_head" */
    double speedup_median, speedup_low, speedup_high;
    size_t reps_fused, reps_versus;   /* the samples behind the two medians */
} speedup_row;

static const size_t T_TIMING[] = {64, 128, 256, 512, 1024, 2048, 4096};
enum { NT = sizeof T_TIMING / sizeof T_TIMING[0], V_FUSED, V_SEPARATE, V_PER_HEAD, NVAR_END };
static const char *const VARIANT[] = {"fused", "separate", "per_head"};

/* X (T, d), W = [W_Q | W_K | W_V] (d, 3 H 64), QKV (T, 3 H 64), Q, K, V (T, H 64) */
typedef struct {
    gsl_matrix *X, *W[3], *Wf, *QKV, *Y[3];
    size_t heads;
    int variant;
} bench;

/* One run of a variant: QKV = X W_QKV, or three products, or 3 H per-head ones. */
static int variant_once(void *arg)
{
    bench *b = arg;
    if (b->variant == V_FUSED) return mat_gemm(b->QKV, 1.0, b->X, 0, b->Wf, 0, 0.0);
    int rc = ATT_OK;
    size_t H = b->variant == V_PER_HEAD ? b->heads : 1;
    size_t w = b->variant == V_PER_HEAD ? TIME_DK : b->Y[0]->size2;
    for (size_t h = 0; h < H && !rc; h++)
        for (int k = 0; k < 3 && !rc; k++) {
            gsl_matrix_view Wh = gsl_matrix_submatrix(b->W[k], 0, h * w, TIME_D, w);
            gsl_matrix_view Yh = gsl_matrix_submatrix(b->Y[k], 0, h * w, b->Y[k]->size1, w);
            rc = mat_gemm(&Yh.matrix, 1.0, b->X, 0, &Wh.matrix, 0, 0.0);
        }
    return rc;
}

typedef struct {
    size_t T, heads, threads;
    const char *variant;
    size_t reps, inner;
    double min_seconds, median_seconds, max_seconds, median_gflops;
} time_row;
static const table_col TIME_COLS[] = {
    COL(time_row, T), COL(time_row, heads), COL(time_row, threads), COL(time_row, variant),
    COL(time_row, reps), COL(time_row, inner), COL(time_row, min_seconds),
    COL(time_row, median_seconds), COL(time_row, max_seconds), COL(time_row, median_gflops)};

/* speed-up = separate / fused: median / median, and the range min / max .. max / min */
static const table_col SPEEDUP_COLS[] = {
    COL(speedup_row, T), COL(speedup_row, heads), COL(speedup_row, versus),
    COL(speedup_row, speedup_median), COL(speedup_row, speedup_low),
    COL(speedup_row, speedup_high)};

/* the variants timed at H heads: per_head only with more than one head (else = separate) */
static size_t variants_at(size_t H) { return H > 1 ? 3 : 2; }

/* One point: T tokens, H heads; X (T, d) ~ N(0, 1), W_Q, W_K, W_V (d, H 64) ~ N(0, 1/d)
 * from the point's own stream; a row of tr per variant timed, each within its share of
 * sw's budget (*left: the variants of the sweep not yet timed, this point's included). */
static int time_point(const experiment *e, size_t T, size_t H, timing_sweep *sw, size_t *left,
                      time_row *tr, size_t *nt)
{
    bench b = {.heads = H, .X = mat_new(T, TIME_D), .Wf = mat_new(TIME_D, 3 * H * TIME_DK),
               .QKV = mat_new(T, 3 * H * TIME_DK)};
    gsl_rng *rng = experiment_rng(e, STREAM_TIMING, T * 100 + H);
    int st = ATT_OK;
    if ((st = b.X && b.Wf && b.QKV && rng ? ATT_OK : att_alloc_status())) goto done;
    for (int k = 0; k < 3; k++) {
        b.W[k] = mat_new(TIME_D, H * TIME_DK);
        b.Y[k] = mat_new(T, H * TIME_DK);
        if ((st = b.W[k] && b.Y[k] ? ATT_OK : att_alloc_status())) goto done;
    }
    randmat_head(rng, b.X, b.W[0], b.W[1], b.W[2], NULL);   /* X ~ N(0, 1), W ~ N(0, 1/d) */
    if ((st = fused_pack(b.Wf, b.W[0], b.W[1], b.W[2]))) goto done;
    double flops = 2.0 * (double)T * TIME_D * (double)(3 * H * TIME_DK);
    for (b.variant = V_FUSED; b.variant < NVAR_END; b.variant++) {
        if (b.variant == V_PER_HEAD && H == 1) continue;      /* the same as separate */
        timing t;
        timing_rule rule = timing_sweep_share(sw, (*left)--);
        double cpu0 = timing_process_cpu();
        st = timing_measure_until(variant_once, &b, &rule, 0.002, &t);
        sw->spent += timing_process_cpu() - cpu0;
        if (st) goto done;
        tr[(*nt)++] = (time_row){T, H, (size_t)timing_blas_threads(), VARIANT[b.variant - V_FUSED],
                                 t.reps, t.inner, t.min, t.median, t.max, flops / t.median / 1e9};
    }
done:
    if (rng) gsl_rng_free(rng);
    for (int k = 0; k < 3; k++) {
        mat_free(b.W[k]);
        mat_free(b.Y[k]);
    }
    mat_free(b.X);
    mat_free(b.Wf);
    mat_free(b.QKV);
    return st;
}

/* Time every point (Tonly = 0: the whole sweep) within sw's budget, write both tables
 * into e's folder; sr[0 .. *ns - 1] the speed-ups (MAX_SPEEDUPS at most). */
static int time_run(const experiment *e, size_t Tonly, timing_sweep *sw, speedup_row *sr,
                    size_t *ns)
{
    time_row tr[NT * 5];
    size_t pT[2 * NT], pH[2 * NT], np = 0, nt = 0, left = 0;   /* the points (T, H) */
    int st = ATT_OK;
    *ns = 0;
    for (size_t H = 1; H <= 12; H += 11)
        for (size_t i = 0; i < (Tonly ? 1 : NT); i++) {
            size_t T = Tonly ? Tonly : T_TIMING[i];
            if (H > 1 && !Tonly && T != 64 && T != 256 && T != 1024 && T != 4096) continue;
            pT[np] = T, pH[np++] = H, left += variants_at(H);
        }
    for (size_t p = 0; p < np; p++) {
        size_t first = nt;
        if ((st = time_point(e, pT[p], pH[p], sw, &left, tr, &nt))) return st;
        for (size_t v = first + 1; v < nt; v++)
            sr[(*ns)++] = (speedup_row){pT[p], pH[p], tr[v].variant,
                                        tr[v].median_seconds / tr[first].median_seconds,
                                        tr[v].min_seconds / tr[first].max_seconds,
                                        tr[v].max_seconds / tr[first].min_seconds,
                                        tr[first].reps, tr[v].reps};
    }
    if (nt && (st = TABLE_WRITE(e->o.out_dir, "fused_qkv_timing.csv", TIME_COLS, tr, nt)))
        return st;
    if (nt && (st = TABLE_WRITE(e->o.out_dir, "fused_qkv_speedup_timing.csv", SPEEDUP_COLS, sr,
                                *ns)))
        return st;
    return ATT_OK;
}

static size_t reps = 9;
static double timing_budget = 4.0;          /* CPU seconds of the whole timing sweep */
enum { PER_POINT_CPU_CS = 15 };             /* and at most of one variant: 0.15 CPU s */
static int no_timing;
static const opt_spec OPTIONS[] = {
    {"reps", OPT_SIZE, &reps, "N", "most timed samples per variant and point, >= 3 (default 9; "
     "fewer once the median is known to +-5%): min, median, max"},
    {"timing-budget", OPT_DOUBLE, &timing_budget, "S", "CPU seconds for all the times (default 4; "
     "each variant at least 3 samples even when it is spent)"},
    {"no-timing", OPT_FLAG, &no_timing, NULL, "agreement checks only"},
    {NULL, 0, NULL, NULL, NULL}};

static int run(experiment *e)
{
    double err[NCASES][NCHECKS], tol[NCASES][NCHECKS];
    int st = ATT_OK;
    if (no_timing && e->o.T)    /* --T picks a timed length; the checks have fixed cases */
        return usage_error("--T %zu with --no-timing: --T restricts the timing sweep, which "
                         "--no-timing skips (drop one of the two)", e->o.T);
    if (reps < 3 && !no_timing) return usage_error("--reps %zu: at least 3 samples per time", reps);
    timing_sweep sw;
    const timing_rule rule = {3, reps, 0.05, PER_POINT_CPU_CS / 100.0};
    if ((st = timing_sweep_init(&sw, rule, timing_budget))) return st;
    // the timer keeps every sample twice (timing.h): reps*16 bytes, checked before (opts.h)
    if (opts_need(&e->o, NULL, 2 * sizeof(double), "reps", reps)) return ATT_EUSAGE;
    for (size_t i = 0; i < NCASES; i++)
        if ((st = check_case(e, i, err[i], tol[i]))) return st;
    // the timing sweep (time_run): fused vs three vs 3 H products
    speedup_row sr[MAX_SPEEDUPS];
    size_t ns = 0;
    if (!no_timing && (st = time_run(e, e->o.T, &sw, sr, &ns))) return st;
    if ((st = check_write(e->o.out_dir, CASES, NCASES, err, tol))) return st;
    char machine[512], sweep[512];
    experiment_meta(e, "%s\n%s\nd: %d\nd_k: %d\ntiming: %s",
             timing_machine(machine, sizeof machine), timing_sweep_meta(sweep, sizeof sweep, &sw),
             TIME_D, TIME_DK, no_timing ? "skipped (--no-timing)" : "OpenBLAS dgemm, CPU");

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
        const char *bound = k == FUSEDCHECK_BATCHED
                                ? "8 eps (2 (d + d_k) |q||k| + 2 T) max|v| + 8 d eps |x||w_V|"
                                : "2 d eps max|x| max|w|";
        verdict_identity(e, macro[k], 0.0, verdict_measure_exact(worst, NCASES),
                     verdict_rule_at_most(tmin),
                     "%s over %d cases (tolerance: the smallest of the cases, each %s)", what[k],
                     (int)NCASES, bound);
        if (k == 0) experiment_headline(e);
        worst_all = fmax(worst_all, worst);
    }
    experiment_summary(e,
                       "fused split = three separate projections, per head, (out, in) storage and "
                       "batched: largest difference %.3g over %d cases (the section: equal)",
                       worst_all, (int)NCASES);
    // times: the speed-up of fusing at every T, with its spread (reported: a CPU, not a GPU)
    for (size_t s = 0; s < ns; s++) {
        const speedup_row *p = &sr[s];
        int cited = p->T == 1024;
        const char *m = !cited ? ""
                        : p->heads == 1 ? "fusedQKVSpeedupOneHead"
                        : p->versus[0] == 's' ? "fusedQKVSpeedupTwelveHeads"
                                              : "fusedQKVSpeedupPerHead";
        const char *plural = p->heads > 1 ? "s" : "";
        if (cited)
            experiment_summary(
                e,
                "CPU, T = %zu, %zu head%s: %s products take %.2fx the time of one fused "
                "product (medians of %zu and %zu samples)",
                p->T, p->heads, plural, p->versus, p->speedup_median, p->reps_versus,
                p->reps_fused);
        // n: the fewer of the two medians' samples
        size_t n = p->reps_versus < p->reps_fused ? p->reps_versus : p->reps_fused;
        verdict_reported(e, m, NAN,
                     verdict_measure_time(p->speedup_median, p->speedup_low, p->speedup_high, n),
                     "CPU time of %s products / one fused product, T = %zu, %zu head%s: median / "
                     "median of %zu and %zu samples (range %.3f to %.3f)", p->versus, p->T,
                     p->heads, plural, p->reps_versus, p->reps_fused, p->speedup_low,
                     p->speedup_high);
    }
    return ATT_OK;
}

int main(int argc, char **argv)
{
    static const experiment_def def = {"fused_qkv", NULL, OPT_SEED | OPT_T, 20261129UL, 0, OPTIONS,
                                       run};
    return experiment_main(&def, argc, argv);
}
