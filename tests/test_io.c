/* test_io.c - strict option parsing, atomic files, verdict rows. */
#include "prop.h"
#include "opts.h"
#include "output.h"
#include "status.h"

#include <math.h>
#include <sys/stat.h>
#include <unistd.h>

/* a value and whether it must parse */
typedef struct { const char *s; int ok; unsigned long v; } ucase;

START_TEST(test_parse_ulong_table)
{
    const ucase cases[] = {
        {"0", 1, 0}, {"42", 1, 42}, {"18446744073709551615", 1, 18446744073709551615UL},
        {"18446744073709551616", 0, 0}, {"12abc", 0, 0}, {"-1", 0, 0}, {"+1", 0, 0},
        {" 1", 0, 0}, {"1 ", 0, 0}, {"", 0, 0}, {"0x10", 0, 0}, {"1e3", 0, 0}, {"nan", 0, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        unsigned long v = 7;
        int st = parse_ulong(cases[i].s, &v, "--seed");
        ck_assert_msg((st == ATT_OK) == cases[i].ok, "'%s': status %d", cases[i].s, st);
        if (cases[i].ok) ck_assert_uint_eq(v, cases[i].v);
        else ck_assert_msg(strstr(att_last_error(), "--seed") != NULL, "message names the option: %s",
                           att_last_error());
    }
    size_t z;
    ck_assert_int_eq(parse_size("0", &z, "--T"), ATT_EUSAGE);
    ck_assert_int_eq(parse_size("5", &z, "--T"), ATT_OK);
    ck_assert_uint_eq(z, 5);
}
END_TEST

START_TEST(test_parse_double_table)
{
    const char *good[] = {"1", "-2.5", "1e-3", "0", "1E300"};
    const char *bad[] = {"nan", "inf", "-inf", "1e400", "1.0x", "", " 1", "--1"};
    double v;
    for (size_t i = 0; i < sizeof good / sizeof *good; i++)
        ck_assert_msg(parse_double(good[i], &v, "--scale") == ATT_OK, "'%s' refused", good[i]);
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        ck_assert_msg(parse_double(bad[i], &v, "--scale") == ATT_EUSAGE, "'%s' accepted", bad[i]);
    size_t b;
    ck_assert_int_eq(parse_bytes("64M", &b, "--max-memory"), ATT_OK);
    ck_assert_uint_eq(b, (size_t)64 << 20);
    ck_assert_int_eq(parse_bytes("99999999999999999999G", &b, "--max-memory"), ATT_EUSAGE);
    ck_assert_int_eq(parse_bytes("12Q", &b, "--max-memory"), ATT_EUSAGE);
}
END_TEST

static int parse(opts *o, unsigned common, int argc, const char **argv)
{
    static double scale = 1.0;
    static double q[2];
    static const opt_spec extra[] = {
        {"scale", OPT_DOUBLE, &scale, "S", "score scale"},
        {"q1", OPT_VEC2, q, "X,Y", "query 1"},
        {NULL, OPT_FLAG, NULL, NULL, NULL}};
    opts_info info = {"test", "a test", common, 5, 100, extra};
    return opts_parse(o, &info, argc, (char **)argv);
}

START_TEST(test_opts_parse)
{
    opts o;
    char dir[] = "/tmp/att-test-io-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    const char *ok[] = {"x", "--out", dir, "--seed=9", "--draws", "300", "--T", "8", "--quiet",
                        "--scale", "-0.5", "--q1", "1,-2"};
    ck_assert_int_eq(parse(&o, OPT_MC | OPT_T, 13, ok), ATT_OK);
    ck_assert_uint_eq(o.seed, 9);
    ck_assert_uint_eq(o.draws, 300);
    ck_assert_uint_eq(o.T, 8);
    ck_assert_int_eq(o.quiet, 1);

    /* each bad command line: exit 2 and a message naming the option */
    struct { int argc; const char *argv[4]; const char *needle; } bad[] = {
        {3, {"x", "--seed", "12abc"}, "--seed"},
        {2, {"x", "--seed"}, "--seed"},
        {2, {"x", "--bogus"}, "--bogus"},
        {3, {"x", "--T", "8"}, "--T"},          /* not accepted by this mask */
        {3, {"x", "--draws", "0"}, "--draws"},
        {3, {"x", "--scale", "nan"}, "--scale"},
        {3, {"x", "--q1", "1;2"}, "--q1"},
        {3, {"x", "--rng", "nope"}, "nope"},
        {3, {"x", "--out", "/proc/version"}, "not a directory"},
        {3, {"x", "--out", "/proc/no/such/dir"}, "--out"},
        {2, {"x", "stray"}, "stray"},
        {2, {"x", "--quiet=1"}, "--quiet"},
        {3, {"x", "--max-memory", "lots"}, "--max-memory"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int st = parse(&o, OPT_MC, bad[i].argc, bad[i].argv);
        ck_assert_msg(st == ATT_EUSAGE, "case %zu: status %d", i, st);
        ck_assert_msg(strstr(att_last_error(), bad[i].needle) != NULL, "case %zu: message '%s'", i,
                      att_last_error());
    }
    rmdir(dir);
}
END_TEST

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) return NULL;
    static char buf[4096];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

