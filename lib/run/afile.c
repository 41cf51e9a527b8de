/* afile.c - files written atomically: a temporary, then rename; a run's set
 * of files all at once (see afile.h). */
#include "afile.h"
#include "status.h"

#include <dirent.h>
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define RUN_PREFIX ".att-run."

/* ---- signals: temporaries removed, releases never cut ------------------
 *
 * SIGINT, SIGTERM and SIGHUP run on_signal in whichever thread the kernel
 * picks (an OpenMP or OpenBLAS worker as well as the main thread). Outside a
 * critical section it removes the run's temporaries and ends the process with
 * the signal. Inside one (a release, or a change to the tables below) the
 * writing thread has the signals blocked, and a worker that receives one only
 * records it in sig_state: the section ends first, then the signal is raised
 * again. So no thread can cut a release in the middle. sig_state is one
 * lock-free atomic int (async-signal-safe):
 *   ST_IDLE, ST_CRIT (a section runs), ST_DYING (a handler is ending the
 *   process), ST_DEFER + sig (a section runs and sig waits for its end). */

enum { MAX_TMP = 4096, MAX_RUNS = 16 };
static char *tmp_paths[MAX_TMP];               /* NULL = free slot          */
static char run_paths[MAX_RUNS][PATH_MAX];      /* "" = free: DIR/.att-run.PID */
static char run_dirs[MAX_RUNS][PATH_MAX];       /* the DIR of each            */
static volatile sig_atomic_t handlers_set;

enum { ST_IDLE = 0, ST_CRIT = 1, ST_DYING = 2, ST_DEFER = 16 };
static atomic_int sig_state;
static int crit_depth;                          /* the writing thread's nesting */
static sigset_t crit_old;

static const int SIGS[] = {SIGINT, SIGTERM, SIGHUP};

static void on_signal(int sig)
{
    for (;;) {
        int s = atomic_load(&sig_state);
        if (s == ST_CRIT) {                      /* a section runs: after it */
            if (atomic_compare_exchange_weak(&sig_state, &s, ST_DEFER + sig)) return;
            continue;
        }
        if (s != ST_IDLE) return;                /* deferred already, or the process is ending */
        if (atomic_compare_exchange_weak(&sig_state, &s, ST_DYING)) break;
    }
    for (int i = 0; i < MAX_TMP; i++)
        if (tmp_paths[i]) unlink(tmp_paths[i]);     /* async-signal-safe */
    for (int i = 0; i < MAX_RUNS; i++)
        if (run_paths[i][0]) rmdir(run_paths[i]);
    signal(sig, SIG_DFL);
    raise(sig);
}

static void install_handlers(void)
{
    if (handlers_set) return;
    handlers_set = 1;
    struct sigaction sa, old;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    for (int i = 0; i < 3; i++) sigaddset(&sa.sa_mask, SIGS[i]);
    /* a signal ignored at startup (nohup, a background job) stays ignored */
    for (int i = 0; i < 3; i++)
        if (sigaction(SIGS[i], NULL, &old) == 0 && old.sa_handler != SIG_IGN)
            sigaction(SIGS[i], &sa, NULL);
}

/* Enter a critical section (nested: only the outermost counts): the three
 * signals blocked in this thread and deferred in every other one. */
static void crit_enter(void)
{
    if (crit_depth++ > 0) return;
    sigset_t s;
    sigemptyset(&s);
    for (int i = 0; i < 3; i++) sigaddset(&s, SIGS[i]);
    pthread_sigmask(SIG_BLOCK, &s, &crit_old);
    for (;;) {
        int idle = ST_IDLE;
        if (atomic_compare_exchange_strong(&sig_state, &idle, ST_CRIT)) return;
        /* a handler in another thread is ending the process: wait for it */
        struct timespec ts = {0, 1000000};
        nanosleep(&ts, NULL);
    }
}

/* Leave it: a signal that came meanwhile (to this thread or another) now
 * takes effect. */
static void crit_leave(void)
{
    if (--crit_depth > 0) return;
    int s = atomic_exchange(&sig_state, ST_IDLE);
    pthread_sigmask(SIG_SETMASK, &crit_old, NULL);
    if (s >= ST_DEFER) raise(s - ST_DEFER);
}

