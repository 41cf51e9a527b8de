/* mc.c - blocks of draws, a generator per block, OpenMP over blocks,
 * statistics merged in block order (so results do not depend on threads). */
#include "mc.h"
#include "rng.h"
#include "status.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <omp.h>

/* OpenBLAS, when linked, exports this; with GSL's reference CBLAS it is absent. */
extern void openblas_set_num_threads(int) __attribute__((weak));

void mc_blas_single_thread(void)
{
    if (openblas_set_num_threads) openblas_set_num_threads(1);
}

/* threads * scratch + ceil(draws / MC_BLOCK) * nstats * sizeof(stat_acc) */
size_t mc_run_bytes(size_t scratch_bytes, size_t draws, size_t nstats)
{
    size_t threads = (size_t)omp_get_max_threads();
    size_t nblocks = draws / MC_BLOCK + (draws % MC_BLOCK != 0);
    if (scratch_bytes == 0 || scratch_bytes > SIZE_MAX / threads) return 0;
    size_t scratch = threads * scratch_bytes;
    if (nstats != 0 && nblocks > SIZE_MAX / nstats / sizeof(stat_acc)) return 0;
    size_t table = nblocks * nstats * sizeof(stat_acc);
    return table > SIZE_MAX - scratch ? 0 : scratch + table;
}

static void progress(const mc_config *cfg, size_t done, size_t total, double t0, int *shown)
{
    double t = omp_get_wtime() - t0;
    if (t < 2.0 && !*shown) return;
    *shown = 1;
    fprintf(stderr, "\r%s: %zu/%zu draws (%.0f%%), %.1f s   ", cfg->label ? cfg->label : "mc",
            done, total, 100.0 * (double)done / (double)total, t);
}

int mc_run(const mc_config *cfg, stat_acc *acc)
{
    if (cfg->draws == 0 || cfg->nstats == 0)
        return att_fail(ATT_EUSAGE, "Monte Carlo run needs draws >= 1 (got %zu)", cfg->draws);
    const gsl_rng_type *T = rng_type_find(cfg->rng_name);
    if (T == NULL) return ATT_EUSAGE;
    mc_blas_single_thread();

    /* ceil(draws / MC_BLOCK), written so that it cannot wrap around */
    size_t nblocks = cfg->draws / MC_BLOCK + (cfg->draws % MC_BLOCK != 0), ns = cfg->nstats;
    stat_acc *part = calloc(nblocks, ns * sizeof *part);     /* calloc checks the product */
    int *status = calloc(nblocks, sizeof *status);
    if (part == NULL || status == NULL) {
        free(part);
        free(status);
        return att_fail(ATT_ERUNTIME, "out of memory for %zu Monte Carlo blocks", nblocks);
    }
    int show = !cfg->quiet && isatty(STDERR_FILENO), shown = 0;
    double t0 = omp_get_wtime();
    size_t done_blocks = 0;
    char errmsg[1024] = "";
    size_t err_block = nblocks;

    #pragma omp parallel
    {
        gsl_rng *rng = gsl_rng_alloc(T);
        void *scratch = cfg->alloc ? cfg->alloc(cfg->ctx) : NULL;
        double *out = malloc(ns * sizeof *out);
        int ok = rng && out && (scratch || !cfg->alloc);

        #pragma omp for schedule(dynamic, 1)
        for (size_t b = 0; b < nblocks; b++) {
            stat_acc *mine = part + b * ns;
            for (size_t k = 0; k < ns; k++) stat_init(&mine[k]);
            if (!ok) {
                status[b] = att_fail(ATT_ERUNTIME, "out of memory for Monte Carlo scratch");
            } else {
                gsl_rng_set(rng, rng_stream_seed(cfg->seed, cfg->stream, b));
                size_t first = b * MC_BLOCK, last = first + MC_BLOCK;
                if (last > cfg->draws) last = cfg->draws;
                for (size_t i = first; i < last && status[b] == ATT_OK; i++) {
                    status[b] = cfg->draw(cfg->ctx, scratch, rng, i, out);
                    for (size_t k = 0; k < ns && status[b] == ATT_OK; k++)
                        stat_push(&mine[k], out[k]);
                }
            }
            if (status[b] != ATT_OK) {
                #pragma omp critical(mc_error)
                if (b < err_block) {
                    err_block = b;
                    snprintf(errmsg, sizeof errmsg, "%s", att_last_error());
                }
            }
            if (show) {
                #pragma omp critical(mc_progress)
                progress(cfg, ++done_blocks * MC_BLOCK < cfg->draws ? done_blocks * MC_BLOCK
                                                                     : cfg->draws,
                         cfg->draws, t0, &shown);
            }
        }
        free(out);
        if (scratch && cfg->free) cfg->free(scratch);
        if (rng) gsl_rng_free(rng);
    }
    if (shown) fputc('\n', stderr);

    int st = ATT_OK;
    if (err_block < nblocks) {
        st = att_fail(status[err_block], "%s", errmsg);
    } else {
        /* merge in block order: the result is the same for any thread count */
        for (size_t k = 0; k < ns; k++) stat_init(&acc[k]);
        for (size_t b = 0; b < nblocks; b++)
            for (size_t k = 0; k < ns; k++) stat_merge(&acc[k], &part[b * ns + k]);
    }
    free(part);
    free(status);
    return st;
}
