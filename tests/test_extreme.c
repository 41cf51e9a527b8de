/* test_extreme.c - one head on extreme inputs: the softmax policy of
 * lib/softmax.h seen through the whole head (lib/head.h).
 *
 * The policy: any finite score is fine (the row max is subtracted); +inf
 * entries share the row's weight equally; -inf entries get weight 0; a NaN
 * score, or a row with every entry -inf, is ATT_EUSAGE. bin/attention adds:
 * Q, K, V, O and the gradients must be finite (tests/test_bad_inputs.sh
 * checks that part through the binary).
 *
 * The worked example ("the cat sat", shared/claims.md) is the input:
 *   S = [0 0 0; 3 0 0; 0 3 0] at scale 1, so at scale c the rows are
 *   "the" (0,0,0), "cat" (3c,0,0), "sat" (0,3c,0).
 */
#include "prop.h"
#include "tol.h"
#include "head.h"
#include "mat.h"
#include "softmax.h"
#include "status.h"

#include <float.h>
#include <math.h>

static gsl_matrix *mat_rows(size_t r, size_t c, const double *v)
{
    gsl_matrix *A = mat_new(r, c);
    for (size_t i = 0; i < r; i++)
        for (size_t j = 0; j < c; j++) gsl_matrix_set(A, i, j, v[i * c + j]);
    return A;
}

typedef struct { gsl_matrix *X, *WQ, *WK, *WV; } worked;

static worked worked_make(void)
{
    const double X[] = {1, 0, 0, 0, 0, 1, 0, 1, 0, 0, 1, 0};
    const double WQ[] = {0, 0, 0, 3, 3, 0, 0, 0};
    const double WK[] = {0, 1, 1, 0, 0, 0, 0, 0};
    const double WV[] = {0, 1, 0, 0, 0, 0, 1, 0};
    return (worked){mat_rows(3, 4, X), mat_rows(4, 2, WQ), mat_rows(4, 2, WK), mat_rows(4, 2, WV)};
}

static void worked_free(worked *w)
{
    mat_free(w->X); mat_free(w->WQ); mat_free(w->WK); mat_free(w->WV);
}

/* A of the worked example at score scale c must equal want (3 x 3) exactly,
 * and the backward pass from G = ones must give finite gradients. */
static void check_scale(double c, const double want[9])
{
    worked w = worked_make();
    head_params p = head_params_make(w.WQ, w.WK, w.WV);
    p.scale = c;
    head_state st;
    head_grads g;
    ck_assert_int_eq(head_state_alloc(&st, 3, 3, 4, 2, 2), ATT_OK);
    ck_assert_int_eq(head_forward(&st, &p, w.X, w.X), ATT_OK);
    for (size_t i = 0; i < 3; i++)
        for (size_t j = 0; j < 3; j++)
            ck_assert_msg(gsl_matrix_get(st.A, i, j) == want[3 * i + j],
                          "scale %g: A(%zu,%zu) = %.17g, want %.17g", c, i, j,
                          gsl_matrix_get(st.A, i, j), want[3 * i + j]);
    ck_assert_msg(isfinite(mat_max_abs(st.O)), "scale %g: O not finite", c);

    gsl_matrix *G = mat_new(3, 2);
    gsl_matrix_set_all(G, 1.0);
    ck_assert_int_eq(head_grads_alloc(&g, 3, 3, 4, 2, 2), ATT_OK);
    ck_assert_int_eq(head_backward(&g, &st, &p, w.X, w.X, G), ATT_OK);
    ck_assert_msg(isfinite(mat_max_abs(g.dXq)) && isfinite(mat_max_abs(g.dXkv)) &&
                  isfinite(mat_max_abs(g.dW_Q)) && isfinite(mat_max_abs(g.dW_K)) &&
                  isfinite(mat_max_abs(g.dW_V)), "scale %g: a gradient is not finite", c);
    mat_free(G);
    head_grads_free(&g);
    head_state_free(&st);
    worked_free(&w);
}

