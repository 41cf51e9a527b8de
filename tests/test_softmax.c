/* test_softmax.c - the stable softmax, its non-finite policy, log-sum-exp and
 * the online (chunked) softmax state.
 *
 * Unit tests state the expected output next to the input; property tests
 * (prop.h) check identities over random rows of varying length and scale.
 */
#include "prop.h"
#include "tol.h"
#include "mat.h"
#include "softmax.h"
#include "status.h"

#include <float.h>
#include <math.h>
#include <string.h>
#include <gsl/gsl_randist.h>

#define EPS DBL_EPSILON

/* ---- unit tests ------------------------------------------------------------ */

START_TEST(test_softmax_2x2_by_hand)
{
    /* S = [ 0  ln 3 ]   ->  A = [ 1/4  3/4 ]
     *     [ 1   0   ]           [ e/(e+1)  1/(e+1) ] */
    gsl_matrix *S = mat_new(2, 2), *A = mat_new(2, 2);
    gsl_matrix_set(S, 0, 0, 0.0); gsl_matrix_set(S, 0, 1, log(3.0));
    gsl_matrix_set(S, 1, 0, 1.0); gsl_matrix_set(S, 1, 1, 0.0);
    ck_assert_int_eq(softmax_rows(A, S), ATT_OK);
    double e = exp(1.0);
    ck_assert_double_eq_tol(gsl_matrix_get(A, 0, 0), 0.25, 4 * EPS);
    ck_assert_double_eq_tol(gsl_matrix_get(A, 0, 1), 0.75, 4 * EPS);
    ck_assert_double_eq_tol(gsl_matrix_get(A, 1, 0), e / (e + 1.0), 4 * EPS);
    ck_assert_double_eq_tol(gsl_matrix_get(A, 1, 1), 1.0 / (e + 1.0), 4 * EPS);
    /* in place gives the same */
    ck_assert_int_eq(softmax_rows(S, S), ATT_OK);
    ck_assert_double_eq(mat_diff_frob(S, A), 0.0);
    mat_free(S); mat_free(A);
}
END_TEST

/* softmax of in (n) must be finite and equal want to within tol */
static void check_row(const double *in, const double *want, size_t n, double tol)
{
    double out[8];
    ck_assert_int_eq(softmax_vec(out, in, n), ATT_OK);
    for (size_t j = 0; j < n; j++) {
        ck_assert_msg(isfinite(out[j]), "entry %zu not finite", j);
        ck_assert_msg(fabs(out[j] - want[j]) <= tol, "entry %zu: %.17g, want %.17g",
                      j, out[j], want[j]);
    }
}

START_TEST(test_softmax_large_scores)
{
    /* exp(1e4) and exp(1e300) overflow; after subtracting the max they do not */
    double w1 = 1.0 / (1.0 + exp(-1.0));                  /* two scores 1 apart */
    check_row((double[]){ 1e4, -1e4 }, (double[]){ 1.0, 0.0 }, 2, 0.0);
    check_row((double[]){ 1e4, 1e4 }, (double[]){ 0.5, 0.5 }, 2, 0.0);
    check_row((double[]){ 1e4, 1e4 - 1.0 }, (double[]){ w1, 1.0 - w1 }, 2, 4 * EPS);
    check_row((double[]){ -1e4, -1e4 - 1.0 }, (double[]){ w1, 1.0 - w1 }, 2, 4 * EPS);
    check_row((double[]){ 1e300, -1e300 }, (double[]){ 1.0, 0.0 }, 2, 0.0);
    check_row((double[]){ -1e300, 1e300 }, (double[]){ 0.0, 1.0 }, 2, 0.0);
    check_row((double[]){ 1e300, 1e300 }, (double[]){ 0.5, 0.5 }, 2, 0.0);
    check_row((double[]){-1e300, -1e300, -1e300}, (double[]){1.0 / 3, 1.0 / 3, 1.0 / 3}, 3,
              2 * EPS);
    check_row((double[]){ DBL_MAX, -DBL_MAX }, (double[]){ 1.0, 0.0 }, 2, 0.0);
    /* d = 768: a self-score of 768 against 0 */
    check_row((double[]){ 768.0, 0.0, 0.0 }, (double[]){ 1.0, 0.0, 0.0 }, 3, 0.0);
}
END_TEST

