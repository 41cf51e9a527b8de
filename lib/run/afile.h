/* afile.h - result files written atomically.
 *
 * Every file is written to an unnamed temporary in the target directory
 * (O_TMPFILE where the filesystem has it, else a hidden ".name.tmp.PID"
 * removed on SIGINT/SIGTERM and on the next run) and renamed over the target
 * only after a successful flush and fsync. An error, a signal or a SIGKILL in
 * the middle of a run therefore leaves the previous file intact.
 */
#ifndef ATT_AFILE_H
#define ATT_AFILE_H

#include <stdio.h>

typedef struct {
    FILE *f;
    char *final_path;
    char *tmp_path;     /* NULL when O_TMPFILE is used */
    int fd;
} afile;

/* A whole run's files at once (experiment_main): after afile_hold(),
 * afile_commit flushes, fsyncs and checks a file but keeps it (unnamed, or
 * under its hidden temporary name) until afile_release: keep = 1 renames
 * every held file into place, keep = 0 throws them all away. So a run that
 * fails anywhere (on any MPI rank) leaves no partial output. afile_release
 * returns ATT_OK or the first rename error (the rest are still tried). */
void afile_hold(void);
int afile_release(int keep);

/* After afile_discard(), files are written to /dev/null and commit renames
 * nothing: the non-root ranks of an MPI run (par.h), which compute the same
 * files as rank 0 but must not write them. */
void afile_discard(void);

/* Open dir/name for atomic writing. ATT_ERUNTIME (naming the path) on error. */
int afile_open(afile *af, const char *dir, const char *name);
/* Flush, fsync, check for write errors, then rename into place. */
int afile_commit(afile *af);
/* Throw the temporary away; the previous file stays. Safe after commit. */
void afile_abort(afile *af);

#endif
