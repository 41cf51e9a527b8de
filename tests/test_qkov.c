/* test_qkov.c - the identities behind score_asymmetry (its sentence: the experiment's own
 * verdict rows), bilinear_low_rank and qk_invariance, as property tests over
 * random sizes, and the thread-count determinism of their binaries (with
 * key_bias's and ov_invariance's; key_bias's identities are in
 * test_bias.c, ov_invariance's in test_ov_invariance.c).
 *
 * Every tolerance is a rounding bound that scales with the sizes and with
 * the data of the case (Higham, ASNA 2nd ed., 3.5: |fl(AB) - AB| <= gamma_n
 * |A||B|, used in Frobenius form), so a case never fails by chance.
 *
 * The determinism test runs the experiment binaries found in $ATT_BIN_DIR
 * (default "bin", as built by make all) with OMP_NUM_THREADS=1 and 2 into two
 * temporary folders and compares their CSVs byte for byte.
 */
#include "prop.h"
#include "tol.h"
#include "prevtoken.h"
#include "head.h"
#include "mat.h"
#include "qkov.h"
#include "randmat.h"
#include "status.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
#include <gsl/gsl_blas.h>

#define EPS DBL_EPSILON

/* ---- helpers ------------------------------------------------------------ */

static gsl_matrix *randn(gsl_rng *rng, size_t r, size_t c, double sigma)
{
    gsl_matrix *A = mat_new(r, c);
    ck_assert_ptr_nonnull(A);
    mat_randn(rng, A, sigma);
    return A;
}

/* log-uniform in [lo, hi] */
static double log_uniform(gsl_rng *rng, double lo, double hi)
{
    return exp(log(lo) + gsl_rng_uniform(rng) * (log(hi) - log(lo)));
}


/* ---- randmat ------------------------------------------------------------ */

START_TEST(test_randmat_orthogonal)
{
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    PROP_FOR(k, rng, "Haar orthogonal: Q^T Q = I") {
        size_t n = prop_size(rng, 1, 24);
        gsl_matrix *Q = mat_new(n, n), *I = mat_new(n, n), *P = mat_new(n, n);
        PROP_ASSERT(randmat_orthogonal(rng, Q) == ATT_OK, "%s", att_last_error());
        gsl_matrix_set_identity(I);
        mat_gemm(P, 1.0, Q, 1, Q, 0, 0.0);
        double e = mat_diff_frob(P, I), tol = tol_eps(16, n, sqrt((double)n));
        PROP_ASSERT(e <= tol, "n %zu: ||Q^T Q - I|| = %g > %g", n, e, tol);
        mat_free(Q); mat_free(I); mat_free(P);
    }
    gsl_rng_free(rng);
}
END_TEST

START_TEST(test_randmat_cond)
{
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    PROP_FOR(k, rng, "randmat_with_cond has the condition number asked for") {
        size_t n = prop_size(rng, 2, 20);
        double cond = log_uniform(rng, 1.0, 1e8);
        gsl_matrix *R = mat_new(n, n);
        gsl_vector *s = mat_vec_new(n);
        PROP_ASSERT(randmat_with_cond(rng, R, cond) == ATT_OK, "%s", att_last_error());
        PROP_ASSERT(qkov_singular_values(s, R) == ATT_OK, "%s", att_last_error());
        double got = gsl_vector_get(s, 0) / gsl_vector_get(s, n - 1);
        /* the SVD of R is accurate to ~ n eps ||R|| absolutely, i.e. relative
         * n eps cond(R) on the smallest singular value */
        double tol = tol_eps(64, n, cond);
        PROP_ASSERT(fabs(got / cond - 1.0) <= tol, "n %zu: cond %g measured %g", n, cond, got);
        mat_free(R); mat_vec_free(s);
    }
    /* bad arguments come back as usage errors */
    gsl_matrix *R1 = mat_new(1, 1), *R2 = mat_new(2, 3);
    ck_assert_int_eq(randmat_with_cond(rng, R1, 2.0), ATT_EUSAGE);
    ck_assert_int_eq(randmat_with_cond(rng, R1, 1.0), ATT_OK);
    ck_assert_int_eq(randmat_with_cond(rng, R2, 1.0), ATT_EUSAGE);
    ck_assert_int_eq(randmat_with_cond(rng, R1, NAN), ATT_EUSAGE);
    ck_assert_int_eq(randmat_with_cond(rng, R1, 0.5), ATT_EUSAGE);
    mat_free(R1); mat_free(R2);
    gsl_rng_free(rng);
}
END_TEST

