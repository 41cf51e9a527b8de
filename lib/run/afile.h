/* afile.h - result files written atomically, one by one or as a run's set.
 *
 * One file: it is written to an unnamed temporary in the target directory
 * (O_TMPFILE where the filesystem has it, else a named temporary in the
 * run folder below) and renamed over the target only after a successful
 * flush and fsync. An error, a signal or a SIGKILL in the middle leaves the
 * previous file intact.
 *
 * A run's set (afile_hold ... afile_release): every program that parses its
 * options with opts_parse (every bin/<ID> and bin/attention) holds all its
 * files from the start (par_run_begin) and releases them in opts_exit
 * (par_run_end): a run's files appear together or not at all.
 *   - afile_commit flushes, fsyncs and checks a file but keeps it unnamed
 *     (O_TMPFILE) or in the run folder DIR/.att-run.<pid>/ (filesystems
 *     without O_TMPFILE: NFS, vfat);
 *   - afile_release(1) gives the held files names in the run folder, checks
 *     that every target can be replaced (a directory where a file goes is
 *     refused before anything moves), keeps a hard link to each previous
 *     file there, then renames every file into place with SIGINT, SIGTERM
 *     and SIGHUP blocked; if a rename fails, the files already renamed are
 *     put back (the previous versions from their links, new names
 *     removed), so the folder is exactly as before. Then the run folder is
 *     removed.
 *   - afile_release(0), an error, or SIGINT/SIGTERM/SIGHUP before the
 *     release: every temporary is removed; the folder is as before.
 *   - SIGKILL: nothing is left but, without O_TMPFILE (or between the links
 *     and the renames of a release), the run folder DIR/.att-run.<pid>/,
 *     which the next run writing into DIR removes (its pid is dead).
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

/* Open dir/name for atomic writing (name: a plain file name, no '/').
 * ATT_ERUNTIME (naming the path) on error. */
int afile_open(afile *af, const char *dir, const char *name);
/* Flush, fsync, check for write errors, then rename into place (or hold). */
int afile_commit(afile *af);
/* Throw the temporary away; the previous file stays. Safe after commit. */
void afile_abort(afile *af);

#endif