static int count_entries(const char *dir)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd, "ls -A %s | wc -l", dir);
    FILE *p = popen(cmd, "r");
    int n = -1;
    if (p) { if (fscanf(p, "%d", &n) != 1) n = -1; pclose(p); }
    return n;
}

START_TEST(test_atomic_file)
{
    char dir[] = "/tmp/att-test-atomic-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    afile af;
    ck_assert_int_eq(afile_open(&af, dir, "a.csv"), ATT_OK);
    fputs("old\n", af.f);
    ck_assert_int_eq(afile_commit(&af), ATT_OK);
    char path[512];
    snprintf(path, sizeof path, "%s/a.csv", dir);
    ck_assert_str_eq(slurp(path), "old\n");

    /* an aborted rewrite leaves the previous file and no temporary */
    ck_assert_int_eq(afile_open(&af, dir, "a.csv"), ATT_OK);
    fputs("new, half-written", af.f);
    ck_assert_str_eq(slurp(path), "old\n");
    afile_abort(&af);
    ck_assert_str_eq(slurp(path), "old\n");
    ck_assert_int_eq(count_entries(dir), 1);

    /* a stale temporary of a dead process is removed by the next open */
    char stale[512];
    snprintf(stale, sizeof stale, "%s/.a.csv.tmp.999999999", dir);
    FILE *f = fopen(stale, "w");
    ck_assert_ptr_nonnull(f);
    fclose(f);
    ck_assert_int_eq(afile_open(&af, dir, "a.csv"), ATT_OK);
    fputs("new\n", af.f);
    ck_assert_int_eq(afile_commit(&af), ATT_OK);
    ck_assert_str_eq(slurp(path), "new\n");
    ck_assert_int_eq(count_entries(dir), 1);

    /* a directory that does not exist is an error with the path */
    ck_assert_int_eq(afile_open(&af, "/proc/no-such-dir", "a.csv"), ATT_ERUNTIME);
    ck_assert(strstr(att_last_error(), "/proc/no-such-dir") != NULL);
    unlink(path);
    rmdir(dir);
}
END_TEST

START_TEST(test_verdict_rows)
{
    char dir[] = "/tmp/att-test-verdict-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    opts o = {.id = "demo", .out_dir = dir, .seed = 3, .quiet = 1};
    verdict_list vl;
    verdicts_init(&vl);
    ck_assert_int_eq(verdict_exact(&vl, "demoExact", "a, quoted \"thing\"", NAN, 1e-17, 1e-15, 1,
                                   "<= tol"), ATT_OK);
    ck_assert_int_eq(verdict_mc(&vl, "demoMc", "mean", 0.5, 0.49, 0.48, 0.50, 1000, 1, "in CI"),
                     ATT_OK);
    ck_assert_int_eq(verdict_exact(&vl, "bad_name1", "x", 0, 0, 0, 1, ""), ATT_ERUNTIME);
    ck_assert_int_eq(verdicts_status(&vl), ATT_OK);
    ck_assert_int_eq(verdicts_write(&vl, &o), ATT_OK);
    char path[512];
    snprintf(path, sizeof path, "%s/demo.verdicts.csv", dir);
    const char *want =
        "id,quantity,expected,measured,ci_low,ci_high,tolerance,draws,seed,verdict,kind,macro,rule\n"
        "demo,\"a, quoted \"\"thing\"\"\",,1.0000000000000001e-17,,,1.0000000000000001e-15,0,3,PASS,exact,demoExact,<= tol\n"
        "demo,mean,0.5,0.48999999999999999,0.47999999999999998,0.5,,1000,3,PASS,mc,demoMc,in CI\n";
    ck_assert_str_eq(slurp(path), want);
    ck_assert_int_eq(verdict_timing(&vl, "demoTime", "t", 1.0, 0, "reported"), ATT_OK);
    ck_assert_int_eq(verdicts_status(&vl), ATT_FAIL);
    verdicts_free(&vl);
    unlink(path);
    rmdir(dir);
}
END_TEST

int main(void)
{
    att_init();
    Suite *s = suite_create("io");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_parse_ulong_table);
    tcase_add_test(tc, test_parse_double_table);
    tcase_add_test(tc, test_opts_parse);
    tcase_add_test(tc, test_atomic_file);
    tcase_add_test(tc, test_verdict_rows);
    suite_add_tcase(s, tc);
    return prop_run_suite(s);
}
