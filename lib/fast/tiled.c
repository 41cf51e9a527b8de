/* tiled.c - the attention head in tiles with an online softmax: the T_q x T_k
 * score matrix is never held, only one (B_q, B_k) block per thread.
 *
 * Shape legend (tokens are rows):
 *   T_q queries, T_k keys/values, d model width, d_k query/key width, d_v value
 *   width; B_q rows per query tile, B_k keys per key tile.
 *   Q_t (n_q, d_k) one query tile   K_t (n_k, d_k), V_t (n_k, d_v) one key tile
 *   S_t (n_q, n_k) the tile's scores (all zero between tiles), P_t (n_q, n_k)
 *   its weights e^{s - m}
 *   O_t (n_q, d_v) the tile's unnormalised output; m, l (n_q) running max, sum
 * (n_q <= B_q, n_k <= B_k: the last tiles may be short.)
 *
 * The only elementwise work outside BLAS is e^{s - m}, done by a vectorised
 * exponential (vexp_shifted_head, vexp.h) because T_q T_k of them are needed: at
 * T = 100,000 that is 1e10 calls, which libm's scalar exp() would take longer
 * to do than the two products take for the whole head.
 *
 * At the end, the check of the head's output (tiled_row_check, tiled.h): rows the caller
 * picks, recomputed from X and the weights in long double, against their rounding bound
 * (any_length's headline at T = 100,000).
 */
#include "tiled.h"
#include "head.h"
#include "mat.h"
#include "blas.h"
#include "mem.h"
#include "status.h"
#include "softmax.h"
#include "tol.h"
#include "vexp.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <gsl/gsl_blas.h>
#include <omp.h>

/* Chosen by timing on a 2-core AMD EPYC (one thread, T = 30,000): 256 x 256
 * gave 46 GFLOP/s, 128 x 256 44, 128 x 512 43, 64 x 512 38. On the 2-core
 * Xeon (AVX-512, 2 MiB L2 a core) that now runs make bench, 256 x 256,
 * 384 x 256, 512 x 128 and 512 x 256 were equal within the noise (one
 * thread, T = 16,000, 4 interleaved runs each: 1.41 to 1.50 CPU s), and the
 * two products alone reach 53 to 57 GFLOP/s at these shapes against 72 for
 * a 4096^3 DGEMM: OpenBLAS's packing of each tile's operands (P_t above all)
 * is the part of the gap that tiling cannot remove. S_t and P_t are 512 KiB
 * each, half of a core's L2 together. */
enum { TILED_BQ = 256, TILED_BK = 256 };

/* Rows per block of the K, V projections. */
enum { TILED_PROJ_ROWS = 1024 };

/* Each tile's two products are issued in blocks of 128 rows by 64 keys: (128 x 64)(64 x 64)
 * for the scores, (128 x 64)(64 x 64) added up over the tile's keys for P_t V_t. OpenBLAS
 * (0.3.21, SkylakeX) runs a product of m n k <= 100^3 without packing its operands, in its
 * small-matrix kernel, if neither operand is transposed in its column-major terms; a whole
 * tile (256 x 256 x 64) is packed, which took 13% of the head's time, and the scores'
 * Q_t K_t^T (a transposed operand) went to the packing kernel even in small blocks: so
 * tiled_forward keeps K^T (d_k, T_k), not K. Measured on the 2-core Xeon (one thread,
 * T = 12,000, 3 interleaved runs): 49 to 52 GFLOP per CPU second before, 53 to 56 now;
 * the tiles (and the memory they take) are unchanged.
 * On the 2-core AMD EPYC (Zen 4, AVX-512; OpenBLAS picks Cooperlake: the same small-matrix
 * kernel), one thread, T = 16,000, by perf: the small kernel 82% of the head's time (about
 * 46 GFLOP/s, against 53 for a one-thread 4096^3 DGEMM), the exponential 10%, row_max 2%,
 * zeroing S_t 2%; the head 37 GFLOP/s. Nothing tried there cut 5% (one thread, 4 to 6
 * interleaved runs, T = 12,000 to 20,000, load 7 to 8): tiles 128 x 256, 256 x 512,
 * 512 x 256 and blocks 64 x 128, 256 x 32 were within 3% of these; blocks of 32 rows by a
 * whole tile's keys 0 to 4% (and other bits: P_t V_t summed in other groups); beta = 0 for
 * the scores (the kernel's variant that does not read C, no zeroing, the same bits) 0 to 4%;
 * that and K^T stored tile by tile (contiguous 64 x 256 blocks) 4 to 7%, but the
 * projection's split into tiles changed K^T's last bits at T with a partial tile. */
enum { TILED_GEMM_ROWS = 128, TILED_GEMM_COLS = 64 };

