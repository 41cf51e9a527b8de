/* mc.h - the Monte Carlo engine's block runner, inside lib/run: sweep_run (sweep.h) is its
 * one caller in the experiments, whose draws are told their point and index; the unit tests
 * and the bench call it directly.
 *
 * Draws are grouped in blocks of MC_BLOCK. Block b has its own generator,
 * seeded with rng_stream_seed(seed, stream, b); blocks run in parallel under
 * OpenMP; each block accumulates its own stat_acc's, and the blocks are merged
 * in block order 0, 1, 2, ... So the same (seed, stream, draws) gives
 * bit-identical statistics for any OMP_NUM_THREADS. BLAS is kept single-
 * threaded inside a block (parallelism comes from the blocks).
 *
 * `stream` separates the configurations of a sweep (sweep.c: each point's
 * sweep_point.stream), so each point has independent draws and can be rerun
 * alone with the same numbers.
 *
 * Under MPI (make mpi, par.h; the gather is in mc_mpi.c, apart from the
 * single-process path) the units of work (one block of one point) are
 * shared out over the ranks, unit u on rank u mod N; every rank receives the
 * other ranks' block statistics and `values`, and merges them in the same
 * order, so the results are the same for any number of ranks and threads.
 * Per-draw data must therefore go through `values`: a draw function that
 * writes into ctx only fills the ctx of the rank that ran the draw.
 */
#ifndef ATT_MC_H
#define ATT_MC_H

#include <stddef.h>
#include <stdint.h>
#include <gsl/gsl_rng.h>
#include "statistics.h"

enum { MC_BLOCK = 256 };

/* One draw: fill out[0 .. nstats-1] with this draw's values. scratch is the
 * block's private workspace (from alloc), point the point (0 .. points-1; 0
 * for a single point), draw the draw's index at its point (0 .. draws-1). ctx
 * is read-only (keep per-draw data with `values`, which works under MPI; see
 * above). Return ATT_OK or an error status (the run stops and reports it).
 * The only caller in the programs is the sweep (sweep.h), whose draws see the
 * same (point, draw) as sweep_point's index and draw. */
typedef int (*mc_draw_fn)(gsl_rng *rng, void *ctx, void *scratch,
                          size_t point, size_t draw, double *out);
typedef void *(*mc_alloc_fn)(void *ctx);   /* NULL on failure */
typedef void (*mc_free_fn)(void *scratch);

typedef struct {
    const char *rng_name;   /* GSL generator name, e.g. "mt19937"      */
    unsigned long seed;
    uint64_t stream;        /* configuration index within a sweep      */
    size_t draws;
    size_t nstats;          /* values per draw                          */
    mc_draw_fn draw;        /* every point's draws                      */
    mc_alloc_fn alloc;      /* may be NULL (scratch = NULL); one scratch
                               per thread serves every point: size it for
                               the largest                              */
    mc_free_fn free;        /* may be NULL                              */
    void *ctx;              /* read-only during the run                 */
    const char *label;      /* for progress messages                    */
    int quiet;              /* no progress on stderr                    */

    /* A grid of points (a sweep): every point p has its own draws and its
     * own stream, and its blocks join one pool of work, so a sweep of many
     * small points keeps every core busy. */
    size_t points;          /* 0 or 1: a single point                    */
    size_t (*point_draws)(const void *ctx, size_t p);  /* NULL: draws     */
    uint64_t (*point_stream)(const void *ctx, size_t p); /* NULL: stream+p */

    /* Optional: every draw's out[] kept, point after point:
     * values[(first_p + i) * nstats + k], first_p = draws of points < p.
     * The engine writes it, so ctx stays read-only (what a distributed run
     * needs). */
    double *values;
} mc_config;

/* Run every point's draws; acc[p * nstats + k] receive point p's merged
 * statistics (acc[0 .. nstats-1] for a single point). Returns ATT_OK, or the
 * first error (in point and block order) a draw or an allocation returned,
 * with its status (ATT_EUSAGE when a scratch exceeds --max-memory). */
int mc_run(const mc_config *cfg, stat_acc *acc);

/* Total draws over the points of cfg (what `values` must hold / nstats). */
size_t mc_total_draws(const mc_config *cfg);

#endif
