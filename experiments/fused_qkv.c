/* fused_qkv - one product for Q, K and V instead of three.
 *
 * Claim (fused_qkv): stacking the three weights side by side,
 * W_QKV = [W_Q | W_K | W_V] (d x (2 d_k + d_v)), one product X W_QKV followed
 * by a split into column blocks gives exactly the three projections X W_Q,
 * X W_K, X W_V; the same works over a batch of B sequences stacked as rows;
 * frameworks store a linear layer's weight as (out, in), i.e. W_QKV^T; and
 * one big product runs faster than three small ones (the section says so for
 * GPUs; here it is measured on this CPU, and labelled as such).
 *
 * Measured:
 *   agreement, for GPT-2 sizes (d = 768, d_k = d_v = 64, 1 and 12 heads,
 *   T up to 1024) and small odd sizes:
 *     - fused vs three separate products, and vs 3 H per-head products
 *     - (out, in) storage (X Wt^T) vs W_QKV
 *     - the batched head (one fused projection over B*T rows) vs the head
 *       run on each sequence alone
 *   against size-scaled tolerances: a projection entry is an inner product of
 *   length d, so |fl(x.w) - x.w| <= d eps |x| |w| (twice that between two
 *   computations); head outputs use tiled_tolerance (lib/tiled.h).
 *   timing, on this CPU (OpenBLAS, all its threads): fused product vs three
 *   separate products (and 3 H per-head ones for 12 heads, and the library's
 *   fused_project, which also copies Q, K, V out), for T = 64 .. 4096, the
 *   median of --reps timed samples, each sample at least 2 ms long.
 *
 * Writes into --out:
 *   fused_qkv.csv          case, sizes, check, max |difference|, tolerance
 *   fused_qkv_timing.csv   T, heads, median seconds of each variant, GFLOP/s,
 *                          speedup = separate / fused (machine-dependent)
 *   fused_qkv.meta, fused_qkv.verdicts.csv
 */
#include "fused.h"
#include "tol.h"
#include "head.h"
#include "mat.h"
#include "opts.h"
#include "output.h"
#include "rng.h"
#include "status.h"
#include "tiled.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <gsl/gsl_blas.h>
#include <omp.h>

#define ID "fused_qkv"

/* OpenBLAS exports this; with GSL's reference CBLAS it is absent (1 thread). */
extern int openblas_get_num_threads(void) __attribute__((weak));

/* ---- sizes ---------------------------------------------------------------- */

typedef struct {
    const char *name;
    size_t B, T, d, d_k, d_v, H;    /* H heads: W_Q is (d, H d_k), W_V (d, H d_v) */
} acase;

static const acase CASES[] = {
    { "tiny",            1,    5,  16,  4,  4,  1 },
    { "odd_sizes",       3,   17,  50,  7, 11,  1 },
    { "gpt2_one_head",   4,   64, 768, 64, 64,  1 },
    { "gpt2_12_heads",   4,   64, 768, 64, 64, 12 },
    { "gpt2_context",    2, 1024, 768, 64, 64, 12 },
};
enum { NCASES = sizeof CASES / sizeof CASES[0] };

enum { CHECK_SEPARATE, CHECK_PER_HEAD, CHECK_OUT_IN, CHECK_BATCHED, NCHECKS };
static const char *CHECK_NAME[NCHECKS] = { "fused_vs_separate", "fused_vs_per_head",
                                           "out_in_vs_fused", "batched_vs_one_by_one" };

/* Timing: GPT-2 widths, T = 64 .. 4096 (every factor 2 for one head; every
 * factor 4 for 12 heads, whose products cost 12 times more, to keep the
 * default run to a few seconds). */
enum { TD = 768, TDK = 64, TDV = 64 };
static const size_t T_TIMING[] = { 64, 128, 256, 512, 1024, 2048, 4096 };
static const size_t H_TIMING[] = { 1, 12 };
enum { NT = sizeof T_TIMING / sizeof T_TIMING[0], NH = sizeof H_TIMING / sizeof H_TIMING[0] };

