/* fusedtime.c - the fused_qkv timing (fusedtime.h). */
#include "fusedtime.h"
#include "fused.h"
#include "mat.h"
#include "randmat.h"
#include "rng.h"
#include "att.h"
#include "table.h"
#include "timing.h"

#include <math.h>

enum { TD = FUSEDTIME_D, TDK = FUSEDTIME_DK };
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
    size_t H = b->variant == V_PER_HEAD ? b->heads : 1, w = b->variant == V_PER_HEAD ? TDK : b->Y[0]->size2;
    for (size_t h = 0; h < H && !rc; h++)
        for (int k = 0; k < 3 && !rc; k++) {
            gsl_matrix_view Wh = gsl_matrix_submatrix(b->W[k], 0, h * w, TD, w);
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
typedef fusedtime_speedup speedup_row;
static const table_col SPEEDUP_COLS[] = {
    COL(speedup_row, T), COL(speedup_row, heads), COL(speedup_row, versus),
    COL(speedup_row, speedup_median), COL(speedup_row, speedup_low), COL(speedup_row, speedup_high)};

static int time_point(unsigned long seed, size_t T, size_t H, size_t reps, time_row *tr, size_t *nt)
{
    bench b = {.heads = H, .X = mat_new(T, TD), .Wf = mat_new(TD, 3 * H * TDK), .QKV = mat_new(T, 3 * H * TDK)};
    gsl_rng *rng = rng_new("mt19937", rng_stream_seed(seed, 1, T * 100 + H));
    int rc = b.X && b.Wf && b.QKV && rng ? ATT_OK : att_alloc_status();
    for (int k = 0; k < 3; k++) {
        b.W[k] = mat_new(TD, H * TDK);
        b.Y[k] = mat_new(T, H * TDK);
        rc = rc ? rc : (b.W[k] && b.Y[k] ? ATT_OK : att_alloc_status());
    }
    if (!rc) {
        randmat_head(rng, b.X, b.W[0], b.W[1], b.W[2], NULL);   /* X ~ N(0, 1), W ~ N(0, 1/d) */
        rc = fused_pack(b.Wf, b.W[0], b.W[1], b.W[2]);
    }
    double flops = 2.0 * (double)T * TD * (double)(3 * H * TDK);
    for (b.variant = V_FUSED; b.variant < NVAR_END && !rc; b.variant++) {
        if (b.variant == V_PER_HEAD && H == 1) continue;      /* the same as separate */
        timing t;
        if ((rc = timing_measure(variant_once, &b, reps, 0.002, &t))) break;
        tr[(*nt)++] = (time_row){T, H, (size_t)timing_blas_threads(), VARIANT[b.variant - V_FUSED],
                                 t.reps, t.inner, t.min, t.median, t.max, flops / t.median / 1e9};
    }
    if (rng) gsl_rng_free(rng);
    for (int k = 0; k < 3; k++) { mat_free(b.W[k]); mat_free(b.Y[k]); }
    mat_free(b.X); mat_free(b.Wf); mat_free(b.QKV);
    return rc;
}

int fusedtime_run(const char *dir, unsigned long seed, size_t Tonly, size_t reps, fusedtime_speedup *sr, size_t *ns)
{
    time_row tr[NT * 5];
    size_t nt = 0;
    int rc = ATT_OK;
    *ns = 0;
    for (size_t H = 1; H <= 12 && !rc; H += 11)
        for (size_t i = 0; i < (Tonly ? 1 : NT) && !rc; i++) {
            size_t T = Tonly ? Tonly : T_TIMING[i], first = nt;
            if (H > 1 && !Tonly && T != 64 && T != 256 && T != 1024 && T != 4096) continue;
            if ((rc = time_point(seed, T, H, reps, tr, &nt))) break;
            for (size_t v = first + 1; v < nt; v++)
                sr[(*ns)++] = (speedup_row){T, H, tr[v].variant, tr[v].median_seconds / tr[first].median_seconds,
                                            tr[v].min_seconds / tr[first].max_seconds,
                                            tr[v].max_seconds / tr[first].min_seconds};
        }
    if (!rc && nt) rc = TABLE_WRITE(dir, "fused_qkv_timing.csv", TIME_COLS, tr, nt);
    if (!rc && nt) rc = TABLE_WRITE(dir, "fused_qkv_speedup_timing.csv", SPEEDUP_COLS, sr, *ns);
    return rc;
}
