/* test_par.c - the parallel context's single-process side (par.h) and the
 * held and discarded files it uses under MPI (afile.h). The MPI side runs
 * in tests/test_mpi.sh. */
#include <check.h>
#include "afile.h"
#include "par.h"
#include "status.h"

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

static void put(const char *rel, const char *text)
{
    char p[256];
    snprintf(p, sizeof p, "%s/%s", dir, rel);
    FILE *f = fopen(p, "w");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    fclose(f);
}

static const char *get(const char *name)
{
    static char buf[64];
    char p[256];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    FILE *f = fopen(p, "r");
    buf[0] = '\0';
    if (f) {
        if (!fgets(buf, sizeof buf, f)) buf[0] = '\0';
        fclose(f);
    }
    return buf;
}

static unsigned long long inode_of(const char *name)
{
    char p[256];
    struct stat sb;
    snprintf(p, sizeof p, "%s/%s", dir, name);
    return stat(p, &sb) == 0 ? (unsigned long long)sb.st_ino : 0;
}

/* The record of what a release wrote (ATT_WRITE_LOG) and the recovery of a
 * killed run's folder (afile_recover): forward with a journal, back with
 * journal.back, dropped without either. */
START_TEST(test_log_and_recovery)
{
    make_dir();
    char log[128], real[4096], want[4400];
    snprintf(log, sizeof log, "%s.log", dir);
    ck_assert_int_eq(setenv("ATT_WRITE_LOG", log, 1), 0);
    afile_hold();
    write_file("a.csv", "a\n");
    write_file("b.csv", "bb\n");
    ck_assert_int_eq(afile_release(1), ATT_OK);
    unsetenv("ATT_WRITE_LOG");
    ck_assert_ptr_nonnull(realpath(dir, real));
    FILE *f = fopen(log, "r");
    ck_assert_ptr_nonnull(f);
    char line[4400];
    ck_assert_ptr_nonnull(fgets(line, sizeof line, f));
    snprintf(want, sizeof want, "%llu 2 %s/a.csv\n", inode_of("a.csv"), real);
    ck_assert_str_eq(line, want);
    ck_assert_ptr_nonnull(fgets(line, sizeof line, f));
    snprintf(want, sizeof want, "%llu 3 %s/b.csv\n", inode_of("b.csv"), real);
    ck_assert_str_eq(line, want);
    ck_assert_ptr_null(fgets(line, sizeof line, f));
    fclose(f);
    unlink(log);

    /* killed in the middle of the renames: a.csv renamed, b.csv not */
    char rd[128];
    snprintf(rd, sizeof rd, "%s/.att-run.999999999", dir);
    ck_assert_int_eq(mkdir(rd, 0700), 0);
    put("a.csv", "A\n");
    put(".att-run.999999999/2.b.csv", "B\n");
    put(".att-run.999999999/3.a.csv.old", "a\n");
    put(".att-run.999999999/4.b.csv.old", "bb\n");
    put(".att-run.999999999/journal", "1\t1\t1.a.csv\t3.a.csv.old\ta.csv\n"
                                      "1\t2\t2.b.csv\t4.b.csv.old\tb.csv\n");
    ck_assert_int_eq(afile_recover(dir), ATT_OK);
    ck_assert_str_eq(get("a.csv"), "A\n");
    ck_assert_str_eq(get("b.csv"), "B\n");
    ck_assert_int_eq(entries(), 2);

    /* killed while undoing a failed release: back to the old set; c.csv was
     * new (removed, it is still the run's inode), d.csv never renamed */
    ck_assert_int_eq(mkdir(rd, 0700), 0);
    put(".att-run.999999999/3.a.csv.old", "a\n");
    put("c.csv", "C\n");
    put(".att-run.999999999/2.d.csv", "D\n");
    char jb[512];
    snprintf(jb, sizeof jb, "1\t1\t1.a.csv\t3.a.csv.old\ta.csv\n0\t%llu\t5.c.csv\t-\tc.csv\n"
             "0\t1\t2.d.csv\t-\td.csv\n", inode_of("c.csv"));
    put(".att-run.999999999/journal.back", jb);
    ck_assert_int_eq(afile_recover(dir), ATT_OK);
    ck_assert_str_eq(get("a.csv"), "a\n");
    ck_assert(!exists("c.csv") && !exists("d.csv"));
    ck_assert_int_eq(entries(), 2);

    /* killed before the journal: dropped, nothing moves */
    ck_assert_int_eq(mkdir(rd, 0700), 0);
    put(".att-run.999999999/1.a.csv", "X\n");
    put(".att-run.999999999/journal.new", "1\t1\t1.a.csv\t-\ta.csv\n");
    ck_assert_int_eq(afile_recover(dir), ATT_OK);
    ck_assert_str_eq(get("a.csv"), "a\n");
    ck_assert_int_eq(entries(), 2);

    /* a damaged journal is refused and left alone */
    ck_assert_int_eq(mkdir(rd, 0700), 0);
    put(".att-run.999999999/journal", "1\t1\t../x\t-\ta.csv\n");
    ck_assert_int_eq(afile_recover(dir), ATT_ERUNTIME);
    ck_assert(strstr(att_last_error(), "damaged") != NULL);
    ck_assert_str_eq(get("a.csv"), "a\n");
    /* (claimed under this process's pid: remove it by hand) */
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL)
        if (!strncmp(e->d_name, ".att-run.", 9)) {
            char p[512];
            snprintf(p, sizeof p, "%s/%s/journal", dir, e->d_name);
            unlink(p);
            snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
            rmdir(p);
        }
    if (d) closedir(d);
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
    tcase_add_test(tc, test_log_and_recovery);
    tcase_add_test(tc, test_discarded_files);   /* last: discarding is for good */
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