START_TEST(test_softmax_nonfinite_policy)
{
    double out[4];
    /* NaN anywhere -> usage error naming it */
    ck_assert_int_eq(softmax_vec(out, (double[]){ 0.0, NAN, 1.0 }, 3), ATT_EUSAGE);
    ck_assert_ptr_nonnull(strstr(att_last_error(), "NaN"));
    ck_assert_int_eq(softmax_vec(out, (double[]){ INFINITY, NAN }, 2), ATT_EUSAGE);
    /* +inf entries share the weight, finite ones get 0 */
    check_row((double[]){INFINITY, 0.0, INFINITY, -5.0}, (double[]){0.5, 0.0, 0.5, 0.0}, 4, 0.0);
    check_row((double[]){ INFINITY, -INFINITY }, (double[]){ 1.0, 0.0 }, 2, 0.0);
    /* -inf is a masked key: weight 0, the rest renormalised */
    check_row((double[]){ -INFINITY, 0.0, log(3.0) }, (double[]){ 0.0, 0.25, 0.75 }, 3, 4 * EPS);
    /* a fully masked row -> usage error */
    ck_assert_int_eq(softmax_vec(out, (double[]){ -INFINITY, -INFINITY }, 2), ATT_EUSAGE);
    ck_assert_ptr_nonnull(strstr(att_last_error(), "masked"));
    ck_assert_int_eq(softmax_vec(out, out, 0), ATT_EUSAGE);
    /* softmax_rows names the row */
    gsl_matrix *S = mat_new(3, 2), *A = mat_new(3, 2), *B = mat_new(2, 3);
    gsl_matrix_set(S, 2, 0, -INFINITY); gsl_matrix_set(S, 2, 1, -INFINITY);
    ck_assert_int_eq(softmax_rows(A, S), ATT_EUSAGE);
    ck_assert_ptr_nonnull(strstr(att_last_error(), "row 2"));
    gsl_matrix_set(S, 1, 1, NAN);
    ck_assert_int_eq(softmax_rows(A, S), ATT_EUSAGE);
    ck_assert_ptr_nonnull(strstr(att_last_error(), "row 1"));
    /* shape mismatch names both shapes */
    ck_assert_int_eq(softmax_rows(B, S), ATT_EUSAGE);
    ck_assert_ptr_nonnull(strstr(att_last_error(), "(2 x 3)"));
    ck_assert_ptr_nonnull(strstr(att_last_error(), "(3 x 2)"));
    mat_free(S); mat_free(A); mat_free(B);
}
END_TEST

START_TEST(test_logsumexp_values)
{
    double ln2 = log(2.0);
    ck_assert_double_eq_tol(softmax_logsumexp((double[]){ 0.0, 0.0 }, 2), ln2, EPS);
    ck_assert_double_eq_tol(softmax_logsumexp((double[]){1000.0, 1000.0}, 2), 1000.0 + ln2,
                            1000 * EPS);
    ck_assert_double_eq_tol(softmax_logsumexp((double[]){-1000.0, -1000.0}, 2), -1000.0 + ln2,
                            1000 * EPS);
    ck_assert_double_eq(softmax_logsumexp((double[]){ 1e300, 1e300 }, 2), 1e300);
    ck_assert_double_eq(softmax_logsumexp((double[]){ 0.0, -INFINITY }, 2), 0.0);
    ck_assert_double_eq_tol(softmax_logsumexp((double[]){ 0.0, log(3.0) }, 2), log(4.0), 2 * EPS);
    /* log(1 + e^-40): log1p keeps it, 1 + 4e-18 would round to 1 */
    ck_assert_double_eq_tol(softmax_logsumexp((double[]){0.0, -40.0}, 2), exp(-40.0),
                            1e-16 * exp(-40.0) * 4);
    ck_assert(isnan(softmax_logsumexp((double[]){ 0.0, NAN }, 2)));
    ck_assert(softmax_logsumexp((double[]){ 0.0, INFINITY }, 2) == INFINITY);
    ck_assert(softmax_logsumexp((double[]){ -INFINITY, -INFINITY }, 2) == -INFINITY);
    ck_assert(softmax_logsumexp(NULL, 0) == -INFINITY);
}
END_TEST