/* Is (T, H) on the timing grid? */
static int timing_point_on(size_t T, size_t H)
{
    if (H == 1) return 1;
    return T == 64 || T == 256 || T == 1024 || T == 4096;
}
static const double MIN_SAMPLE = 0.002;    /* seconds per timed sample */

/* ---- helpers ---------------------------------------------------------------- */

/* max_i ||row i||_2 (cols = 0) or max_j ||column j||_2 (cols = 1) */
static double max_norm(const gsl_matrix *A, int cols)
{
    double m = 0.0;
    size_t n = cols ? A->size2 : A->size1;
    for (size_t k = 0; k < n; k++) {
        gsl_vector_const_view v = cols ? gsl_matrix_const_column(A, k) : gsl_matrix_const_row(A, k);
        m = fmax(m, gsl_blas_dnrm2(&v.vector));
    }
    return m;
}

/* ---- agreement ------------------------------------------------------------ */

typedef struct {
    double err[NCHECKS], tol[NCHECKS];
} aresult;

/* One case: X (B T, d), W_Q, W_K (d, H d_k), W_V (d, H d_v) ~ N(0, 1/d). */
static int agree_case(const opts *o, size_t ci, aresult *r)
{
    const acase *c = &CASES[ci];
    size_t N = c->B * c->T, d = c->d, nq = c->H * c->d_k, nv = c->H * c->d_v;
    size_t n = 2 * nq + nv;
    gsl_rng *rng = rng_new("mt19937", rng_stream_seed(o->seed, 0, ci));
    gsl_matrix *X = mat_new(N, d), *W_Q = mat_new(d, nq), *W_K = mat_new(d, nq);
    gsl_matrix *W_V = mat_new(d, nv), *W = mat_new(d, n), *Wt = mat_new(n, d);
    gsl_matrix *QKV = mat_new(N, n), *Q = mat_new(N, nq), *K = mat_new(N, nq), *V = mat_new(N, nv);
    gsl_matrix *Q2 = mat_new(N, nq), *K2 = mat_new(N, nq), *V2 = mat_new(N, nv);
    gsl_matrix *Qs = mat_new(N, nq), *Ks = mat_new(N, nq), *Vs = mat_new(N, nv);
    gsl_matrix *O = mat_new(N, c->d_v), *Y = mat_new(N, c->d_k > c->d_v ? c->d_k : c->d_v);
    int rc = (rng && X && W_Q && W_K && W_V && W && Wt && QKV && Q && K && V && Q2 && K2
              && V2 && Qs && Ks && Vs && O && Y) ? ATT_OK : ATT_ERUNTIME;
    head_state st = { 0 };
    if (!rc) rc = head_state_alloc(&st, c->T, c->T, d, c->d_k, c->d_v);
    if (rc) goto done;

    double sw = 1.0 / sqrt((double)d);
    mat_randn(X, rng, 1.0);
    mat_randn(W_Q, rng, sw);
    mat_randn(W_K, rng, sw);
    mat_randn(W_V, rng, sw);
    // W_QKV = [W_Q | W_K | W_V];  Wt = W_QKV^T, the (out, in) storage
    if ((rc = fused_pack(W, W_Q, W_K, W_V))) goto done;
    gsl_matrix_transpose_memcpy(Wt, W);

    // |fl(x.w) - x.w| <= d eps |x| |w| for each of two computations
    double tol_proj = tol_eps(2, d, max_norm(X, 0) * max_norm(W, 1));

    // fused: [Q | K | V] = X W_QKV;  separate: X W_Q, X W_K, X W_V
    if ((rc = fused_project(Q, K, V, QKV, X, W))) goto done;
    if ((rc = head_project(Qs, X, W_Q, NULL)) || (rc = head_project(Ks, X, W_K, NULL))
        || (rc = head_project(Vs, X, W_V, NULL))) goto done;
    r->err[CHECK_SEPARATE] = fmax(mat_max_abs_diff(Q, Qs), fmax(mat_max_abs_diff(K, Ks), mat_max_abs_diff(V, Vs)));
    r->tol[CHECK_SEPARATE] = tol_proj;

    // per head: 3 H products X W_Q^h (d, d_k), ... into the column blocks
    r->err[CHECK_PER_HEAD] = 0.0;
    for (size_t h = 0; h < c->H && !rc; h++) {
        const gsl_matrix *Wsrc[3] = { W_Q, W_K, W_V };
        gsl_matrix *Fused[3] = { Q, K, V };
        size_t w[3] = { c->d_k, c->d_k, c->d_v };
        for (int k = 0; k < 3 && !rc; k++) {
            gsl_matrix_const_view Wh = gsl_matrix_const_submatrix(Wsrc[k], 0, h * w[k], d, w[k]);
            gsl_matrix_const_view Fh = gsl_matrix_const_submatrix(Fused[k], 0, h * w[k], N, w[k]);
            gsl_matrix_view Yh = gsl_matrix_submatrix(Y, 0, 0, N, w[k]);
            rc = head_project(&Yh.matrix, X, &Wh.matrix, NULL);
            if (!rc) r->err[CHECK_PER_HEAD] = fmax(r->err[CHECK_PER_HEAD],
                                                  mat_max_abs_diff(&Yh.matrix, &Fh.matrix));
        }
    }
    r->tol[CHECK_PER_HEAD] = tol_proj;
    if (rc) goto done;

    // (out, in): QKV = X Wt^T
    if ((rc = fused_project_out_in(Q2, K2, V2, QKV, X, Wt))) goto done;
    r->err[CHECK_OUT_IN] = fmax(mat_max_abs_diff(Q2, Q), fmax(mat_max_abs_diff(K2, K), mat_max_abs_diff(V2, V)));
    r->tol[CHECK_OUT_IN] = tol_proj;

    // batched vs one by one, for every head h (its column blocks of the weights)
    r->err[CHECK_BATCHED] = 0.0;
    r->tol[CHECK_BATCHED] = NAN;            /* set by the first sequence */
    for (size_t h = 0; h < c->H && !rc; h++) {
        gsl_matrix_const_view WQh = gsl_matrix_const_submatrix(W_Q, 0, h * c->d_k, d, c->d_k);
        gsl_matrix_const_view WKh = gsl_matrix_const_submatrix(W_K, 0, h * c->d_k, d, c->d_k);
        gsl_matrix_const_view WVh = gsl_matrix_const_submatrix(W_V, 0, h * c->d_v, d, c->d_v);
        head_params p = head_params_make(&WQh.matrix, &WKh.matrix, &WVh.matrix);
        if ((rc = head_forward_batched(O, &p, X, c->B, c->T))) break;
        for (size_t b = 0; b < c->B && !rc; b++) {
            gsl_matrix_const_view Xb = gsl_matrix_const_submatrix(X, b * c->T, 0, c->T, d);
            gsl_matrix_const_view Ob = gsl_matrix_const_submatrix(O, b * c->T, 0, c->T, c->d_v);
            if ((rc = head_forward(&st, &p, &Xb.matrix, &Xb.matrix))) break;
            // scores through inner products of length d (projection) + d_k
            double tol = tol_attention_output(c->T, d + c->d_k, tol_score_bound(st.Q, st.K, 1.0),
                                         mat_max_abs(st.V))
                         + tol_eps(8, d, max_norm(&Xb.matrix, 0) * max_norm(&WVh.matrix, 1));
            double err = mat_max_abs_diff(&Ob.matrix, st.O);
            // keep the case's worst error relative to its own tolerance
            if (isnan(r->tol[CHECK_BATCHED]) || isnan(err)
                || err * r->tol[CHECK_BATCHED] > r->err[CHECK_BATCHED] * tol) {
                r->err[CHECK_BATCHED] = err;
                r->tol[CHECK_BATCHED] = tol;
            }
        }
    }

done:
    head_state_free(&st);
    mat_free(X); mat_free(W_Q); mat_free(W_K); mat_free(W_V); mat_free(W); mat_free(Wt);
    mat_free(QKV); mat_free(Q); mat_free(K); mat_free(V); mat_free(Q2); mat_free(K2);
    mat_free(V2); mat_free(Qs); mat_free(Ks); mat_free(Vs); mat_free(O); mat_free(Y);
    if (rng) gsl_rng_free(rng);
    return rc;
}

