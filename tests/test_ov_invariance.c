/* test_ov_invariance.c - the identities behind ov_invariance, as property
 * tests over random sizes (the seed is printed; replay with ATT_TEST_SEED and
 * ATT_TEST_CASE):
 *   - W_V R, R^{-1} W_O: the same W_OV and head output O W_O, within a
 *     first-order rounding bound that scales with cond(R), the sizes and eps;
 *     the values move; a singular R is refused;
 *   - a head rebuilt from its circuits (W_QK, u = W_K b_Q, W_OV,
 *     c = W_O^T b_V + b_O) gives the same output, with and without biases;
 *     b_K alone changes nothing; b_Q left untransformed changes the output.
 * Tolerances follow Higham (ASNA, 3.5): |fl(AB) - AB| <= gamma_n |A||B|, in
 * Frobenius form, with a safety factor; a score error D moves each output row
 * by at most 2 D max_j ||v_j W_O|| (the softmax is 1/2-Lipschitz in l1 per
 * unit of l_inf score change, doubled).
 */
#include "prop.h"
#include "head.h"
#include "mat.h"
#include "qkov.h"
#include "randmat.h"
#include "status.h"
#include "tol.h"

#include <float.h>
#include <math.h>
#include <gsl/gsl_blas.h>

#define EPS DBL_EPSILON

static gsl_matrix *randn(gsl_rng *rng, size_t r, size_t c, double sigma)
{
    gsl_matrix *A = mat_new(r, c);
    ck_assert_ptr_nonnull(A);
    mat_randn(rng, A, sigma);
    return A;
}

static gsl_vector *randv(gsl_rng *rng, size_t n)
{
    gsl_vector *v = mat_vec_new(n);
    ck_assert_ptr_nonnull(v);
    mat_vec_randn(rng, v, 1.0);
    return v;
}

/* max_i ||row i of A|| */
static double max_row_norm(const gsl_matrix *A)
{
    double m = 0.0;
    for (size_t i = 0; i < A->size1; i++) {
        gsl_vector_const_view r = gsl_matrix_const_row(A, i);
        m = fmax(m, gsl_blas_dnrm2(&r.vector));
    }
    return m;
}