/* Below this many flops the head runs on one thread (about 0.1 ms of work). */
static const double TILED_PARALLEL_FLOPS = 4e6;

tiled_tiles tiled_tiles_default(void)
{
    tiled_tiles t = { TILED_BQ, TILED_BK };
    return t;
}

/* threads = 1 for a head of <= TILED_PARALLEL_FLOPS flops or one query tile, else the team */
int tiled_threads(size_t T_q, size_t T_k, size_t d_k, size_t d_v, tiled_tiles tiles)
{
    size_t ntiles = tiles.bq ? (T_q + tiles.bq - 1) / tiles.bq : 0;
    double flops = 2.0 * (double)T_q * (double)T_k * (double)(d_k + d_v);
    return ntiles > 1 && flops > TILED_PARALLEL_FLOPS ? omp_get_max_threads() : 1;
}

/* bytes of S_t, P_t (B_q, B_k), Q_t (B_q, d_k), O_t (B_q, d_v), as mat_new counts them */
size_t tiled_thread_bytes(tiled_tiles tiles, size_t d_k, size_t d_v)
{
    return 2 * mat_bytes(tiles.bq, tiles.bk) + mat_bytes(tiles.bq, d_k) + mat_bytes(tiles.bq, d_v);
}

/* max_j x_j over a row (NaNs are skipped: the exponential's sum catches them)
 * as eight interleaved maxima, so that the loop has no horizontal step per
 * vector: acc_u = max_{j = u mod 8} x_j, m = max_u acc_u. */
__attribute__((target_clones("avx512f", "avx2", "default")))
static double row_max(const double *x, size_t n)
{
    double acc[8] = { -INFINITY, -INFINITY, -INFINITY, -INFINITY,
                      -INFINITY, -INFINITY, -INFINITY, -INFINITY };
    size_t j = 0;
    for (; j + 8 <= n; j += 8) {
        #pragma omp simd
        for (size_t u = 0; u < 8; u++) acc[u] = x[j + u] > acc[u] ? x[j + u] : acc[u];
    }
    for (size_t u = 0; j < n; j++, u++) acc[u] = x[j] > acc[u] ? x[j] : acc[u];
    double m = acc[0];
    for (size_t u = 1; u < 8; u++) m = acc[u] > m ? acc[u] : m;
    return m;
}

/* 1 if some x_j is not -inf (all scores of a masked row must be -inf; a NaN is not) */
static int row_not_all_masked(const double *x, size_t n)
{
    for (size_t j = 0; j < n; j++) if (x[j] != -INFINITY) return 1;
    return 0;
}

/* ---- one query tile ------------------------------------------------------- */

/* A thread's workspace. S is all zeros between tiles: the score product adds
 * into it (beta = 1), which spares OpenBLAS's separate pass that zeroes C for
 * beta = 0 (3% of the head's time by perf); each row is zeroed again after its
 * exponentials, while it is still in L1. */
typedef struct {
    gsl_matrix *S;     /* (B_q, B_k) scores (zero between tiles) */
    gsl_matrix *P;     /* (B_q, B_k) weights e^{s - m}         */
    gsl_matrix *Qt;    /* (B_q, d_k) projected queries         */
    gsl_matrix *Ot;    /* (B_q, d_v) unnormalised output       */
    online_softmax *run;   /* (B_q) each row's running max and sum (softmax.h) */
    int dirty;             /* S may be nonzero (a tile stopped by an error) */
} tiled_work;

static void tiled_work_free(tiled_work *w)
{
    mat_free(w->S); mat_free(w->P); mat_free(w->Qt); mat_free(w->Ot);
    free(w->run);
    *w = (tiled_work){ 0 };
}

static int tiled_work_alloc(tiled_work *w, tiled_tiles tl, size_t d_k, size_t d_v)
{
    *w = (tiled_work){ 0 };
    w->S = mat_new(tl.bq, tl.bk);      /* zeros (mat_new) */
    w->P = mat_new(tl.bq, tl.bk);
    w->Qt = mat_new(tl.bq, d_k);
    w->Ot = mat_new(tl.bq, d_v);
    w->run = malloc(tl.bq * sizeof *w->run);
    if (!w->S || !w->P || !w->Qt || !w->Ot || !w->run) {
        int mats = w->S && w->P && w->Qt && w->Ot;   /* else mat_new recorded why (a */
        tiled_work_free(w);                          /* refusal by the budget is     */
                                                     /* ATT_EUSAGE)                  */
        return mats ? att_fail(ATT_ERUNTIME, "tiled head: out of memory for a thread's tiles")
                    : att_last_code();
    }
    return ATT_OK;
}

