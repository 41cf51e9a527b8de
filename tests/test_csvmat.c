/* test_csvmat.c - the strict matrix CSV reader (tools/lib/csvmat.h).
 *
 * Unit tests give the input text next to the matrix it must give, or next to
 * the words its error message must contain (file, line, column, reason).
 * Property tests: random matrices written with csvmat_write read back
 * bit-exactly; random bytes never crash the reader and give either a matrix
 * or a usage error.
 */
#include "prop.h"
#include "csvmat.h"
#include "mat.h"
#include "status.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- good inputs ----------------------------------------------------- */

typedef struct {
    const char *text;
    size_t len;            /* 0: strlen(text) */
    size_t rows, cols;
    double v[6];           /* row-major */
} good_case;

START_TEST(test_good_inputs)
{
    const good_case cases[] = {
        {"1,2\n3,4\n", 0, 2, 2, {1, 2, 3, 4}},
        {"1,2\n3,4", 0, 2, 2, {1, 2, 3, 4}},                          /* no final newline */
        {"1,2\r\n3,4\r\n", 0, 2, 2, {1, 2, 3, 4}},                    /* CRLF             */
        {"\xef\xbb\xbf" "5,6\n", 0, 1, 2, {5, 6}},                     /* UTF-8 BOM        */
        {"# W (2 x 1)\n\n  7 \n\t# tabbed comment\n-8\n\n", 0, 2, 1, {7, -8}},
        {" 1 , 2 ,\t3\t\n", 0, 1, 3, {1, 2, 3}},                      /* blanks in cells  */
        {"+1.5,-.25,3.,1e2,-2E-3,0.0\n", 0, 1, 6, {1.5, -0.25, 3.0, 100.0, -0.002, 0.0}},
        {"-0\n", 0, 1, 1, {-0.0}},
        {"1e-400\n", 0, 1, 1, {0.0}},                                 /* underflow is kept */
        {"4.9406564584124654e-324\n", 0, 1, 1, {4.9406564584124654e-324}},
        {"1.7976931348623157e308\n", 0, 1, 1, {DBL_MAX}},
        {"# caf\xc3\xa9 \xe2\x82\xac (UTF-8 in a comment)\n9\n", 0, 1, 1, {9}},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        const good_case *g = &cases[c];
        gsl_matrix *A = NULL;
        size_t len = g->len ? g->len : strlen(g->text);
        int st = csvmat_read_mem(&A, "good.csv", g->text, len, NULL);
        ck_assert_msg(st == ATT_OK, "case %zu refused: %s", c, att_last_error());
        ck_assert_uint_eq(A->size1, g->rows);
        ck_assert_uint_eq(A->size2, g->cols);
        for (size_t i = 0; i < g->rows; i++)
            for (size_t j = 0; j < g->cols; j++) {
                double got = gsl_matrix_get(A, i, j), want = g->v[i * g->cols + j];
                ck_assert_msg(memcmp(&got, &want, sizeof got) == 0,
                              "case %zu (%zu,%zu): %.17g, want %.17g", c, i, j, got, want);
            }
        mat_free(A);
    }
}
END_TEST

/* ---- bad inputs: status and the words the message must hold ----------- */

typedef struct {
    const char *text;
    size_t len;            /* 0: strlen(text) (for texts with NUL bytes) */
    const char *needle1, *needle2;
} bad_case;

