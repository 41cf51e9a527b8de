/* targets.h - what one fuzz input must satisfy, shared by the libFuzzer
 * targets (fuzz/fuzz_*.c) and by the test that replays the committed corpus
 * and every crash input found so far (tests/test_robust.c).
 *
 * Each check returns NULL when the input was handled correctly, or a short
 * description of the broken invariant (the fuzz target then traps, the test
 * fails). Crashes, leaks and undefined behaviour are the sanitizers' job.
 */
#ifndef ATT_FUZZ_TARGETS_H
#define ATT_FUZZ_TARGETS_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "csvmat.h"
#include "mat.h"
#include "opts.h"
#include "status.h"

/* ---- the CSV reader --------------------------------------------------- */

/* One read of data (size) under lim: OK with finite entries that survive a
 * write and a second read bit for bit, or a usage error naming the file. */
static inline const char *fuzz_csvmat_read(const uint8_t *data, size_t size,
                                           const csvmat_limits *lim)
{
    gsl_matrix *A = (gsl_matrix *)&A, *B = NULL;
    const char *bad = NULL;
    int st = csvmat_read_mem(&A, "fuzz.csv", data, size, lim);
    if (st != ATT_OK) {
        if (A != NULL) return "matrix not NULL after an error";
        if (st != ATT_EUSAGE && st != ATT_ERUNTIME) return "unexpected status";
        if (strncmp(att_last_error(), "fuzz.csv", 8) != 0) return "message does not name the file";
        return NULL;
    }
    if (A == NULL || A->size1 == 0 || A->size2 == 0) return "OK without a matrix";
    if (lim && lim->max_cells && A->size1 * A->size2 > lim->max_cells) return "more cells than the limit";
    for (size_t i = 0; i < A->size1 && !bad; i++)
        for (size_t j = 0; j < A->size2; j++)
            if (!isfinite(gsl_matrix_get(A, i, j))) { bad = "non-finite entry accepted"; break; }
    if (!bad) {
        /* round trip: what csvmat_write writes reads back exactly */
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        if (f == NULL) bad = "open_memstream";
        else {
            if (csvmat_write(f, A) != ATT_OK) bad = "write failed";
            fclose(f);
            if (!bad && csvmat_read_mem(&B, "again.csv", buf, len, NULL) != ATT_OK)
                bad = "written matrix does not read back";
            if (!bad && (B->size1 != A->size1 || B->size2 != A->size2))
                bad = "shape changed on the round trip";
            for (size_t i = 0; !bad && i < A->size1; i++)
                if (memcmp(B->data + i * B->tda, A->data + i * A->tda, A->size2 * sizeof(double)))
                    bad = "numbers changed on the round trip";
            free(buf);
        }
    }
    mat_free(A);
    mat_free(B);
    return bad;
}

/* Default limits, then small ones (to reach the limit paths). */
static inline const char *fuzz_csvmat_one(const uint8_t *data, size_t size)
{
    const char *bad = fuzz_csvmat_read(data, size, NULL);
    if (bad) return bad;
    csvmat_limits small = { .max_line = 24, .max_bytes = 96, .max_cells = 8 };
    return fuzz_csvmat_read(data, size, &small);
}

/* ---- the option parser ------------------------------------------------ */

enum { FUZZ_MAX_ARGS = 32 };

/* A command line from the bytes: arguments separated by NUL bytes, after
 * the program name. argv points into buf (a NUL-terminated copy the caller
 * frees). Returns argc, or 0 when the input is skipped: an --out option
 * would make opts_parse create directories, and the harness never touches
 * the file system. */
static inline int fuzz_argv(const uint8_t *data, size_t size, char **buf, char **argv)
{
    *buf = malloc(size + 1);
    if (*buf == NULL) return 0;
    memcpy(*buf, data, size);
    (*buf)[size] = '\0';
    int argc = 0;
    argv[argc++] = (char *)"fuzz";
    size_t i = 0;
    while (i <= size && argc < FUZZ_MAX_ARGS) {
        char *a = *buf + i;
        if (strncmp(a, "--out", 5) == 0) return 0;
        argv[argc++] = a;
        i += strlen(a) + 1;
    }
    argv[argc] = NULL;
    return argc;
}

/* opts_parse on the command line: OK with every value in its range, help,
 * or a usage error with a message. Every kind of option is on offer. */
static inline const char *fuzz_opts_one(const uint8_t *data, size_t size)
{
    static int flag;
    static size_t n;
    static unsigned long u;
    static double x, xy[2];
    static const char *s;
    static const opt_spec extra[] = {
        {"flag", OPT_FLAG, &flag, NULL, "a flag"},
        {"n", OPT_SIZE, &n, "N", "a size"},
        {"u", OPT_ULONG, &u, "U", "an unsigned"},
        {"scale", OPT_DOUBLE, &x, "S", "a double"},
        {"name", OPT_STRING, &s, "S", "a string"},
        {"q1", OPT_VEC2, xy, "X,Y", "a pair"},
        {NULL, OPT_FLAG, NULL, NULL, NULL}};
    const opts_info info = {
        .id = "fuzz", .summary = "fuzz target", .seed = 1, .draws = 10, .extra = extra,
        .common = OPT_MC | OPT_T | OPT_D | OPT_DK | OPT_DV | OPT_NO_OUT_DEFAULT};
    char *buf = NULL, *argv[FUZZ_MAX_ARGS + 1];
    int argc = fuzz_argv(data, size, &buf, argv);
    const char *bad = NULL;
    if (argc > 0) {
        flag = 0; n = 1; u = 0; x = 0.0; xy[0] = xy[1] = 0.0; s = NULL;
        opts o;
        int st = opts_parse(&o, &info, argc, argv);
        if (st == ATT_OK) {
            if (o.draws == 0) bad = "draws 0 accepted";
            else if (n == 0) bad = "size 0 accepted";
            else if (!isfinite(x) || !isfinite(xy[0]) || !isfinite(xy[1])) bad = "non-finite accepted";
            else if (o.out_dir != NULL) bad = "out_dir set without --out";
            else if (o.max_memory == 0) bad = "max-memory 0 accepted";
            else if (s != NULL && *s == '\0') bad = "empty string accepted";
        } else if (st == ATT_EUSAGE) {
            if (att_last_error()[0] == '\0') bad = "usage error without a message";
        } else if (st != ATT_HELP) {
            bad = "unexpected status";
        }
    }
    free(buf);
    return bad;
}

#endif
