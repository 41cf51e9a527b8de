/* mc.c - blocks of draws, a generator per block, OpenMP over blocks,
 * statistics merged in block order (so results do not depend on threads). */
#include "mc.h"
#include "mc_mpi.h"
#include "blas.h"
#include "mem.h"
#include "par.h"
#include "rng.h"
#include "status.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <omp.h>


static void progress(const mc_config *cfg, size_t done, size_t total, double t0, int *shown)
{
    double t = omp_get_wtime() - t0;
    if (t < 2.0 && !*shown) return;
    *shown = 1;
    fprintf(stderr, "\r%s: %zu/%zu draws (%.0f%%), %.1f s   ", cfg->label ? cfg->label : "mc",
            done, total, 100.0 * (double)done / (double)total, t);
}

static size_t npoints(const mc_config *cfg) { return cfg->points ? cfg->points : 1; }

static size_t draws_of(const mc_config *cfg, size_t p)
{
    return cfg->point_draws ? cfg->point_draws(cfg->ctx, p) : cfg->draws;
}

static uint64_t stream_of(const mc_config *cfg, size_t p)
{
    return cfg->point_stream ? cfg->point_stream(cfg->ctx, p) : cfg->stream + p;
}

size_t mc_total_draws(const mc_config *cfg)
{
    size_t n = 0;
    for (size_t p = 0; p < npoints(cfg); p++) n += draws_of(cfg, p);
    return n;
}


/* Run this rank's share of the units, u = rank, rank + size, rank + 2 size,
 * ... < nunits (all of them in one process), into part[u * ns] and
 * status[u]; progress counts this rank's draws. */
static void run_units(const mc_config *cfg, const gsl_rng_type *type, const mc_unit *units,
                      size_t nunits, stat_acc *part, int *status, char *errmsg, size_t errlen,
                      size_t *err_unit)
{
    size_t ns = cfg->nstats, done = 0, rank = (size_t)par_rank(), size = (size_t)par_size();
    size_t nmine = nunits > rank ? (nunits - rank + size - 1) / size : 0, total = 0;
    for (size_t i = 0; i < nmine; i++) {
        const mc_unit *un = &units[rank + i * size];
        size_t n = draws_of(cfg, un->point) - un->block * MC_BLOCK;
        total += n < MC_BLOCK ? n : MC_BLOCK;
    }
    int show = !cfg->quiet && par_is_root() && isatty(STDERR_FILENO), shown = 0;
    double t0 = omp_get_wtime();

    #pragma omp parallel
    {
        gsl_rng *rng = gsl_rng_alloc(type);
        void *scratch = cfg->alloc ? cfg->alloc(cfg->ctx) : NULL;
        double *out = malloc(ns * sizeof *out);
        int ok = ATT_OK;
        char why[512] = "";
        if (cfg->alloc && scratch == NULL) {
            ok = att_last_code() ? att_last_code() : ATT_ERUNTIME;
            snprintf(why, sizeof why, "%s",
                     att_last_error()[0] ? att_last_error()
                                         : "out of memory for Monte Carlo scratch");
        } else if (rng == NULL || out == NULL) {
            ok = ATT_ERUNTIME;
            snprintf(why, sizeof why, "out of memory for Monte Carlo scratch");
        }

        /* the units from the last: a sweep's costly points (large T, d, steps)
         * usually come last, and started first they do not leave one thread
         * working alone at the end; the results do not depend on the order */
        #pragma omp for schedule(dynamic, 1)
        for (size_t jr = 0; jr < nmine; jr++) {
            size_t j = nmine - 1 - jr, u = rank + j * size;
            const mc_unit *un = &units[u];
            stat_acc *mine = part + u * ns;
            for (size_t k = 0; k < ns; k++) stat_init(&mine[k]);
            size_t n = draws_of(cfg, un->point);
            size_t first = un->block * MC_BLOCK, last = first + MC_BLOCK < n ? first + MC_BLOCK : n;
            if (ok != ATT_OK) {
                status[u] = att_fail(ok, "%s", why);
            } else {
                gsl_rng_set(rng, rng_stream_seed(cfg->seed, stream_of(cfg, un->point), un->block));
                for (size_t i = first; i < last && status[u] == ATT_OK; i++) {
                    status[u] = cfg->draw(rng, cfg->ctx, scratch, un->point, i, out);
                    for (size_t k = 0; k < ns && status[u] == ATT_OK; k++)
                        stat_push(&mine[k], out[k]);
                    if (cfg->values && status[u] == ATT_OK)
                        memcpy(cfg->values + (un->first_draw + i) * ns, out, ns * sizeof *out);
                }
            }
            if (status[u] != ATT_OK) {
                #pragma omp critical(mc_error)
                if (u < *err_unit) {
                    *err_unit = u;
                    snprintf(errmsg, errlen, "%s", att_last_error());
                }
            }
            if (show) {
                #pragma omp critical(mc_progress)
                {
                    done += last - first;
                    progress(cfg, done, total, t0, &shown);
                }
            }
        }
        free(out);
        if (scratch && cfg->free) cfg->free(scratch);
        if (rng) gsl_rng_free(rng);
    }
    if (shown) fputc('\n', stderr);
}

