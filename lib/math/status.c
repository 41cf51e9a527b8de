/* status.c - the last error message, and GSL's error handler turned off. */
#include "status.h"

#include <stdarg.h>
#include <stdio.h>
#include <gsl/gsl_errno.h>

static _Thread_local char last_error[1024];
static _Thread_local int last_code;

int att_fail(int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_error, sizeof last_error, fmt, ap);
    va_end(ap);
    last_code = code;
    return code;
}

int att_last_code(void) { return last_code; }

int att_alloc_status(void) { return last_code > ATT_FAIL ? last_code : ATT_ERUNTIME; }

const char *att_last_error(void) { return last_error; }

void att_print_error(const char *prog)
{
    fprintf(stderr, "%s: %s\n", prog, last_error[0] ? last_error : "unknown error");
}

void att_init(void)
{
    gsl_set_error_handler_off();
}