/* ---- properties ------------------------------------------------------------ */

/* A row of n scores N(0, sigma^2), sigma log-uniform in [1e-3, 1e3], with
 * about a fifth masked (-inf), never all. Returns max |finite score|. */
static double random_row(gsl_rng *rng, double *s, size_t n)
{
    double sigma = pow(10.0, -3.0 + 6.0 * gsl_rng_uniform(rng)), big = 0.0;
    size_t keep = gsl_rng_uniform_int(rng, n);
    for (size_t j = 0; j < n; j++) {
        s[j] = gsl_ran_gaussian(rng, sigma);
        if (j != keep && gsl_rng_uniform(rng) < 0.2) s[j] = -INFINITY;
        else if (fabs(s[j]) > big) big = fabs(s[j]);
    }
    return big;
}

START_TEST(test_prop_rows_sum_to_one)
{
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    PROP_FOR(k, rng, "softmax rows are probability vectors") {
        size_t T_q = prop_size(rng, 1, 12), T_k = prop_size(rng, 1, 60);
        gsl_matrix *S = mat_new(T_q, T_k), *A = mat_new(T_q, T_k);
        for (size_t i = 0; i < T_q; i++) random_row(rng, S->data + i * S->tda, T_k);
        PROP_ASSERT(softmax_rows(A, S) == ATT_OK, "%s", att_last_error());
        for (size_t i = 0; i < T_q; i++) {
            double sum = 0.0;
            for (size_t j = 0; j < T_k; j++) {
                double a = gsl_matrix_get(A, i, j);
                PROP_ASSERT(a >= 0.0 && a <= 1.0, "a[%zu][%zu] = %g", i, j, a);
                if (gsl_matrix_get(S, i, j) == -INFINITY)
                    PROP_ASSERT(a == 0.0, "masked key %zu has weight %g", j, a);
                sum += a;
            }
            PROP_ASSERT(fabs(sum - 1.0) <= tol_eps(4, T_k, 1.0), "row %zu sums to %.17g", i, sum);
        }
        mat_free(S); mat_free(A);
    }
    gsl_rng_free(rng);
}
END_TEST

START_TEST(test_prop_shift_invariance)
{
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    PROP_FOR(k, rng, "softmax ignores a constant added to a row") {
        size_t n = prop_size(rng, 1, 80);
        double s[80], t[80], a[80], b[80];
        double big = random_row(rng, s, n);
        double c = gsl_ran_gaussian(rng, pow(10.0, 4.0 * gsl_rng_uniform(rng)));
        for (size_t j = 0; j < n; j++) t[j] = s[j] + c;
        PROP_ASSERT(softmax_vec(a, s, n) == ATT_OK, "%s", att_last_error());
        PROP_ASSERT(softmax_vec(b, t, n) == ATT_OK, "%s", att_last_error());
        /* exponents s_j - m and (s_j + c) - (m + c) differ by rounding of size
         * eps (|s| + |c|); normalising adds n eps */
        double tol = tol_eps(8, n, 1.0 + fabs(c) + big);
        for (size_t j = 0; j < n; j++)
            PROP_ASSERT(fabs(a[j] - b[j]) <= tol, "j %zu: %.17g vs %.17g (c = %g, tol %g)",
                        j, a[j], b[j], c, tol);
    }
    gsl_rng_free(rng);
}
END_TEST

START_TEST(test_prop_log_softmax)
{
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    PROP_FOR(k, rng, "log softmax_j = s_j - softmax_logsumexp(s)") {
        size_t n = prop_size(rng, 1, 80);
        double s[80], a[80];
        double big = random_row(rng, s, n);
        double lse = softmax_logsumexp(s, n);
        PROP_ASSERT(softmax_vec(a, s, n) == ATT_OK, "%s", att_last_error());
        for (size_t j = 0; j < n; j++) {
            if (!(a[j] > 1e-250)) continue;          /* log of a tiny or zero weight */
            double want = s[j] - lse;
            PROP_ASSERT(fabs(log(a[j]) - want) <= tol_eps(8, n, 1.0 + big + fabs(want)),
                        "j %zu: log a = %.17g, s - lse = %.17g", j, log(a[j]), want);
        }
    }
    gsl_rng_free(rng);
}
END_TEST

