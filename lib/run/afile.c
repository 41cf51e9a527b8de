/* afile.c - files written atomically: a temporary, then rename (see afile.h). */
#include "afile.h"
#include "status.h"

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

/* ---- temporaries removed on SIGINT / SIGTERM ------------------------- */

enum { MAX_TMP = 64 };
static char tmp_paths[MAX_TMP][PATH_MAX];      /* "" = free slot */
static volatile sig_atomic_t handlers_set;

static void on_signal(int sig)
{
    for (int i = 0; i < MAX_TMP; i++)
        if (tmp_paths[i][0]) unlink(tmp_paths[i]);     /* async-signal-safe */
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
    /* a signal ignored at startup (nohup, a background job) stays ignored */
    const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
    for (int i = 0; i < 3; i++)
        if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler != SIG_IGN)
            sigaction(sigs[i], &sa, NULL);
}

static void tmp_register(const char *path, int on)
{
    sigset_t all, old;
    sigfillset(&all);
    sigprocmask(SIG_BLOCK, &all, &old);
    for (int i = 0; i < MAX_TMP; i++) {
        if (on && tmp_paths[i][0] == '\0') {
            snprintf(tmp_paths[i], PATH_MAX, "%s", path);
            break;
        }
        if (!on && strcmp(tmp_paths[i], path) == 0) {
            tmp_paths[i][0] = '\0';
            break;
        }
    }
    sigprocmask(SIG_SETMASK, &old, NULL);
}

/* Remove ".<name>.tmp.<pid>" files in dir left by a killed process. */
static void remove_stale(const char *dir, const char *name)
{
    char prefix[PATH_MAX];
    snprintf(prefix, sizeof prefix, ".%s.tmp.", name);
    size_t plen = strlen(prefix);
    DIR *d = opendir(dir);
    if (d == NULL) return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strncmp(e->d_name, prefix, plen) != 0) continue;
        long pid = strtol(e->d_name + plen, NULL, 10);
        if (pid > 0 && (kill((pid_t)pid, 0) == 0 || errno != ESRCH)) continue;
        char p[PATH_MAX];
        if (snprintf(p, sizeof p, "%s/%s", dir, e->d_name) < (int)sizeof p) unlink(p);
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

/* ---- held files and discarded files ----------------------------------- */

static int holding, discarding;
static afile *held;
static size_t nheld, held_cap;

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

static int rename_into_place(afile *af);

int afile_release(int keep)
{
    int st = ATT_OK;
    for (size_t i = 0; i < nheld; i++) {
        if (!keep) { afile_abort(&held[i]); continue; }
        int rc = rename_into_place(&held[i]);
        if (rc != ATT_OK && st == ATT_OK) st = rc;
    }
    free(held);
    held = NULL;
    nheld = held_cap = 0;
    holding = 0;
    return st;
}

/* ---- atomic files ---------------------------------------------------- */

int afile_open(afile *af, const char *dir, const char *name)
{
    memset(af, 0, sizeof *af);
    af->fd = -1;
    if (discarding) return open_discarded(af);
    install_handlers();
    remove_stale(dir, name);
    af->final_path = str_printf("%s/%s", dir, name);
    if (af->final_path == NULL) return att_fail(ATT_ERUNTIME, "out of memory");

    /* an unnamed file in dir: nothing to clean up if we are killed */
    af->fd = open(dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0666);
    if (af->fd < 0) {
        af->tmp_path = str_printf("%s/.%s.tmp.%ld", dir, name, (long)getpid());
        if (af->tmp_path == NULL) { afile_abort(af); return att_fail(ATT_ERUNTIME, "out of memory"); }
        tmp_register(af->tmp_path, 1);
        af->fd = open(af->tmp_path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0666);
        if (af->fd < 0) {
            int e = errno;
            tmp_register(af->tmp_path, 0);
            afile_abort(af);
            return att_fail(ATT_ERUNTIME, "cannot write in '%s': %s", dir, strerror(e));
        }
    }
    af->f = fdopen(af->fd, "w");
    if (af->f == NULL) {
        int e = errno;
        afile_abort(af);
        return att_fail(ATT_ERUNTIME, "cannot open a stream for '%s/%s': %s", dir, name, strerror(e));
    }
    return ATT_OK;
}

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
        afile_abort(af);
        return att_fail(ATT_ERUNTIME, "write error on '%s': %s", af->final_path, strerror(e));
    }
    if (holding) {
        if (nheld == held_cap) {
            size_t cap = held_cap ? 2 * held_cap : 16;
            afile *h = realloc(held, cap * sizeof *h);
            if (h == NULL) { afile_abort(af); return att_fail(ATT_ERUNTIME, "out of memory"); }
            held = h;
            held_cap = cap;
        }
        held[nheld++] = *af;
        memset(af, 0, sizeof *af);       /* afile_abort after commit stays safe */
        af->fd = -1;
        return ATT_OK;
    }
    return rename_into_place(af);
}

/* Give the flushed file its name: link the O_TMPFILE, then rename. */
static int rename_into_place(afile *af)
{
    int e;
    if (af->tmp_path == NULL) {
        /* O_TMPFILE: give it a hidden name, then rename over the target */
        char proc[64];
        snprintf(proc, sizeof proc, "/proc/self/fd/%d", af->fd);
        char *slash = strrchr(af->final_path, '/');
        af->tmp_path = str_printf("%.*s/.%s.tmp.%ld", (int)(slash - af->final_path),
                                  af->final_path, slash + 1, (long)getpid());
        if (af->tmp_path == NULL) { afile_abort(af); return att_fail(ATT_ERUNTIME, "out of memory"); }
        tmp_register(af->tmp_path, 1);
        unlink(af->tmp_path);
        if (linkat(AT_FDCWD, proc, AT_FDCWD, af->tmp_path, AT_SYMLINK_FOLLOW) != 0) {
            e = errno;
            afile_abort(af);
            return att_fail(ATT_ERUNTIME, "cannot create '%s': %s", af->final_path, strerror(e));
        }
    }
    if (rename(af->tmp_path, af->final_path) != 0) {
        e = errno;
        afile_abort(af);
        return att_fail(ATT_ERUNTIME, "cannot rename into '%s': %s", af->final_path, strerror(e));
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

