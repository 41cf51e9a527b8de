/* mc.h - the Monte Carlo engine, written once for every experiment.
 *
 * Draws are grouped in blocks of MC_BLOCK. Block b has its own generator,
 * seeded with rng_stream_seed(seed, stream, b); blocks run in parallel under
 * OpenMP; each block accumulates its own stat_acc's, and the blocks are merged
 * in block order 0, 1, 2, ... So the same (seed, stream, draws) gives
 * bit-identical statistics for any OMP_NUM_THREADS. BLAS is kept single-
 * threaded inside a block (parallelism comes from the blocks).
 *
 * `stream` separates the configurations of a sweep (e.g. the index of a
 * (d, T) point), so each point has independent draws and can be rerun alone
 * with the same numbers.
 */
#ifndef ATT_MC_H
#define ATT_MC_H

#include <stddef.h>
#include <stdint.h>
#include <gsl/gsl_rng.h>
#include "stats.h"

enum { MC_BLOCK = 256 };

/* One draw: fill out[0 .. nstats-1] with this draw's values. scratch is the
 * block's private workspace (from alloc), draw is the global draw index
 * (0 .. draws-1), usable to record per-draw data in ctx. Return ATT_OK or
 * an error status (the run stops and reports it). */
typedef int (*mc_draw_fn)(void *ctx, void *scratch, gsl_rng *rng,
                          size_t draw, double *out);
typedef void *(*mc_alloc_fn)(void *ctx);   /* NULL on failure */
typedef void (*mc_free_fn)(void *scratch);

typedef struct {
    const char *rng_name;   /* GSL generator name, e.g. "mt19937"      */
    unsigned long seed;
    uint64_t stream;        /* configuration index within a sweep      */
    size_t draws;
    size_t nstats;          /* values per draw                          */
    mc_draw_fn draw;
    mc_alloc_fn alloc;      /* may be NULL (scratch = NULL)             */
    mc_free_fn free;        /* may be NULL                              */
    void *ctx;              /* read-only during the run (except per-draw slots) */
    const char *label;      /* for progress messages                    */
    int quiet;              /* no progress on stderr                    */
} mc_config;

/* Run cfg.draws draws; acc[0 .. nstats-1] receive the merged statistics.
 * Returns ATT_OK, or the first error (in block order) a draw returned. */
int mc_run(const mc_config *cfg, stat_acc *acc);

/* Make BLAS single-threaded (OpenBLAS) for the rest of the process. */
void mc_blas_single_thread(void);

/* Bytes a run allocates: one scratch of scratch_bytes per OpenMP thread
 * (omp_get_max_threads()) plus the per-block statistics,
 *   threads * scratch_bytes + ceil(draws / MC_BLOCK) * nstats * sizeof(stat_acc).
 * For opts_check_memory before any allocation: returns 0 (the overflow marker
 * that opts_check_memory refuses) on size_t overflow or scratch_bytes == 0. */
size_t mc_run_bytes(size_t scratch_bytes, size_t draws, size_t nstats);

#endif