START_TEST(test_bad_inputs)
{
    const bad_case cases[] = {
        {"", 0, "bad.csv: the file is empty", NULL},
        {"# only a comment\n\n  \n", 0, "no numbers", NULL},
        {"1,2\n3\n", 0, "line 2: 1 column", "ragged"},
        {"1\n2,3\n", 0, "line 2: 2 columns", "first row (line 1) has 1"},
        {"1,abc\n", 0, "line 1, column 2: 'abc' is not a number", NULL},
        {"# c\n1,2\n3,4x\n", 0, "line 3, column 2: '4x'", "not a number"},
        {"1,nan\n", 0, "column 2: 'nan' is not a finite number", NULL},
        {"-inf\n", 0, "'-inf' is not a finite number", NULL},
        {"Infinity\n", 0, "'Infinity' is not a finite number", NULL},
        {"NaN(123)\n", 0, "not a finite number", NULL},
        {"1e999\n", 0, "'1e999' is too large", NULL},
        {"-1e309\n", 0, "too large", NULL},
        {"1,,2\n", 0, "line 1, column 2: empty cell", NULL},
        {"1,2,\n", 0, "line 1, column 3: empty cell", NULL},
        {",\n", 0, "column 1: empty cell", NULL},
        {"0x10\n", 0, "'0x10' is not a number", NULL},
        {"1e\n", 0, "'1e' is not a number", NULL},
        {".\n", 0, "'.' is not a number", NULL},
        {"+\n", 0, "'+' is not a number", NULL},
        {"1 2\n", 0, "'1 2' is not a number", NULL},
        {"\"1\"\n", 0, "is not a number", NULL},
        {"1;2\n", 0, "'1;2' is not a number", NULL},
        // a spreadsheet's CSV in a decimal-comma locale: the hint names it
        {"1,5;2,5\n", 0, "'5;2' is not a number: semicolons", "decimal point"},
        {"1,0,0\n0,5,1,0\n", 0, "(ragged rows); if the numbers have decimal commas", "write 0.5"},
        {"1,5e3.2\n", 0, "column 2", "not a number"},
        {"1 # inline\n", 0, "not a number", NULL},
        {"1,2\x00,3\n", 7, "line 1, byte 4: a NUL byte", "not a text file"},
        {"1\n2\n\x00", 5, "line 3, byte 1: a NUL byte", NULL},
        {"\x1f\x8b\x08\x00", 4, "line 1, byte 4: a NUL byte", "not a text file"},   /* gzip */
        {"\x1f\x8b\x08", 0, "line 1, byte 1: control byte 0x1f", "not a text file"},
        {"1\x7f\n", 0, "control byte 0x7f", NULL},
        {"\xff\xfe" "1\n", 0, "byte 0xff is not UTF-8", "not a text file"},
        {"1\xc3\n", 0, "byte 2: byte 0xc3 is not UTF-8", NULL},
        {"# \xed\xa0\x80 surrogate\n1\n", 0, "not UTF-8", NULL},
        {"1,2\r3,4\r", 0, "carriage return inside a line", NULL},
        {"\xef\xbb\xbf", 0, "no numbers", NULL},
        {"caf\xc3\xa9\n", 0, "'caf\\xc3\\xa9' is not a number", NULL},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        const bad_case *b = &cases[c];
        gsl_matrix *A = (gsl_matrix *)&A;     /* must come back NULL */
        size_t len = b->len ? b->len : strlen(b->text);
        int st = csvmat_read_mem(&A, "bad.csv", b->text, len, NULL);
        ck_assert_msg(st == ATT_EUSAGE, "case %zu: status %d (%s)", c, st, att_last_error());
        ck_assert_msg(A == NULL, "case %zu: matrix not NULL", c);
        const char *msg = att_last_error();
        ck_assert_msg(strncmp(msg, "bad.csv", 7) == 0,
                      "case %zu: message does not name the file: %s", c, msg);
        ck_assert_msg(strstr(msg, b->needle1) != NULL, "case %zu: '%s' not in: %s", c, b->needle1,
                      msg);
        ck_assert_msg(b->needle2 == NULL || strstr(msg, b->needle2) != NULL,
                      "case %zu: '%s' not in: %s", c, b->needle2, msg);
    }
}
END_TEST

START_TEST(test_limits)
{
    gsl_matrix *A = NULL;
    csvmat_limits lim = { .max_line = 8 };
    /* a line of exactly max_line bytes is fine, one more is not */
    ck_assert_int_eq(csvmat_read_mem(&A, "l.csv", "1,2,3,44\n", 9, &lim), ATT_OK);
    mat_free(A);
    ck_assert_int_eq(csvmat_read_mem(&A, "l.csv", "1\n1,2,3,445\n", 12, &lim), ATT_EUSAGE);
    ck_assert_ptr_nonnull(
        strstr(att_last_error(), "l.csv, line 2: the line is longer than the limit of 8"));
    ck_assert_ptr_null(A);

    lim = (csvmat_limits){ .max_bytes = 10 };
    ck_assert_int_eq(csvmat_read_mem(&A, "b.csv", "1,2\n3,4\n", 8, &lim), ATT_OK);
    mat_free(A);
    ck_assert_int_eq(csvmat_read_mem(&A, "b.csv", "1,2\n3,4\n5,6\n", 12, &lim), ATT_EUSAGE);
    ck_assert_ptr_nonnull(strstr(att_last_error(), "larger than the limit of 10 bytes"));

    lim = (csvmat_limits){ .max_cells = 4 };
    ck_assert_int_eq(csvmat_read_mem(&A, "c.csv", "1,2\n3,4\n", 8, &lim), ATT_OK);
    mat_free(A);
    ck_assert_int_eq(csvmat_read_mem(&A, "c.csv", "1,2\n3,4\n5,6\n", 12, &lim), ATT_EUSAGE);
    ck_assert_ptr_nonnull(strstr(att_last_error(), "c.csv, line 3: more than 4 numbers"));

    /* the defaults are what the header says */
    csvmat_limits d = csvmat_limits_default();
    ck_assert_uint_eq(d.max_line, CSVMAT_MAX_LINE);
    ck_assert_uint_eq(d.max_bytes, CSVMAT_MAX_BYTES);
    ck_assert_uint_eq(d.max_cells, CSVMAT_MAX_CELLS);

    /* a line one byte over the default limit */
    size_t n = CSVMAT_MAX_LINE + 1;
    char *big = malloc(n + 1);
    ck_assert_ptr_nonnull(big);
    memset(big, '1', n);
    big[n] = '\n';
    ck_assert_int_eq(csvmat_read_mem(&A, "long.csv", big, n + 1, NULL), ATT_EUSAGE);
    ck_assert_ptr_nonnull(strstr(att_last_error(), "long.csv, line 1: the line is longer"));
    free(big);
}
END_TEST