/* ---- score_asymmetry ---------------------------------------------------- */

/* randmat_head: X ~ N(0, 1) then each weight ~ N(0, 1/d) in order, a NULL weight draws nothing */
START_TEST(test_randmat_head)
{
    gsl_rng *r1 = gsl_rng_alloc(gsl_rng_mt19937), *r2 = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_matrix *X = mat_new(5, 9), *Wq = mat_new(9, 3), *Wv = mat_new(9, 4), *Wo = mat_new(4, 9);
    gsl_matrix *X2 = mat_new(5, 9), *Wq2 = mat_new(9, 3), *Wv2 = mat_new(9, 4),
               *Wo2 = mat_new(4, 9);
    gsl_rng_set(r1, 7), gsl_rng_set(r2, 7);
    randmat_head(r1, X, Wq, NULL, Wv, Wo);
    mat_randn(r2, X2, 1.0);
    mat_randn(r2, Wq2, 1.0 / 3.0);
    mat_randn(r2, Wv2, 1.0 / 3.0);
    mat_randn(r2, Wo2, 1.0 / 3.0);
    ck_assert_double_eq(mat_max_abs_diff(X, X2), 0.0);
    ck_assert_double_eq(mat_max_abs_diff(Wq, Wq2), 0.0);
    ck_assert_double_eq(mat_max_abs_diff(Wv, Wv2), 0.0);
    ck_assert_double_eq(mat_max_abs_diff(Wo, Wo2), 0.0);
    ck_assert_uint_eq(gsl_rng_get(r1), gsl_rng_get(r2));   /* the same number of draws */
    mat_free(X), mat_free(Wq), mat_free(Wv), mat_free(Wo);
    mat_free(X2), mat_free(Wq2), mat_free(Wv2), mat_free(Wo2);
    gsl_rng_free(r1), gsl_rng_free(r2);
}
END_TEST

START_TEST(test_symmetric_wqk_symmetric_scores)
{
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    PROP_FOR(k, rng, "symmetric W_QK (tied, or W_K = W_Q M with M = M^T) gives S = S^T") {
        size_t T = prop_size(rng, 2, 20), d = prop_size(rng, 1, 40), dk = prop_size(rng, 1, 12);
        gsl_matrix *X = randn(rng, T, d, 1.0), *WQ = randn(rng, d, dk, 1.0 / sqrt((double)d));
        gsl_matrix *B = randn(rng, dk, dk, 1.0), *M = mat_new(dk, dk), *WK = mat_new(d, dk);
        gsl_matrix *WV = randn(rng, d, 1, 1.0);
        gsl_matrix_transpose_memcpy(M, B);
        gsl_matrix_add(M, B);                    /* M = B + B^T */
        mat_gemm(WK, 1.0, WQ, 0, M, 0, 0.0);
        head_state st;
        ck_assert_int_eq(head_state_alloc(&st, T, T, d, dk, 1), ATT_OK);

        /* tied: Q and K are the same computation, so S is symmetric bit for bit
         * up to the summation order of s_ij and s_ji: within 16 (d + dk) eps rho */
        head_params p = head_params_make(WQ, WQ, WV);
        PROP_ASSERT(head_forward(&st, &p, X, X) == ATT_OK, "%s", att_last_error());
        double a = qkov_asymmetry(st.S);
        double tol = tol_eps(16, d + dk, tol_product_scale_frob(st.Q, st.K) / mat_frob(st.S));
        PROP_ASSERT(a <= tol, "tied T %zu d %zu dk %zu: asymmetry %g > %g", T, d, dk, a, tol);

        /* symmetric on purpose: the chain is X W_Q M (length d + dk), then q.k (dk);
         * the rounding of K = Q M is bounded through |Q| |M| */
        p = head_params_make(WQ, WK, WV);
        PROP_ASSERT(head_forward(&st, &p, X, X) == ATT_OK, "%s", att_last_error());
        gsl_matrix *aQ = mat_dup(st.Q), *aM = mat_dup(M), *KK = mat_new(T, dk);
        for (size_t i = 0; i < T; i++)
            for (size_t j = 0; j < dk; j++)
                gsl_matrix_set(aQ, i, j, fabs(gsl_matrix_get(aQ, i, j)));
        for (size_t i = 0; i < dk; i++)
            for (size_t j = 0; j < dk; j++)
                gsl_matrix_set(aM, i, j, fabs(gsl_matrix_get(aM, i, j)));
        mat_gemm(KK, 1.0, aQ, 0, aM, 0, 0.0);    /* |Q| |M| >= |K| */
        a = qkov_asymmetry(st.S);
        tol = tol_eps(16, d + 2 * dk, tol_product_scale_frob(aQ, KK) / mat_frob(st.S));
        PROP_ASSERT(a <= tol, "symmetric T %zu d %zu dk %zu: asymmetry %g > %g", T, d, dk, a, tol);
        mat_free(aQ); mat_free(aM); mat_free(KK);

        head_state_free(&st);
        mat_free(X); mat_free(WQ); mat_free(B); mat_free(M); mat_free(WK); mat_free(WV);
    }
    gsl_rng_free(rng);
}
END_TEST