START_TEST(test_ov_reparam)
{
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    PROP_FOR(k, rng, "W_V R, R^-1 W_O: same W_OV and O W_O within a cond(R) eps bound") {
        size_t dv = prop_size(rng, 1, 10), T = prop_size(rng, 1, 16), d = prop_size(rng, 1, 32);
        size_t dk = prop_size(rng, 1, 6);
        double cond = dv == 1 ? 1.0 : exp(gsl_rng_uniform(rng) * log(1e8));
        double sw = 1.0 / sqrt((double)d);
        gsl_matrix *X = randn(rng, T, d, 1.0), *WQ = randn(rng, d, dk, sw),
                   *WK = randn(rng, d, dk, sw);
        gsl_matrix *WV = randn(rng, d, dv, sw), *WO = randn(rng, dv, d, sw), *R = mat_new(dv, dv);
        gsl_matrix *WV2 = mat_new(d, dv), *WO2 = mat_new(dv, d), *M1 = mat_new(d, d),
                   *M2 = mat_new(d, d);
        gsl_matrix *Y1 = mat_new(T, d), *Y2 = mat_new(T, d);
        PROP_ASSERT(randmat_with_cond(rng, R, cond) == ATT_OK, "%s", att_last_error());
        PROP_ASSERT(qkov_reparam_ov(WV2, WO2, WV, WO, R) == ATT_OK, "%s", att_last_error());
        qkov_ov(M1, WV, WO);
        qkov_ov(M2, WV2, WO2);
        // ||W_V R R^-1 W_O - W_V W_O|| <~ n eps cond(R) ||W_V|| ||W_O|| (LU: Higham 9.4)
        double n = (double)(T + d + 2 * dv), cw = cond * mat_frob(WV) * mat_frob(WO);
        double e = mat_diff_frob(M2, M1), tol = 16.0 * n * EPS * cw;
        PROP_ASSERT(e <= tol, "dv %zu cond %g: ||W_OV' - W_OV|| = %g > %g", dv, cond, e, tol);
        qkov_head h1 = {WQ, WK, WV, WO, NULL, NULL, NULL, NULL};
        qkov_head h2 = {WQ, WK, WV2, WO2, NULL, NULL, NULL, NULL};
        head_state st;
        ck_assert_int_eq(head_state_alloc(&st, T, T, d, dk, dv), ATT_OK);
        PROP_ASSERT(qkov_head_output(Y1, &h1, X, &st) == ATT_OK, "%s", att_last_error());
        PROP_ASSERT(qkov_head_output(Y2, &h2, X, &st) == ATT_OK, "%s", att_last_error());
        // Y = A X W_OV: ||Y' - Y|| <= ||A|| ||X|| (the W_OV bound) + rounding of the products
        double eY = mat_diff_frob(Y2, Y1), tY = mat_frob(st.A) * mat_frob(X) * tol;
        PROP_ASSERT(eY <= tY, "cond %g: ||Y' - Y|| = %g > %g", cond, eY, tY);
        head_state_free(&st);
        mat_free(X); mat_free(WQ); mat_free(WK); mat_free(WV); mat_free(WO); mat_free(R);
        mat_free(WV2); mat_free(WO2); mat_free(M1); mat_free(M2); mat_free(Y1); mat_free(Y2);
    }
    /* a singular R is refused, not inverted */
    gsl_matrix *R = mat_new(2, 2), *V = mat_new(3, 2), *O = mat_new(2, 3), *V2 = mat_new(3, 2),
               *O2 = mat_new(2, 3);
    gsl_matrix_set_zero(R);
    gsl_matrix_set(R, 0, 0, 1.0); gsl_matrix_set(R, 0, 1, 2.0);
    gsl_matrix_set(R, 1, 0, 2.0); gsl_matrix_set(R, 1, 1, 4.0);
    ck_assert_int_eq(qkov_reparam_ov(V2, O2, V, O, R), ATT_ERUNTIME);
    ck_assert_int_eq(qkov_reparam_ov(V2, O2, V, V, R), ATT_EUSAGE);
    mat_free(R); mat_free(V); mat_free(O); mat_free(V2); mat_free(O2);
    gsl_rng_free(rng);
}
END_TEST

START_TEST(test_ov_values_move)
{
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    PROP_FOR(k, rng, "W_V R with cond(R) >= 100: the values change by >= 0.1") {
        /* R has a singular value sqrt(cond) >= 10 (randmat.h), so ||R - I|| >= 9;
         * with T >= 2 d_v + 4 Gaussian rows V is well conditioned */
        size_t dv = prop_size(rng, 2, 8), T = prop_size(rng, 2 * dv + 4, 2 * dv + 12);
        size_t d = prop_size(rng, dv, 32);
        double cond = 100.0 * exp(gsl_rng_uniform(rng) * log(1e6));
        gsl_matrix *X = randn(rng, T, d, 1.0), *WV = randn(rng, d, dv, 1.0),
                   *WO = randn(rng, dv, d, 1.0);
        gsl_matrix *R = mat_new(dv, dv), *WV2 = mat_new(d, dv), *WO2 = mat_new(dv, d);
        gsl_matrix *V1 = mat_new(T, dv), *V2 = mat_new(T, dv);
        PROP_ASSERT(randmat_with_cond(rng, R, cond) == ATT_OK, "%s", att_last_error());
        PROP_ASSERT(qkov_reparam_ov(WV2, WO2, WV, WO, R) == ATT_OK, "%s", att_last_error());
        head_project(V1, X, WV, NULL);
        head_project(V2, X, WV2, NULL);
        double c = mat_rel_diff(V2, V1);
        PROP_ASSERT(c >= 0.1, "T %zu d %zu dv %zu cond %g: values changed by only %g", T, d, dv,
                    cond, c);
        mat_free(X); mat_free(WV); mat_free(WO); mat_free(R); mat_free(WV2); mat_free(WO2);
        mat_free(V1); mat_free(V2);
    }
    gsl_rng_free(rng);
}
END_TEST

