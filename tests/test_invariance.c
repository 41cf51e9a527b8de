/* test_invariance.c - the grids of the reparametrization and low-rank experiments
 * (lib/claims/invariance.h, lib/claims/lowrank.h): the cond(R) axis is 10^(k/2),
 * k = 0 .. 16, beside the head sizes 16, 64, 16, 16; a 1 x 1 R gets cond 1 alone;
 * --cond X runs X alone and bad values are refused with a message naming --cond;
 * the allowed_units column is C(point); the d_k grid stays below d, --dv alone sets
 * d_k, and d_k or d_v above d, a --dv list or no d_k < d are refused.
 */
#include "prop.h"
#include "invariance.h"
#include "lowrank.h"

#include <math.h>
#include <string.h>

START_TEST(test_cond_grid)
{
    sweep_grid g;
    ck_assert_int_eq(invariance_grid(&g, 16, 0.0), ATT_OK);
    ck_assert_uint_eq(g.n[AX_X], 17);
    for (size_t k = 0; k < 17; k++)   /* exactly pow(10, k/2): the CSVs print these */
        ck_assert(g.v[AX_X][k] == pow(10.0, 0.5 * (double)k));
    ck_assert(g.v[AX_X][16] == 1e8);
    ck_assert_str_eq(g.x_name, "cond");
    ck_assert(g.v[AX_T][0] == 16 && g.v[AX_D][0] == 64 && g.v[AX_DK][0] == 16 &&
              g.v[AX_DV][0] == 16);
    ck_assert_int_eq(invariance_grid(&g, 1, 0.0), ATT_OK);   /* a 1 x 1 R: cond 1 only */
    ck_assert_uint_eq(g.n[AX_X], 1);
    ck_assert(g.v[AX_X][0] == 1.0);
    ck_assert_int_eq(invariance_grid(&g, 16, 1234.5), ATT_OK);
    ck_assert_uint_eq(g.n[AX_X], 1);
    ck_assert(g.v[AX_X][0] == 1234.5);
    ck_assert_int_eq(invariance_grid(&g, 1, 1.0), ATT_OK);
}
END_TEST

START_TEST(test_cond_refused)
{
    sweep_grid g;
    const double bad[] = {0.5, -1.0, NAN, 2e15, INFINITY};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        ck_assert_int_eq(invariance_grid(&g, 16, bad[k]), ATT_EUSAGE);
        ck_assert(strstr(att_last_error(), "--cond") != NULL);
    }
    ck_assert_int_eq(invariance_grid(&g, 1, 10.0), ATT_EUSAGE);   /* a 1 x 1 R has cond 1 */
    ck_assert(strstr(att_last_error(), "d_k >= 2") != NULL);
    ck_assert_int_eq(invariance_grid(&g, 16, INVARIANCE_MAX_COND), ATT_OK);
}
END_TEST

static double allowed(const sweep_point *pt) { return 4.0 * (double)(pt->d + 2 * pt->dk); }
static const invariance_allowed_fn allowed_fn = allowed;

START_TEST(test_allowed_and_moved)
{
    sweep_def def = {0};
    invariance_def_allowed(&def, &allowed_fn);
    ck_assert_uint_eq(def.nderived, 1);
    ck_assert_str_eq(def.derived[0].name, "allowed_units");
    sweep_point pt = {.T = 8, .d = 32, .dk = 4, .dv = 4};
    double col = 0.0;
    def.derive(&col, &pt, NULL, def.ctx);
    ck_assert(col == 160.0);   /* 4 (32 + 2 4) */
    char buf[96];
    ck_assert_str_eq(invariance_moved(buf, sizeof buf, "queries", 0.4142, 10),
                     ", while the queries moved by at least 41%");
    ck_assert_str_eq(invariance_moved(buf, sizeof buf, "values", 0.5, 0), "");
}
END_TEST

static experiment exp_with(size_t d, size_t dv, const size_t *dk, size_t ndk)
{
    experiment e;
    memset(&e, 0, sizeof e);
    e.o.d = d, e.o.dv = dv;
    if (dv) e.o.dv_list.n = 1, e.o.dv_list.v[0] = dv;
    for (size_t k = 0; k < ndk; k++) e.o.dk_list.v[e.o.dk_list.n++] = dk[k];
    e.o.dk = ndk ? dk[0] : 0;
    return e;
}

