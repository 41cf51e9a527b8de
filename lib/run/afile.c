/* afile.c - files written atomically: a temporary, then rename; a run's set
 * of files all at once (see afile.h). */
#include "afile.h"
#include "att.h"

#include <dirent.h>
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

/* ---- temporaries and run folders removed on SIGINT / SIGTERM / SIGHUP -- */

enum { MAX_TMP = 4096, MAX_RUNS = 16 };
static char *tmp_paths[MAX_TMP];               /* NULL = free slot          */
static char run_paths[MAX_RUNS][PATH_MAX];      /* "" = free: DIR/.att-run.PID */
static char run_dirs[MAX_RUNS][PATH_MAX];       /* the DIR of each            */
static volatile sig_atomic_t handlers_set;

static void on_signal(int sig)
{
    for (int i = 0; i < MAX_TMP; i++)
        if (tmp_paths[i]) unlink(tmp_paths[i]);     /* async-signal-safe */
    for (int i = 0; i < MAX_RUNS; i++)
        if (run_paths[i][0]) rmdir(run_paths[i]);
    signal(sig, SIG_DFL);
    raise(sig);
}

static const int SIGS[] = {SIGINT, SIGTERM, SIGHUP};

static void install_handlers(void)
{
    if (handlers_set) return;
    handlers_set = 1;
    struct sigaction sa, old;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    /* a signal ignored at startup (nohup, a background job) stays ignored */
    for (int i = 0; i < 3; i++)
        if (sigaction(SIGS[i], NULL, &old) == 0 && old.sa_handler != SIG_IGN)
            sigaction(SIGS[i], &sa, NULL);
}

/* block (on = 1) or restore the three signals; *old keeps the mask */
static void block_signals(sigset_t *old)
{
    sigset_t s;
    sigemptyset(&s);
    for (int i = 0; i < 3; i++) sigaddset(&s, SIGS[i]);
    sigprocmask(SIG_BLOCK, &s, old);
}

/* Register (on = 1) or forget a temporary. Registering fails (ATT_ERUNTIME)
 * only when the table is full or memory is out. */
static int tmp_register(const char *path, int on)
{
    sigset_t old;
    block_signals(&old);
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
    sigprocmask(SIG_SETMASK, &old, NULL);
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

/* Remove everything in the folder p, then p. */
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

/* Remove what a killed process left in dir: its run folder ".att-run.<pid>"
 * and ".<name>.tmp.<pid>" (a single file between link and rename). */
static void remove_stale(const char *dir, const char *name)
{
    char prefix[PATH_MAX];
    snprintf(prefix, sizeof prefix, ".%s.tmp.", name);
    size_t plen = strlen(prefix), rlen = strlen(RUN_PREFIX);
    DIR *d = opendir(dir);
    if (d == NULL) return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        long pid;
        char p[PATH_MAX];
        if (strncmp(e->d_name, RUN_PREFIX, rlen) == 0) {
            pid = name_pid(e->d_name + rlen);
            if (pid && pid_dead(pid) && snprintf(p, sizeof p, "%s/%s", dir, e->d_name) < (int)sizeof p)
                remove_folder(p);
        } else if (strncmp(e->d_name, prefix, plen) == 0) {
            pid = name_pid(e->d_name + plen);
            if (pid && pid_dead(pid) && snprintf(p, sizeof p, "%s/%s", dir, e->d_name) < (int)sizeof p)
                unlink(p);
        }
    }
    closedir(d);
}

static char *str_printf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *s = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (s == NULL) return NULL;
    va_start(ap, fmt);
    vsnprintf(s, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return s;
}

/* The run folder of dir (created on first use): DIR/.att-run.<pid>. */
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
    if (free_slot < 0) return att_fail(ATT_ERUNTIME, "one run writes into more than %d folders", MAX_RUNS);
    char p[PATH_MAX];
    if (dlen >= PATH_MAX / 2 ||
        snprintf(p, sizeof p, "%.*s/" RUN_PREFIX "%ld", (int)dlen, dir, (long)getpid()) >= (int)sizeof p)
        return att_fail(ATT_ERUNTIME, "the folder '%.*s' has too long a name", (int)dlen, dir);
    if (mkdir(p, 0700) != 0 && errno != EEXIST) {
        int e = errno;
        return att_fail(ATT_ERUNTIME, "cannot create the run folder '%s': %s", p, strerror(e));
    }
    sigset_t old;
    block_signals(&old);
    snprintf(run_dirs[free_slot], PATH_MAX, "%.*s", (int)dlen, dir);
    snprintf(run_paths[free_slot], PATH_MAX, "%s", p);
    sigprocmask(SIG_SETMASK, &old, NULL);
    *out = run_paths[free_slot];
    return ATT_OK;
}

