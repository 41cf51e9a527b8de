/* tiled.h - one attention head that never holds the T_q x T_k matrix.
 *
 * Shapes (tokens are rows, as in head.h):
 *   Xq (T_q, d)  Xkv (T_k, d)  W_Q, W_K (d, d_k)  W_V (d, d_v)
 *   Q (T_q, d_k)  K (T_k, d_k)  V (T_k, d_v)  O (T_q, d_v)
 *   a query tile: B_q rows of Q;  a key tile: B_k rows of K and V;
 *   the only score blocks ever stored are S_t and its weights P_t (B_q, B_k),
 *   one pair per thread.
 *
 * Online softmax (Milakov & Gimelshein 2018; the loop of FlashAttention).
 * For query row i, visit the key tiles one after another, keeping a running
 * max m, a running sum l and an unnormalised output o (d_v):
 *   s_j  = scale q_i . k_j                 for the keys j of the tile
 *   m'   = max(m, max_j s_j)
 *   l    = l e^{m - m'} + sum_j e^{s_j - m'}
 *   o    = o e^{m - m'} + sum_j e^{s_j - m'} v_j
 *   m    = m'
 * and after the last tile  o_i = o / l. This is exactly softmax(s_i) V: every
 * term carries the factor e^{-m_final} in the end, whatever tile it came
 * from. Memory: K, V (T_k (d_k + d_v)) plus per-thread tiles; time O(T_q T_k).
 * Both products of a tile (S_t = scale Q_t K_t^T and O_t += P_t V_t) are BLAS
 * dgemm calls, issued in blocks small enough for OpenBLAS's unpacked kernel (tiled.c).
 *
 * Parallel over query tiles (OpenMP), BLAS single-threaded inside. Tiles are
 * fixed by (B_q, B_k), not by the thread count, and each tile is done by one
 * thread in a fixed order, so every output row is bit-identical for any
 * OMP_NUM_THREADS. Like mc_run, a call (outside a parallel region) makes
 * OpenBLAS single-threaded for the rest of the process (blas_single_thread, blas.h):
 * its own thread pool would compete with ours for the same cores.
 *
 * Scores must be finite or -inf (a masked key): a NaN or +inf score gives
 * ATT_EUSAGE naming the row, and so does a row whose scores are all -inf.
 * (The plain head, head_forward, is the reference; it also handles +inf.)
 */
#ifndef ATT_TILED_H
#define ATT_TILED_H

#include <stddef.h>
#include <gsl/gsl_matrix.h>
#include "head.h"

/* Tile sizes: B_q query rows by B_k keys (both >= 1). */
typedef struct {
    size_t bq, bk;
} tiled_tiles;

/* The tile sizes chosen by profiling on this project's machine. */
tiled_tiles tiled_tiles_default(void);

/* Memory by thread count. A tiled call on T_q queries with T_k keys runs on
 *   tiled_threads(T_q, T_k, d_k, d_v, tiles)
 * threads (1 for a small head, else omp_get_max_threads()), and each of them
 * holds, for the whole call, its tiles S_t, P_t (B_q, B_k), Q_t (B_q, d_k),
 * O_t (B_q, d_v): tiled_thread_bytes(tiles, d_k, d_v) bytes counted by mem.h.
 * So the counted memory of a call is
 *   (what does not depend on threads: K, V, and the caller's X, O)
 *   + tiled_threads(...) * tiled_thread_bytes(...),
 * and subtracting (threads - 1) * tiled_thread_bytes gives the memory of the
 * same call on one thread, whatever OMP_NUM_THREADS is (any_length cites it). */
int tiled_threads(size_t T_q, size_t T_k, size_t d_k, size_t d_v, tiled_tiles tiles);
size_t tiled_thread_bytes(tiled_tiles tiles, size_t d_k, size_t d_v);

/* O (T_q, d_v) = softmax(scale Q K^T) V, tiled. Q (T_q, d_k), K (T_k, d_k),
 * V (T_k, d_v). Shapes are checked (ATT_EUSAGE naming both matrices). */
int tiled_attend(gsl_matrix *O, const gsl_matrix *Q, const gsl_matrix *K,
                 const gsl_matrix *V, double scale, tiled_tiles tiles);

/* The head of head.h (projections with optional biases, scale), tiled:
 *   K = Xkv W_K + 1 b_K^T,  V = Xkv W_V + 1 b_V^T   (held: T_k (d_k + d_v); K as K^T
 *                                                    (d_k, T_k), see tiled.c)
 *   Q_t = Xq_t W_Q + 1 b_Q^T                         (one query tile at a time)
 *   O = softmax(scale Q K^T) V                        (online, tile by tile)
 * O is (T_q, d_v). RoPE is not supported here (ATT_EUSAGE). */
int tiled_forward(gsl_matrix *O, const head_params *p, const gsl_matrix *Xq,
                  const gsl_matrix *Xkv, tiled_tiles tiles);

/* The check of a tiled head's output, row by row: does O (T, d_v) on X (T, d) hold the
 * attention the formula gives? For the caller's `nrows` rows i = rows[0 .. nrows - 1] (each
 * < T; repeats allowed), recompute from X and p's weights directly, in long double,
 *   q_i = x_i W_Q,  k_j = x_j W_K,  v_j = x_j W_V,  s_ij = scale q_i . k_j  (j <= i if causal),
 *   ref_i = sum_j a_ij v_j,  a_ij = e^{s_ij - m_i} / sum_l e^{s_il - m_i}
 * (one pass over j in 64 fixed chunks, an online softmax per chunk, the chunks merged in order:
 * the same numbers for any thread count; long double's own rounding, about T 1e-19 relative,
 * is far below the bound). *units = max_{i,c} |O_ic - ref_ic| / B_i, the double head's
 * rounding bound for row i, growing with T (tol.h's, with row i's own score size):
 *   B_i = 8 eps (2 (d + d_k) qk_i + 2 T) max_jc |v_jc| + 8 d eps max_j ||x_j|| max_c ||w_V,c||,
 *   qk_i = |scale| ||q_i|| max_j ||k_j||;
 * *err = max_{i,c} |O_ic - ref_ic|. At most 1 for a correct head. NaN sticks. ATT_EUSAGE for
 * biases or RoPE, nrows 0, a row >= T or shapes that disagree. */
int tiled_row_check(const head_params *p, const gsl_matrix *X, const gsl_matrix *O,
                    const size_t *rows, size_t nrows, double *units, double *err);

#endif
