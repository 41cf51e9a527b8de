/* test_io.c - strict option parsing, atomic files, verdict rows. */
#include "prop.h"
#include "opts.h"
#include "afile.h"
#include "table.h"
#include "verdict.h"
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
        int st = opts_parse_ulong(cases[i].s, &v, "--seed");
        ck_assert_msg((st == ATT_OK) == cases[i].ok, "'%s': status %d", cases[i].s, st);
        if (cases[i].ok) ck_assert_uint_eq(v, cases[i].v);
        else
            ck_assert_msg(strstr(att_last_error(), "--seed") != NULL,
                          "message names the option: %s", att_last_error());
    }
    size_t z;
    ck_assert_int_eq(opts_parse_size("0", &z, "--T"), ATT_EUSAGE);
    ck_assert_int_eq(opts_parse_size("5", &z, "--T"), ATT_OK);
    ck_assert_uint_eq(z, 5);
}
END_TEST

START_TEST(test_parse_double_table)
{
    const char *good[] = {"1", "-2.5", "1e-3", "0", "1E300"};
    const char *bad[] = {"nan", "inf", "-inf", "1e400", "1.0x", "", " 1", "--1"};
    double v;
    for (size_t i = 0; i < sizeof good / sizeof *good; i++)
        ck_assert_msg(opts_parse_double(good[i], &v, "--scale") == ATT_OK, "'%s' refused", good[i]);
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        ck_assert_msg(opts_parse_double(bad[i], &v, "--scale") == ATT_EUSAGE, "'%s' accepted",
                      bad[i]);
    size_t b;
    ck_assert_int_eq(opts_parse_bytes("64M", &b, "--max-memory"), ATT_OK);
    ck_assert_uint_eq(b, (size_t)64 << 20);
    ck_assert_int_eq(opts_parse_bytes("99999999999999999999G", &b, "--max-memory"), ATT_EUSAGE);
    ck_assert_int_eq(opts_parse_bytes("12Q", &b, "--max-memory"), ATT_EUSAGE);
}
END_TEST

