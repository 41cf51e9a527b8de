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
 *     file there, writes the journal DIR/.att-run.<pid>/journal (every file
 *     of the set; whole or absent), then renames every file into place; if a
 *     rename fails, the journal becomes journal.back and the files already
 *     renamed are put back (the previous versions from their links, new
 *     names removed), so the folder is exactly as before. Then the journal
 *     and the run folder are removed. The whole release is a critical
 *     section: SIGINT, SIGTERM and SIGHUP are blocked in the releasing
 *     thread and deferred in every other thread (OpenMP, OpenBLAS workers),
 *     and take effect only after it.
 *   - afile_release(0), an error, or SIGINT/SIGTERM/SIGHUP before the
 *     release: every temporary is removed; the folder is as before.
 *   - SIGKILL (or a crash) at any instant: the folder holds the whole old set
 *     plus, maybe, the run folder DIR/.att-run.<pid>/ (with or without a
 *     journal), or the renames were cut and the journal is there. The next
 *     program writing into DIR (afile_recover, called by opts_parse before
 *     anything else) and make reproduce / make verify (build/tools/recover)
 *     roll it forward (journal: the whole new set) or back (journal.back or
 *     no journal: the whole old set), then remove the run folder.
 * ATT_WRITE_LOG=FILE (make reproduce, make verify): every file moved into
 * place (a release, a single commit, a roll-forward) is appended to FILE as
 * "<inode> <size> <real path>", the suite's record of what it wrote
 * (tools/reproduce/prune_results.sh). ATT_TEST_RELEASE_DELAY_MS=N (a test hook) sleeps
 * N ms before each rename of a release.
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
