/* mc_mpi.h - the Monte Carlo engine's distributed part (inside lib/run only).
 *
 * mc.c runs a plan of units (one block of one point each); in one process it
 * merges them itself. Under MPI (par.h) each rank ran the units u with
 * u mod size = rank, and mc_mpi_gather makes every rank hold every unit's
 * statistics (and per-draw values) before the merge, so the result is the
 * same for any number of ranks. A reader of the engine can skip this file.
 */
#ifndef ATT_MC_MPI_H
#define ATT_MC_MPI_H

#include <stddef.h>
#include "mc.h"

/* The unit of work is one block of one point: (point, block), listed point
 * after point, block after block. first_draw is the point's first draw in
 * the `values` layout. */
typedef struct {
    size_t point, block, first_draw;
} mc_unit;

/* Every rank learns the first error in unit order (the one a single process
 * reports), or receives every other rank's units. Returns the agreed status. */
int mc_mpi_gather(const mc_config *cfg, const mc_unit *units, size_t nunits, stat_acc *part,
                  const int *status, char *errmsg, size_t errlen, size_t err_unit);

#endif