/* sizes that cannot overflow: at most 2^53 per option, every product checked (opts_need) */
START_TEST(test_opts_need)
{
    size_t z = 0, b = 0;
    ck_assert_int_eq(opts_parse_size("9007199254740992", &z, "--T"), ATT_OK);
    ck_assert_int_eq(opts_parse_size("9007199254740993", &z, "--T"), ATT_EUSAGE);
    ck_assert_ptr_nonnull(strstr(att_last_error(), "--T 9007199254740993: at most 2^53"));
    ck_assert_int_eq(opts_parse_size("18446744073709551615", &z, "--d"), ATT_EUSAGE);
    /* --max-memory keeps the whole size_t range */
    ck_assert_int_eq(opts_parse_bytes("18446744073709551615", &b, "--max-memory"), ATT_OK);

    opts o = {.max_memory = (size_t)4 << 30};
    // T*T*8 = 2^67 wraps size_t: refused, not 0
    ck_assert_int_eq(opts_need(&o, &b, 8, "T*T", (size_t)1 << 32, (size_t)1 << 32), ATT_EUSAGE);
    ck_assert_str_eq(att_last_error(),
                     "--T 4294967296: T*T*8 bytes overflows (more than 2^64 bytes)");
    // 100000^2 * 8 = 74.5 GiB > 4 GiB; two options named, each once
    ck_assert_int_eq(opts_need(&o, &b, 8, "T*d*T", (size_t)100000, (size_t)1, (size_t)100000),
                     ATT_EUSAGE);
    ck_assert_ptr_nonnull(strstr(att_last_error(),
                                 "--T 100000, --d 1: T*d*T*8 bytes = 74.5 GiB exceeds the memory "
                                 "budget (--max-memory 4 GiB"));
    // exactly the budget fits; one byte more does not
    ck_assert_int_eq(opts_need(&o, &b, 8, "T", (size_t)1 << 29), ATT_OK);
    ck_assert_uint_eq(b, (size_t)4 << 30);
    ck_assert_int_eq(opts_need(&o, &b, 1, "T", ((size_t)4 << 30) + 1), ATT_EUSAGE);
    // no budget: only the overflow is refused
    o.max_memory = 0;
    ck_assert_int_eq(opts_need(&o, &b, 8, "T*T", (size_t)1 << 30, (size_t)1 << 30), ATT_OK);
    ck_assert_int_eq(opts_need(&o, &b, 16, "T*T", (size_t)1 << 30, (size_t)1 << 30), ATT_EUSAGE);
    // a derived count
    o.max_memory = (size_t)1 << 20;
    ck_assert_int_eq(opts_need_for(&o, "--draws", 7, "the per-draw table", (size_t)1 << 20, 0, 8),
                     ATT_EUSAGE);
    ck_assert_ptr_nonnull(strstr(
        att_last_error(), "--draws 7: the per-draw table (1048576 x 8 bytes) = 8 MiB exceeds"));
    ck_assert_int_eq(opts_need_for(&o, "--seeds", 3, "the table", 1, 1, 8), ATT_EUSAGE);
    ck_assert_ptr_nonnull(strstr(att_last_error(), "--seeds 3: the table"));
    // the formula and the factors must agree
    ck_assert_int_eq(opts_need_v(&o, &b, 8, "T*T", (const size_t[]){2}, 1), ATT_ERUNTIME);
    opts_list l = {3, {4, 64, 8}};
    ck_assert_uint_eq(opts_list_max(&l, 1), 64);
    l.n = 0;
    ck_assert_uint_eq(opts_list_max(&l, 1), 1);
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
    int st = opts_parse(o, &info, argc, (char **)argv);
    // a parse that succeeds begins the run's set of files (afile_hold); end it here, or
    // the file tests below, in the same process under valgrind (no fork), write held files
    afile_release(0);
    return st;
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

/* an unknown option near a known one names it; one far from all names none */
START_TEST(test_opts_suggest)
{
    opts o;
    static char longname[300];
    memset(longname, 'd', sizeof longname - 1);
    longname[0] = longname[1] = '-';
    static char oddname[66];             /* 63 letters: the longest name compared */
    memset(oddname, 'q', sizeof oddname - 1);
    oddname[0] = oddname[1] = '-';
    struct { const char *arg; const char *needle; } near[] = {
        {"--drwas", "did you mean --draws?"},      /* a swap of neighbours */
        {"--dras", "did you mean --draws?"},       /* a deletion */
        {"--drawz0", "did you mean --draws?"},     /* two edits */
        {"--scael=2", "did you mean --scale?"},    /* an experiment option, with =V */
        {"--max-mem", "did you mean --max-memory?"},  /* a unique prefix */
        {"--qiuet", "did you mean --quiet?"},
        {"--t", "did you mean --T?"},              /* case */
    };
    for (size_t i = 0; i < sizeof near / sizeof near[0]; i++) {
        const char *argv[] = {"x", near[i].arg, "10"};
        ck_assert_int_eq(parse(&o, OPT_MC | OPT_T, 3, argv), ATT_EUSAGE);
        ck_assert_msg(strstr(att_last_error(), near[i].needle) != NULL, "%s: message '%s'",
                      near[i].arg, att_last_error());
    }
    const char *far[] = {"--bogus", "--ab", "--x", "--drawsdraws", longname, oddname, "--\377\001"};
    for (size_t i = 0; i < sizeof far / sizeof far[0]; i++) {
        const char *argv[] = {"x", far[i]};
        ck_assert_int_eq(parse(&o, OPT_MC | OPT_T, 2, argv), ATT_EUSAGE);
        ck_assert_msg(strstr(att_last_error(), "did you mean") == NULL, "%.20s: message '%s'",
                      far[i], att_last_error());
    }
    /* a common option this program does not take: said so, no look-alike offered */
    const char *dk[] = {"x", "--dk", "4"};
    ck_assert_int_eq(parse(&o, OPT_MC | OPT_T | OPT_DV, 3, dk), ATT_EUSAGE);
    ck_assert_msg(strstr(att_last_error(), "takes no --dk") &&
                      !strstr(att_last_error(), "did you mean"),
                  "message '%s'", att_last_error());
}
END_TEST

/* --help: the sweep options read plainly and say where the default grid is */
static char *help_text(unsigned common)
{
    static char buf[8192];
    char path[] = "/tmp/att-test-help-XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    fflush(stdout);
    int saved = dup(1);
    ck_assert_int_ge(dup2(fd, 1), 0);
    opts o;
    const char *argv[] = {"x", "--help"};
    int st = parse(&o, common, 2, argv);
    fflush(stdout);
    dup2(saved, 1);
    close(saved);
    ck_assert_int_eq(st, ATT_HELP);
    ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
    buf[n > 0 ? n : 0] = '\0';
    close(fd);
    unlink(path);
    return buf;
}

START_TEST(test_opts_help)
{
    const char *h = help_text(OPT_MC | OPT_T | OPT_DK | OPT_LISTS);
    ck_assert_msg(strstr(h, "--T N              sequence length(s) T: one value, a list 4,8,16 "
                            "or a range 2..256 (doubling)"), "%s", h);
    ck_assert_msg(strstr(h, "--dk N             query/key width(s) d_k: one value, a list"), "%s",
                  h);
    ck_assert_msg(strstr(h, "none given: the full sweep, as declared in experiments/test.c"), "%s",
                  h);
    ck_assert_msg(!strstr(h, "run the ") && !strstr(h, "values N"), "%s", h);
    h = help_text(OPT_MC | OPT_D);
    ck_assert_msg(strstr(h, "--d N              model width d: one value\n"), "%s", h);
    ck_assert_msg(strstr(h, "not given: the value set in experiments/test.c"), "%s", h);
    ck_assert_msg(!strstr(h, "a list"), "%s", h);
    h = help_text(OPT_MC);
    ck_assert_msg(!strstr(h, "experiments/test.c"), "no sweep option, no grid line: %s", h);
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

/* Every rule, its outcomes at the edges: (rule, value, ci) -> outcome. */
START_TEST(test_verdict_decide_table)
{
    const struct { verdict_rule r; double v, lo, hi; verdict_outcome want;
    } cases[] = {
        {verdict_rule_at_most(1e-12), 1e-13, NAN, NAN, OUT_PASS},
        {verdict_rule_at_most(1e-12), 1e-12, NAN, NAN, OUT_PASS},
        {verdict_rule_at_most(1e-12), 2e-12, NAN, NAN, OUT_FAIL},
        {verdict_rule_at_most(1e-12), NAN, NAN, NAN, OUT_FAIL}, /* NaN cannot hide */
        {verdict_rule_at_least(1e-3), 0.5, NAN, NAN, OUT_PASS},
        {verdict_rule_at_least(1e-3), 1e-4, NAN, NAN, OUT_FAIL},
        {verdict_rule_between(0, 1), 0.5, NAN, NAN, OUT_PASS},
        {verdict_rule_between(0, 1), 1.5, NAN, NAN, OUT_FAIL},
        {verdict_rule_ci_within(0.95, 1.05), 1.0, 0.99, 1.01, OUT_PASS},
        {verdict_rule_ci_within(0.95, 1.05), 1.0, 0.90, 1.10, OUT_INCONCLUSIVE}, /* too few draws */
        {verdict_rule_ci_within(0.95, 1.05), 1.04, 1.02, 1.06,
         OUT_INCONCLUSIVE},                                            /* across a bound */
        {verdict_rule_ci_within(0.95, 1.05), 1.2, 1.1, 1.3, OUT_FAIL}, /* CI outside */
        {verdict_rule_ci_within(0.95, 1.05), 0.8, 0.7, 0.9, OUT_FAIL},
        {verdict_rule_ci_within(0.95, 1.05), NAN, NAN, NAN, OUT_FAIL},
        {verdict_rule_ci_above(0.5), 1.3, 1.2, 1.4, OUT_PASS},
        {verdict_rule_ci_above(0.5), 0.5, 0.4, 0.6, OUT_INCONCLUSIVE},
        {verdict_rule_ci_above(0.5), 0.3, 0.2, 0.4, OUT_FAIL},
        {verdict_rule_ci_below(0.5), 0.3, 0.2, 0.4, OUT_PASS},
        {verdict_rule_ci_below(0.5), 0.5, 0.4, 0.6, OUT_INCONCLUSIVE},
        {verdict_rule_ci_below(0.5), 0.7, 0.6, 0.8, OUT_FAIL},
        {verdict_rule_precision(0.01), 1.0, 0.995, 1.005, OUT_PASS},
        {verdict_rule_precision(0.01), 1.0, 0.9, 1.1, OUT_INCONCLUSIVE}, /* never FAIL */
        {verdict_rule_precision(0.01), NAN, NAN, NAN, OUT_INCONCLUSIVE},
        {verdict_rule_none(), 3.0, NAN, NAN, OUT_REPORTED},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        measure m = verdict_measure_ci(cases[i].v, cases[i].lo, cases[i].hi, 100);
        verdict_outcome got = verdict_decide(cases[i].r, m);
        ck_assert_msg(got == cases[i].want, "case %zu: rule %s, value %g [%g, %g]: got %s, want %s",
                      i, verdict_rule_cmp_name(cases[i].r.cmp), cases[i].v, cases[i].lo,
                      cases[i].hi, verdict_outcome_name(got), verdict_outcome_name(cases[i].want));
    }
}
END_TEST

START_TEST(test_verdict_draws_to_decide)
{
    /* half-width 0.1 at 100 draws, 0.02 from the bound: (0.1/0.02)^2 100 = 2500 */
    measure m = verdict_measure_ci(1.03, 0.93, 1.13, 100);
    double n = verdict_draws_to_decide(verdict_rule_ci_within(0.95, 1.05), m);
    ck_assert_double_eq_tol(n, 2500.0, 1.0);
    /* a precision wish: half-width 0.1 wanted 0.01: 100 x 100 */
    n = verdict_draws_to_decide(verdict_rule_precision(0.01), m);
    ck_assert_double_eq_tol(n, 10000.0, 1.0);
    /* on the bound: no number of draws decides it */
    m = verdict_measure_ci(1.05, 1.0, 1.1, 100);
    ck_assert_double_eq(verdict_draws_to_decide(verdict_rule_ci_within(0.95, 1.05), m), 0.0);
}
END_TEST

START_TEST(test_verdict_rows)
{
    char dir[] = "/tmp/att-test-verdict-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    verdict_list vl;
    verdict_list_init(&vl);
    ck_assert_int_eq(verdict_add(&vl, KIND_IDENTITY, "demoExact", NAN,
                                 verdict_measure_exact(1e-17, 4), verdict_rule_at_most(1e-15),
                                 "a, quoted \"%s\"", "thing"),
                     ATT_OK);
    ck_assert_int_eq(verdict_add(&vl, KIND_CLAIM, "demoMc", 0.5,
                                 verdict_measure_ci(0.49, 0.48, 0.50, 1000),
                                 verdict_rule_ci_within(0.4, 0.6), "mean"),
                     ATT_OK);
    verdict_headline(&vl);
    /* a bad macro name, a reported row with a rule, a claim without one, a CI
     * rule without a CI: refused */
    ck_assert_int_eq(verdict_add(&vl, KIND_IDENTITY, "bad_name1", 0, verdict_measure_exact(0, 1),
                                 verdict_rule_at_most(1), "x"), ATT_ERUNTIME);
    ck_assert_int_eq(verdict_add(&vl, KIND_REPORTED, "demoT", NAN, verdict_measure_exact(1, 1),
                                 verdict_rule_at_most(1), "t"), ATT_ERUNTIME);
    ck_assert_int_eq(verdict_add(&vl, KIND_CLAIM, "demoT", NAN, verdict_measure_exact(1, 1),
                                 verdict_rule_none(), "t"),
                     ATT_ERUNTIME);
    ck_assert_int_eq(verdict_add(&vl, KIND_CLAIM, "demoT", NAN, verdict_measure_exact(1, 10),
                                 verdict_rule_ci_above(0), "t"), ATT_ERUNTIME);
    ck_assert_int_eq(vl.n, 2);
    ck_assert_int_eq(verdict_list_status(&vl), ATT_OK);
    ck_assert_int_eq(verdict_list_write(&vl, dir, "demo", 3, 0), ATT_OK);
    char path[512];
    snprintf(path, sizeof path, "%s/demo.verdicts.csv", dir);
    const char *want =
        "id,kind,quantity,expected,measured,ci_low,ci_high,tolerance,draws,seed,verdict,rule,"
        "bound_lo,bound_hi,rule_text,macro,run_dependent,headline,nature\n"
        "demo,identity,\"a, quoted "
        "\"\"thing\"\"\",,1.0000000000000001e-17,,,1.0000000000000001e-15,"
        "4,3,PASS,at_most,,1.0000000000000001e-15,<= 1e-15,demoExact,0,0,rounding\n"
        "demo,claim,mean,0.5,0.48999999999999999,0.47999999999999998,0.5,,1000,3,PASS,ci_within,"
        "0.40000000000000002,0.59999999999999998,\"95% CI inside [0.4, 0.6]\",demoMc,0,1,mc\n";
    ck_assert_str_eq(slurp(path), want);
    /* an INCONCLUSIVE row is not a FAIL (exit 0); a FAIL is */
    ck_assert_int_eq(verdict_add(&vl, KIND_CLAIM, "demoI", NAN,
                                 verdict_measure_ci(1.0, 0.9, 1.1, 10),
                                 verdict_rule_ci_within(0.95, 1.05), "few draws"),
                     ATT_OK);
    ck_assert_int_eq(vl.v[2].outcome, OUT_INCONCLUSIVE);
    ck_assert_int_eq(verdict_list_status(&vl), ATT_OK);
    ck_assert_int_eq(verdict_add(&vl, KIND_REPORTED, "demoTime", NAN, verdict_measure_exact(1.0, 5),
                                 verdict_rule_none(), "t"), ATT_OK);
    ck_assert_int_eq(vl.v[3].outcome, OUT_REPORTED);
    ck_assert_int_eq(verdict_list_status(&vl), ATT_OK);
    ck_assert_int_eq(verdict_add(&vl, KIND_CONTROL, "demoC", NAN, verdict_measure_exact(1e-5, 5),
                                 verdict_rule_at_least(1e-3), "control"), ATT_OK);
    ck_assert_int_eq(verdict_list_status(&vl), ATT_FAIL);
    verdict_list_free(&vl);
    unlink(path);
    rmdir(dir);
}
END_TEST

/* One column list writes the header and every row. */
START_TEST(test_table_columns)
{
    typedef struct { size_t T; double mean; int ok; const char *name; } row_t;
    static const table_col cols[] = {COL(row_t, T), COL_AS(row_t, mean, "self_weight"),
                                     COL(row_t, ok), COL(row_t, name)};
    const row_t rows[] = {{2, 0.5, 1, "a,b"}, {4, NAN, 0, "c"}};
    char dir[] = "/tmp/att-test-table-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    ck_assert_int_eq(TABLE_WRITE(dir, "t.csv", cols, rows, 2), ATT_OK);
    char path[512];
    snprintf(path, sizeof path, "%s/t.csv", dir);
    ck_assert_str_eq(slurp(path), "T,self_weight,ok,name\n2,0.5,1,\"a,b\"\n4,,0,c\n");
    unlink(path);
    rmdir(dir);
}
END_TEST

PROP_MAIN("io", {"core",
                 0,
                 {test_parse_ulong_table, test_parse_double_table, test_opts_need, test_opts_parse,
                  test_opts_suggest, test_opts_help, test_atomic_file, test_verdict_decide_table,
                  test_verdict_draws_to_decide, test_verdict_rows, test_table_columns}})
