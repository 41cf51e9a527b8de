/* par.h - the parallel context: one process, or the ranks of an MPI run.
 *
 * The MPI build (make mpi: build-mpi/, bin-mpi/) compiles lib/ with
 * -DATT_MPI and links Open MPI; the plain build compiles the same calls as
 * single-process stubs (rank 0 of 1), with no mpi.h and no libmpi.
 *
 * Under MPI every rank runs the whole program (the non-Monte-Carlo parts are
 * deterministic, so every rank computes the same), the Monte Carlo engine
 * (mc.c) spreads its units of work over the ranks and gives every rank the
 * merged statistics, and only rank 0 writes files or prints
 * (experiment_main arranges it). A status is agreed with par_agree before
 * any file is renamed into place.
 *
 * Test-only (MPI build only; for tests/test_mpi.sh, never for real runs):
 *   ATT_MPI_TEST_KILL_RANK=r   rank r raises SIGKILL on itself in its first
 *                              Monte Carlo run, after its draws;
 *   ATT_MPI_TEST_FAIL_RANK=r   rank r's first Monte Carlo unit returns a
 *                              runtime error (a draw error on one rank);
 *   ATT_MPI_TEST_DIVERGE_RANK=r  rank r fails in experiment_main before it
 *                              runs the experiment, while the others go on
 *                              into the Monte Carlo (ranks at different
 *                              collective calls: par_agree's abort path).
 */
#ifndef ATT_PAR_H
#define ATT_PAR_H

#include <stddef.h>

/* Start MPI (idempotent; MPI_THREAD_FUNNELED: only the main thread calls
 * MPI, OpenMP threads run inside a rank). Finalized at exit. ATT_OK or
 * ATT_ERUNTIME. The plain build: nothing. */
int par_init(int *argc, char ***argv);

int par_rank(void);       /* 0 .. par_size()-1 (0 without MPI) */
int par_size(void);       /* 1 without MPI                     */
int par_is_root(void);    /* rank 0: the one that writes        */
int par_enabled(void);    /* 1 in the MPI build                 */
void par_set_name(const char *id);   /* the program's name, for messages */

/* End every rank now with exit code `code` (MPI_Abort). */
void par_abort(int code) __attribute__((noreturn));

/* Agree on a status: every rank passes its own. Returns, on every rank, the
 * error (status >= ATT_EUSAGE) of the rank with the lowest (key, rank) among
 * those that have one, with that rank's message copied into
 * att_last_error() on every rank (so rank 0 prints it once); otherwise the
 * largest status (ATT_HELP, ATT_OK or ATT_FAIL). A collective call: every
 * rank must make it at the same `site` (a PAR_SITE_*); ranks that arrive at
 * different sites (one failed where the others did not) end the job: the
 * failing rank prints its message and calls MPI_Abort with its status. */
enum { PAR_SITE_MC_PLAN = 1, PAR_SITE_MC_DRAWS, PAR_SITE_RUN, PAR_SITE_END, PAR_SITE_RELEASED };
int par_agree(int status, int site);
int par_agree_keyed(int status, int site, unsigned long long key);

/* Broadcast `nblocks` pieces of base (piece i: len[i] bytes at byte offset
 * off[i]) from rank `root` into the same places on every other rank. One
 * collective call; ATT_OK or ATT_ERUNTIME. */
int par_bcast_pieces(void *base, const size_t *off, const size_t *len, size_t nblocks, int root);

/* The run's frame, called by opts_parse (begin) and opts_exit (end), so
 * every program that parses options and returns through opts_exit writes
 * its files all or none (afile.h), in one process and under mpirun.
 * begin: holds the files until the end (afile_hold); with 2 or more ranks
 * it starts MPI (par_init), and the ranks other than 0 write no files
 * (afile_discard) and print nothing on stdout. end: the ranks agree on the
 * status (par_agree); the files are renamed into place only if every rank
 * succeeded (status 0 or 1), else thrown away; returns the agreed status
 * (a release error if the renames failed), which rank 0 alone prints. */
void par_run_begin(const char *id);
int par_run_end(int status);

/* A test-only integer environment variable (see above): -1 when unset or in
 * the plain build. */
int par_test_env(const char *name);

#endif
