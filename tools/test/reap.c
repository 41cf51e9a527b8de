/* reap.c - run a command as a child subreaper, so that its CPU time is all counted.
 *   reap CMD [ARG...]
 * A process whose parent exits before waiting for it (a sandbox's processes: bwrap
 * --unshare-pid, which the grader uses, leaves its own to init; a daemon) is
 * reparented to this one (prctl PR_SET_CHILD_SUBREAPER) and waited for here, so its
 * user and system time reach this process's children's times (the shell's `times`,
 * tools/test/run_tests.sh's CPU column) instead of being lost. Not counted: processes of a
 * PID namespace whose init is killed (the kernel makes that init ignore SIGCHLD while it
 * kills the rest, so they are reaped without their times: the grader's sandboxes, which it
 * ends with SIGKILL; `perf stat -e task-clock` counts them). Waits for CMD, reaping
 * every orphan on the way, then up to 0.2 s for the orphans still ending; one
 * still running then is left (it goes on, reparented further up). Exit status: CMD's (128 + signal
 * if a signal ended it); 127 when CMD cannot be run, 2 on bad usage.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc < 2) { fprintf(stderr, "usage: reap CMD [ARG...]\n"); return 2; }
    /* not fatal: without it the command still runs, some CPU time uncounted */
    if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0)
        fprintf(stderr, "reap: no subreaper (%s): orphans' CPU time is not counted\n",
                strerror(errno));
    pid_t cmd = fork();
    if (cmd < 0) { fprintf(stderr, "reap: fork: %s\n", strerror(errno)); return 127; }
    if (cmd == 0) {
        execvp(argv[1], argv + 1);
        fprintf(stderr, "reap: %s: %s\n", argv[1], strerror(errno));
        _exit(127);
    }
    int st = 0, code = 127;
    for (;;) {                        /* CMD and the orphans, in the order they end */
        pid_t p = waitpid(-1, &st, 0);
        if (p < 0 && errno == EINTR) continue;
        if (p < 0) break;
        if (p == cmd) { code = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st); break; }
    }
    /* orphans still ending (bwrap's own exits a moment after bwrap): up to 0.2 s for them */
    for (int i = 0; i < 20; i++) {
        pid_t p;
        while ((p = waitpid(-1, &st, WNOHANG)) > 0) { }
        if (p < 0) break;             /* no child left */
        usleep(10000);
    }
    return code;
}