/* Register (on = 1) or forget a temporary. Registering fails (ATT_ERUNTIME)
 * only when the table is full or memory is out. */
static int tmp_register(const char *path, int on)
{
    crit_enter();
    int st = on ? ATT_ERUNTIME : ATT_OK;
    char *copy = on ? strdup(path) : NULL;
    for (int i = 0; i < MAX_TMP; i++) {
        if (on && copy && tmp_paths[i] == NULL) {
            tmp_paths[i] = copy;
            st = ATT_OK;
            break;
        }
        if (!on && tmp_paths[i] && strcmp(tmp_paths[i], path) == 0) {
            char *p = tmp_paths[i];
            tmp_paths[i] = NULL;
            free(p);
            break;
        }
    }
    if (on && st != ATT_OK) free(copy);
    crit_leave();
    if (on && st != ATT_OK)
        return att_fail(ATT_ERUNTIME, "cannot keep track of the temporary '%s' (%s)", path,
                        copy ? "more than 4096 files in one run" : "out of memory");
    return ATT_OK;
}

/* pid of a "<prefix><pid>..." name, or 0 */
static long name_pid(const char *s)
{
    char *end;
    long pid = strtol(s, &end, 10);
    return end != s && pid > 0 ? pid : 0;
}

static int pid_dead(long pid)
{
    return pid != (long)getpid() && kill((pid_t)pid, 0) != 0 && errno == ESRCH;
}

/* Remove everything in the folder p (its entries are plain files), then p. */
static void remove_folder(const char *p)
{
    DIR *d = opendir(p);
    if (d != NULL) {
        struct dirent *e;
        while ((e = readdir(d)) != NULL) {
            if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
            char f[PATH_MAX];
            if (snprintf(f, sizeof f, "%s/%s", p, e->d_name) < (int)sizeof f) unlink(f);
        }
        closedir(d);
    }
    rmdir(p);
}

/* a formatted string on the heap, or NULL (no memory) */
static char *str_printf(const char *fmt, ...)
{
    char *s;
    va_list ap;
    va_start(ap, fmt);
    int n = vasprintf(&s, fmt, ap);
    va_end(ap);
    return n < 0 ? NULL : s;
}

/* ---- the write log (ATT_WRITE_LOG): what this run put where ------------
 * One line per file moved into place, "<inode> <size> <real path>", appended
 * in one write(2) per release (O_APPEND: lines of parallel runs never mix).
 * make reproduce and make verify read it to build their manifest
 * (tools/reproduce/prune_results.sh). A failure to log is only a warning: a file
 * missing from the log is never removed, only overwritten by name. */
typedef struct { char *buf; size_t len, cap; } logbuf;

static void log_add(logbuf *b, const char *dir, size_t dlen, const char *name,
                    unsigned long long ino, long long size)
{
    if (getenv("ATT_WRITE_LOG") == NULL || b->cap == (size_t)-1) return;
    char d[PATH_MAX], real[PATH_MAX];
    if (dlen >= sizeof d) return;
    memcpy(d, dir, dlen);
    d[dlen] = '\0';
    if (realpath(dlen ? d : "/", real) == NULL) return;
    char line[2 * PATH_MAX + 64];
    int n = snprintf(line, sizeof line, "%llu %lld %s/%s\n", ino, size,
                     strcmp(real, "/") ? real : "", name);
    if (n <= 0 || (size_t)n >= sizeof line) return;
    if (b->len + (size_t)n + 1 > b->cap) {
        size_t cap = 2 * (b->cap + (size_t)n + 1);
        char *nb = realloc(b->buf, cap);
        if (nb == NULL) { free(b->buf); b->buf = NULL; b->len = 0; b->cap = (size_t)-1; return; }
        b->buf = nb;
        b->cap = cap;
    }
    memcpy(b->buf + b->len, line, (size_t)n);
    b->len += (size_t)n;
}