START_TEST(test_worked_huge_scales)
{
    const double third = 1.0 / 3.0;
    /* +-1e300: finite scores 3e300 apart -> one-hot rows; "the" stays uniform */
    const double plus[9] = {third, third, third, 1, 0, 0, 0, 1, 0};
    const double minus[9] = {third, third, third, 0, 0.5, 0.5, 0.5, 0, 0.5};
    check_scale(1e300, plus);
    check_scale(-1e300, minus);
    /* 1e308: 3c overflows to +inf, which takes the whole row; -1e308 gives
     * -inf, weight 0, and the two zeros share the row */
    check_scale(1e308, plus);
    check_scale(-1e308, minus);
    check_scale(DBL_MAX, plus);
    check_scale(-DBL_MAX, minus);
}
END_TEST

/* Rows of S straight into the softmax, with the expected row next to each. */
START_TEST(test_policy_rows)
{
    const double inf = INFINITY;
    struct { double s[3]; double a[3]; } ok[] = {
        {{1e300, -1e300, 0}, {1, 0, 0}},
        {{1e300, 1e300, -1e300}, {0.5, 0.5, 0}},
        {{-1e300, -1e300, -1e300}, {1.0 / 3, 1.0 / 3, 1.0 / 3}},
        {{DBL_MAX, -DBL_MAX, 0}, {1, 0, 0}},
        {{inf, 0, inf}, {0.5, 0, 0.5}},
        {{inf, -inf, 1e300}, {1, 0, 0}},
        {{-inf, 0, 0}, {0, 0.5, 0.5}},
        {{-inf, -inf, 5}, {0, 0, 1}},
        {{inf, inf, inf}, {1.0 / 3, 1.0 / 3, 1.0 / 3}},
    };
    for (size_t c = 0; c < sizeof ok / sizeof ok[0]; c++) {
        double out[3];
        ck_assert_msg(softmax_vec(out, ok[c].s, 3) == ATT_OK, "row %zu refused: %s", c,
                      att_last_error());
        for (int j = 0; j < 3; j++)
            ck_assert_msg(fabs(out[j] - ok[c].a[j]) <= 2 * DBL_EPSILON,
                          "row %zu entry %d: %.17g want %.17g", c, j, out[j], ok[c].a[j]);
    }
    struct { double s[3]; const char *needle; } bad[] = {
        {{NAN, 0, 0}, "NaN"},
        {{1, NAN, inf}, "NaN"},
        {{-inf, -inf, -inf}, "fully masked"},
    };
    for (size_t c = 0; c < sizeof bad / sizeof bad[0]; c++) {
        double out[3];
        ck_assert_int_eq(softmax_vec(out, bad[c].s, 3), ATT_EUSAGE);
        ck_assert_msg(strstr(att_last_error(), bad[c].needle) != NULL, "row %zu: %s", c,
                      att_last_error());
    }
    /* through softmax_rows the message names the row */
    const double S[] = {0, 1, -inf, -inf};
    gsl_matrix *Sm = mat_rows(2, 2, S), *A = mat_new(2, 2);
    ck_assert_int_eq(softmax_rows(A, Sm), ATT_EUSAGE);
    ck_assert_ptr_nonnull(strstr(att_last_error(), "row 1"));
    mat_free(Sm);
    mat_free(A);
}
END_TEST

/* A head whose scores are a single product that overflows: one token, d = 1,
 * q = k = 1e200 gives s = +inf -> a = 1; k = -1e200 gives s = -inf, a row
 * with nothing left: ATT_EUSAGE. */