START_TEST(test_independent_scores_asymmetric)
{
    /* a statistical check at a wide margin: T = 8, d = 32, d_k = 8, 400 draws;
     * the experiment finds a mean of about 1.35 with sd ~0.08 at its sizes */
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(rng, 7);
    size_t T = 8, d = 32, dk = 8, n = 400;
    double sum = 0.0;
    head_state st;
    ck_assert_int_eq(head_state_alloc(&st, T, T, d, dk, 1), ATT_OK);
    for (size_t i = 0; i < n; i++) {
        gsl_matrix *X = randn(rng, T, d, 1.0), *WQ = randn(rng, d, dk, 0.2),
                   *WK = randn(rng, d, dk, 0.2);
        gsl_matrix *WV = randn(rng, d, 1, 1.0);
        head_params p = head_params_make(WQ, WK, WV);
        ck_assert_int_eq(head_forward(&st, &p, X, X), ATT_OK);
        sum += qkov_asymmetry(st.S);
        mat_free(X); mat_free(WQ); mat_free(WK); mat_free(WV);
    }
    head_state_free(&st);
    ck_assert_msg(sum / (double)n > 0.9, "mean asymmetry %g, expected ~1.3", sum / (double)n);
    gsl_rng_free(rng);
}
END_TEST

/* ---- bilinear_low_rank -------------------------------------------------- */

START_TEST(test_rank_wqk_is_dk)
{
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    PROP_FOR(k, rng, "rank(W_Q W_K^T) = d_k and rank(W_V W_O) = d_v exactly (cut 1e-10)") {
        size_t d = prop_size(rng, 2, 40), dk = prop_size(rng, 1, d - 1), dv = prop_size(rng, 1, d);
        double sw = 1.0 / sqrt((double)d);
        gsl_matrix *WQ = randn(rng, d, dk, sw), *WK = randn(rng, d, dk, sw);
        gsl_matrix *WV = randn(rng, d, dv, sw), *WO = randn(rng, dv, d, sw);
        gsl_matrix *WQK = mat_new(d, d), *WOV = mat_new(d, d);
        gsl_vector *s = mat_vec_new(d);
        PROP_ASSERT(qkov_qk(WQK, WQ, WK) == ATT_OK, "%s", att_last_error());
        PROP_ASSERT(qkov_ov(WOV, WV, WO) == ATT_OK, "%s", att_last_error());
        PROP_ASSERT(qkov_singular_values(s, WQK) == ATT_OK, "%s", att_last_error());
        size_t r = qkov_numerical_rank(s, 1e-10);
        PROP_ASSERT(r == dk, "d %zu: rank(W_QK) = %zu, d_k = %zu", d, r, dk);
        /* descending order */
        for (size_t i = 1; i < d; i++)
            PROP_ASSERT(gsl_vector_get(s, i) <= gsl_vector_get(s, i - 1), "not sorted at %zu", i);
        PROP_ASSERT(qkov_singular_values(s, WOV) == ATT_OK, "%s", att_last_error());
        r = qkov_numerical_rank(s, 1e-10);
        PROP_ASSERT(r == dv, "d %zu: rank(W_OV) = %zu, d_v = %zu", d, r, dv);
        mat_free(WQ); mat_free(WK); mat_free(WV); mat_free(WO); mat_free(WQK); mat_free(WOV);
        mat_vec_free(s);
    }
    gsl_rng_free(rng);
}
END_TEST

