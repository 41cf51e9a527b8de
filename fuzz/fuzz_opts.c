/* fuzz_opts.c - libFuzzer target: the option parser (lib/opts.c) on command
 * lines made of the input's NUL-separated pieces. The invariants are in
 * fuzz/targets.h; build and run with fuzz/run.sh. */
#include "targets.h"
#include <gsl/gsl_errno.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    att_init();
    if (freopen("/dev/null", "w", stdout) == NULL) return 0;   /* --help text */
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *bad = fuzz_opts_one(data, size);
    if (bad) {
        fprintf(stderr, "fuzz_opts: %s (last error: %s)\n", bad, att_last_error());
        __builtin_trap();
    }
    return 0;
}