static void log_flush(logbuf *b)
{
    const char *path = getenv("ATT_WRITE_LOG");
    if (path && path[0] && b->len) {
        int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
        ssize_t w = fd >= 0 ? write(fd, b->buf, b->len) : -1;
        if (fd < 0 || w != (ssize_t)b->len)
            fprintf(stderr, "warning: cannot record the files written in ATT_WRITE_LOG=%s: %s "
                    "(make reproduce will not prune them later)\n", path, strerror(errno));
        if (fd >= 0) close(fd);
    }
    free(b->buf);
    *b = (logbuf){NULL, 0, 0};
}

/* ---- the journal of a release, and its recovery ------------------------
 * Before the first rename of a release, DIR/.att-run.<pid>/journal lists
 * every file of the set (written as journal.new, fsynced, then renamed: it
 * exists whole or not at all), one line each:
 *     <existed 0|1> TAB <inode> TAB <temporary> TAB <backup or -> TAB <name>
 * (the temporary and the backup, a hard link to the previous file, are in the
 * run folder; name is the target in DIR). After the last rename it is removed.
 * A failed rename turns it into journal.back before the renames are undone.
 * A run killed (SIGKILL, a crash, a power cut) leaves the run folder; the next
 * program writing into DIR (and make reproduce, make verify: tools/reproduce/recover.c)
 * first claims it (renames it to .att-run.<its pid>.<n>) and then:
 *   journal:       rolls forward: every temporary still there is renamed
 *                  into place (the renames before the kill stay): the new set;
 *   journal.back:  rolls back: every file already renamed is given back its
 *                  backup (or removed if it did not exist before and still is
 *                  the file the run put there): the old set;
 *   neither:       nothing was renamed yet: the folder is dropped: the old set. */

#define JOURNAL "journal"
#define JOURNAL_NEW "journal.new"
#define JOURNAL_BACK "journal.back"

static int plain_name(const char *s)
{
    return s[0] && strcmp(s, ".") && strcmp(s, "..") && !strpbrk(s, "/\t\n");
}

/* out = a/b; 0 if it does not fit in PATH_MAX */
static int path_join(char out[PATH_MAX], const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la + lb + 2 > PATH_MAX) return 0;
    memcpy(out, a, la);
    out[la] = '/';
    memcpy(out + la + 1, b, lb + 1);
    return 1;
}

/* Recover the claimed run folder rd of dir (see above). */
static int recover_folder(const char *dir, const char *rd)
{
    char jp[PATH_MAX];
    int forward = 1;
    path_join(jp, rd, JOURNAL);
    FILE *f = fopen(jp, "r");
    if (f == NULL) {
        forward = 0;
        path_join(jp, rd, JOURNAL_BACK);
        f = fopen(jp, "r");
    }
    int st = ATT_OK;
    size_t moved = 0;
    logbuf lb = {NULL, 0, 0};
    if (f != NULL) {
        char line[4 * 256 + 64];
        while (st == ATT_OK && fgets(line, sizeof line, f)) {
            char *nl = strchr(line, '\n');
            if (nl) *nl = '\0';
            char *fld[5], *p = line;
            int k = 0;
            for (; k < 5 && p; k++) {
                fld[k] = p;
                p = strchr(p, '\t');
                if (p) *p++ = '\0';
            }
            if (k < 5 || p || !plain_name(fld[2]) || !plain_name(fld[4]) ||
                (strcmp(fld[3], "-") && !plain_name(fld[3]))) {
                st = att_fail(ATT_ERUNTIME, "the journal '%s' of an interrupted run is damaged "
                              "(left as it is)", jp);
                break;
            }
            int existed = fld[0][0] == '1';
            unsigned long long ino = strtoull(fld[1], NULL, 10);
            char tmp[PATH_MAX], fin[PATH_MAX], bak[PATH_MAX];
            if (!path_join(tmp, rd, fld[2]) || !path_join(fin, dir, fld[4]) ||
                !path_join(bak, rd, fld[3])) {
                st = att_fail(ATT_ERUNTIME, "too long a path in the journal '%s'", jp);
                break;
            }
            struct stat sb;
            int tmp_there = lstat(tmp, &sb) == 0;
            if (forward && tmp_there) {
                if (rename(tmp, fin) != 0) {
                    int e = errno;
                    st = att_fail(ATT_ERUNTIME, "cannot finish an interrupted run's release: "
                                  "rename into '%s': %s", fin, strerror(e));
                    break;
                }
                log_add(&lb, dir, strlen(dir), fld[4], (unsigned long long)sb.st_ino,
                        (long long)sb.st_size);
                moved++;
            } else if (!forward && !tmp_there) {
                if (strcmp(fld[3], "-") && lstat(bak, &sb) == 0) {
                    if (rename(bak, fin) == 0) moved++;
                } else if (!existed && lstat(fin, &sb) == 0 &&
                           (unsigned long long)sb.st_ino == ino) {
                    if (unlink(fin) == 0) moved++;
                }
            }
        }
        fclose(f);
    }
    if (st == ATT_OK) {
        if (moved)
            fprintf(stderr, "note: %s: finished the release of an interrupted run (%s, %zu "
                    "file%s)\n", dir, forward ? "rolled forward: its new files" :
                    "rolled back: the previous files", moved, moved == 1 ? "" : "s");
        remove_folder(rd);
    }
    log_flush(&lb);
    return st;
}