/* Where a tile's queries come from: rows of Q, or Xq W_Q + 1 b_Q^T. */
typedef struct {
    const gsl_matrix *Q;                  /* (T_q, d_k) or NULL     */
    const gsl_matrix *Xq, *W_Q;           /* (T_q, d), (d, d_k)     */
    const gsl_vector *b_Q;                /* (d_k) or NULL          */
    const gsl_matrix *K, *V;              /* (T_k, d_k), (T_k, d_v) */
    const gsl_matrix *KT;                 /* (d_k, T_k) = K^T, or NULL: use K */
    double scale;
    tiled_tiles tl;
} tiled_job;

/* d_k: the width of K (T_k, d_k) or the height of K^T (d_k, T_k) */
static size_t tiled_d_k(const tiled_job *job)
{
    return job->KT ? job->KT->size1 : job->K->size2;
}

/* C (m, n) += alpha A (m, k) B (k, n) in blocks of at most TILED_GEMM_ROWS rows of C and
 * TILED_GEMM_COLS columns: of C (along_k = 0: the scores, B = K_t^T) or of A and rows of B
 * (along_k = 1: O_t += P_t V_t, the blocks' products added in key order). tB = 1 (B^T, the
 * K_t of tiled_attend): one call, C += alpha A B^T. */
static int tiled_gemm_blocks(gsl_matrix *C, double alpha, const gsl_matrix *A,
                             const gsl_matrix *B, int tB, int along_k)
{
    if (tB) return mat_gemm(C, alpha, A, 0, B, tB, 1.0);
    size_t m = C->size1, n = C->size2, k = A->size2;
    size_t rch = TILED_GEMM_ROWS, span = along_k ? k : n, cch = TILED_GEMM_COLS;
    for (size_t r0 = 0; r0 < m; r0 += rch) {
        size_t nr = m - r0 < rch ? m - r0 : rch;
        for (size_t c0 = 0; c0 < span; c0 += cch) {
            size_t nc = span - c0 < cch ? span - c0 : cch;
            gsl_matrix_view Cr = along_k ? gsl_matrix_submatrix(C, r0, 0, nr, n)
                                         : gsl_matrix_submatrix(C, r0, c0, nr, nc);
            gsl_matrix_const_view Ar = along_k ? gsl_matrix_const_submatrix(A, r0, c0, nr, nc)
                                               : gsl_matrix_const_submatrix(A, r0, 0, nr, k);
            gsl_matrix_const_view Br = along_k ? gsl_matrix_const_submatrix(B, c0, 0, nc, n)
                                               : gsl_matrix_const_submatrix(B, 0, c0, k, nc);
            int rc = mat_gemm(&Cr.matrix, alpha, &Ar.matrix, 0, &Br.matrix, 0, 1.0);
            if (rc) return rc;
        }
    }
    return ATT_OK;
}

/* The error for a NaN or +inf score in row i, keys j0 .. j0 + n_k - 1. */
static int tiled_bad_score(size_t i, size_t j0, size_t n_k)
{
    return att_fail(ATT_EUSAGE, "tiled head: NaN or +inf score in row %zu (keys %zu..%zu); "
                    "the tiled head needs finite scores", i, j0, j0 + n_k - 1);
}

