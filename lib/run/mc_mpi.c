/* mc_mpi.c - the Monte Carlo engine's gather across MPI ranks (mc_mpi.h). */
#include "mc_mpi.h"
#include "par.h"
#include "status.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>

static size_t draws_of(const mc_config *cfg, size_t p)
{
    return cfg->point_draws ? cfg->point_draws(cfg->ctx, p) : cfg->draws;
}

/* Under MPI (mc_mpi.h): a unit's statistics and, with cfg->values, its draws, so that every
 * rank merges the same numbers in the same order. */
int mc_mpi_gather(const mc_config *cfg, const mc_unit *units, size_t nunits, stat_acc *part,
                        const int *status, char *errmsg, size_t errlen, size_t err_unit)
{
    size_t ns = cfg->nstats, rank = (size_t)par_rank(), size = (size_t)par_size();
    /* test-only (par.h): a rank that fails in a draw, a rank that is killed */
    int st_mine = err_unit < nunits ? status[err_unit] : ATT_OK;
    if (par_test_env("ATT_MPI_TEST_FAIL_RANK") == (int)rank && rank < nunits && rank <= err_unit) {
        err_unit = rank;
        st_mine = ATT_ERUNTIME;
        snprintf(errmsg, errlen, "rank %zu: a draw failed (test-only failure injected by "
                 "ATT_MPI_TEST_FAIL_RANK)", rank);
    }
    if (par_test_env("ATT_MPI_TEST_KILL_RANK") == (int)rank) raise(SIGKILL);

    /* the first error in unit order, the one a single process reports */
    if (err_unit < nunits) att_fail(st_mine, "%s", errmsg);
    int st = par_agree_keyed(st_mine, PAR_SITE_MC_DRAWS, err_unit);
    if (st != ATT_OK) return st;
    size_t nmax = nunits / size + 1;
    size_t *off = malloc(nmax * sizeof *off), *len = malloc(nmax * sizeof *len);
    if (off == NULL || len == NULL) {
        /* every rank needs the same answer: there is no way to agree without memory */
        fprintf(stderr, "rank %zu: out of memory gathering Monte Carlo results\n", rank);
        par_abort(ATT_ERUNTIME);
    }
    for (size_t q = 0; q < size && st == ATT_OK; q++) {
        size_t k = 0;
        for (size_t u = q; u < nunits; u += size, k++) {
            off[k] = u * ns * sizeof *part;
            len[k] = ns * sizeof *part;
        }
        /* the same plan on every rank: an error here is the same everywhere */
        st = par_bcast_pieces(part, off, len, k, (int)q);
        if (cfg->values == NULL || st != ATT_OK) continue;
        k = 0;
        for (size_t u = q; u < nunits; u += size, k++) {
            size_t n = draws_of(cfg, units[u].point) - units[u].block * MC_BLOCK;
            off[k] = (units[u].first_draw + units[u].block * MC_BLOCK) * ns * sizeof(double);
            len[k] = (n < MC_BLOCK ? n : MC_BLOCK) * ns * sizeof(double);
        }
        st = par_bcast_pieces(cfg->values, off, len, k, (int)q);
    }
    free(off);
    free(len);
    return st;
}