START_TEST(test_bilinear_scores_equal_head)
{
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    PROP_FOR(k, rng, "Q K^T = X W_QK X^T, and W_QK = I gives X X^T") {
        size_t T = prop_size(rng, 1, 16), d = prop_size(rng, 1, 32), dk = prop_size(rng, 1, 16);
        gsl_matrix *X = randn(rng, T, d, 1.0), *WQ = randn(rng, d, dk, 1.0),
                   *WK = randn(rng, d, dk, 1.0);
        gsl_matrix *WV = randn(rng, d, 2, 1.0), *WQK = mat_new(d, d), *S = mat_new(T, T);
        gsl_matrix *I = mat_new(d, d), *S0 = mat_new(T, T);
        head_state st;
        ck_assert_int_eq(head_state_alloc(&st, T, T, d, dk, 2), ATT_OK);
        head_params p = head_params_make(WQ, WK, WV);
        PROP_ASSERT(head_forward(&st, &p, X, X) == ATT_OK, "%s", att_last_error());
        qkov_qk(WQK, WQ, WK);
        PROP_ASSERT(qkov_bilinear_scores(S, X, WQK, X) == ATT_OK, "%s", att_last_error());
        /* ||fl - exact||_F <= 3 gamma_n ||X||^2 ||W_Q|| ||W_K|| for each, n = 2d + dk */
        double scale = mat_frob(X) * mat_frob(X) * mat_frob(WQ) * mat_frob(WK);
        double e = mat_diff_frob(S, st.S), tol = tol_eps(8, 2 * d + dk, scale);
        PROP_ASSERT(e <= tol, "T %zu d %zu dk %zu: |QK^T - XW_QKX^T| = %g > %g", T, d, dk, e, tol);
        gsl_matrix_set_identity(I);
        qkov_bilinear_scores(S, X, I, X);
        head_scores(S0, X, X, 1.0);
        /* multiplying by I is exact: x * 1 and the added zeros round nothing */
        PROP_ASSERT(mat_diff_frob(S, S0) == 0.0, "X I X^T != X X^T by %g", mat_diff_frob(S, S0));
        head_state_free(&st);
        mat_free(X); mat_free(WQ); mat_free(WK); mat_free(WV); mat_free(WQK); mat_free(S);
        mat_free(I); mat_free(S0);
    }
    gsl_rng_free(rng);
}
END_TEST