static unsigned long claim_seq;

/* Claim the run folder dir/name of a dead process and recover it. */
static int claim_and_recover(const char *dir, const char *name)
{
    char from[PATH_MAX], to[PATH_MAX];
    if (snprintf(from, sizeof from, "%s/%s", dir, name) >= (int)sizeof from ||
        snprintf(to, sizeof to, "%s/" RUN_PREFIX "%ld.%lu", dir, (long)getpid(), ++claim_seq)
            >= (int)sizeof to)
        return ATT_OK;
    if (rename(from, to) != 0) return ATT_OK;     /* gone: another run recovers it */
    return recover_folder(dir, to);
}

int afile_recover(const char *dir)
{
    DIR *d = opendir(dir);
    if (d == NULL) return ATT_OK;                 /* no folder: nothing to recover */
    char (*names)[256] = NULL;
    size_t n = 0, cap = 0;
    size_t rlen = strlen(RUN_PREFIX);
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strncmp(e->d_name, RUN_PREFIX, rlen) != 0) continue;
        long pid = name_pid(e->d_name + rlen);
        if (!pid || !pid_dead(pid) || strlen(e->d_name) >= 256) continue;
        if (n == cap) {
            size_t c = cap ? 2 * cap : 4;
            char (*nn)[256] = realloc(names, c * sizeof *nn);
            if (nn == NULL) break;
            names = nn;
            cap = c;
        }
        snprintf(names[n++], 256, "%s", e->d_name);
    }
    closedir(d);
    int st = ATT_OK;
    crit_enter();
    for (size_t i = 0; i < n; i++) {
        int s = claim_and_recover(dir, names[i]);
        if (st == ATT_OK) st = s;
    }
    crit_leave();
    free(names);
    return st;
}

/* Remove the single-file temporary ".<name>.tmp.<pid>" a killed process
 * left in dir (between link and rename), after recovering its run folders. */
static void remove_stale(const char *dir, const char *name)
{
    afile_recover(dir);
    char prefix[PATH_MAX];
    snprintf(prefix, sizeof prefix, ".%s.tmp.", name);
    size_t plen = strlen(prefix);
    DIR *d = opendir(dir);
    if (d == NULL) return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        char p[PATH_MAX];
        if (strncmp(e->d_name, prefix, plen) == 0) {
            long pid = name_pid(e->d_name + plen);
            if (pid && pid_dead(pid) &&
                snprintf(p, sizeof p, "%s/%s", dir, e->d_name) < (int)sizeof p)
                unlink(p);
        }
    }
    closedir(d);
}

/* The run folder of dir (created on first use): DIR/.att-run.<pid>. One left
 * by a dead process of the same pid is recovered first. */