/* O rows [i0, i0 + n_q) of the head: the online softmax over every key tile. */
static int tiled_query_tile_body(gsl_matrix *O, const tiled_job *job, tiled_work *w,
                                 size_t i0, size_t n_q)
{
    size_t T_k = job->V->size1, d_k = tiled_d_k(job), d_v = job->V->size2;
    gsl_matrix_view Ot = gsl_matrix_submatrix(w->Ot, 0, 0, n_q, d_v);
    int rc;

    // Q_t = rows of Q, or Q_t = Xq_t W_Q + 1 b_Q^T
    const gsl_matrix *Qsrc = job->Q;
    size_t q0 = i0;
    if (Qsrc == NULL) {
        gsl_matrix_const_view Xt = gsl_matrix_const_submatrix(job->Xq, i0, 0, n_q, job->Xq->size2);
        gsl_matrix_view Qw = gsl_matrix_submatrix(w->Qt, 0, 0, n_q, d_k);
        if ((rc = head_project(&Qw.matrix, &Xt.matrix, job->W_Q, job->b_Q))) return rc;
        Qsrc = w->Qt;
        q0 = 0;
    }
    gsl_matrix_const_view qv = gsl_matrix_const_submatrix(Qsrc, q0, 0, n_q, d_k);
    const gsl_matrix *Qt = &qv.matrix;

    // per row m = -inf, l = 0 (softmax.h's online state); O_t = 0
    for (size_t i = 0; i < n_q; i++) softmax_online_init(&w->run[i]);
    gsl_matrix_set_zero(&Ot.matrix);

    for (size_t j0 = 0; j0 < T_k; j0 += job->tl.bk) {
        size_t n_k = T_k - j0 < job->tl.bk ? T_k - j0 : job->tl.bk;
        gsl_matrix_const_view Kt = job->KT
            ? gsl_matrix_const_submatrix(job->KT, 0, j0, d_k, n_k)
            : gsl_matrix_const_submatrix(job->K, j0, 0, n_k, d_k);
        gsl_matrix_const_view Vt = gsl_matrix_const_submatrix(job->V, j0, 0, n_k, d_v);
        gsl_matrix_view St = gsl_matrix_submatrix(w->S, 0, 0, n_q, n_k);
        gsl_matrix_view Pt = gsl_matrix_submatrix(w->P, 0, 0, n_q, n_k);

        // pass 1: S_t = scale Q_t K_t^T (dgemm with beta = 1 into an S_t that is all zero:
        // OpenBLAS then skips its own zeroing pass; pass 2 zeroes each row it has used)
        // (K_t^T, the (d_k, n_k) block of K^T, when tiled_forward holds K^T)
        if ((rc = tiled_gemm_blocks(&St.matrix, job->scale, Qt, &Kt.matrix, !job->KT, 0)))
            return rc;

        // pass 2, per row (the online softmax update of softmax.h):
        //   m' = max(m, max_j s_j);  l = l e^{m - m'} + sum_j e^{s_j - m'};  o = o e^{m - m'}
        // (A +inf score makes max_j s_j = +inf; a NaN one, skipped by the max,
        // makes the sum of the e^{s_j - m'} NaN: both stop the head.)
        for (size_t i = 0; i < n_q; i++) {
            double *s = St.matrix.data + i * St.matrix.tda;
            double *pr = Pt.matrix.data + i * Pt.matrix.tda;
            double cm = row_max(s, n_k);
            online_softmax *r = &w->run[i];
            if (cm == INFINITY || (cm == -INFINITY && row_not_all_masked(s, n_k)))
                return tiled_bad_score(i0 + i, j0, n_k);
            double f = softmax_online_rescale(r, cm);   /* m' and l e^{m - m'} */
            if (r->m == -INFINITY) {                     /* every key so far masked */
                memset(pr, 0, n_k * sizeof *pr);
                memset(s, 0, n_k * sizeof *s);
                continue;
            }
            double sum = vexp_shifted_head(pr, s, n_k, r->m);   /* p_j = e^{s_j - m'} */
            memset(s, 0, n_k * sizeof *s);              /* S_t = 0 for the next tile */
            if (isnan(sum)) return tiled_bad_score(i0 + i, j0, n_k);
            r->l += sum;
            if (f != 1.0) {
                gsl_vector_view orow = gsl_matrix_row(&Ot.matrix, i);
                gsl_vector_scale(&orow.vector, f);
            }
        }

        // pass 3: O_t += P_t V_t = sum over the tile's 64-key blocks b of P_t,b V_t,b  (dgemm)
        if ((rc = tiled_gemm_blocks(&Ot.matrix, 1.0, &Pt.matrix, &Vt.matrix, 0, 1))) return rc;
    }

    // o_i = O_t,i / l_i
    for (size_t i = 0; i < n_q; i++) {
        if (w->run[i].m == -INFINITY)
            return att_fail(ATT_EUSAGE, "tiled head: row %zu fully masked: all %zu scores are -inf",
                            i0 + i, T_k);
        double l = w->run[i].l;
        for (size_t c = 0; c < d_v; c++)
            gsl_matrix_set(O, i0 + i, c, gsl_matrix_get(&Ot.matrix, i, c) / l);
    }
    return ATT_OK;
}

/* The same, S_t zeroed first if an earlier tile of this thread stopped
 * halfway (its scores left in S_t). */
static int tiled_query_tile(gsl_matrix *O, const tiled_job *job, tiled_work *w,
                            size_t i0, size_t n_q)
{
    if (w->dirty) gsl_matrix_set_zero(w->S);
    int rc = tiled_query_tile_body(O, job, w, i0, n_q);
    w->dirty = rc != ATT_OK;
    return rc;
}

/* ---- the parallel driver ------------------------------------------------- */

/* BLAS single-threaded for the rest of the process (mc.h does the same):
 * our threads call dgemm on their own tiles, and OpenBLAS's own thread pool,
 * woken by every change of its thread count, spins on the same two cores.
 * Switching it to 1 and back around each call made a T = 500 head take 8 to
 * 16 ms instead of 1 ms (scheduler time slices); leaving it at 1 does not. */
static void blas_threads_single(void)
{
    blas_single_thread();
}

/* Record the first error in block order: called inside a critical section. */
static void first_error(size_t t, int rc, const char *msg, size_t *err_t, int *err_code,
                        char *errmsg, size_t len)
{
    if (t < *err_t) {
        *err_t = t;
        *err_code = rc;
        snprintf(errmsg, len, "%s", msg);
    }
}

