/* test_tqfk.c - two queries, four keys: the computation and the explorer.
 *
 * Shapes: Q (2, 2), K (4, 2), V (4, 2), S and A (2, 4), O (2, 2).
 * Kinds of test: hand-checked values for the default picture; properties over
 * random configurations (rows of A sum to 1, outputs are weighted averages,
 * equal keys share weight equally); replayed key sequences with the final
 * state written out next to them.
 */
#include <check.h>
#include <float.h>
#include <locale.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <gsl/gsl_randist.h>

#include "explorer.h"
#include "tol.h"
#include "prop.h"
#include "status.h"
#include "tqfk.h"

/* A random configuration: coordinates ~ N(0, sigma^2), sigma in [0.1, 5],
 * scale uniform in [0, 4]. */
static void random_config(gsl_rng *rng, tqfk_config *c)
{
    double sigma = 0.1 + 4.9 * gsl_rng_uniform(rng);
    for (int i = 0; i < TQFK_NVEC; i++) {
        double *x = tqfk_vec(c, i);
        x[0] = gsl_ran_gaussian(rng, sigma);
        x[1] = gsl_ran_gaussian(rng, sigma);
    }
    c->scale = 4.0 * gsl_rng_uniform(rng);
}

static int config_equal(const tqfk_config *a, const tqfk_config *b)
{
    return memcmp(a, b, sizeof *a) == 0;
}

/* ---- the computation -------------------------------------------------- */

START_TEST(test_default_by_hand)
{
    /* q1 . k = (2, 1, -2, -1), q2 . k = (-2, 2, 2, -2), scale 1:
     *   a_1 = (e^2, e, e^-2, e^-1) / (e^2 + e + e^-2 + e^-1)
     *   a_2 = (e^-2, e^2, e^2, e^-2) / (2 e^2 + 2 e^-2)
     *   o_i = sum_j a_ij v_j */
    tqfk_config c;
    tqfk_result r;
    tqfk_config_default(&c);
    ck_assert_int_eq(tqfk_compute(&r, &c), ATT_OK);
    const double s1[4] = {2, 1, -2, -1}, s2[4] = {-2, 2, 2, -2};
    double z1 = exp(2) + exp(1) + exp(-2) + exp(-1), z2 = 2 * exp(2) + 2 * exp(-2);
    double tol = 1e-15;
    for (int j = 0; j < 4; j++) {
        ck_assert_double_eq(r.S[0][j], s1[j]);      /* small integers: exact */
        ck_assert_double_eq(r.S[1][j], s2[j]);
        ck_assert_double_eq_tol(r.A[0][j], exp(s1[j]) / z1, tol);
        ck_assert_double_eq_tol(r.A[1][j], exp(s2[j]) / z2, tol);
    }
    /* q2 sits halfway between k2 and k3: they share its weight exactly */
    ck_assert(r.A[1][1] == r.A[1][2]);
    ck_assert_double_eq_tol(r.A[1][1], 1.0 / (2.0 + 2.0 * exp(-4)), tol);
    ck_assert(r.A[0][0] > 0.69);          /* q1 leans towards k1: 0.696 */
    for (int i = 0; i < 2; i++)
        for (int d = 0; d < 2; d++) {
            double o = 0.0;
            for (int j = 0; j < 4; j++) o += (i ? exp(s2[j]) / z2 : exp(s1[j]) / z1) * c.v[j][d];
            ck_assert_double_eq_tol(r.O[i][d], o, 1e-14);
        }
    /* o2 = a (v2 + v3) + b (v1 + v4) with v1 + v4 = (-4, -1), v2 + v3 = (4, 2) */
    double a = 1.0 / (2.0 + 2.0 * exp(-4)), b = 0.5 - a;
    ck_assert_double_eq_tol(r.O[1][0], 4 * a - 4 * b, 1e-14);
    ck_assert_double_eq_tol(r.O[1][1], 2 * a - b, 1e-14);
}
END_TEST

START_TEST(test_scale_zero_is_plain_average)
{
    /* s = 0: every score is 0, every weight 1/4, every output the mean value */
    tqfk_config c;
    tqfk_result r;
    tqfk_config_default(&c);
    c.scale = 0.0;
    ck_assert_int_eq(tqfk_compute(&r, &c), ATT_OK);
    for (int i = 0; i < 2; i++) {
        for (int j = 0; j < 4; j++) ck_assert_double_eq(r.A[i][j], 0.25);
        ck_assert_double_eq_tol(r.O[i][0], (-3 + 1 + 3 - 1) / 4.0, 1e-15);
        ck_assert_double_eq_tol(r.O[i][1], (2 + 3 - 1 - 3) / 4.0, 1e-15);
    }
}
END_TEST

