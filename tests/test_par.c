/* test_par.c - the parallel context's single-process side (par.h) and the
 * held and discarded files it uses under MPI (afile.h). The MPI side runs
 * in tests/test_mpi.sh. */
#include <check.h>
#include "afile.h"
#include "par.h"
#include "att.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[64];

static void make_dir(void)
{
    snprintf(dir, sizeof dir, "/tmp/test_par.XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(dir));
}

/* entries of dir, hidden ones too (. and .. excluded) */
static int entries(void)
{
    DIR *d = opendir(dir);
    ck_assert_ptr_nonnull(d);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) n++;
    closedir(d);
    return n;
}

static int exists(const char *name)
{
    char p[128];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    struct stat sb;
    return stat(p, &sb) == 0;
}

static void clean_dir(void)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL) {
        char p[400];
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) unlink(p);
    }
    if (d) closedir(d);
    rmdir(dir);
}

static void write_file(const char *name, const char *text)
{
    afile af;
    ck_assert_int_eq(afile_open(&af, dir, name), ATT_OK);
    fputs(text, af.f);
    ck_assert_int_eq(afile_commit(&af), ATT_OK);
    afile_abort(&af);                    /* safe after commit, held or not */
}

START_TEST(test_single_process)
{
    ck_assert_int_eq(par_init(NULL, NULL), ATT_OK);
    ck_assert_int_eq(par_size(), 1);
    ck_assert_int_eq(par_rank(), 0);
    ck_assert(par_is_root());
    ck_assert_int_eq(par_enabled(), 0);   /* the plain build has no MPI */
    /* one process agrees with itself, errors keep their message */
    att_fail(ATT_ERUNTIME, "the message");
    ck_assert_int_eq(par_agree(ATT_ERUNTIME, PAR_SITE_RUN), ATT_ERUNTIME);
    ck_assert_str_eq(att_last_error(), "the message");
    ck_assert_int_eq(par_agree(ATT_FAIL, PAR_SITE_END), ATT_FAIL);
    ck_assert_int_eq(par_agree_keyed(ATT_OK, PAR_SITE_MC_DRAWS, 42), ATT_OK);
    /* the run frame holds the files in one process too: an error keeps none,
     * a success (or a verdict FAIL) keeps all */
    make_dir();
    par_run_begin("test_par");
    write_file("a.csv", "x\n");
    ck_assert(!exists("a.csv"));
    ck_assert_int_eq(par_run_end(ATT_EUSAGE), ATT_EUSAGE);
    ck_assert(!exists("a.csv"));
    ck_assert_int_eq(entries(), 0);
    par_run_begin("test_par");
    write_file("a.csv", "x\n");
    ck_assert_int_eq(par_run_end(ATT_FAIL), ATT_FAIL);
    ck_assert(exists("a.csv"));
    ck_assert_int_eq(par_test_env("ATT_MPI_TEST_KILL_RANK"), -1);
    clean_dir();
}
END_TEST

START_TEST(test_held_files)
{
    make_dir();
    /* kept: nothing appears before the release, everything after */
    afile_hold();
    write_file("a.csv", "a\n");
    write_file("b.csv", "b\n");
    ck_assert(!exists("a.csv") && !exists("b.csv"));
    ck_assert_int_eq(entries(), 0);      /* not even a hidden temporary */
    ck_assert_int_eq(afile_release(1), ATT_OK);
    ck_assert(exists("a.csv") && exists("b.csv"));
    char path[128];
    snprintf(path, sizeof path, "%s/b.csv", dir);
    FILE *f = fopen(path, "r");
    ck_assert_ptr_nonnull(f);
    char line[8] = "";
    ck_assert_ptr_nonnull(fgets(line, sizeof line, f));
    fclose(f);
    ck_assert_str_eq(line, "b\n");
    /* thrown away: the earlier files stay as they were, no new ones */
    afile_hold();
    write_file("a.csv", "new\n");
    write_file("c.csv", "c\n");
    ck_assert_int_eq(afile_release(0), ATT_OK);
    ck_assert(!exists("c.csv"));
    ck_assert_int_eq(entries(), 2);
    /* after a release, commits rename at once again */
    write_file("d.csv", "d\n");
    ck_assert(exists("d.csv"));
    clean_dir();
}
END_TEST

START_TEST(test_discarded_files)
{
    make_dir();
    afile_discard();                     /* a non-root rank: writes nowhere */
    write_file("a.csv", "a\n");
    afile af;
    ck_assert_int_eq(afile_open(&af, dir, "b.csv"), ATT_OK);
    fputs("b\n", af.f);
    afile_abort(&af);
    ck_assert_int_eq(entries(), 0);
    clean_dir();
}
END_TEST

int main(void)
{
    att_init();
    Suite *s = suite_create("par");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_single_process);
    tcase_add_test(tc, test_held_files);
    tcase_add_test(tc, test_discarded_files);   /* last: discarding is for good */
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