static int run_folder(const char *dir, size_t dlen, const char **out)
{
    int free_slot = -1;
    for (int i = 0; i < MAX_RUNS; i++) {
        if (run_paths[i][0] && strlen(run_dirs[i]) == dlen && !strncmp(run_dirs[i], dir, dlen)) {
            *out = run_paths[i];
            return ATT_OK;
        }
        if (!run_paths[i][0] && free_slot < 0) free_slot = i;
    }
    if (free_slot < 0)
        return att_fail(ATT_ERUNTIME, "one run writes into more than %d folders", MAX_RUNS);
    char p[PATH_MAX], d[PATH_MAX];
    if (dlen >= PATH_MAX / 2 || snprintf(p, sizeof p, "%.*s/" RUN_PREFIX "%ld", (int)dlen, dir,
                                         (long)getpid()) >= (int)sizeof p)
        return att_fail(ATT_ERUNTIME, "the folder '%.*s' has too long a name", (int)dlen, dir);
    snprintf(d, sizeof d, "%.*s", (int)dlen, dir);
    int made = mkdir(p, 0700) == 0;
    if (!made && errno == EEXIST) {               /* a dead process's, with our pid */
        claim_and_recover(d, strrchr(p, '/') + 1);
        made = mkdir(p, 0700) == 0;
    }
    if (!made) {
        int e = errno;
        return att_fail(ATT_ERUNTIME, "cannot create the run folder '%s': %s", p, strerror(e));
    }
    crit_enter();
    snprintf(run_dirs[free_slot], PATH_MAX, "%s", d);
    snprintf(run_paths[free_slot], PATH_MAX, "%s", p);
    crit_leave();
    *out = run_paths[free_slot];
    return ATT_OK;
}

/* Remove every run folder (empty by now, or its leftovers). */
static void run_folders_remove(void)
{
    crit_enter();
    for (int i = 0; i < MAX_RUNS; i++)
        if (run_paths[i][0]) {
            remove_folder(run_paths[i]);
            run_paths[i][0] = run_dirs[i][0] = '\0';
        }
    crit_leave();
}

/* ---- held files and discarded files ----------------------------------- */

typedef struct {
    afile af;
    char *backup;        /* a hard link to the previous file, in the run folder */
    int existed;         /* the target existed before the release            */
    unsigned long long ino;   /* the new file's inode and size, after our write */
    long long size;
} held_file;

static int holding, discarding;
static held_file *held;
static size_t nheld, held_cap;
static unsigned long seq;              /* unique temporary names in a run folder */

void afile_hold(void) { holding = 1; }
void afile_discard(void) { discarding = 1; }

static int open_discarded(afile *af)
{
    af->fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
    af->f = af->fd >= 0 ? fdopen(af->fd, "w") : NULL;
    if (af->f == NULL) {
        int e = errno;
        afile_abort(af);
        return att_fail(ATT_ERUNTIME, "cannot open /dev/null: %s", strerror(e));
    }
    return ATT_OK;
}

/* the folder part of af->final_path */
static size_t dir_len(const afile *af)
{
    const char *slash = strrchr(af->final_path, '/');
    return slash ? (size_t)(slash - af->final_path) : 0;
}

/* a new temporary name in the run folder of af's directory */
static int run_tmp_name(const afile *af, const char *suffix, char **out)
{
    const char *rd;
    int st = run_folder(af->final_path, dir_len(af), &rd);
    if (st) return st;
    *out = str_printf("%s/%lu.%s%s", rd, ++seq, af->final_path + dir_len(af) + 1, suffix);
    if (*out == NULL) return att_fail(ATT_ERUNTIME, "out of memory");
    return tmp_register(*out, 1) ? (free(*out), *out = NULL, ATT_ERUNTIME) : ATT_OK;
}

/* forget h's backup link (already renamed or removed) */
static void backup_forget(held_file *h)
{
    tmp_register(h->backup, 0);
    free(h->backup);
    h->backup = NULL;
}

static void held_free(held_file *h)
{
    if (h->backup) {
        unlink(h->backup);
        backup_forget(h);
    }
    afile_abort(&h->af);
}

/* Phase 0 of a release: every held file gets a name in its run folder, its
 * inode and size are noted, and its stream is closed. */