START_TEST(test_huge_scores_stay_finite)
{
    /* scores of 1e6: exp() would overflow without the max subtraction */
    tqfk_config c;
    tqfk_result r;
    tqfk_config_default(&c);
    c.scale = 1e6;
    ck_assert_int_eq(tqfk_compute(&r, &c), ATT_OK);
    ck_assert_double_eq(r.A[0][0], 1.0);            /* e^{-2e6} underflows to 0 */
    ck_assert_double_eq(r.A[1][1], 0.5);
    ck_assert_double_eq(r.A[1][2], 0.5);
    ck_assert_double_eq(r.O[0][0], c.v[0][0]);
}
END_TEST

START_TEST(prop_rows_sum_to_one_and_outputs_average)
{
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    PROP_FOR(k, rng, "tqfk rows sum to 1, outputs are weighted averages") {
        tqfk_config c;
        tqfk_result r;
        tqfk_check ck;
        random_config(rng, &c);
        PROP_ASSERT(tqfk_compute(&r, &c) == ATT_OK, "%s", att_last_error());
        tqfk_check_result(&ck, &c, &r);
        PROP_ASSERT(ck.row_sum_err <= tol_eps(4.0, TQFK_NK, 1.0), "row sum error %g",
                    ck.row_sum_err);
        PROP_ASSERT(ck.average_err <= tol_eps(4.0, TQFK_NK, ck.value_scale),
                    "average error %g, tol %g", ck.average_err,
                    tol_eps(4.0, TQFK_NK, ck.value_scale));
        for (int i = 0; i < 2; i++)
            for (int d = 0; d < 2; d++) {
                /* a weighted average lies between the smallest and largest value */
                double lo = INFINITY, hi = -INFINITY;
                for (int j = 0; j < 4; j++) {
                    PROP_ASSERT(r.A[i][j] >= 0.0 && r.A[i][j] <= 1.0, "weight %g", r.A[i][j]);
                    lo = fmin(lo, c.v[j][d]);
                    hi = fmax(hi, c.v[j][d]);
                }
                double t = tol_eps(4.0, TQFK_NK, ck.value_scale);
                PROP_ASSERT(r.O[i][d] >= lo - t && r.O[i][d] <= hi + t,
                            "output %g outside [%g, %g]", r.O[i][d], lo, hi);
            }
    }
    gsl_rng_free(rng);
}
END_TEST

START_TEST(prop_equal_keys_share_equally)
{
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    PROP_FOR(k, rng, "tqfk two equal keys get equal weight") {
        tqfk_config c;
        tqfk_result r;
        random_config(rng, &c);
        int a = (int)gsl_rng_uniform_int(rng, 4),
            b = (a + 1 + (int)gsl_rng_uniform_int(rng, 3)) % 4;
        c.k[b][0] = c.k[a][0];
        c.k[b][1] = c.k[a][1];
        PROP_ASSERT(tqfk_compute(&r, &c) == ATT_OK, "%s", att_last_error());
        for (int i = 0; i < 2; i++)
            PROP_ASSERT(fabs(r.A[i][a] - r.A[i][b]) <= 4 * DBL_EPSILON,
                        "k%d = k%d but weights %.17g vs %.17g", a + 1, b + 1, r.A[i][a], r.A[i][b]);
    }
    gsl_rng_free(rng);
}
END_TEST

START_TEST(test_config_limits)
{
    /* coordinates and scale up to 1e6 keep every score finite; beyond: usage */
    tqfk_config c;
    tqfk_config_default(&c);
    ck_assert_int_eq(tqfk_config_check(&c), ATT_OK);
    c.v[2][1] = -1e6;
    c.scale = 1e6;
    ck_assert_int_eq(tqfk_config_check(&c), ATT_OK);
    c.k[3][0] = 1.5e6;
    ck_assert_int_eq(tqfk_config_check(&c), ATT_EUSAGE);
    ck_assert_ptr_nonnull(strstr(att_last_error(), "--k4"));
    tqfk_config_default(&c);
    c.scale = -2e6;
    ck_assert_int_eq(tqfk_config_check(&c), ATT_EUSAGE);
    ck_assert_ptr_nonnull(strstr(att_last_error(), "--scale"));
}
END_TEST