/* O (T_q, d_v): every query tile, in parallel; the first error in tile order
 * is returned (with its message), whatever thread met it. */
static int tiled_run(gsl_matrix *O, const tiled_job *job)
{
    size_t T_q = O->size1, bq = job->tl.bq;
    size_t ntiles = (T_q + bq - 1) / bq;
    size_t err_tile = ntiles;
    int err_code = ATT_OK;
    char errmsg[1024] = "";

    blas_threads_single();

    // Threads only when there is work for them: waking and parking a team
    // costs more than a small head (and the spinning threads steal a core).
    // Every thread of the team holds its tiles until the loop's end (the
    // barrier of the omp for), so the counted memory is exactly
    // threads x tiled_thread_bytes above the rest (tiled.h).
    int nth = tiled_threads(T_q, job->V->size1, tiled_d_k(job), job->V->size2, job->tl);

    #pragma omp parallel num_threads(nth) if (nth > 1)
    {
        tiled_work w;
        int ok = tiled_work_alloc(&w, job->tl, tiled_d_k(job), job->V->size2);
        char mine[1024] = "";
        if (ok != ATT_OK) snprintf(mine, sizeof mine, "%s", att_last_error());

        #pragma omp for schedule(dynamic, 1)
        for (size_t t = 0; t < ntiles; t++) {
            size_t i0 = t * bq, n_q = T_q - i0 < bq ? T_q - i0 : bq;
            int rc = ok;
            if (rc == ATT_OK) rc = tiled_query_tile(O, job, &w, i0, n_q);
            if (rc != ATT_OK) {
                #pragma omp critical(tiled_error)
                first_error(t, rc, ok ? mine : att_last_error(), &err_tile, &err_code,
                            errmsg, sizeof errmsg);
            }
        }
        tiled_work_free(&w);
    }

    if (err_tile < ntiles) return att_fail(err_code, "%s", errmsg);
    return ATT_OK;
}

/* Tiles >= 1, and ATT_VEXP (vexp.h) names a path this CPU runs. */
static int tiled_check_tiles(tiled_tiles tl)
{
    int rc = vexp_env_check();
    if (rc) return rc;
    if (tl.bq == 0 || tl.bk == 0 || mat_bytes(tl.bq, tl.bk) == 0)
        return att_fail(ATT_EUSAGE,
                        "tiled head: tile sizes %zu x %zu must be >= 1 and fit in memory",
                        tl.bq, tl.bk);
    return ATT_OK;
}

/* O is (T_q, d_v) */
static int tiled_check_out(const gsl_matrix *O, size_t T_q, size_t d_v)
{
    if (O->size1 != T_q || O->size2 != d_v)
        return att_fail(ATT_EUSAGE, "tiled head: O (%zu x %zu) must be (T_q x d_v) = (%zu x %zu)",
                        O->size1, O->size2, T_q, d_v);
    return ATT_OK;
}

/* O (T_q, d_v) = softmax(scale Q (T_q, d_k) K (T_k, d_k)^T) V (T_k, d_v) */
int tiled_attend(gsl_matrix *O, const gsl_matrix *Q, const gsl_matrix *K,
                 const gsl_matrix *V, double scale, tiled_tiles tiles)
{
    int rc = tiled_check_tiles(tiles);
    if (rc) return rc;
    if (Q->size2 != K->size2)
        return att_fail(ATT_EUSAGE,
                        "tiled head: Q (%zu x %zu) and K (%zu x %zu) must have the same width d_k",
                        Q->size1, Q->size2, K->size1, K->size2);
    if (K->size1 != V->size1)
        return att_fail(ATT_EUSAGE,
                        "tiled head: K (%zu x %zu) and V (%zu x %zu) must have one row per key",
                        K->size1, K->size2, V->size1, V->size2);
    if ((rc = tiled_check_out(O, Q->size1, V->size2))) return rc;
    if (!isfinite(scale))
        return att_fail(ATT_EUSAGE, "tiled head: the score scale %g must be finite", scale);
    tiled_job job = { Q, NULL, NULL, NULL, K, V, NULL, scale, tiles };
    return tiled_run(O, &job);
}

/* K^T (d_k, n) = W_K^T X^T + b_K 1^T for X (n, d), W_K (d, d_k), b_K (d_k) or NULL */
static int tiled_project_t(gsl_matrix *KT, const gsl_matrix *X, const gsl_matrix *W_K,
                           const gsl_vector *b_K)
{
    int rc = mat_gemm(KT, 1.0, W_K, 1, X, 1, 0.0);
    if (rc || !b_K) return rc;
    for (size_t c = 0; c < KT->size1; c++) {
        gsl_vector_view row = gsl_matrix_row(KT, c);
        gsl_vector_add_constant(&row.vector, gsl_vector_get(b_K, c));
    }
    return ATT_OK;
}

