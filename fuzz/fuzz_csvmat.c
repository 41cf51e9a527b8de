/* fuzz_csvmat.c - libFuzzer target: the matrix CSV reader (tools/lib/csvmat.c).
 * The invariants are in fuzz/targets.h; build and run with fuzz/run.sh. */
#include "targets.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    att_init();     /* GSL errors come back as statuses, never abort() */
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *bad = fuzz_csvmat_one(data, size);
    if (bad) {
        fprintf(stderr, "fuzz_csvmat: %s (last error: %s)\n", bad, att_last_error());
        __builtin_trap();
    }
    return 0;
}