/* ---- files ----------------------------------------------------------- */

static void write_file(const char *path, const char *text, size_t len)
{
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(text, 1, len, f), len);
    ck_assert_int_eq(fclose(f), 0);
}

START_TEST(test_files)
{
    char dir[] = "/tmp/att-test-csvmat-XXXXXX", path[512];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    gsl_matrix *A = NULL;

    snprintf(path, sizeof path, "%s/missing.csv", dir);
    ck_assert_int_eq(csvmat_read(&A, path, NULL), ATT_EUSAGE);
    ck_assert_ptr_nonnull(strstr(att_last_error(), "missing.csv: cannot open: No such file"));

    ck_assert_int_eq(csvmat_read(&A, dir, NULL), ATT_EUSAGE);
    ck_assert_ptr_nonnull(strstr(att_last_error(), "is a directory"));

    snprintf(path, sizeof path, "%s/empty.csv", dir);
    write_file(path, "", 0);
    ck_assert_int_eq(csvmat_read(&A, path, NULL), ATT_EUSAGE);
    ck_assert_ptr_nonnull(strstr(att_last_error(), "empty.csv: the file is empty"));

    snprintf(path, sizeof path, "%s/ragged.csv", dir);
    write_file(path, "1,2,3\n4,5\n", 10);
    ck_assert_int_eq(csvmat_read(&A, path, NULL), ATT_EUSAGE);
    ck_assert_ptr_nonnull(strstr(att_last_error(), "ragged.csv, line 2: 2 columns"));

    /* the size limit is checked before reading a regular file */
    snprintf(path, sizeof path, "%s/size.csv", dir);
    write_file(path, "1,2\n3,4\n", 8);
    csvmat_limits lim = { .max_bytes = 7 };
    ck_assert_int_eq(csvmat_read(&A, path, &lim), ATT_EUSAGE);
    ck_assert_ptr_nonnull(strstr(att_last_error(), "size.csv: 8 bytes, more than the limit of 7"));

    snprintf(path, sizeof path, "%s/ok.csv", dir);
    write_file(path, "# ok\n1,2\n3,4\n", 13);
    ck_assert_int_eq(csvmat_read(&A, path, NULL), ATT_OK);
    ck_assert_uint_eq(A->size1, 2);
    ck_assert_double_eq(gsl_matrix_get(A, 1, 0), 3.0);
    mat_free(A);

    ck_assert_int_eq(csvmat_read(&A, "/dev/null", NULL), ATT_EUSAGE);
    ck_assert_ptr_nonnull(strstr(att_last_error(), "/dev/null: the file is empty"));

    const char *names[] = {"empty.csv", "ragged.csv", "size.csv", "ok.csv"};
    for (size_t i = 0; i < 4; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        unlink(path);
    }
    rmdir(dir);
}
END_TEST

/* ---- properties ------------------------------------------------------ */

/* A double of any size: Gaussian times 10^k, k in [-320, 307], with the
 * specials 0, -0, DBL_MAX, DBL_MIN, the smallest subnormal now and then. */
static double any_double(gsl_rng *rng)
{
    switch (gsl_rng_uniform_int(rng, 12)) {
    case 0: return 0.0;
    case 1: return -0.0;
    case 2: return gsl_rng_uniform(rng) < 0.5 ? DBL_MAX : -DBL_MAX;
    case 3: return DBL_MIN;
    case 4: return 4.9406564584124654e-324;
    default: {
        double x = gsl_rng_uniform_pos(rng) - 0.5;
        int k = (int)gsl_rng_uniform_int(rng, 628) - 320;
        double y = x * pow(10.0, k);
        return isfinite(y) ? y : x;
    }
    }
}