/* O (T_q, d_v) of the head p on Xq (T_q, d), Xkv (T_k, d), tiled. */
int tiled_forward(gsl_matrix *O, const head_params *p, const gsl_matrix *Xq,
                  const gsl_matrix *Xkv, tiled_tiles tiles)
{
    int rc = tiled_check_tiles(tiles);
    if (rc) return rc;
    if (p && p->rope)
        return att_fail(ATT_EUSAGE, "tiled head: RoPE is not supported (use head_forward)");
    if (p && p->causal)
        return att_fail(ATT_EUSAGE,
                        "tiled head: the causal mask is not supported (use head_forward)");
    if ((rc = head_check_params(p, Xq, Xkv))) return rc;   /* the plain head's checks (head.h) */
    const gsl_matrix *WQ = p->W_Q, *WK = p->W_K, *WV = p->W_V;
    if ((rc = tiled_check_out(O, Xq->size1, WV->size2))) return rc;

    size_t T_k = Xkv->size1, d = Xkv->size2, d_k = WQ->size2, d_v = WV->size2;
    gsl_matrix *KT = mat_new(d_k, T_k), *V = mat_new(T_k, d_v);
    if (!KT || !V) { mat_free(KT); mat_free(V); return att_last_code(); }   /* mat_new said why */
    blas_threads_single();

    // K^T = W_K^T Xkv^T + b_K 1^T ;  V = Xkv W_V + 1 b_V^T, in blocks of rows on our
    // threads (fixed blocks: the same bits for any thread count)
    size_t nblk = (T_k + TILED_PROJ_ROWS - 1) / TILED_PROJ_ROWS, err_blk = nblk;
    int err_code = ATT_OK;
    char errmsg[1024] = "";
    double flops = 2.0 * (double)T_k * (double)d * (double)(d_k + d_v);
    #pragma omp parallel for schedule(dynamic, 1) if (nblk > 1 && flops > TILED_PARALLEL_FLOPS)
    for (size_t b = 0; b < nblk; b++) {
        size_t r0 = b * TILED_PROJ_ROWS,
               nr = T_k - r0 < TILED_PROJ_ROWS ? T_k - r0 : TILED_PROJ_ROWS;
        gsl_matrix_const_view Xb = gsl_matrix_const_submatrix(Xkv, r0, 0, nr, d);
        gsl_matrix_view KTb = gsl_matrix_submatrix(KT, 0, r0, d_k, nr);
        gsl_matrix_view Vb = gsl_matrix_submatrix(V, r0, 0, nr, d_v);
        int brc = tiled_project_t(&KTb.matrix, &Xb.matrix, WK, p->b_K);
        if (!brc) brc = head_project(&Vb.matrix, &Xb.matrix, WV, p->b_V);
        if (brc) {
            #pragma omp critical(tiled_error)
            first_error(b, brc, att_last_error(), &err_blk, &err_code, errmsg, sizeof errmsg);
        }
    }
    if (err_blk < nblk) {
        rc = att_fail(err_code, "%s", errmsg);
    } else {
        // O = softmax(scale Q K^T) V, Q one tile at a time
        tiled_job job = { NULL, Xq, WQ, p->b_Q, NULL, V, KT, p->scale, tiles };
        rc = tiled_run(O, &job);
    }
    mat_free(KT);
    mat_free(V);
    return rc;
}

/* ---- the check of a head's output: given rows against the formula in long double ---- */

enum { CHECK_CHUNKS = 64, CHECK_BLOCK = 16 };   /* chunks of keys; keys per block */

/* y (n) = x (d) W (d, n) in long double: y_c = sum_l x_l w_lc, the terms added in the order
 * l = 0 .. d - 1 (each sum held in a register, four columns at a time: the roundings of
 * adding term by term into y_c, but no 80-bit store and load of y_c per term) */
static void ld_row_times(long double *y, const double *x, const gsl_matrix *W)
{
    size_t d = W->size1, n = W->size2, tda = W->tda, c = 0;
    for (; c + 4 <= n; c += 4) {
        long double s0 = 0.0L, s1 = 0.0L, s2 = 0.0L, s3 = 0.0L;
        const double *w = W->data + c;
        for (size_t l = 0; l < d; l++, w += tda) {
            long double xl = x[l];
            s0 += xl * w[0], s1 += xl * w[1], s2 += xl * w[2], s3 += xl * w[3];
        }
        y[c] = s0, y[c + 1] = s1, y[c + 2] = s2, y[c + 3] = s3;
    }
    for (; c < n; c++) {
        long double s = 0.0L;
        for (size_t l = 0; l < d; l++) s += (long double)x[l] * W->data[l * tda + c];
        y[c] = s;
    }
}

