/* blas.h - the BLAS's own threads.
 *
 * The suite parallelises over blocks of draws or tiles of a head with OpenMP;
 * OpenBLAS's own thread pool would then spin on the same two cores. This sets
 * it to one thread for the rest of the process. With GSL's reference CBLAS
 * (no thread pool) it does nothing.
 */
#ifndef ATT_BLAS_H
#define ATT_BLAS_H

/* Make BLAS single-threaded (OpenBLAS) for the rest of the process; a no-op
 * when it is single-threaded already or inside an OpenMP parallel region. */
void blas_single_thread(void);

#endif