START_TEST(test_lowrank_grid)
{
    sweep_grid g;
    lowrank_ctx c;
    experiment e = exp_with(0, 0, NULL, 0);
    ck_assert_int_eq(lowrank_grid(&g, &c, &e), ATT_OK);   /* d_k = 1 .. 32, d_v = d_k */
    ck_assert_uint_eq(g.n[AX_DK], 6);
    ck_assert(g.v[AX_DK][0] == 1 && g.v[AX_DK][5] == 32);
    sweep_point pt = {.T = 16, .d = 64, .dk = 8};
    ck_assert_uint_eq(lowrank_dv(&pt, &c), 8);
    e = exp_with(8, 0, NULL, 0);                          /* below d = 8: 1, 2, 4 */
    ck_assert_int_eq(lowrank_grid(&g, &c, &e), ATT_OK);
    ck_assert_uint_eq(g.n[AX_DK], 3);
    e = exp_with(0, 3, NULL, 0);                          /* --dv 3 alone: d_k = 3 too */
    ck_assert_int_eq(lowrank_grid(&g, &c, &e), ATT_OK);
    ck_assert_uint_eq(g.n[AX_DK], 1);
    ck_assert(g.v[AX_DK][0] == 3);
    ck_assert_uint_eq(lowrank_dv(&pt, &c), 3);
    e = exp_with(1, 0, NULL, 0);                          /* no d_k < 1 */
    ck_assert_int_eq(lowrank_grid(&g, &c, &e), ATT_EUSAGE);
    const size_t big[] = {4, 80};
    e = exp_with(0, 0, big, 2);
    ck_assert_int_eq(lowrank_grid(&g, &c, &e), ATT_EUSAGE);
    ck_assert(strstr(att_last_error(), "d_k = 80") != NULL);
    e = exp_with(0, 70, big, 1);                          /* d_v above d */
    ck_assert_int_eq(lowrank_grid(&g, &c, &e), ATT_EUSAGE);
    e = exp_with(0, 2, NULL, 0);
    e.o.dv_list.n = 2, e.o.dv_list.v[1] = 3;              /* a --dv list */
    ck_assert_int_eq(lowrank_grid(&g, &c, &e), ATT_EUSAGE);
}
END_TEST

START_TEST(test_lowrank_params)
{
    sweep_def def = {0};
    lowrank_ctx c = {0};
    ck_assert_int_eq(lowrank_def(&def, &c), ATT_OK);
    ck_assert_uint_eq(def.nderived, 3);
    sweep_point pt = {.T = 16, .d = 64, .dk = 4};
    double col[3];
    def.derive(col, &pt, NULL, def.ctx);
    ck_assert(col[0] == 512.0 && col[1] == 4096.0 && col[2] == 4.0);   /* 2 d d_k, d^2, d_v */
    /* the shape words with d_v spelt out: d_k, or --dv's number */
    def.work_mats = "T.dv dv.d";
    def.work_heads = "T.T.d.dk.dv";
    ck_assert_int_eq(lowrank_def(&def, &c), ATT_OK);
    ck_assert_str_eq(def.work_mats, "T.dk dk.d");
    ck_assert_str_eq(def.work_heads, "T.T.d.dk.dk");
    c.dv = 12;
    def.work_mats = "d.dv dv.d";
    ck_assert_int_eq(lowrank_def(&def, &c), ATT_OK);
    ck_assert_str_eq(def.work_mats, "d.12 12.d");
    char long_words[400];   /* words that do not fit: an error, not a cut word */
    memset(long_words, 'd', sizeof long_words - 1);
    long_words[sizeof long_words - 1] = '\0';
    def.work_mats = long_words;
    ck_assert_int_eq(lowrank_def(&def, &c), ATT_ERUNTIME);
}
END_TEST

PROP_MAIN("test_invariance", {"grids",
                              60,
                              {test_cond_grid, test_cond_refused, test_allowed_and_moved,
                               test_lowrank_grid, test_lowrank_params}})