START_TEST(test_rank_profile_and_abs_product)
{
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    PROP_FOR(k, rng, "rank profile of W_Q W_K^T: rank d_k, gap at d_k; |A||B| entrywise") {
        size_t d = prop_size(rng, 2, 24), dk = prop_size(rng, 1, d);
        gsl_matrix *WQ = randn(rng, d, dk, 1.0), *WK = randn(rng, d, dk, 1.0), *W = mat_new(d, d);
        gsl_vector *sv = mat_vec_new(d);
        double *spec = calloc(d, sizeof *spec), mis, kept, next;
        qkov_qk(W, WQ, WK);
        PROP_ASSERT(qkov_rank_profile(W, dk, 1e-10, sv, spec, &mis, &kept, &next) == ATT_OK, "%s",
                    att_last_error());
        /* the neglected singular values are rounding: <= 16 d eps sigma_1 */
        PROP_ASSERT(mis == 0.0 && kept > 1e-10 && next <= 16.0 * (double)d * EPS,
                    "d %zu dk %zu: mismatch %g kept %g next %g", d, dk, mis, kept, next);
        PROP_ASSERT(spec[0] == 1.0, "sigma_1 / sigma_1 = %g", spec[0]);
        ck_assert_int_eq(qkov_rank_profile(W, d + 1, 1e-10, sv, spec, &mis, &kept, &next),
                         ATT_EUSAGE);
        /* C = |W_Q| |W_K|^T... as |A| |B| with B = W_K^T: every entry the sum of |a||b| */
        gsl_matrix *WKt = mat_new(dk, d), *C = mat_new(d, d);
        gsl_matrix_transpose_memcpy(WKt, WK);
        PROP_ASSERT(qkov_abs_product(C, WQ, WKt) == ATT_OK, "%s", att_last_error());
        size_t i = gsl_rng_uniform_int(rng, d), j = gsl_rng_uniform_int(rng, d);
        double sum = 0.0;
        for (size_t l = 0; l < dk; l++)
            sum += fabs(gsl_matrix_get(WQ, i, l)) * fabs(gsl_matrix_get(WK, j, l));
        PROP_ASSERT(fabs(gsl_matrix_get(C, i, j) - sum) <= 4.0 * (double)dk * EPS * sum,
                    "C_%zu%zu = %g, sum |a||b| = %g", i, j, gsl_matrix_get(C, i, j), sum);
        PROP_ASSERT(gsl_matrix_get(C, i, j) >=
                        fabs(gsl_matrix_get(W, i, j)) * (1.0 - 4.0 * (double)dk * EPS),
                    "|W_QK| exceeds |W_Q||W_K|^T");
        mat_free(WQ);
        mat_free(WK);
        mat_free(W);
        mat_free(WKt);
        mat_free(C);
        mat_vec_free(sv);
        free(spec);
    }
    gsl_rng_free(rng);
}
END_TEST

/* ---- qk_invariance ------------------------------------------------------ */

START_TEST(test_qk_invariance)
{
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    PROP_FOR(k, rng, "W_Q R, W_K R^-T: same W_QK, S and O within a cond(R) eps bound") {
        size_t dk = prop_size(rng, 1, 10), T = prop_size(rng, 1, 16), d = prop_size(rng, 1, 32);
        size_t dv = prop_size(rng, 1, 6);
        double cond = dk == 1 ? 1.0 : log_uniform(rng, 1.0, 1e8);
        double sw = 1.0 / sqrt((double)d);
        gsl_matrix *X = randn(rng, T, d, 1.0), *WQ = randn(rng, d, dk, sw),
                   *WK = randn(rng, d, dk, sw);
        gsl_matrix *WV = randn(rng, d, dv, sw), *R = mat_new(dk, dk);
        gsl_matrix *WQ2 = mat_new(d, dk), *WK2 = mat_new(d, dk), *M1 = mat_new(d, d),
                   *M2 = mat_new(d, d);
        PROP_ASSERT(randmat_with_cond(rng, R, cond) == ATT_OK, "%s", att_last_error());
        PROP_ASSERT(qkov_reparam(WQ2, WK2, WQ, WK, R) == ATT_OK, "%s", att_last_error());
        qkov_qk(M1, WQ, WK);
        qkov_qk(M2, WQ2, WK2);
        /* first-order bound: errors ~ n eps cond(R) ||W_Q|| ||W_K|| (W_Q R has
         * norm <= ||W_Q|| ||R||, the LU solve is backward stable: Higham 9.4) */
        double n = (double)(d + 2 * dk), cw = cond * mat_frob(WQ) * mat_frob(WK);
        double e = mat_diff_frob(M2, M1), tol = 16.0 * n * EPS * cw;
        PROP_ASSERT(e <= tol, "dk %zu cond %g: ||W_QK' - W_QK|| = %g > %g", dk, cond, e, tol);

        head_state s1, s2;
        ck_assert_int_eq(head_state_alloc(&s1, T, T, d, dk, dv), ATT_OK);
        ck_assert_int_eq(head_state_alloc(&s2, T, T, d, dk, dv), ATT_OK);
        head_params p1 = head_params_make(WQ, WK, WV), p2 = head_params_make(WQ2, WK2, WV);
        PROP_ASSERT(head_forward(&s1, &p1, X, X) == ATT_OK, "%s", att_last_error());
        PROP_ASSERT(head_forward(&s2, &p2, X, X) == ATT_OK, "%s", att_last_error());
        double xx = mat_frob(X) * mat_frob(X);
        double eS = mat_diff_frob(s2.S, s1.S), tS = 16.0 * n * EPS * cw * xx;
        PROP_ASSERT(eS <= tS, "cond %g: ||S' - S|| = %g > %g", cond, eS, tS);
        /* a score error D moves each weight row by <= 2 D in l1, each output
         * row by <= 2 D max_j ||v_j||; plus the softmax's own rounding */
        double vmax = 0.0;
        for (size_t j = 0; j < T; j++) {
            gsl_vector_const_view v = gsl_matrix_const_row(s1.V, j);
            vmax = fmax(vmax, gsl_blas_dnrm2(&v.vector));
        }
        double eO = mat_diff_frob(s2.O, s1.O);
        double tO = sqrt((double)T) * (2.0 * tS + tol_eps(16, T, 1.0)) * vmax;
        PROP_ASSERT(eO <= tO, "cond %g: ||O' - O|| = %g > %g", cond, eO, tO);
        head_state_free(&s1); head_state_free(&s2);
        mat_free(X); mat_free(WQ); mat_free(WK); mat_free(WV); mat_free(R);
        mat_free(WQ2); mat_free(WK2); mat_free(M1); mat_free(M2);
    }
    gsl_rng_free(rng);
}
END_TEST