static int release_name(held_file *h)
{
    afile *af = &h->af;
    int st;
    struct stat sb;
    if (fstat(af->fd, &sb) == 0) {
        h->ino = (unsigned long long)sb.st_ino;
        h->size = (long long)sb.st_size;
    }
    if (af->tmp_path == NULL) {              /* O_TMPFILE: link it into the run folder */
        char proc[64];
        snprintf(proc, sizeof proc, "/proc/self/fd/%d", af->fd);
        if ((st = run_tmp_name(af, "", &af->tmp_path))) return st;
        if (linkat(AT_FDCWD, proc, AT_FDCWD, af->tmp_path, AT_SYMLINK_FOLLOW) != 0) {
            int e = errno;
            return att_fail(ATT_ERUNTIME, "cannot create '%s' (a temporary for it in %s): %s",
                            af->final_path, af->tmp_path, strerror(e));
        }
    }
    if (af->f) fclose(af->f);               /* flushed and fsynced at commit */
    af->f = NULL;
    af->fd = -1;
    return ATT_OK;
}

/* Phase 1: the target must be replaceable; keep a link to the previous file. */
static int release_check(held_file *h)
{
    struct stat sb;
    const char *path = h->af.final_path;
    if (lstat(path, &sb) != 0) {
        if (errno == ENOENT) return ATT_OK;
        int e = errno;
        return att_fail(ATT_ERUNTIME, "cannot replace '%s': %s", path, strerror(e));
    }
    if (S_ISDIR(sb.st_mode))
        return att_fail(ATT_ERUNTIME, "cannot replace '%s': it is a directory", path);
    h->existed = 1;
    int st = run_tmp_name(&h->af, ".old", &h->backup);
    if (st) return st;
    if (link(path, h->backup) != 0) backup_forget(h);   /* no hard links (vfat): no way back */
    return ATT_OK;
}

