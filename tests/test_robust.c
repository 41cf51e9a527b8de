/* test_robust.c - robustness checks that need no binary:
 *
 *   - the committed fuzz corpus (fuzz/corpus/<target>/) and every crash input
 *     the fuzzers ever found (tests/fuzz_cases/<target>/) replayed through the
 *     same invariants as the fuzz targets (fuzz/targets.h);
 *   - GSL_RNG_TYPE / GSL_RNG_SEED are never read: garbage in them changes
 *     no generator;
 *   - OPT_NO_OUT_DEFAULT: --out has no default and nothing is created.
 *
 * The corpus is found relative to the source tree: $ATT_SRCDIR if set, else
 * the current directory (make runs the tests from the top of the tree).
 */
#include "prop.h"
#include "../fuzz/targets.h"
#include "opts.h"
#include "rng.h"
#include "status.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- corpus replay --------------------------------------------------- */

typedef const char *(*fuzz_check)(const uint8_t *, size_t);

/* Run check on every regular file in dir; returns the number of files.
 * A missing directory fails when `required`. */
static size_t replay_dir(const char *dir, fuzz_check check, int required)
{
    DIR *d = opendir(dir);
    if (d == NULL) {
        ck_assert_msg(!required, "cannot open %s (run from the top of the tree or set ATT_SRCDIR)",
                      dir);
        return 0;
    }
    size_t n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        char path[1024];
        struct stat sb;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (e->d_name[0] == '.' || stat(path, &sb) != 0 || !S_ISREG(sb.st_mode)) continue;
        FILE *f = fopen(path, "rb");
        ck_assert_msg(f != NULL, "cannot read %s", path);
        uint8_t *buf = malloc((size_t)sb.st_size + 1);
        ck_assert_ptr_nonnull(buf);
        size_t len = fread(buf, 1, (size_t)sb.st_size, f);
        fclose(f);
        const char *bad = check(buf, len);
        ck_assert_msg(bad == NULL, "%s: %s (last error: %s)", path, bad, att_last_error());
        free(buf);
        n++;
    }
    closedir(d);
    return n;
}

static const char *srcdir(void)
{
    const char *s = getenv("ATT_SRCDIR");
    return s && *s ? s : ".";
}

START_TEST(test_replay_csvmat)
{
    char a[512], b[512];
    snprintf(a, sizeof a, "%s/fuzz/corpus/csvmat", srcdir());
    snprintf(b, sizeof b, "%s/tests/fuzz_cases/csvmat", srcdir());
    size_t n = replay_dir(a, fuzz_csvmat_one, 1);
    ck_assert_msg(n >= 10, "only %zu files in %s", n, a);
    replay_dir(b, fuzz_csvmat_one, 0);
}
END_TEST

START_TEST(test_replay_opts)
{
    char a[512], b[512];
    snprintf(a, sizeof a, "%s/fuzz/corpus/opts", srcdir());
    snprintf(b, sizeof b, "%s/tests/fuzz_cases/opts", srcdir());
    /* --help in the corpus prints the usage; keep it out of the test log */
    fflush(stdout);
    int saved = dup(1), null = open("/dev/null", O_WRONLY);
    dup2(null, 1);
    size_t n = replay_dir(a, fuzz_opts_one, 1);
    replay_dir(b, fuzz_opts_one, 0);
    fflush(stdout);
    dup2(saved, 1);
    close(saved);
    close(null);
    ck_assert_msg(n >= 10, "only %zu files in %s", n, a);
}
END_TEST

/* ---- GSL's environment variables are never read --------------------- */