START_TEST(test_qk_invariance_queries_change)
{
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    PROP_FOR(k, rng, "W_Q R with cond(R) >= 100: the queries change by >= 0.1") {
        /* R has a singular value sqrt(cond) >= 10, so ||R - I|| >= 9; with
         * T >= 2 d_k + 4 Gaussian rows Q is well conditioned and
         * ||Q (R - I)||_F >= sigma_min(Q) ||R - I||_F is a large part of ||Q||_F */
        size_t dk = prop_size(rng, 2, 8), T = prop_size(rng, 2 * dk + 4, 2 * dk + 12);
        size_t d = prop_size(rng, dk, 32);
        double cond = log_uniform(rng, 100.0, 1e8);
        gsl_matrix *X = randn(rng, T, d, 1.0), *WQ = randn(rng, d, dk, 1.0),
                   *WK = randn(rng, d, dk, 1.0);
        gsl_matrix *R = mat_new(dk, dk), *WQ2 = mat_new(d, dk), *WK2 = mat_new(d, dk);
        gsl_matrix *Q1 = mat_new(T, dk), *Q2 = mat_new(T, dk);
        PROP_ASSERT(randmat_with_cond(rng, R, cond) == ATT_OK, "%s", att_last_error());
        PROP_ASSERT(qkov_reparam(WQ2, WK2, WQ, WK, R) == ATT_OK, "%s", att_last_error());
        head_project(Q1, X, WQ, NULL);
        head_project(Q2, X, WQ2, NULL);
        double c = mat_rel_diff(Q2, Q1);
        PROP_ASSERT(c >= 0.1, "T %zu d %zu dk %zu cond %g: queries changed by only %g", T, d, dk,
                    cond, c);
        mat_free(X); mat_free(WQ); mat_free(WK); mat_free(R); mat_free(WQ2); mat_free(WK2);
        mat_free(Q1); mat_free(Q2);
    }
    /* a singular R is refused, not inverted */
    gsl_matrix *R = mat_new(2, 2), *W = mat_new(3, 2), *W2 = mat_new(3, 2), *W3 = mat_new(3, 2);
    gsl_matrix_set(R, 0, 0, 1.0); gsl_matrix_set(R, 0, 1, 2.0);
    gsl_matrix_set(R, 1, 0, 2.0); gsl_matrix_set(R, 1, 1, 4.0);
    ck_assert_int_eq(qkov_reparam(W2, W3, W, W, R), ATT_ERUNTIME);
    mat_free(R); mat_free(W); mat_free(W2); mat_free(W3);
    gsl_rng_free(rng);
}
END_TEST

/* key_bias: tests/test_bias.c */

/* ---- determinism of the binaries across thread counts -------------------- */

static const char *bin_dir(void)
{
    const char *b = getenv("ATT_BIN_DIR");
    return b && *b ? b : "bin";
}