/* Remove every run folder (empty by now, or its leftovers). */
static void run_folders_remove(void)
{
    sigset_t old;
    block_signals(&old);
    for (int i = 0; i < MAX_RUNS; i++)
        if (run_paths[i][0]) {
            remove_folder(run_paths[i]);
            run_paths[i][0] = run_dirs[i][0] = '\0';
        }
    sigprocmask(SIG_SETMASK, &old, NULL);
}

/* ---- held files and discarded files ----------------------------------- */

typedef struct {
    afile af;
    char *backup;        /* a hard link to the previous file, in the run folder */
    int existed;         /* the target existed before the release            */
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

static void held_free(held_file *h)
{
    if (h->backup) {
        unlink(h->backup);
        tmp_register(h->backup, 0);
        free(h->backup);
        h->backup = NULL;
    }
    afile_abort(&h->af);
}

/* Phase 0 of a release: every held file gets a name in its run folder and
 * its stream is closed. */
static int release_name(held_file *h)
{
    afile *af = &h->af;
    int st;
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
    if (link(path, h->backup) != 0) {        /* no hard links here (vfat): no way back */
        tmp_register(h->backup, 0);
        free(h->backup);
        h->backup = NULL;
    }
    return ATT_OK;
}

/* Put back the first n renamed files: the previous version, or no file. */
static void release_undo(size_t n)
{
    while (n-- > 0) {
        held_file *h = &held[n];
        if (h->backup) {
            if (rename(h->backup, h->af.final_path) == 0) {
                tmp_register(h->backup, 0);
                free(h->backup);
                h->backup = NULL;
            }
        } else if (!h->existed) {
            unlink(h->af.final_path);
        }
    }
}

int afile_release(int keep)
{
    int st = ATT_OK;
    sigset_t old;
    block_signals(&old);
    size_t renamed = 0;
    for (size_t i = 0; keep && st == ATT_OK && i < nheld; i++) st = release_name(&held[i]);
    for (size_t i = 0; keep && st == ATT_OK && i < nheld; i++) st = release_check(&held[i]);
    for (; keep && st == ATT_OK && renamed < nheld; renamed++) {
        afile *af = &held[renamed].af;
        if (rename(af->tmp_path, af->final_path) != 0) {
            int e = errno;
            st = att_fail(ATT_ERUNTIME, "cannot rename into '%s': %s (nothing of this run was kept)",
                          af->final_path, strerror(e));
            release_undo(renamed);
            break;
        }
        tmp_register(af->tmp_path, 0);
        free(af->tmp_path);
        af->tmp_path = NULL;
    }
    for (size_t i = 0; i < nheld; i++) held_free(&held[i]);
    run_folders_remove();
    free(held);
    held = NULL;
    nheld = held_cap = 0;
    holding = 0;
    sigprocmask(SIG_SETMASK, &old, NULL);
    return st;
}

/* ---- atomic files ---------------------------------------------------- */

int afile_open(afile *af, const char *dir, const char *name)
{
    memset(af, 0, sizeof *af);
    af->fd = -1;
    if (discarding) return open_discarded(af);
    if (name[0] == '\0' || strchr(name, '/'))
        return att_fail(ATT_ERUNTIME, "'%s' is not a plain file name (in '%s')", name, dir);
    install_handlers();
    remove_stale(dir, name);
    af->final_path = str_printf("%s/%s", dir, name);
    if (af->final_path == NULL) return att_fail(ATT_ERUNTIME, "out of memory");

    /* an unnamed file in dir: nothing to clean up if we are killed */
    af->fd = open(dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0666);
    if (af->fd < 0) {
        int st;
        if (holding) {
            st = run_tmp_name(af, "", &af->tmp_path);
        } else {
            af->tmp_path = str_printf("%s/.%s.tmp.%ld", dir, name, (long)getpid());
            st = af->tmp_path ? tmp_register(af->tmp_path, 1) : att_fail(ATT_ERUNTIME, "out of memory");
            if (st) { free(af->tmp_path); af->tmp_path = NULL; }
        }
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
        int st = att_fail(ATT_ERUNTIME, "cannot open a stream for '%s/%s': %s", dir, name, strerror(e));
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
        held[nheld++] = (held_file){*af, NULL, 0};
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
        size_t dl = dir_len(af);
        af->tmp_path = str_printf("%.*s/.%s.tmp.%ld", (int)dl, af->final_path,
                                  af->final_path + dl + 1, (long)getpid());
        if (af->tmp_path == NULL) { afile_abort(af); return att_fail(ATT_ERUNTIME, "out of memory"); }
        if ((st = tmp_register(af->tmp_path, 1))) {
            free(af->tmp_path);
            af->tmp_path = NULL;
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
    if (rename(af->tmp_path, af->final_path) != 0) {
        e = errno;
        st = att_fail(ATT_ERUNTIME, "cannot rename into '%s': %s", af->final_path, strerror(e));
        afile_abort(af);
        return st;
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