int mc_run(const mc_config *cfg, stat_acc *acc)
{
    size_t P = npoints(cfg), ns = cfg->nstats;
    if (ns == 0 || cfg->draw == NULL)
        return att_fail(ATT_EUSAGE, "Monte Carlo run without a draw function or statistics");
    const gsl_rng_type *T = rng_type_find(cfg->rng_name);
    if (T == NULL) return ATT_EUSAGE;
    blas_single_thread();

    /* plan: ceil(draws_p / MC_BLOCK) blocks per point, written so that it
     * cannot wrap around */
    size_t nunits = 0;
    for (size_t p = 0; p < P; p++) {
        size_t n = draws_of(cfg, p);
        if (n == 0) return att_fail(ATT_EUSAGE, "Monte Carlo run needs draws >= 1 (got 0)");
        size_t add = n / MC_BLOCK + (n % MC_BLOCK != 0);
        if (nunits > SIZE_MAX - add)
            return att_fail(ATT_EUSAGE, "--draws %zu: too many Monte Carlo blocks to count", n);
        nunits += add;
    }
    /* the plan and its partial statistics count against --max-memory (mem.h):
     * too many draws are refused (exit 2, naming the budget), not run out of */
    size_t part_size = ns > SIZE_MAX / sizeof(stat_acc) ? 0 : ns * sizeof(stat_acc);
    mc_unit *units =
        mem_calloc(nunits, sizeof *units, "the Monte Carlo plan (one entry per block of draws)");
    stat_acc *part = units && part_size
                         ? mem_calloc(nunits, part_size, "the Monte Carlo partial statistics")
                         : NULL;
    int *status = part ? mem_calloc(nunits, sizeof *status, "the Monte Carlo block status") : NULL;
    int st = status ? ATT_OK : att_alloc_status();
    if ((st = par_agree(st, PAR_SITE_MC_PLAN)) != ATT_OK) {   /* every rank stops together */
        mem_free(units, nunits, sizeof *units);
        mem_free(part, nunits, part_size);
        mem_free(status, nunits, sizeof *status);
        return st;
    }
    for (size_t p = 0, u = 0, first = 0; p < P; p++) {
        size_t n = draws_of(cfg, p);
        for (size_t b = 0; b * MC_BLOCK < n; b++) units[u++] = (mc_unit){p, b, first};
        first += n;
    }

    char errmsg[1024] = "";
    size_t err_unit = nunits;
    run_units(cfg, T, units, nunits, part, status, errmsg, sizeof errmsg, &err_unit);

    st = par_size() > 1
             ? mc_mpi_gather(cfg, units, nunits, part, status, errmsg, sizeof errmsg, err_unit)
         : err_unit < nunits ? att_fail(status[err_unit], "%s", errmsg)
                             : ATT_OK;
    if (st == ATT_OK) {
        /* merge each point's blocks in block order: the same for any thread count */
        for (size_t k = 0; k < P * ns; k++) stat_init(&acc[k]);
        for (size_t u = 0; u < nunits; u++)
            for (size_t k = 0; k < ns; k++)
                stat_merge(&acc[units[u].point * ns + k], &part[u * ns + k]);
    }
    mem_free(units, nunits, sizeof *units);
    mem_free(part, nunits, part_size);
    mem_free(status, nunits, sizeof *status);
    return st;
}