START_TEST(test_rebuild_same_output)
{
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    PROP_FOR(k, rng,
             "a head rebuilt from (W_QK, W_K b_Q, W_OV, W_O^T b_V + b_O) has the same output")
    {
        size_t d = prop_size(rng, 1, 24), dk = prop_size(rng, 1, d), dv = prop_size(rng, 1, d);
        size_t T = prop_size(rng, 1, 12);
        int bias = (int)gsl_rng_uniform_int(rng, 2);
        double sw = 1.0 / sqrt((double)d);
        qkov_head h1 = {randn(rng, d, dk, sw), randn(rng, d, dk, sw), randn(rng, d, dv, sw),
                        randn(rng, dv, d, sw), NULL, NULL, NULL, NULL};
        qkov_head h2 = {mat_new(d, dk), mat_new(d, dk), mat_new(d, dv), mat_new(dv, d),
                        NULL, NULL, NULL, NULL};
        if (bias) {
            h1.b_Q = randv(rng, dk);
            h1.b_K = randv(rng, dk);
            h1.b_V = randv(rng, dv);
            h1.b_O = randv(rng, d);
            h2.b_Q = randv(rng, dk);
            h2.b_K = randv(rng, dk);
            h2.b_V = randv(rng, dv);
            h2.b_O = randv(rng, d);
        }
        gsl_matrix *X = randn(rng, T, d, 1.0), *Y1 = mat_new(T, d), *Y2 = mat_new(T, d);
        gsl_matrix *WQK = mat_new(d, d), *WOV = mat_new(d, d), *VO = mat_new(T, d);
        PROP_ASSERT(qkov_rebuild(&h2, &h1) == ATT_OK, "%s", att_last_error());
        head_state s1, s2;
        ck_assert_int_eq(head_state_alloc(&s1, T, T, d, dk, dv), ATT_OK);
        ck_assert_int_eq(head_state_alloc(&s2, T, T, d, dk, dv), ATT_OK);
        PROP_ASSERT(qkov_head_output(Y1, &h1, X, &s1) == ATT_OK, "%s", att_last_error());
        PROP_ASSERT(qkov_head_output(Y2, &h2, X, &s2) == ATT_OK, "%s", att_last_error());

        /* D bounds every score difference: rounding of both heads' scores, plus
         * the SVD's reconstruction error of W_QK and of u, on tokens of norm <= xmax */
        double n = (double)(T + 2 * d + dk + dv), xmax = max_row_norm(X);
        qkov_qk(WQK, h1.W_Q, h1.W_K);
        qkov_ov(WOV, h1.W_V, h1.W_O);
        double ub = bias ? gsl_blas_dnrm2(h1.b_Q) * mat_frob(h1.W_K) : 0.0;
        double qk = fmax(tol_score_bound(s1.Q, s1.K, 1.0), tol_score_bound(s2.Q, s2.K, 1.0));
        double D = 64.0 * n * EPS * (qk + mat_frob(WQK) * xmax * xmax + ub * xmax);
        /* the values times W_O of either head, and the linear part's own rounding */
        double vmax = 0.0;
        mat_gemm(VO, 1.0, s1.V, 0, h1.W_O, 0, 0.0);
        vmax = fmax(vmax, max_row_norm(VO));
        mat_gemm(VO, 1.0, s2.V, 0, h2.W_O, 0, 0.0);
        vmax = fmax(vmax, max_row_norm(VO));
        double lin = xmax * mat_frob(WOV);
        if (bias)
            lin += gsl_blas_dnrm2(h1.b_V) * mat_frob(h1.W_O) +
                   gsl_blas_dnrm2(h2.b_V) * mat_frob(h2.W_O) + gsl_blas_dnrm2(h1.b_O) +
                   gsl_blas_dnrm2(h2.b_O);
        double tol = sqrt((double)T) * (2.0 * D * vmax + 64.0 * n * EPS * lin);
        double e = mat_diff_frob(Y2, Y1);
        PROP_ASSERT(e <= tol, "T %zu d %zu dk %zu dv %zu bias %d: ||Y2 - Y1|| = %g > %g",
                    T, d, dk, dv, bias, e, tol);

        if (bias) {
            /* b_K does not matter: a fresh b_K leaves the output unchanged */
            mat_vec_randn(rng, h1.b_K, 1.0);
            PROP_ASSERT(qkov_head_output(Y2, &h1, X, &s2) == ATT_OK, "%s", att_last_error());
            double eK = mat_diff_frob(Y2, Y1);
            PROP_ASSERT(eK <= tol, "b_K changed the output by %g > %g", eK, tol);
        }
        head_state_free(&s1); head_state_free(&s2);
        gsl_matrix *m[] = {h1.W_Q, h1.W_K, h1.W_V, h1.W_O, h2.W_Q, h2.W_K, h2.W_V, h2.W_O,
                           X, Y1, Y2, WQK, WOV, VO};
        for (size_t j = 0; j < sizeof m / sizeof m[0]; j++) mat_free(m[j]);
        gsl_vector *v[] = {h1.b_Q, h1.b_K, h1.b_V, h1.b_O, h2.b_Q, h2.b_K, h2.b_V, h2.b_O};
        for (size_t j = 0; j < sizeof v / sizeof v[0]; j++) mat_vec_free(v[j]);
    }
    gsl_rng_free(rng);
}
END_TEST