/* ---- timing ------------------------------------------------------------- */

enum { V_FUSED, V_SEPARATE, V_PER_HEAD, V_FUSED_COPY, NVAR };

typedef struct {
    gsl_matrix *X, *W_Q, *W_K, *W_V, *W, *QKV, *Q, *K, *V;
    size_t H;
} tbuf;

/* One run of a variant. Shapes: X (T, d), W (d, 3 H 64), QKV (T, 3 H 64),
 * Q, K, V (T, H 64). */
static int variant_once(int v, tbuf *b)
{
    switch (v) {
    case V_FUSED:        /* QKV = X W_QKV: Q, K, V are views of QKV */
        return mat_gemm(b->QKV, 1.0, b->X, 0, b->W, 0, 0.0);
    case V_SEPARATE: {   /* Q = X W_Q, K = X W_K, V = X W_V */
        int rc = mat_gemm(b->Q, 1.0, b->X, 0, b->W_Q, 0, 0.0);
        if (!rc) rc = mat_gemm(b->K, 1.0, b->X, 0, b->W_K, 0, 0.0);
        if (!rc) rc = mat_gemm(b->V, 1.0, b->X, 0, b->W_V, 0, 0.0);
        return rc;
    }
    case V_PER_HEAD: {   /* 3 H products of width 64 */
        int rc = ATT_OK;
        gsl_matrix *Wsrc[3] = { b->W_Q, b->W_K, b->W_V }, *Y[3] = { b->Q, b->K, b->V };
        for (size_t h = 0; h < b->H && !rc; h++)
            for (int k = 0; k < 3 && !rc; k++) {
                gsl_matrix_view Wh = gsl_matrix_submatrix(Wsrc[k], 0, h * TDK, TD, TDK);
                gsl_matrix_view Yh = gsl_matrix_submatrix(Y[k], 0, h * TDK, Y[k]->size1, TDK);
                rc = mat_gemm(&Yh.matrix, 1.0, b->X, 0, &Wh.matrix, 0, 0.0);
            }
        return rc;
    }
    default:             /* fused_project: the product, then Q, K, V copied out */
        return fused_project(b->Q, b->K, b->V, b->QKV, b->X, b->W);
    }
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median over reps samples of the seconds per run; each sample repeats the
 * run `inner` times, inner chosen so that a sample lasts >= MIN_SAMPLE. */
static int time_variant(int v, tbuf *b, size_t reps, double *median, double *inner_out)
{
    // one run: warms up (pages, BLAS threads) and sizes the samples
    double t0 = omp_get_wtime();
    int rc = variant_once(v, b);
    if (rc) return rc;
    double t1 = omp_get_wtime() - t0;
    double inner = t1 >= MIN_SAMPLE ? 1.0 : ceil(MIN_SAMPLE / fmax(t1, 1e-7));
    double *s = malloc(reps * sizeof *s);
    if (!s) return att_fail(ATT_ERUNTIME, "out of memory for timing samples");
    for (size_t r = 0; r < reps && !rc; r++) {
        t0 = omp_get_wtime();
        for (double k = 0; k < inner && !rc; k++) rc = variant_once(v, b);
        s[r] = (omp_get_wtime() - t0) / inner;
    }
    qsort(s, reps, sizeof *s, cmp_double);
    *median = reps % 2 ? s[reps / 2] : 0.5 * (s[reps / 2 - 1] + s[reps / 2]);
    *inner_out = inner;
    free(s);
    return rc;
}

typedef struct {
    size_t T, H;
    double sec[NVAR], inner[NVAR];
} trow;

static void tbuf_free(tbuf *b)
{
    mat_free(b->X); mat_free(b->W_Q); mat_free(b->W_K); mat_free(b->W_V); mat_free(b->W);
    mat_free(b->QKV); mat_free(b->Q); mat_free(b->K); mat_free(b->V);
}

static int time_point(const opts *o, size_t T, size_t H, size_t reps, trow *row)
{
    tbuf b = { 0 };
    size_t nq = H * TDK, nv = H * TDV, n = 2 * nq + nv;
    b.H = H;
    b.X = mat_new(T, TD); b.W_Q = mat_new(TD, nq); b.W_K = mat_new(TD, nq); b.W_V = mat_new(TD, nv);
    b.W = mat_new(TD, n); b.QKV = mat_new(T, n);
    b.Q = mat_new(T, nq); b.K = mat_new(T, nq); b.V = mat_new(T, nv);
    gsl_rng *rng = rng_new("mt19937", rng_stream_seed(o->seed, 1, T * 100 + H));
    int rc = (b.X && b.W_Q && b.W_K && b.W_V && b.W && b.QKV && b.Q && b.K && b.V && rng)
             ? ATT_OK : ATT_ERUNTIME;
    if (!rc) {
        mat_randn(b.X, rng, 1.0);
        mat_randn(b.W_Q, rng, 1.0 / sqrt((double)TD));
        mat_randn(b.W_K, rng, 1.0 / sqrt((double)TD));
        mat_randn(b.W_V, rng, 1.0 / sqrt((double)TD));
        rc = fused_pack(b.W, b.W_Q, b.W_K, b.W_V);
    }
    *row = (trow){ .T = T, .H = H };
    for (int v = 0; v < NVAR && !rc; v++) {
        row->sec[v] = row->inner[v] = NAN;
        if (v == V_PER_HEAD && H == 1) continue;     /* the same as separate */
        if (v == V_FUSED_COPY && H > 1) continue;    /* one head shows the copy's cost */
        rc = time_variant(v, &b, reps, &row->sec[v], &row->inner[v]);
    }
    if (rng) gsl_rng_free(rng);
    tbuf_free(&b);
    return rc;
}

/* ---- output ---------------------------------------------------------------- */

static int write_agreement(const opts *o, const aresult *res)
{
    afile af;
    int st = afile_open(&af, o->out_dir, ID ".csv");
    if (st) return st;
    fprintf(af.f, "case,B,T,d,d_k,d_v,heads,check,max_abs_err,tolerance\n");
    for (size_t i = 0; i < NCASES; i++) {
        const acase *c = &CASES[i];
        for (int k = 0; k < NCHECKS; k++) {
            fprintf(af.f, "%s,%zu,%zu,%zu,%zu,%zu,%zu,%s,", c->name, c->B, c->T, c->d, c->d_k,
                    c->d_v, c->H, CHECK_NAME[k]);
            csv_num(af.f, res[i].err[k]);
            fputc(',', af.f);
            csv_num(af.f, res[i].tol[k]);
            fputc('\n', af.f);
        }
    }
    return afile_commit(&af);
}

static double flops_of(const trow *r)
{
    return 2.0 * (double)r->T * TD * (double)(r->H * (2 * TDK + TDV));
}

static int write_timing(const opts *o, const trow *rows, size_t n, int threads, size_t reps)
{
    afile af;
    int st = afile_open(&af, o->out_dir, ID "_timing.csv");
    if (st) return st;
    fprintf(af.f, "# CPU timing (OpenBLAS dgemm, %d threads; d = %d, d_k = d_v = %d): median of "
            "%zu samples per point, seconds per projection of T tokens. The section's claim is "
            "about GPUs.\n", threads, TD, TDK, reps);
    fprintf(af.f, "T,heads,threads,fused_seconds,separate_seconds,per_head_seconds,"
            "fused_copy_seconds,fused_gflops,separate_gflops,speedup_separate_over_fused,"
            "speedup_per_head_over_fused\n");
    for (size_t i = 0; i < n; i++) {
        const trow *r = &rows[i];
        double f = flops_of(r);
        double row[] = { (double)r->T, (double)r->H, threads, r->sec[V_FUSED], r->sec[V_SEPARATE],
                         r->sec[V_PER_HEAD], r->sec[V_FUSED_COPY], f / r->sec[V_FUSED] / 1e9,
                         f / r->sec[V_SEPARATE] / 1e9, r->sec[V_SEPARATE] / r->sec[V_FUSED],
                         r->sec[V_PER_HEAD] / r->sec[V_FUSED] };
        for (size_t k = 0; k < sizeof row / sizeof row[0]; k++) {
            if (k) fputc(',', af.f);
            csv_num(af.f, row[k]);
        }
        fputc('\n', af.f);
    }
    return afile_commit(&af);
}

static int report(const opts *o, const aresult *res, const trow *rows, size_t nrows)
{
    static const char *macro[NCHECKS] = { "fusedQKVSeparateErr", "fusedQKVPerHeadErr",
                                          "fusedQKVOutInErr", "fusedQKVBatchedErr" };
    static const char *what[NCHECKS] = {
        "max |fused split - three separate products|",
        "max |fused split - 3 H per-head products|",
        "max |X Wt^T ((out, in) storage) - X W_QKV|",
        "max |batched head - head on each sequence| (every head)" };
    static const char *rule[NCHECKS] = { "2 d eps max|x| max|w|", "2 d eps max|x| max|w|",
                                         "2 d eps max|x| max|w|",
                                         "8 eps (2 (d + d_k) |q||k| + 2 T) max|v| + 8 d eps |x||w_V|" };
    verdict_list vl;
    verdicts_init(&vl);
    int st = ATT_OK;
    // shown: the largest error over the cases against the smallest tolerance
    // (a stricter rule than case by case, and both numbers are reproducible)
    for (int k = 0; k < NCHECKS && !st; k++) {
        double err = 0.0, tol = INFINITY;
        for (size_t i = 0; i < NCASES; i++) {
            if (res[i].err[k] > err || isnan(res[i].err[k])) err = res[i].err[k];
            tol = fmin(tol, res[i].tol[k]);
        }
        char q[256], rl[160];
        snprintf(q, sizeof q, "%s over %zu cases", what[k], (size_t)NCASES);
        snprintf(rl, sizeof rl, "<= the smallest tolerance of the cases, each %s", rule[k]);
        st = verdict_exact(&vl, macro[k], q, 0.0, err, tol, err <= tol, rl);
    }
    // timings: the speedup of fusing at GPT-2's context length (T = 1024)
    for (size_t i = 0; i < nrows && !st; i++) {
        const trow *r = &rows[i];
        if (r->T != 1024) continue;
        char q[200];
        snprintf(q, sizeof q, "CPU time of three separate products / one fused product, "
                 "T = 1024, %zu head%s (d = 768, d_k = d_v = 64)", r->H, r->H > 1 ? "s" : "");
        st = verdict_timing(&vl, r->H == 1 ? "fusedQKVSpeedupOneHead" : "fusedQKVSpeedupTwelveHeads",
                            q, r->sec[V_SEPARATE] / r->sec[V_FUSED], 1,
                            "reported as measured (CPU; the section's claim is about GPUs)");
        if (!st && r->H > 1) {
            snprintf(q, sizeof q, "CPU time of 36 per-head products / one fused product, "
                     "T = 1024, 12 heads");
            st = verdict_timing(&vl, "fusedQKVSpeedupPerHead", q,
                                r->sec[V_PER_HEAD] / r->sec[V_FUSED], 1,
                                "reported as measured (CPU; the section's claim is about GPUs)");
        }
    }
    if (!st) st = legacy_verdicts_write(&vl, o);
    if (!st) st = verdicts_status(&vl);
    verdicts_free(&vl);
    return st;
}

static int run(const opts *o, size_t reps, int no_timing)
{
    aresult res[NCASES];
    int st = ATT_OK;
    for (size_t i = 0; i < NCASES && !st; i++) st = agree_case(o, i, &res[i]);
    if (st) return st;

    trow rows[NT * NH];      /* the grid has at most NT * NH points */
    size_t nrows = 0;
    int threads = openblas_get_num_threads ? openblas_get_num_threads() : 1;
    // the grid, or --T alone (for both head counts)
    for (size_t h = 0; h < NH && !st && !no_timing; h++)
        for (size_t t = 0; t < (o->T ? 1 : NT) && !st; t++) {
            size_t T = o->T ? o->T : T_TIMING[t], H = H_TIMING[h];
            if (!o->T && !timing_point_on(T, H)) continue;
            size_t n = H * (2 * TDK + TDV);
            size_t bytes = mat_bytes(T, TD + 2 * n), wbytes = mat_bytes(TD, 2 * n);
            st = opts_check_memory(o, bytes && wbytes ? bytes + wbytes : 0, "the timing buffers");
            if (!st) st = time_point(o, T, H, reps, &rows[nrows]);
            if (!st) nrows++;
        }
    if (st) return st;

    if (opts_verbose(o)) {
        printf("agreement (max |difference| / tolerance):\n%-15s", "case");
        for (int k = 0; k < NCHECKS; k++) printf(" %22s", CHECK_NAME[k]);
        printf("\n");
        for (size_t i = 0; i < NCASES; i++) {
            printf("%-15s", CASES[i].name);
            for (int k = 0; k < NCHECKS; k++)
                printf(" %10.3g / %9.3g", res[i].err[k], res[i].tol[k]);
            printf("\n");
        }
        if (nrows)
            printf("\nCPU timing (OpenBLAS, %d threads), median of %zu, milliseconds:\n"
                   "%6s %5s %10s %10s %10s %10s %9s\n", threads, reps, "T", "heads", "fused",
                   "separate", "per-head", "fused+copy", "sep/fused");
        for (size_t i = 0; i < nrows; i++) {
            const trow *r = &rows[i];
            printf("%6zu %5zu %10.4f %10.4f %10.4f %10.4f %9.2f\n", r->T, r->H,
                   1e3 * r->sec[V_FUSED], 1e3 * r->sec[V_SEPARATE], 1e3 * r->sec[V_PER_HEAD],
                   1e3 * r->sec[V_FUSED_COPY], r->sec[V_SEPARATE] / r->sec[V_FUSED]);
        }
    }
    st = write_agreement(o, res);
    if (!st && nrows) st = write_timing(o, rows, nrows, threads, reps);
    if (!st) {
        char extra[160];
        snprintf(extra, sizeof extra, "timing: %zu samples per point, BLAS threads %d%s", reps,
                 threads, no_timing ? " (timing skipped: --no-timing)" : "");
        st = output_meta(o, extra);
    }
    if (!st) st = report(o, res, rows, nrows);
    return st;
}

int main(int argc, char **argv)
{
    att_init();
    size_t reps = 5;
    int no_timing = 0;
    const opt_spec extra[] = {
        {"reps", OPT_SIZE, &reps, "N", "timed samples per point; the median is kept (default 5)"},
        {"no-timing", OPT_FLAG, &no_timing, NULL, "agreement checks only"},
        {NULL, 0, NULL, NULL, NULL}
    };
    const opts_info info = { ID, "fused W_QKV vs three projections: agreement, and CPU timing",
                             OPT_SEED | OPT_T, 20261129UL, 0, extra };
    opts o;
    int st = opts_parse(&o, &info, argc, argv);
    if (st) return opts_exit(&o, st);
    return opts_exit(&o, run(&o, reps, no_timing));
}