START_TEST(test_print_args_round_trip)
{
    tqfk_config c;
    tqfk_config_default(&c);
    c.q[0][0] = 0.1;
    char buf[1024];
    FILE *f = fmemopen(buf, sizeof buf, "w");
    tqfk_print_args(f, &c);
    fclose(f);
    ck_assert_str_eq(buf, "--q1 0.1,0.5 --q2 -1,1 --k1 2,0 --k2 0,2 --k3 -2,0 --k4 0,-2 "
                          "--v1 -3,2 --v2 1,3 --v3 3,-1 --v4 -1,-3 --scale 1");
}
END_TEST

/* A locale whose decimal point is a comma, set for LC_NUMERIC; NULL if this
 * system has none (tests/test_tqfk_locale.sh builds de_DE.UTF-8 with
 * localedef and runs this test under LOCPATH). */
static const char *set_comma_locale(void)
{
    static const char *const names[] = {"de_DE.UTF-8", "de_DE.utf8", "fr_FR.UTF-8", "nl_NL.UTF-8",
                                        "ru_RU.UTF-8", "es_ES.UTF-8", "it_IT.UTF-8"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (setlocale(LC_NUMERIC, names[i]) && localeconv()->decimal_point[0] == ',')
            return names[i];
    setlocale(LC_NUMERIC, "C");
    return NULL;
}

START_TEST(prop_format_num_locale_independent)
{
    /* the explorer runs under the terminal's locale; the numbers of its
     * options line must still read back exactly under the C locale, where
     * the option parser reads them */
    const char *loc = set_comma_locale();
    if (loc) {
        char ctl[16];
        snprintf(ctl, sizeof ctl, "%g", 0.5);      /* control: the locale is active */
        ck_assert_str_eq(ctl, "0,5");
    } else {
        fprintf(stderr, "tqfk: no decimal-comma locale installed: the formatter is checked in "
                        "the C locale only here (tests/test_tqfk_locale.sh runs it under de_DE)\n");
    }
    locale_t cl = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
    ck_assert_ptr_nonnull(cl);
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    PROP_FOR(k, rng, "tqfk numbers print with a point and read back exactly") {
        double x = ldexp(gsl_rng_uniform(rng) - 0.5, (int)gsl_rng_uniform_int(rng, 80) - 40);
        char buf[40];
        tqfk_format_num(buf, sizeof buf, x);
        PROP_ASSERT(strchr(buf, ',') == NULL, "%s under %s", buf, loc ? loc : "C");
        PROP_ASSERT(strtod_l(buf, NULL, cl) == x, "%s reads back as %.17g, not %.17g", buf,
                    strtod_l(buf, NULL, cl), x);
    }
    /* the whole explorer printout is the same as under the C locale */
    explorer e;
    tqfk_config c;
    tqfk_config_default(&c);
    c.q[0][0] = 0.1;
    ck_assert_int_eq(explorer_init(&e, &c), ATT_OK);
    ck_assert_int_eq(explorer_replay(&e, "tl-k]"), ATT_OK);
    char here[2048], in_c[2048];
    FILE *f = fmemopen(here, sizeof here, "w");
    explorer_print(f, &e);
    fclose(f);
    setlocale(LC_NUMERIC, "C");
    f = fmemopen(in_c, sizeof in_c, "w");
    explorer_print(f, &e);
    fclose(f);
    ck_assert_str_eq(here, in_c);
    ck_assert_ptr_nonnull(strstr(here, "options: --q1 0.1,0.5 --q2 -0.75,1.125 "));
    freelocale(cl);
    gsl_rng_free(rng);
}
END_TEST

/* ---- the explorer ----------------------------------------------------- */

START_TEST(test_replay_sequence)
{
    /* keys            state after them (start: defaults, q1 selected, step 1/4)
     *   t             q2 selected
     *   l             q2 = (-0.75, 1)
     *   +             step 0.5
     *   k             q2 = (-0.75, 1.5)
     *   T T           q1, then v4 (wraps round backwards)
     *   h             v4 = (-1.5, -3)
     *   ] ]           scale 1.5
     *   - -           step 0.125
     *   j             v4 = (-1.5, -3.125)
     *   q             quit; the trailing "lll" is checked but not applied   */
    explorer e;
    tqfk_config start, want;
    tqfk_result r;
    tqfk_config_default(&start);
    ck_assert_int_eq(explorer_init(&e, &start), ATT_OK);
    ck_assert_int_eq(explorer_replay(&e, "tl+kTTh]]--jqlll"), ATT_OK);

    want = start;
    want.q[1][0] = -0.75;
    want.q[1][1] = 1.5;
    want.v[3][0] = -1.5;
    want.v[3][1] = -3.125;
    want.scale = 1.5;
    ck_assert(config_equal(&e.cfg, &want));
    ck_assert_str_eq(tqfk_vec_name(e.sel), "v4");
    ck_assert_double_eq(e.step, 0.125);
    ck_assert_int_eq(e.quit, 1);
    ck_assert_uint_eq(e.keys, 13);
    /* the weights are those of the final configuration */
    ck_assert_int_eq(tqfk_compute(&r, &want), ATT_OK);
    ck_assert(memcmp(&r, &e.res, sizeof r) == 0);
}
END_TEST

START_TEST(test_replay_reset_and_limits)
{
    explorer e;
    tqfk_config start;
    tqfk_config_default(&start);

    /* r restores vectors, scale and step; the selection stays */
    ck_assert_int_eq(explorer_init(&e, &start), ATT_OK);
    ck_assert_int_eq(explorer_replay(&e, "tlll+kk]]]r"), ATT_OK);
    ck_assert(config_equal(&e.cfg, &start));
    ck_assert_double_eq(e.step, EXPLORER_STEP_DEFAULT);
    ck_assert_int_eq(e.sel, 1);

    /* the step stops at 2 and at 1/64; q1 stops at the range 4 */
    ck_assert_int_eq(explorer_init(&e, &start), ATT_OK);
    ck_assert_int_eq(explorer_replay(&e, "+++++"), ATT_OK);
    ck_assert_double_eq(e.step, 2.0);
    ck_assert_int_eq(explorer_replay(&e, "lll"), ATT_OK);
    ck_assert_double_eq(e.cfg.q[0][0], 4.0);
    ck_assert_int_eq(explorer_replay(&e, "---------"), ATT_OK);
    ck_assert_double_eq(e.step, 1.0 / 64.0);

    /* the scale stops at 0 (uniform weights) and at 8 */
    ck_assert_int_eq(explorer_replay(&e, "[[[[[[["), ATT_OK);
    ck_assert_double_eq(e.cfg.scale, 0.0);
    ck_assert_double_eq(e.res.A[0][2], 0.25);
    for (int i = 0; i < 40; i++) ck_assert_int_eq(explorer_replay(&e, "]"), ATT_OK);
    ck_assert_double_eq(e.cfg.scale, 8.0);

    /* a start beyond 4 widens the range to hold it */
    start.v[0][0] = -6.5;
    ck_assert_int_eq(explorer_init(&e, &start), ATT_OK);
    ck_assert_double_eq(e.range, 7.0);
}
END_TEST

START_TEST(test_replay_bad_key)
{
    explorer e;
    tqfk_config start;
    tqfk_config_default(&start);
    ck_assert_int_eq(explorer_init(&e, &start), ATT_OK);
    /* a bad letter anywhere: usage error naming it, and nothing applied */
    ck_assert_int_eq(explorer_replay(&e, "tlxl"), ATT_EUSAGE);
    ck_assert_ptr_nonnull(strstr(att_last_error(), "'x'"));
    ck_assert_ptr_nonnull(strstr(att_last_error(), "character 3 of 4"));
    ck_assert_uint_eq(e.keys, 0);
    ck_assert(config_equal(&e.cfg, &start));
    ck_assert_int_eq(explorer_replay(&e, "qq\t"), ATT_EUSAGE);
    ck_assert_ptr_nonnull(strstr(att_last_error(), "\\x09"));
    ck_assert_int_eq(explorer_replay(&e, "t t"), ATT_EUSAGE);
}
END_TEST

START_TEST(prop_random_replays_keep_invariants)
{
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    PROP_FOR(k, rng, "tqfk explorer invariants under random keys") {
        const char *letters = EXPLORER_KEY_LETTERS;
        size_t nl = strlen(letters) - 1;           /* every letter but q */
        char keys[200];
        size_t n = prop_size(rng, 1, sizeof keys - 1);
        for (size_t i = 0; i < n; i++) keys[i] = letters[gsl_rng_uniform_int(rng, nl)];
        keys[n] = '\0';
        explorer e;
        tqfk_config start;
        tqfk_result r;
        tqfk_config_default(&start);
        PROP_ASSERT(explorer_init(&e, &start) == ATT_OK, "init");
        PROP_ASSERT(explorer_replay(&e, keys) == ATT_OK, "%s", att_last_error());
        PROP_ASSERT(e.keys == n && !e.quit, "%zu keys applied of %zu", e.keys, n);
        PROP_ASSERT(e.sel >= 0 && e.sel < TQFK_NVEC, "selection %d", e.sel);
        int ex;
        PROP_ASSERT(frexp(e.step, &ex) == 0.5, "step %g is not a power of two", e.step);
        PROP_ASSERT(e.step >= EXPLORER_STEP_MIN && e.step <= EXPLORER_STEP_MAX, "step %g", e.step);
        PROP_ASSERT(e.cfg.scale >= 0 && e.cfg.scale <= EXPLORER_SCALE_MAX, "scale %g", e.cfg.scale);
        for (int i = 0; i < TQFK_NVEC; i++) {
            const double *x = tqfk_vec_const(&e.cfg, i);
            PROP_ASSERT(fabs(x[0]) <= e.range && fabs(x[1]) <= e.range, "%s out of range",
                        tqfk_vec_name(i));
        }
        /* the shown weights are always those of the shown configuration */
        PROP_ASSERT(tqfk_compute(&r, &e.cfg) == ATT_OK, "compute");
        PROP_ASSERT(memcmp(&r, &e.res, sizeof r) == 0, "stale weights after \"%s\"", keys);
    }
    gsl_rng_free(rng);
}
END_TEST

/* The headline (tqfk_average_units): over random states a correct head is within its
 * rounding bound; planted wrong heads are not: the scale dropped, the weights left
 * unnormalised, the values paired with the wrong keys. */
static double units_of(const tqfk_config *c, int wrong)
{
    tqfk_config w = *c;
    tqfk_result r;
    if (wrong == 1) w.scale = 1.0;   /* the scale dropped */
    if (wrong == 3)                   /* values shifted by one key */
        for (int j = 0; j < TQFK_NK; j++) memcpy(w.v[j], c->v[(j + 1) % TQFK_NK], sizeof w.v[j]);
    ck_assert_int_eq(tqfk_compute(&r, &w), ATT_OK);
    if (wrong == 2)                   /* o_i = sum_j e^{s_ij - max} v_j, not divided by the sum */
        for (int i = 0; i < TQFK_NQ; i++) {
            double mx = fmax(fmax(r.S[i][0], r.S[i][1]), fmax(r.S[i][2], r.S[i][3]));
            for (int d = 0; d < TQFK_DIM; d++) {
                r.O[i][d] = 0.0;
                for (int j = 0; j < TQFK_NK; j++) r.O[i][d] += exp(r.S[i][j] - mx) * c->v[j][d];
            }
        }
    return tqfk_average_units(c, &r);
}

START_TEST(prop_headline_fails_on_wrong_heads)
{
    gsl_rng *rng = rng_new("mt19937", 0);
    size_t n = 0, caught[4] = {0};
    PROP_FOR(k, rng, "outputs within their rounding bound; wrong heads outside it")
    {
        tqfk_config c;
        tqfk_random_state(rng, &c);
        double u = units_of(&c, 0);
        PROP_ASSERT(u <= 1.0, "a correct head at %g bounds", u);
        for (int w = 1; w <= 3; w++) caught[w] += units_of(&c, w) > 1.0;
        n++;
    }
    for (int w = 1; w <= 3; w++)
        ck_assert_msg(caught[w] >= n * 9 / 10, "wrong head %d caught in only %zu of %zu states", w,
                      caught[w], n);
    gsl_rng_free(rng);
}
END_TEST

static Suite *tqfk_suite(void)
{
    Suite *s = suite_create("tqfk");
    TCase *tc = tcase_create("computation");
    tcase_add_test(tc, test_default_by_hand);
    tcase_add_test(tc, test_scale_zero_is_plain_average);
    tcase_add_test(tc, test_huge_scores_stay_finite);
    tcase_add_test(tc, prop_rows_sum_to_one_and_outputs_average);
    tcase_add_test(tc, prop_equal_keys_share_equally);
    tcase_add_test(tc, test_config_limits);
    tcase_add_test(tc, test_print_args_round_trip);
    tcase_add_test(tc, prop_format_num_locale_independent);
    tcase_add_test(tc, prop_headline_fails_on_wrong_heads);
    suite_add_tcase(s, tc);
    tc = tcase_create("explorer");
    tcase_add_test(tc, test_replay_sequence);
    tcase_add_test(tc, test_replay_reset_and_limits);
    tcase_add_test(tc, test_replay_bad_key);
    tcase_add_test(tc, prop_random_replays_keep_invariants);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    prop_announce("tqfk");
    return prop_run_suite(tqfk_suite());
}