START_TEST(test_rebuild_bias_control)
{
    /* the test can fail: b_Q left untransformed moves the output (T = 8,
     * d = 16, d_k = d_v = 4, biases ~ N(0, 1)), and mismatched biases are refused */
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(rng, 11);
    size_t T = 8, d = 16, dk = 4, dv = 4;
    qkov_head h1 = {randn(rng, d, dk, 0.25), randn(rng, d, dk, 0.25),
                    randn(rng, d, dv, 0.25), randn(rng, dv, d, 0.25),
                    randv(rng, dk),          randv(rng, dk),
                    randv(rng, dv),          randv(rng, d)};
    qkov_head h2 = {mat_new(d, dk), mat_new(d, dk), mat_new(d, dv), mat_new(dv, d),
                    randv(rng, dk), randv(rng, dk), randv(rng, dv), randv(rng, d)};
    gsl_matrix *X = randn(rng, T, d, 1.0), *Y1 = mat_new(T, d), *Y2 = mat_new(T, d);
    ck_assert_int_eq(qkov_rebuild(&h2, &h1), ATT_OK);
    head_state st;
    ck_assert_int_eq(head_state_alloc(&st, T, T, d, dk, dv), ATT_OK);
    ck_assert_int_eq(qkov_head_output(Y1, &h1, X, &st), ATT_OK);
    gsl_vector_memcpy(h2.b_Q, h1.b_Q);
    ck_assert_int_eq(qkov_head_output(Y2, &h2, X, &st), ATT_OK);
    ck_assert_msg(mat_rel_diff(Y2, Y1) > 1e-3, "untransformed b_Q moved the output by only %g",
                  mat_rel_diff(Y2, Y1));
    gsl_vector *keep = h2.b_V;
    h2.b_V = NULL;
    ck_assert_int_eq(qkov_rebuild(&h2, &h1), ATT_EUSAGE);
    h2.b_V = keep;
    head_state_free(&st);
    gsl_matrix *m[] = {h1.W_Q, h1.W_K, h1.W_V, h1.W_O, h2.W_Q, h2.W_K, h2.W_V, h2.W_O, X, Y1, Y2};
    for (size_t j = 0; j < sizeof m / sizeof m[0]; j++) mat_free(m[j]);
    gsl_vector *v[] = {h1.b_Q, h1.b_K, h1.b_V, h1.b_O, h2.b_Q, h2.b_K, h2.b_V, h2.b_O};
    for (size_t j = 0; j < sizeof v / sizeof v[0]; j++) mat_vec_free(v[j]);
    gsl_rng_free(rng);
}
END_TEST

PROP_MAIN("test_ov_invariance", {"identities",
                                 120,
                                 {test_ov_reparam, test_ov_values_move, test_rebuild_same_output,
                                  test_rebuild_bias_control}})