START_TEST(test_prop_write_read_exact)
{
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    PROP_FOR(k, rng, "csvmat write then read is exact") {
        size_t r = prop_size(rng, 1, 12), c = prop_size(rng, 1, 12);
        gsl_matrix *A = mat_new(r, c), *B = NULL;
        for (size_t i = 0; i < r; i++)
            for (size_t j = 0; j < c; j++) gsl_matrix_set(A, i, j, any_double(rng));
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        fputs("# a comment line\n", f);
        PROP_ASSERT(csvmat_write(f, A) == ATT_OK, "write");
        fclose(f);
        int st = csvmat_read_mem(&B, "mem.csv", buf, len, NULL);
        PROP_ASSERT(st == ATT_OK, "read back: %s", att_last_error());
        PROP_ASSERT(B->size1 == r && B->size2 == c, "shape %zu x %zu, want %zu x %zu",
                    B->size1, B->size2, r, c);
        PROP_ASSERT(memcmp(A->data, B->data, r * c * sizeof(double)) == 0, "bits differ");
        free(buf);
        mat_free(A);
        mat_free(B);
    }
    gsl_rng_free(rng);
}
END_TEST

/* Random bytes from a small alphabet of CSV-ish characters (and some
 * hostile ones): never a crash; OK comes with a matrix of the right size,
 * anything else is a usage error with a message naming the file. */
START_TEST(test_prop_random_bytes)
{
    static const char alphabet[] = "0123456789,,,\n\n.-+eE #\r\t \x00\xff\xc3\xa9nafix";
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    PROP_FOR(k, rng, "csvmat never crashes on random bytes") {
        size_t n = prop_size(rng, 0, 300);
        char *buf = malloc(n + 1);
        for (size_t i = 0; i < n; i++)
            buf[i] = alphabet[gsl_rng_uniform_int(rng, sizeof alphabet - 1)];
        gsl_matrix *A = NULL;
        csvmat_limits lim = {.max_line = prop_size(rng, 1, 64), .max_cells = prop_size(rng, 1, 64)};
        int st = csvmat_read_mem(&A, "rand.csv", buf, n, &lim);
        PROP_ASSERT(st == ATT_OK || st == ATT_EUSAGE, "status %d", st);
        if (st == ATT_OK) {
            PROP_ASSERT(A != NULL && A->size1 * A->size2 <= lim.max_cells, "matrix");
            for (size_t i = 0; i < A->size1; i++)
                for (size_t j = 0; j < A->size2; j++)
                    PROP_ASSERT(isfinite(gsl_matrix_get(A, i, j)), "non-finite entry");
        } else {
            PROP_ASSERT(A == NULL, "matrix on error");
            PROP_ASSERT(strncmp(att_last_error(), "rand.csv", 8) == 0, "message: %s",
                        att_last_error());
        }
        mat_free(A);
        free(buf);
    }
    gsl_rng_free(rng);
}
END_TEST

/* Ragged rows found wherever they are: a random matrix with one row cut or
 * extended names that row's line. */
START_TEST(test_prop_ragged_line_named)
{
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    PROP_FOR(k, rng, "csvmat names the ragged line") {
        size_t r = prop_size(rng, 2, 20), c = prop_size(rng, 1, 6), bad = prop_size(rng, 1, r - 1);
        int longer = c == 1 || gsl_rng_uniform(rng) < 0.5;
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        for (size_t i = 0; i < r; i++) {
            size_t cols = i == bad ? (longer ? c + 1 : c - 1) : c;
            for (size_t j = 0; j < cols; j++) fprintf(f, "%s%zu", j ? "," : "", i + j);
            fputc('\n', f);
        }
        fclose(f);
        gsl_matrix *A = NULL;
        char want[64];
        snprintf(want, sizeof want, "line %zu: %zu column", bad + 1, longer ? c + 1 : c - 1);
        PROP_ASSERT(csvmat_read_mem(&A, "r.csv", buf, len, NULL) == ATT_EUSAGE, "accepted");
        PROP_ASSERT(strstr(att_last_error(), want) != NULL, "'%s' not in %s", want,
                    att_last_error());
        free(buf);
    }
    gsl_rng_free(rng);
}
END_TEST

PROP_MAIN("csvmat", {"unit", 0, {test_good_inputs, test_bad_inputs, test_limits, test_files}},
          {"properties",
           60,
           {test_prop_write_read_exact, test_prop_random_bytes, test_prop_ragged_line_named}})