/* One row's online softmax over nb keys, in long double: m = a[0], l = a[1], o = a[2 ..
 * 2 + d_v); q (d_k); key b's k_b = kb[b d_k ..] (d_k), v_b = vb[b d_v ..] (d_v). Key by key:
 *   s = scale sum_i q_i k_b,i  (the terms in the order i = 0 .. d_k - 1),
 *   if s > m: f = e^{m - s}, l = l f, m = s;  else f = 1;
 *   w = e^{s - m},  l = l + w,  o_c = o_c f + w v_b,c
 * exactly the operations (and roundings) of taking the keys one at a time (o_c 1 = o_c), but
 * four keys' dot products at once and each o_c held in a register over the nb keys (the
 * products o_c f left out while no key raised m: f = 1): the sums' latency and the 80-bit
 * stores and loads of o were most of the check's time. Measured (the 64 rows at T = 30,000,
 * 2 threads, AMD EPYC, 3 interleaved runs, load 1 to 8): 1.02 to 1.57 CPU s key by key,
 * 0.66 to 0.80 now; the same bits (units and error of 50 random heads, causal or not,
 * d 4 .. 64, compared). */
static void ld_online_block(long double *a, const long double *q, const long double *kb,
                            const long double *vb, size_t nb, size_t dk, size_t dv, double scale)
{
    long double s[CHECK_BLOCK], f[CHECK_BLOCK], w[CHECK_BLOCK], *m = a, *l = a + 1, *o = a + 2;
    size_t b = 0;
    for (; b + 4 <= nb; b += 4) {
        const long double *k0 = &kb[b * dk], *k1 = k0 + dk, *k2 = k1 + dk, *k3 = k2 + dk;
        long double s0 = 0.0L, s1 = 0.0L, s2 = 0.0L, s3 = 0.0L;
        for (size_t i = 0; i < dk; i++) {
            long double qi = q[i];
            s0 += qi * k0[i], s1 += qi * k1[i], s2 += qi * k2[i], s3 += qi * k3[i];
        }
        s[b] = s0, s[b + 1] = s1, s[b + 2] = s2, s[b + 3] = s3;
    }
    for (; b < nb; b++) {
        long double sb = 0.0L;
        for (size_t i = 0; i < dk; i++) sb += q[i] * kb[b * dk + i];
        s[b] = sb;
    }
    // m' = max(m, s); l = l e^{m - m'} + e^{s - m'}; o = o e^{m - m'} + e^{s - m'} v_b
    for (b = 0; b < nb; b++) {
        s[b] *= scale;
        f[b] = 1.0L;
        if (s[b] > *m) {
            f[b] = expl(*m - s[b]);
            *l *= f[b];
            *m = s[b];
        }
        w[b] = expl(s[b] - *m);
        *l += w[b];
    }
    // (without a new max among these keys every f is 1: the products o_c 1 are left out)
    int rescaled = 0;
    for (b = 0; b < nb; b++) rescaled |= f[b] != 1.0L;
    size_t c = 0;
    for (; c + 4 <= dv; c += 4) {
        long double o0 = o[c], o1 = o[c + 1], o2 = o[c + 2], o3 = o[c + 3];
        for (b = 0; b < nb; b++) {
            const long double *v = &vb[b * dv + c];
            long double wb = w[b];
            if (rescaled) {
                long double fb = f[b];
                o0 *= fb, o1 *= fb, o2 *= fb, o3 *= fb;
            }
            o0 += wb * v[0], o1 += wb * v[1], o2 += wb * v[2], o3 += wb * v[3];
        }
        o[c] = o0, o[c + 1] = o1, o[c + 2] = o2, o[c + 3] = o3;
    }
    for (; c < dv; c++) {
        long double oc = o[c];
        for (b = 0; b < nb; b++) oc = (rescaled ? oc * f[b] : oc) + w[b] * vb[b * dv + c];
        o[c] = oc;
    }
}