START_TEST(test_prop_softmax_lse)
{
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    PROP_FOR(k, rng, "softmax_vec_lse = softmax_vec and softmax_logsumexp, bit for bit") {
        size_t n = prop_size(rng, 1, 80);
        double s[80], a[80], b[80], lse = NAN;
        random_row(rng, s, n);
        if (n > 1 && gsl_rng_uniform(rng) < 0.5) {   /* a tie: the max again, later */
            size_t jm = 0;
            for (size_t j = 1; j < n; j++) if (s[j] > s[jm]) jm = j;
            s[jm + gsl_rng_uniform_int(rng, n - jm)] = s[jm];
        }
        PROP_ASSERT(softmax_vec(a, s, n) == ATT_OK, "%s", att_last_error());
        PROP_ASSERT(softmax_vec_lse(b, s, n, &lse) == ATT_OK, "%s", att_last_error());
        double want = softmax_logsumexp(s, n);
        PROP_ASSERT(memcmp(&lse, &want, sizeof lse) == 0, "lse %.17g, softmax_logsumexp %.17g",
                    lse, want);
        PROP_ASSERT(memcmp(a, b, n * sizeof *a) == 0, "the weights differ from softmax_vec's");
    }
    double o[2], lse = 0.0;
    ck_assert_int_eq(softmax_vec_lse(o, (double[]){0.0, INFINITY}, 2, &lse), ATT_OK);
    ck_assert(lse == INFINITY && o[1] == 1.0);
    gsl_rng_free(rng);
}
END_TEST

START_TEST(test_prop_online_softmax)
{
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    PROP_FOR(k, rng, "chunked online softmax equals the whole-row softmax") {
        size_t n = prop_size(rng, 1, 80);
        double s[80], v[80], a[80];
        double big = random_row(rng, s, n);
        for (size_t j = 0; j < n; j++) v[j] = gsl_ran_gaussian(rng, 1.0);
        /* the plain way: o = sum_j a_j v_j */
        PROP_ASSERT(softmax_vec(a, s, n) == ATT_OK, "%s", att_last_error());
        double o_ref = 0.0, vmax = 0.0;
        for (size_t j = 0; j < n; j++) { o_ref += a[j] * v[j]; vmax = fmax(vmax, fabs(v[j])); }
        /* the online way, over chunks of random length (a chunk may be all -inf) */
        online_softmax st;
        softmax_online_init(&st);
        double o = 0.0;
        for (size_t j0 = 0; j0 < n;) {
            size_t len = prop_size(rng, 1, n - j0);
            double cmax = -INFINITY;
            for (size_t j = j0; j < j0 + len; j++) cmax = fmax(cmax, s[j]);
            o *= softmax_online_rescale(&st, cmax);
            for (size_t j = j0; j < j0 + len; j++) {
                double p = st.m == -INFINITY ? 0.0 : exp(s[j] - st.m);
                st.l += p;
                o += p * v[j];
            }
            j0 += len;
        }
        o /= st.l;
        PROP_ASSERT(fabs(o - o_ref) <= tol_eps(16, n, vmax), "o %.17g vs %.17g", o, o_ref);
        double lse = softmax_logsumexp(s, n);
        PROP_ASSERT(fabs(st.m + log(st.l) - lse) <= tol_eps(8, n, 1.0 + big),
                    "m + log l = %.17g, softmax_logsumexp %.17g", st.m + log(st.l), lse);
    }
    gsl_rng_free(rng);
}
END_TEST

PROP_MAIN("test_softmax",
          {"unit",
           0,
           {test_softmax_2x2_by_hand, test_softmax_large_scores, test_softmax_nonfinite_policy,
            test_logsumexp_values}},
          {"properties",
           120,
           {test_prop_rows_sum_to_one, test_prop_shift_invariance, test_prop_log_softmax,
            test_prop_online_softmax, test_prop_softmax_lse}})