/* run "OMP_NUM_THREADS=t bin/id args --out dir --quiet"; 0/1 are results */
static int run_bin(const char *id, const char *args, int threads, const char *dir)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "OMP_NUM_THREADS=%d %s/%s %s --out %s --quiet >/dev/null 2>&1",
             threads, bin_dir(), id, args, dir);
    int st = system(cmd);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static int files_equal(const char *a, const char *b)
{
    FILE *fa = fopen(a, "rb"), *fb = fopen(b, "rb");
    int same = fa && fb;
    while (same) {
        int ca = fgetc(fa), cb = fgetc(fb);
        if (ca != cb) same = 0;
        if (ca == EOF || cb == EOF) break;
    }
    if (fa) fclose(fa);
    if (fb) fclose(fb);
    return same;
}

START_TEST(test_determinism_threads)
{
    static const struct { const char *id, *args, *files[3]; } runs[] = {
        {"score_asymmetry", "--draws 700 --T 8 --d 16 --dk 4",
         {"score_asymmetry.csv", "score_asymmetry_draws.csv", NULL}},
        {"bilinear_low_rank", "--draws 600 --d 16 --dk 4",
         {"bilinear_low_rank.csv", "bilinear_low_rank_spectra.csv", NULL}},
        {"qk_invariance", "--draws 600 --cond 1e4 --T 8 --d 16 --dk 4 --dv 4",
         {"qk_invariance.csv", NULL, NULL}},
        {"ov_invariance", "--draws 300 --T 8 --d 16 --dk 4 --dv 4",
         {"ov_invariance.csv", "ov_invariance_heads.csv", NULL}},
        {"key_bias", "--draws 600 --T 4 --d 6 --dk 2 --dv 2",
         {"key_bias.csv", "key_bias_draws.csv", NULL}},
    };
    char d1[] = "/tmp/att_det1_XXXXXX", d2[] = "/tmp/att_det2_XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(d1));
    ck_assert_ptr_nonnull(mkdtemp(d2));
    for (size_t r = 0; r < sizeof runs / sizeof runs[0]; r++) {
        char exe[512];
        snprintf(exe, sizeof exe, "%s/%s", bin_dir(), runs[r].id);
        ck_assert_msg(access(exe, X_OK) == 0,
                      "%s not found: build it (make all) or set ATT_BIN_DIR", exe);
        int a = run_bin(runs[r].id, runs[r].args, 1, d1),
            b = run_bin(runs[r].id, runs[r].args, 2, d2);
        ck_assert_msg(a == 0 || a == 1, "%s with 1 thread exited %d", runs[r].id, a);
        ck_assert_msg(b == 0 || b == 1, "%s with 2 threads exited %d", runs[r].id, b);
        const char *extra[] = {runs[r].files[0], runs[r].files[1], NULL};
        char verdicts[128];
        snprintf(verdicts, sizeof verdicts, "%s.verdicts.csv", runs[r].id);
        for (int f = -1; f < 2; f++) {
            const char *name = f < 0 ? verdicts : extra[f];
            if (name == NULL) continue;
            char p1[512], p2[512];
            snprintf(p1, sizeof p1, "%s/%s", d1, name);
            snprintf(p2, sizeof p2, "%s/%s", d2, name);
            ck_assert_msg(files_equal(p1, p2), "%s differs between 1 and 2 threads", name);
            unlink(p1);
            unlink(p2);
        }
        char m1[512], m2[512];
        snprintf(m1, sizeof m1, "%s/%s.meta", d1, runs[r].id);
        snprintf(m2, sizeof m2, "%s/%s.meta", d2, runs[r].id);
        unlink(m1);
        unlink(m2);
    }
    rmdir(d1);
    rmdir(d2);
}
END_TEST

PROP_MAIN("test_qkov",
          {"identities",
           120,
           {test_randmat_orthogonal, test_randmat_cond, test_randmat_head,
            test_symmetric_wqk_symmetric_scores, test_independent_scores_asymmetric,
            test_rank_wqk_is_dk, test_bilinear_scores_equal_head,
            test_rank_profile_and_abs_product, test_qk_invariance,
            test_qk_invariance_queries_change}},
          {"determinism", 120, {test_determinism_threads}})
