/* afile.h - result files written atomically, one by one or as a run's set.
 *
 * One file goes to an unnamed temporary (O_TMPFILE, else a named one in the run folder
 * DIR/.att-run.<pid>/) and is renamed over its target only after a flush and fsync: an error,
 * a signal or a SIGKILL in the middle leaves the previous file intact. A run's set (every
 * program that parses its options with opts_parse: afile_hold in par_run_begin, afile_release
 * in opts_exit's par_run_end) appears together or not at all: afile_commit keeps each file
 * unnamed or in the run folder; afile_release(1) writes the journal
 * DIR/.att-run.<pid>/journal and renames every file into place, undoing them all if a rename
 * fails, with SIGINT, SIGTERM and SIGHUP deferred until it is over; afile_release(0), an error
 * or such a signal before the release removes every temporary. What a killed run left is
 * rolled forward (journal) or back (journal.back, or none) by afile_recover. The steps, and
 * what remains after kill -9 at any instant: doc/running.md, "The output folder".
 * ATT_WRITE_LOG=FILE (make reproduce, make verify): every file moved into place is appended to
 * FILE as "<inode> <size> <real path>" (tools/reproduce/prune_results.sh).
 * ATT_TEST_RELEASE_DELAY_MS=N (a test hook) sleeps N ms before each rename of a release.
 * afile_release returns ATT_OK or the first error (naming the file).
 */
#ifndef ATT_AFILE_H
#define ATT_AFILE_H

#include <stdio.h>

typedef struct {
    FILE *f;
    char *final_path;
    char *tmp_path;     /* NULL when O_TMPFILE is used (until a release names it) */
    int fd;
} afile;

/* Start holding files (a run's set); afile_release(keep) ends it: keep = 1
 * renames every held file into place (all or none, see above), keep = 0
 * throws them all away. Under MPI (par.h) the same frame spans every rank. */
void afile_hold(void);
int afile_release(int keep);
/* After afile_discard(), files are written to /dev/null and commit renames
 * nothing: the non-root ranks of an MPI run (par.h), which compute the same
 * files as rank 0 but must not write them. */
void afile_discard(void);

/* Roll forward or back what a killed run left in dir (its run folders
 * .att-run.<pid> of dead processes; see above). ATT_OK, or ATT_ERUNTIME with a
 * message when a journal is damaged or a rename fails. A missing dir is OK. */
int afile_recover(const char *dir);

/* Open dir/name for atomic writing (name: a plain file name, no '/').
 * ATT_ERUNTIME (naming the path) on error. */
int afile_open(afile *af, const char *dir, const char *name);
/* Flush, fsync, check for write errors, then rename into place (or hold). */
int afile_commit(afile *af);
/* Throw the temporary away; the previous file stays. Safe after commit. */
void afile_abort(afile *af);

#endif