static const char *base_name(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

/* Phase 2: the journal (see above), written whole before the first rename.
 * A run's set lives in one folder (every program writes into its --out). */
static int journal_write(const char *rd)
{
    char jn[PATH_MAX], jp[PATH_MAX];
    if (!path_join(jn, rd, JOURNAL_NEW) || !path_join(jp, rd, JOURNAL))
        return att_fail(ATT_ERUNTIME, "the run folder '%s' has too long a name", rd);
    int fd = open(jn, O_CREAT | O_TRUNC | O_WRONLY | O_CLOEXEC, 0600);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (f == NULL) {
        int e = errno;
        if (fd >= 0) close(fd);
        return att_fail(ATT_ERUNTIME, "cannot write the journal '%s': %s", jn, strerror(e));
    }
    for (size_t i = 0; i < nheld; i++) {
        const held_file *h = &held[i];
        fprintf(f, "%d\t%llu\t%s\t%s\t%s\n", h->existed, h->ino, base_name(h->af.tmp_path),
                h->backup ? base_name(h->backup) : "-", base_name(h->af.final_path));
    }
    int bad = fflush(f) != 0 || ferror(f) || fsync(fd) != 0;
    int e = errno;
    if (fclose(f) != 0 && !bad) { bad = 1; e = errno; }
    if (bad || rename(jn, jp) != 0) {
        if (!bad) e = errno;
        unlink(jn);
        return att_fail(ATT_ERUNTIME, "cannot write the journal '%s': %s (nothing of this run "
                        "was kept)", jp, strerror(e));
    }
    return ATT_OK;
}

/* Put back the first n renamed files: the previous version, or no file. */
static void release_undo(size_t n)
{
    while (n-- > 0) {
        held_file *h = &held[n];
        if (h->backup) {
            if (rename(h->backup, h->af.final_path) == 0) backup_forget(h);
        } else if (!h->existed) {
            unlink(h->af.final_path);
        }
    }
}

/* Test hook (documented in doc/running.md): ATT_TEST_RELEASE_DELAY_MS=N
 * sleeps N ms (at most 10 s) before each rename of a release, so that tests
 * can interrupt one in the middle. */
static void test_delay(void)
{
    const char *s = getenv("ATT_TEST_RELEASE_DELAY_MS");
    if (s == NULL || !*s) return;
    long ms = strtol(s, NULL, 10);
    if (ms <= 0) return;
    if (ms > 10000) ms = 10000;
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {}
}

/* the run folder of the held files: they must all be in one */
static int release_folder(const char **rd)
{
    const afile *a0 = &held[0].af;
    size_t dl = dir_len(a0);
    for (size_t i = 1; i < nheld; i++) {
        const afile *a = &held[i].af;
        if (dir_len(a) != dl || strncmp(a->final_path, a0->final_path, dl))
            return att_fail(ATT_ERUNTIME,
                            "one run writes into two folders ('%.*s' and '%.*s'): "
                            "not supported",
                            (int)dl, a0->final_path, (int)dir_len(a), a->final_path);
    }
    return run_folder(a0->final_path, dl, rd);
}

int afile_release(int keep)
{
    int st = ATT_OK;
    crit_enter();                            /* no signal in any thread cuts it */
    size_t renamed = 0;
    const char *rd = NULL;
    char jp[PATH_MAX] = "";
    if (keep && nheld) st = release_folder(&rd);
    for (size_t i = 0; keep && st == ATT_OK && i < nheld; i++) st = release_name(&held[i]);
    for (size_t i = 0; keep && st == ATT_OK && i < nheld; i++) st = release_check(&held[i]);
    if (keep && st == ATT_OK && nheld) {
        st = journal_write(rd);
        path_join(jp, rd, JOURNAL);
    }
    for (; keep && st == ATT_OK && renamed < nheld; renamed++) {
        afile *af = &held[renamed].af;
        test_delay();
        if (rename(af->tmp_path, af->final_path) != 0) {
            int e = errno;
            st =
                att_fail(ATT_ERUNTIME, "cannot rename into '%s': %s (nothing of this run was kept)",
                         af->final_path, strerror(e));
            char jb[PATH_MAX];
            if (path_join(jb, rd, JOURNAL_BACK) && rename(jp, jb) == 0)   /* a kill from */
                memcpy(jp, jb, sizeof jp);                                /* here rolls back */
            release_undo(renamed);
            break;
        }
        tmp_register(af->tmp_path, 0);
        free(af->tmp_path);
        af->tmp_path = NULL;
    }
    if (keep && st == ATT_OK) {
        logbuf lb = {NULL, 0, 0};
        for (size_t i = 0; i < nheld; i++) {
            const afile *af = &held[i].af;
            log_add(&lb, af->final_path, dir_len(af), af->final_path + dir_len(af) + 1,
                    held[i].ino, held[i].size);
        }
        log_flush(&lb);
    }
    if (jp[0]) unlink(jp);                   /* the set is whole (old or new): done */
    for (size_t i = 0; i < nheld; i++) held_free(&held[i]);
    run_folders_remove();
    free(held);
    held = NULL;
    nheld = held_cap = 0;
    holding = 0;
    crit_leave();
    return st;
}

/* ---- atomic files ---------------------------------------------------- */

/* af's temporary outside a run, DIR/.<name>.tmp.<pid>, registered (removed on a signal) */
static int hidden_tmp(afile *af)
{
    size_t dl = dir_len(af);
    af->tmp_path = str_printf("%.*s/.%s.tmp.%ld", (int)dl, af->final_path,
                              af->final_path + dl + 1, (long)getpid());
    int st = af->tmp_path ? tmp_register(af->tmp_path, 1) : att_fail(ATT_ERUNTIME, "out of memory");
    if (st) { free(af->tmp_path); af->tmp_path = NULL; }
    return st;
}

int afile_open(afile *af, const char *dir, const char *name)
{
    memset(af, 0, sizeof *af);
    af->fd = -1;
    if (discarding) return open_discarded(af);
    if (!plain_name(name))
        return att_fail(ATT_ERUNTIME, "'%s' is not a plain file name (in '%s')", name, dir);
    install_handlers();
    remove_stale(dir, name);
    af->final_path = str_printf("%s/%s", dir, name);
    if (af->final_path == NULL) return att_fail(ATT_ERUNTIME, "out of memory");

    /* an unnamed file in dir: nothing to clean up if we are killed */
    af->fd = open(dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0666);
    if (af->fd < 0) {
        int st = holding ? run_tmp_name(af, "", &af->tmp_path) : hidden_tmp(af);
        if (st) { afile_abort(af); return st; }
        af->fd = open(af->tmp_path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0666);
        if (af->fd < 0) {
            int e = errno;
            st = att_fail(ATT_ERUNTIME, "cannot write '%s' in '%s': %s", name, dir, strerror(e));
            afile_abort(af);
            return st;
        }
    }
    af->f = fdopen(af->fd, "w");
    if (af->f == NULL) {
        int e = errno;
        int st =
            att_fail(ATT_ERUNTIME, "cannot open a stream for '%s/%s': %s", dir, name, strerror(e));
        afile_abort(af);
        return st;
    }
    return ATT_OK;
}

static int rename_into_place(afile *af);

int afile_commit(afile *af)
{
    if (af->f == NULL) return att_fail(ATT_ERUNTIME, "commit of a file that is not open");
    if (af->final_path == NULL) {         /* discarded (afile_discard) */
        afile_abort(af);
        return ATT_OK;
    }
    int bad = fflush(af->f) != 0 || ferror(af->f) || fsync(af->fd) != 0;
    int e = errno;
    if (bad) {
        /* the message first: afile_abort frees the path it names */
        int st = att_fail(ATT_ERUNTIME, "write error on '%s': %s", af->final_path,
                          e ? strerror(e) : "the stream failed");
        afile_abort(af);
        return st;
    }
    if (holding) {
        /* the same file twice in one run: the later one counts */
        for (size_t i = 0; i < nheld; i++)
            if (!strcmp(held[i].af.final_path, af->final_path)) {
                afile_abort(&held[i].af);
                held[i].af = *af;
                memset(af, 0, sizeof *af);
                af->fd = -1;
                return ATT_OK;
            }
        if (nheld == held_cap) {
            size_t cap = held_cap ? 2 * held_cap : 16;
            held_file *h = realloc(held, cap * sizeof *h);
            if (h == NULL) { afile_abort(af); return att_fail(ATT_ERUNTIME, "out of memory"); }
            held = h;
            held_cap = cap;
        }
        held[nheld++] = (held_file){*af, NULL, 0, 0, 0};
        memset(af, 0, sizeof *af);       /* afile_abort after commit stays safe */
        af->fd = -1;
        return ATT_OK;
    }
    return rename_into_place(af);
}

/* One file, not held: link the O_TMPFILE to a hidden name, then rename. */
static int rename_into_place(afile *af)
{
    int e, st;
    if (af->tmp_path == NULL) {
        char proc[64];
        snprintf(proc, sizeof proc, "/proc/self/fd/%d", af->fd);
        if ((st = hidden_tmp(af))) {
            afile_abort(af);
            return st;
        }
        unlink(af->tmp_path);
        if (linkat(AT_FDCWD, proc, AT_FDCWD, af->tmp_path, AT_SYMLINK_FOLLOW) != 0) {
            e = errno;
            st = att_fail(ATT_ERUNTIME, "cannot create '%s': %s", af->final_path, strerror(e));
            afile_abort(af);
            return st;
        }
    }
    struct stat sb;
    int known = fstat(af->fd, &sb) == 0;
    if (rename(af->tmp_path, af->final_path) != 0) {
        e = errno;
        st = att_fail(ATT_ERUNTIME, "cannot rename into '%s': %s", af->final_path, strerror(e));
        afile_abort(af);
        return st;
    }
    if (known) {
        logbuf lb = {NULL, 0, 0};
        log_add(&lb, af->final_path, dir_len(af), af->final_path + dir_len(af) + 1,
                (unsigned long long)sb.st_ino, (long long)sb.st_size);
        log_flush(&lb);
    }
    tmp_register(af->tmp_path, 0);
    fclose(af->f);
    af->f = NULL;
    af->fd = -1;
    free(af->tmp_path);
    free(af->final_path);
    af->tmp_path = af->final_path = NULL;
    return ATT_OK;
}

void afile_abort(afile *af)
{
    if (af->f) fclose(af->f);
    else if (af->fd >= 0) close(af->fd);
    if (af->tmp_path) {
        unlink(af->tmp_path);
        tmp_register(af->tmp_path, 0);
    }
    free(af->tmp_path);
    free(af->final_path);
    memset(af, 0, sizeof *af);
    af->fd = -1;
}
