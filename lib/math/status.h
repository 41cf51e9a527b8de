/* status.h - status codes and the last error message.
 *
 * Library functions return an int status (ATT_OK on success) and, on failure,
 * record a one-line reason with att_fail(). main() prints att_last_error() on
 * stderr and exits with the status: the codes are the project's exit codes.
 */
#ifndef ATT_STATUS_H
#define ATT_STATUS_H

enum {
    ATT_OK = 0,        /* success; every verdict PASS                      */
    ATT_FAIL = 1,      /* some verdict FAIL (only main returns this)        */
    ATT_EUSAGE = 2,    /* bad usage or input: options, files, shapes        */
    ATT_ERUNTIME = 3,  /* runtime error: I/O, memory, numerical breakdown   */
    ATT_HELP = -1      /* --help was printed: exit 0 without running        */
};

/* Record "fmt ..." as the last error (thread-local) and return code. */
int att_fail(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The code given with the last recorded message (ATT_OK when none). */
int att_last_code(void);

/* After an allocator returned NULL: the status it recorded (ATT_EUSAGE when
 * --max-memory refused it, ATT_ERUNTIME when the system did), or
 * ATT_ERUNTIME when none was recorded.
 *     int rc = A && B ? ATT_OK : att_alloc_status();                        */
int att_alloc_status(void);

/* The last recorded message ("" when none). */
const char *att_last_error(void);

/* Print "prog: <last error>" on stderr. */
void att_print_error(const char *prog);

/* Turn GSL's aborting error handler off: GSL errors then come back as
 * status values, so no user input can reach abort(). Call first in main. */
void att_init(void);

#endif
