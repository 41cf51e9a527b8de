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

/* Open dir/name for atomic writing. ATT_ERUNTIME (naming the path) on error. */
int afile_open(afile *af, const char *dir, const char *name);
/* Flush, fsync, check for write errors, then rename into place. */
int afile_commit(afile *af);
/* Throw the temporary away; the previous file stays. Safe after commit. */
void afile_abort(afile *af);

#endif