START_TEST(test_head_single_overflow)
{
    gsl_matrix *X = mat_new(1, 1), *WQ = mat_new(1, 1), *WK = mat_new(1, 1), *WV = mat_new(1, 1);
    gsl_matrix_set(X, 0, 0, 1.0);
    gsl_matrix_set(WQ, 0, 0, 1e200);
    gsl_matrix_set(WK, 0, 0, 1e200);
    gsl_matrix_set(WV, 0, 0, 2.0);
    head_params p = head_params_make(WQ, WK, WV);
    head_state st;
    ck_assert_int_eq(head_state_alloc(&st, 1, 1, 1, 1, 1), ATT_OK);
    ck_assert_int_eq(head_forward(&st, &p, X, X), ATT_OK);
    ck_assert(gsl_matrix_get(st.S, 0, 0) == INFINITY);
    ck_assert_double_eq(gsl_matrix_get(st.A, 0, 0), 1.0);
    ck_assert_double_eq(gsl_matrix_get(st.O, 0, 0), 2.0);
    gsl_matrix_set(WK, 0, 0, -1e200);
    ck_assert_int_eq(head_forward(&st, &p, X, X), ATT_EUSAGE);
    ck_assert_ptr_nonnull(strstr(att_last_error(), "fully masked"));
    head_state_free(&st);
    mat_free(X); mat_free(WQ); mat_free(WK); mat_free(WV);
}
END_TEST

/* Property: random heads at score scales 10^k, |k| <= 300, either succeed
 * with finite rows of A that sum to 1 and O inside the hull of V's rows
 * (componentwise between the min and max of V), or refuse with ATT_EUSAGE
 * -- never a NaN weight. */
START_TEST(test_prop_any_scale)
{
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    PROP_FOR(k, rng, "head at any scale: rows sum to 1, O within V") {
        size_t T = prop_size(rng, 1, 9), d = prop_size(rng, 1, 6), dk = prop_size(rng, 1, 4),
               dv = prop_size(rng, 1, 3);
        gsl_matrix *X = mat_new(T, d), *WQ = mat_new(d, dk), *WK = mat_new(d, dk),
                   *WV = mat_new(d, dv);
        mat_randn(rng, X, 1.0);
        mat_randn(rng, WQ, 1.0);
        mat_randn(rng, WK, 1.0);
        mat_randn(rng, WV, 1.0);
        head_params p = head_params_make(WQ, WK, WV);
        int e = (int)gsl_rng_uniform_int(rng, 601) - 300;
        p.scale = (gsl_rng_uniform(rng) < 0.5 ? -1.0 : 1.0) * pow(10.0, e);
        head_state st;
        PROP_ASSERT(head_state_alloc(&st, T, T, d, dk, dv) == ATT_OK, "alloc");
        int rc = head_forward(&st, &p, X, X);
        PROP_ASSERT(rc == ATT_OK || rc == ATT_EUSAGE, "status %d", rc);
        if (rc == ATT_OK) {
            for (size_t i = 0; i < T; i++) {
                double sum = 0.0;
                for (size_t j = 0; j < T; j++) {
                    double a = gsl_matrix_get(st.A, i, j);
                    PROP_ASSERT(a >= 0.0 && a <= 1.0, "a(%zu,%zu) = %g at scale %g", i, j, a,
                                p.scale);
                    sum += a;
                }
                PROP_ASSERT(fabs(sum - 1.0) <= tol_eps(4, T, 1.0), "row %zu sums to %.17g", i, sum);
                for (size_t c = 0; c < dv; c++) {
                    double lo = INFINITY, hi = -INFINITY, o = gsl_matrix_get(st.O, i, c);
                    for (size_t j = 0; j < T; j++) {
                        double v = gsl_matrix_get(st.V, j, c);
                        lo = fmin(lo, v);
                        hi = fmax(hi, v);
                    }
                    double tol = tol_eps(4, T, fmax(fabs(lo), fabs(hi)));
                    PROP_ASSERT(o >= lo - tol && o <= hi + tol, "O(%zu,%zu) = %g outside [%g, %g]",
                                i, c, o, lo, hi);
                }
            }
        }
        head_state_free(&st);
        mat_free(X); mat_free(WQ); mat_free(WK); mat_free(WV);
    }
    gsl_rng_free(rng);
}
END_TEST

PROP_MAIN("extreme",
          {"unit", 0, {test_worked_huge_scales, test_policy_rows, test_head_single_overflow}},
          {"properties", 60, {test_prop_any_scale}})