int tiled_row_check(const head_params *p, const gsl_matrix *X, const gsl_matrix *O,
                    const size_t *rows, size_t nrows, double *units, double *err)
{
    size_t T = X->size1, d = X->size2, dk = p->W_Q->size2, dv = p->W_V->size2;
    if (p->b_Q || p->b_K || p->b_V || p->rope || nrows == 0 || T == 0 || p->W_Q->size1 != d ||
        p->W_K->size1 != d || p->W_K->size2 != dk || p->W_V->size1 != d || O->size1 != T ||
        O->size2 != dv)
        return att_fail(ATT_EUSAGE, "tiled_row_check: a head without biases or RoPE, X (T, d), "
                        "O (T, d_v), at least one row");
    for (size_t r = 0; r < nrows; r++)
        if (rows[r] >= T)
            return att_fail(ATT_EUSAGE, "tiled_row_check: row %zu of %zu rows (T = %zu)", rows[r],
                            nrows, T);
    size_t per = nrows * (2 + dv), nacc = CHECK_CHUNKS * per; /* m, l, o (d_v) per chunk and row */
    long double *acc = mem_calloc(nacc, sizeof *acc, "the row check's sums"),
                *q = mem_calloc(nrows * dk, sizeof *q, "the checked queries"), kmax_c[CHECK_CHUNKS],
                vmax_c[CHECK_CHUNKS];
    int rc = acc && q ? ATT_OK : att_alloc_status();
    if (!rc) {
        for (size_t r = 0; r < nrows; r++)
            ld_row_times(&q[r * dk], gsl_matrix_const_ptr(X, rows[r], 0), p->W_Q);
        // chunk c: keys j in [c T / 64, (c + 1) T / 64); an online softmax per (chunk, row),
        // the keys taken CHECK_BLOCK at a time (ld_online_block: the same operations in the same
        // order as one key at a time)
        #pragma omp parallel for schedule(static)
        for (size_t c = 0; c < CHECK_CHUNKS; c++) {
            long double kb[CHECK_BLOCK * dk], vb[CHECK_BLOCK * dv], *a = &acc[c * per];
            kmax_c[c] = vmax_c[c] = 0.0L;
            for (size_t r = 0; r < nrows; r++) a[r * (2 + dv)] = -INFINITY;
            size_t jend = (c + 1) * T / CHECK_CHUNKS;
            for (size_t j0 = c * T / CHECK_CHUNKS; j0 < jend; j0 += CHECK_BLOCK) {
                size_t nb = jend - j0 < CHECK_BLOCK ? jend - j0 : CHECK_BLOCK;
                for (size_t b = 0; b < nb; b++) {
                    const double *x = gsl_matrix_const_ptr(X, j0 + b, 0);
                    long double *k = &kb[b * dk], *v = &vb[b * dv];
                    ld_row_times(k, x, p->W_K);
                    ld_row_times(v, x, p->W_V);
                    long double kn = 0.0L;
                    for (size_t i = 0; i < dk; i++) kn += k[i] * k[i];
                    kmax_c[c] = fmaxl(kmax_c[c], sqrtl(kn));
                    for (size_t i = 0; i < dv; i++) vmax_c[c] = fmaxl(vmax_c[c], fabsl(v[i]));
                }
                for (size_t r = 0; r < nrows; r++) {
                    // the keys j0 .. j0 + nv - 1 row r sees (causal: j <= rows[r])
                    size_t nv = !p->causal ? nb : rows[r] < j0 ? 0
                              : rows[r] - j0 + 1 < nb ? rows[r] - j0 + 1 : nb;
                    ld_online_block(&a[r * (2 + dv)], &q[r * dk], kb, vb, nv, dk, dv, p->scale);
                }
            }
        }
        // merge the chunks in order, then compare with O in units of B_i
        long double kmax = 0.0L, vmax = 0.0L;
        for (size_t c = 0; c < CHECK_CHUNKS; c++)
            kmax = fmaxl(kmax, kmax_c[c]), vmax = fmaxl(vmax, vmax_c[c]);
        double proj = tol_eps(8.0, d, mat_max_row_norm(X) * mat_max_col_norm(p->W_V));
        *units = *err = 0.0;
        for (size_t r = 0; r < nrows && !rc; r++) {
            long double m = -INFINITY, l = 0.0L, o[dv], qn = 0.0L;
            for (size_t i = 0; i < dv; i++) o[i] = 0.0L;
            for (size_t c = 0; c < CHECK_CHUNKS; c++) m = fmaxl(m, acc[c * per + r * (2 + dv)]);
            for (size_t c = 0; c < CHECK_CHUNKS; c++) {
                const long double *a = &acc[c * per + r * (2 + dv)];
                if (a[0] == -INFINITY) continue;   /* a chunk with no visible key */
                long double f = expl(a[0] - m);
                l += a[1] * f;
                for (size_t i = 0; i < dv; i++) o[i] += a[2 + i] * f;
            }
            for (size_t i = 0; i < dk; i++) qn += q[r * dk + i] * q[r * dk + i];
            double qk = fabs(p->scale) * (double)(sqrtl(qn) * kmax);
            double B = tol_attention_output(T, d + dk, qk, (double)vmax) + proj;
            for (size_t i = 0; i < dv; i++) {
                double e = fabs((double)((long double)gsl_matrix_get(O, rows[r], i) - o[i] / l));
                if (isnan(e) || e > *err) *err = isnan(*err) ? *err : e;
                double u = e / B;
                if (isnan(u) || u > *units) *units = isnan(*units) ? *units : u;
            }
        }
    }
    if (acc) mem_free(acc, nacc, sizeof *acc);
    if (q) mem_free(q, nrows * dk, sizeof *q);
    return rc;
}