START_TEST(test_gsl_env_ignored)
{
    unsetenv("GSL_RNG_TYPE");
    unsetenv("GSL_RNG_SEED");
    const char *names[] = {"mt19937", "ranlxd2", "taus2"};
    unsigned long ref[3][4];
    for (int t = 0; t < 3; t++) {
        gsl_rng *r = rng_new(names[t], 12345);
        ck_assert_ptr_nonnull(r);
        for (int i = 0; i < 4; i++) ref[t][i] = gsl_rng_get(r);
        gsl_rng_free(r);
    }
    /* garbage, a valid other generator, an out-of-range seed */
    const char *types[] = {"garbage", "ranlux", "", "mt19937;rm -rf /"};
    const char *seeds[] = {"xyz", "999", "-1", "99999999999999999999999"};
    for (int k = 0; k < 4; k++) {
        setenv("GSL_RNG_TYPE", types[k], 1);
        setenv("GSL_RNG_SEED", seeds[k], 1);
        for (int t = 0; t < 3; t++) {
            gsl_rng *r = rng_new(names[t], 12345);
            ck_assert_ptr_nonnull(r);
            ck_assert_str_eq(gsl_rng_name(r), names[t]);
            for (int i = 0; i < 4; i++)
                ck_assert_msg(gsl_rng_get(r) == ref[t][i], "%s changed under GSL_RNG_TYPE=%s "
                              "GSL_RNG_SEED=%s", names[t], types[k], seeds[k]);
            gsl_rng_free(r);
        }
        /* and GSL's own defaults were never set up from the environment */
        ck_assert_ptr_eq(gsl_rng_default, gsl_rng_mt19937);
        ck_assert_uint_eq(gsl_rng_default_seed, 0);
    }
    unsetenv("GSL_RNG_TYPE");
    unsetenv("GSL_RNG_SEED");
}
END_TEST

/* ---- --out without a default ---------------------------------------- */

START_TEST(test_opts_no_out_default)
{
    char dir[] = "/tmp/att-test-robust-XXXXXX", cwd[1024];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    ck_assert_ptr_nonnull(getcwd(cwd, sizeof cwd));
    ck_assert_int_eq(chdir(dir), 0);
    const opts_info info = {.id = "t", .summary = "t", .common = OPT_NO_OUT_DEFAULT};
    const opts_info plain = {.id = "t", .summary = "t", .common = 0};
    opts o;
    char *none[] = {"t", NULL};
    ck_assert_int_eq(opts_parse(&o, &info, 1, none), ATT_OK);
    ck_assert_ptr_null(o.out_dir);
    struct stat sb;
    ck_assert_int_ne(stat(OPTS_DEFAULT_OUT, &sb), 0);     /* nothing created */

    char *given[] = {"t", "--out", "sub", NULL};
    ck_assert_int_eq(opts_parse(&o, &info, 3, given), ATT_OK);
    ck_assert_str_eq(o.out_dir, "sub");
    ck_assert_int_eq(stat("sub", &sb), 0);                /* created as usual */

    ck_assert_int_eq(opts_parse(&o, &plain, 1, none), ATT_OK);
    ck_assert_str_eq(o.out_dir, OPTS_DEFAULT_OUT); /* the git-ignored default, never results */

    /* --out naming a file, or a path under a file: usage errors */
    FILE *f = fopen("afile", "w");
    ck_assert_ptr_nonnull(f);
    fclose(f);
    char *file[] = {"t", "--out", "afile", NULL};
    ck_assert_int_eq(opts_parse(&o, &info, 3, file), ATT_EUSAGE);
    ck_assert_ptr_nonnull(strstr(att_last_error(), "not a directory"));
    char *under[] = {"t", "--out=afile/sub", NULL};
    ck_assert_int_eq(opts_parse(&o, &info, 2, under), ATT_EUSAGE);
    ck_assert_ptr_nonnull(strstr(att_last_error(), "afile/sub"));

    /* --scale 1e400: "overflows", not "not finite" */
    double x;
    ck_assert_int_eq(opts_parse_double("1e400", &x, "--scale"), ATT_EUSAGE);
    ck_assert_ptr_nonnull(strstr(att_last_error(), "overflows"));

    unlink("afile");
    rmdir("sub");
    rmdir("results");
    ck_assert_int_eq(chdir(cwd), 0);
    rmdir(dir);
}
END_TEST

PROP_MAIN("robust",
          {"robust",
           60,
           {test_replay_csvmat, test_replay_opts, test_gsl_env_ignored, test_opts_no_out_default}})
