/* blas.c - keep OpenBLAS to one thread (see blas.h). */
#include "blas.h"

#include <omp.h>

/* OpenBLAS, when linked, exports these; with GSL's reference CBLAS they are absent. */
extern void openblas_set_num_threads(int) __attribute__((weak));
extern int openblas_get_num_threads(void) __attribute__((weak));

void blas_single_thread(void)
{
    // (not when it is 1 already: in a forked child that call would restart
    // OpenBLAS's thread pool, whose threads then spin for a while)
    if (openblas_set_num_threads == 0 || omp_in_parallel()) return;
    if (openblas_get_num_threads && openblas_get_num_threads() == 1) return;
    openblas_set_num_threads(1);
}
