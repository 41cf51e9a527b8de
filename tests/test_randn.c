/* test_randn.c - randn_fill (lib/math/randn.h) gives gsl_ran_gaussian_ziggurat's
 * doubles, bit for bit, and leaves the generator where GSL's calls leave it.
 *
 * Per case: a generator (mt19937 and its 1999 seeding, taus, taus2: bulk paths;
 * cmrg: the bulk path of 31-bit words, two per variate; ranlxd2, gfsr4: the
 * fallback), a seed, a length up to 3000 (several 624-word
 * regenerations of mt19937), a sigma (1, negative, tiny, huge, log-uniform),
 * filled in random chunks. The reference runs GSL's calls on the same generator
 * wrapped in a word counter: a variate that used more than its one word (two for
 * cmrg) left the fast path; the suite asserts that wedges, tails (|x| > r =
 * 3.44428647676) and restarts all occurred and matched, and cmrg's slow variates.
 */
#include "prop.h"
#include "randn.h"
#include "mat.h"

#include <math.h>
#include <string.h>
#include <gsl/gsl_randist.h>

/* ---- a generator that forwards to another and counts the words it gives ---- */
typedef struct { gsl_rng *inner; unsigned long words; } counted;
static void counted_set(void *s, unsigned long seed) { (void)s, (void)seed; }
static unsigned long counted_get(void *vs)
{
    counted *c = vs;
    c->words++;
    return gsl_rng_get(c->inner);
}
static double counted_get_double(void *vs)
{
    counted *c = vs;
    c->words++;
    return gsl_rng_uniform(c->inner);
}

static const char *const GENS[] = {"mt19937", "mt19937_1999", "taus", "taus2", "ranlxd2", "gfsr4",
                                   "cmrg"};
enum { NGENS = 7, MAXN = 3000 };

static double draw_sigma(gsl_rng *rng)
{
    switch (gsl_rng_uniform_int(rng, 5)) {
    case 0: return 1.0;
    case 1: return -2.5;
    case 2: return 1e-300;
    case 3: return 1e300;
    default: return rng_log_uniform(rng, -3.0, 3.0);
    }
}

START_TEST(test_prop_randn_identical)
{
    static double got[MAXN], want[MAXN];
    static unsigned long used[MAXN];
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    size_t fast_cases = 0, wedges = 0, tails = 0, restarts = 0, total = 0, slow2 = 0;
    PROP_FOR(k, rng, "randn_fill = gsl_ran_gaussian_ziggurat")
    {
        const char *name = GENS[k % NGENS];
        unsigned long seed = gsl_rng_get(rng);
        size_t n = prop_size(rng, 1, MAXN);
        double sigma = draw_sigma(rng);
        gsl_rng *a = rng_new(name, seed), *b = rng_new(name, seed);
        ck_assert(a && b);
        int fast = randn_has_fast_path(a);
        /* the words of a fast-path variate: 1, or 2 for 31-bit words (cmrg) */
        unsigned long per = a->type->max - a->type->min >= 0xffffffffUL ? 1 : 2;
        fast_cases += (size_t)fast;
        /* the bulk fill, in random chunks */
        for (size_t m = 0; m < n;) {
            size_t c = prop_size(rng, 1, n - m);
            randn_fill(a, got + m, c, sigma);
            m += c;
        }
        /* the reference, one GSL call per variate on b (through the counter) */
        counted cs = {b, 0};
        const gsl_rng_type ct = {"counted",   b->type->max, b->type->min,      sizeof(counted),
                                 counted_set, counted_get,  counted_get_double};
        gsl_rng cr = {&ct, &cs};
        for (size_t m = 0; m < n; m++) {
            unsigned long w0 = cs.words;
            want[m] = gsl_ran_gaussian_ziggurat(&cr, sigma);
            used[m] = cs.words - w0;
        }
        for (size_t m = 0; m < n; m++) {
            PROP_ASSERT(
                memcmp(&got[m], &want[m], sizeof(double)) == 0,
                "%s seed %lu sigma %g: variate %zu of %zu is %.17g, GSL's %.17g (%lu words)", name,
                seed, sigma, m, n, got[m], want[m], used[m]);
            slow2 += fast && per == 2 && used[m] > 2;
            if (fast && per == 1 && used[m] > 1) {
                double r = fabs(want[m] / sigma);
                if (r > 3.44428647676) tails++;
                else wedges++;
                if (used[m] > 3) restarts++;
            }
        }
        total += n;
        /* the same state: the same bytes, and the same next words */
        PROP_ASSERT(memcmp(gsl_rng_state(a), gsl_rng_state(b), gsl_rng_size(a)) == 0,
                    "%s seed %lu n %zu: generator state differs after the fill", name, seed, n);
        for (int w = 0; w < 700; w++) {
            unsigned long x = gsl_rng_get(a), y = gsl_rng_get(b);
            PROP_ASSERT(x == y, "%s seed %lu n %zu: word %d after the fill %lu, GSL's %lu", name,
                        seed, n, w, x, y);
        }
        gsl_rng_free(a);
        gsl_rng_free(b);
    }
    gsl_rng_free(rng);
    printf("randn: %zu variates; of the 32-bit bulk paths' slow variates: %zu wedge, %zu tail, "
           "%zu restarted; cmrg's: %zu\n",
           total, wedges, tails, restarts, slow2);
    if (total > 100000) {   /* the default case count: every slow branch was exercised */
        ck_assert_uint_gt(fast_cases, 0);
        ck_assert_uint_gt(wedges, 100);
        ck_assert_uint_gt(tails, 10);
        ck_assert_uint_gt(restarts, 10);
        ck_assert_uint_gt(slow2, 100);
    }
}
END_TEST

/* mat_randn, mat_vec_randn (strided too) draw the entries in row order, like GSL's calls */
START_TEST(test_mat_vec_randn_order)
{
    gsl_rng *a = rng_new("mt19937", 77), *b = rng_new("mt19937", 77);
    gsl_matrix *big = mat_new(9, 13);
    gsl_matrix_view A = gsl_matrix_submatrix(big, 1, 2, 7, 5);   /* tda 13 != 5 */
    mat_randn(a, &A.matrix, 0.5);
    for (size_t i = 0; i < 7; i++)
        for (size_t j = 0; j < 5; j++) {
            double x = gsl_ran_gaussian_ziggurat(b, 0.5), y = gsl_matrix_get(&A.matrix, i, j);
            ck_assert(memcmp(&x, &y, sizeof x) == 0);
        }
    ck_assert_double_eq(gsl_matrix_get(big, 0, 0), 0.0);        /* outside the view: untouched */
    ck_assert_double_eq(gsl_matrix_get(big, 1, 7), 0.0);
    gsl_vector_view col = gsl_matrix_column(big, 12);           /* stride 13 */
    mat_vec_randn(a, &col.vector, 2.0);
    for (size_t i = 0; i < 9; i++) {
        double x = gsl_ran_gaussian_ziggurat(b, 2.0), y = gsl_vector_get(&col.vector, i);
        ck_assert(memcmp(&x, &y, sizeof x) == 0);
    }
    mat_free(big);
    gsl_rng_free(a);
    gsl_rng_free(b);
}
END_TEST

PROP_MAIN("test_randn", {"core", 0, {test_mat_vec_randn_order}},
          {"properties", 300, {test_prop_randn_identical}})
