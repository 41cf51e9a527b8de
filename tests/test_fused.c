/* test_fused.c - the fused projection W_QKV = [W_Q | W_K | W_V], the (out, in)
 * storage of frameworks, and the batched head against one sequence at a time.
 *
 * Shapes: X (N, d)  W_QKV (d, 2 d_k + d_v)  QKV (N, 2 d_k + d_v)
 *         batched: X (B*T, d) -> O (B*T, d_v)
 */
#include "prop.h"
#include "tol.h"
#include "fused.h"
#include "fusedcheck.h"
#include "head.h"
#include "mat.h"
#include "status.h"

#include <float.h>
#include <math.h>
#include <string.h>
#include <gsl/gsl_randist.h>

static gsl_matrix *rand_mat(gsl_rng *rng, size_t r, size_t c, double sigma)
{
    gsl_matrix *A = mat_new(r, c);
    ck_assert_ptr_nonnull(A);
    mat_randn(rng, A, sigma);
    return A;
}

/* max_ij (|X| |W|)_ij  (W transposed when tW): the scale of the rounding of
 * X W; two ways of computing X W differ by at most 2 d eps times it. */
static double abs_prod_max(const gsl_matrix *X, const gsl_matrix *W, int tW)
{
    gsl_matrix *aX = mat_dup(X), *aW = mat_dup(W);
    for (size_t i = 0; i < aX->size1; i++)
        for (size_t j = 0; j < aX->size2; j++)
            gsl_matrix_set(aX, i, j, fabs(gsl_matrix_get(aX, i, j)));
    for (size_t i = 0; i < aW->size1; i++)
        for (size_t j = 0; j < aW->size2; j++)
            gsl_matrix_set(aW, i, j, fabs(gsl_matrix_get(aW, i, j)));
    gsl_matrix *P = mat_new(X->size1, tW ? W->size1 : W->size2);
    ck_assert_int_eq(mat_gemm(P, 1.0, aX, 0, aW, tW, 0.0), ATT_OK);
    double m = mat_max_abs(P);
    mat_free(aX); mat_free(aW); mat_free(P);
    return m;
}

/* ---- unit tests ------------------------------------------------------------ */

START_TEST(test_pack_by_hand)
{
    /* d = 2, d_k = 1, d_v = 2:  W_QKV = [ q0 k0 v00 v01 ; q1 k1 v10 v11 ] */
    gsl_matrix *WQ = mat_new(2, 1), *WK = mat_new(2, 1), *WV = mat_new(2, 2), *W = mat_new(2, 4);
    gsl_matrix_set(WQ, 0, 0, 1); gsl_matrix_set(WQ, 1, 0, 2);
    gsl_matrix_set(WK, 0, 0, 3); gsl_matrix_set(WK, 1, 0, 4);
    gsl_matrix_set(WV, 0, 0, 5); gsl_matrix_set(WV, 0, 1, 6);
    gsl_matrix_set(WV, 1, 0, 7); gsl_matrix_set(WV, 1, 1, 8);
    ck_assert_int_eq(fused_pack(W, WQ, WK, WV), ATT_OK);
    const double want[2][4] = { { 1, 3, 5, 6 }, { 2, 4, 7, 8 } };
    for (size_t i = 0; i < 2; i++)
        for (size_t j = 0; j < 4; j++) ck_assert_double_eq(gsl_matrix_get(W, i, j), want[i][j]);

    /* X = [1 1]: QKV = [3 7 12 14] */
    gsl_matrix *X = mat_new(1, 2), *QKV = mat_new(1, 4);
    gsl_matrix *Q = mat_new(1, 1), *K = mat_new(1, 1), *V = mat_new(1, 2);
    gsl_matrix_set_all(X, 1.0);
    ck_assert_int_eq(fused_project(Q, K, V, QKV, X, W), ATT_OK);
    ck_assert_double_eq(gsl_matrix_get(Q, 0, 0), 3);
    ck_assert_double_eq(gsl_matrix_get(K, 0, 0), 7);
    ck_assert_double_eq(gsl_matrix_get(V, 0, 0), 12);
    ck_assert_double_eq(gsl_matrix_get(V, 0, 1), 14);

    /* shape errors name both matrices */
    gsl_matrix *Wbad = mat_new(2, 5), *X3 = mat_new(1, 3);
    ck_assert_int_eq(fused_pack(Wbad, WQ, WK, WV), ATT_EUSAGE);
    ck_assert_ptr_nonnull(strstr(att_last_error(), "W_QKV (2 x 5)"));
    ck_assert_int_eq(fused_pack(W, WQ, WV, WV), ATT_EUSAGE);
    ck_assert_ptr_nonnull(strstr(att_last_error(), "W_K (2 x 2)"));
    ck_assert_int_eq(fused_project(Q, K, V, QKV, X3, W), ATT_EUSAGE);
    ck_assert_ptr_nonnull(strstr(att_last_error(), "X (1 x 3)"));
    ck_assert_ptr_nonnull(strstr(att_last_error(), "W_QKV (2 x 4)"));
    ck_assert_int_eq(fused_project_out_in(Q, K, V, QKV, X, W), ATT_EUSAGE);
    ck_assert_int_eq(fused_project(Q, K, QKV, QKV, X, W), ATT_EUSAGE);   /* V too wide */

    /* fused_unpack gives the three blocks back exactly, and checks shapes */
    gsl_matrix *UQ = mat_new(2, 1), *UK = mat_new(2, 1), *UV = mat_new(2, 2);
    ck_assert_int_eq(fused_unpack(UQ, UK, UV, W), ATT_OK);
    ck_assert(gsl_matrix_equal(UQ, WQ) && gsl_matrix_equal(UK, WK) && gsl_matrix_equal(UV, WV));
    ck_assert_int_eq(fused_unpack(UQ, UK, UV, Wbad), ATT_EUSAGE);
    ck_assert_ptr_nonnull(strstr(att_last_error(), "W_QKV (2 x 5)"));
    mat_free(UQ); mat_free(UK); mat_free(UV);

    mat_free(WQ); mat_free(WK); mat_free(WV); mat_free(W); mat_free(X); mat_free(QKV);
    mat_free(Q); mat_free(K); mat_free(V); mat_free(Wbad); mat_free(X3);
}
END_TEST

/* ---- properties ------------------------------------------------------------ */

/* mat.h's row and column norms by hand: A = [3 4; 0 1] has row norms 5, 1 and
 * column norms 3, sqrt(17); and so do gsl's dnrm2 on them. */
START_TEST(test_max_norms_by_hand)
{
    gsl_matrix *A = mat_new(2, 2);
    gsl_matrix_set(A, 0, 0, 3); gsl_matrix_set(A, 0, 1, 4);
    gsl_matrix_set(A, 1, 0, 0); gsl_matrix_set(A, 1, 1, 1);
    ck_assert_double_eq_tol(mat_max_row_norm(A), 5.0, 4 * DBL_EPSILON * 5.0);
    ck_assert_double_eq_tol(mat_max_col_norm(A), sqrt(17.0), 4 * DBL_EPSILON * 5.0);
    mat_free(A);
}
END_TEST

START_TEST(test_prop_fused_equals_separate)
{
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    PROP_FOR(k, rng, "fused projection = separate, (out, in) storage = fused") {
        size_t N = prop_size(rng, 1, 40), d = prop_size(rng, 1, 48);
        size_t d_k = prop_size(rng, 1, 16), d_v = prop_size(rng, 1, 16), n = 2 * d_k + d_v;
        double sw = 1.0 / sqrt((double)d);
        gsl_matrix *X = rand_mat(rng, N, d, 1.0);
        gsl_matrix *WQ = rand_mat(rng, d, d_k, sw), *WK = rand_mat(rng, d, d_k, sw);
        gsl_matrix *WV = rand_mat(rng, d, d_v, sw);
        gsl_matrix *W = mat_new(d, n), *Wt = mat_new(n, d), *QKV = mat_new(N, n);
        gsl_matrix *Q = mat_new(N, d_k), *K = mat_new(N, d_k), *V = mat_new(N, d_v);
        gsl_matrix *Q2 = mat_new(N, d_k), *K2 = mat_new(N, d_k), *V2 = mat_new(N, d_v);
        gsl_matrix *Qs = mat_new(N, d_k), *Ks = mat_new(N, d_k), *Vs = mat_new(N, d_v);

        PROP_ASSERT(fused_pack(W, WQ, WK, WV) == ATT_OK, "%s", att_last_error());
        PROP_ASSERT(fused_project(Q, K, V, QKV, X, W) == ATT_OK, "%s", att_last_error());
        // three separate products
        mat_gemm(Qs, 1.0, X, 0, WQ, 0, 0.0);
        mat_gemm(Ks, 1.0, X, 0, WK, 0, 0.0);
        mat_gemm(Vs, 1.0, X, 0, WV, 0, 0.0);
        double tol = tol_eps(2, d, abs_prod_max(X, W, 0));
        PROP_ASSERT(mat_max_abs_diff(Q, Qs) <= tol, "Q: %g > %g", mat_max_abs_diff(Q, Qs), tol);
        PROP_ASSERT(mat_max_abs_diff(K, Ks) <= tol, "K: %g > %g", mat_max_abs_diff(K, Ks), tol);
        PROP_ASSERT(mat_max_abs_diff(V, Vs) <= tol, "V: %g > %g", mat_max_abs_diff(V, Vs), tol);

        // the framework layout: the weight stored (out, in) = W_QKV^T
        gsl_matrix_transpose_memcpy(Wt, W);
        PROP_ASSERT(fused_project_out_in(Q2, K2, V2, QKV, X, Wt) == ATT_OK, "%s", att_last_error());
        PROP_ASSERT(mat_max_abs_diff(Q2, Q) <= tol, "(out,in) Q: %g > %g", mat_max_abs_diff(Q2, Q),
                    tol);
        PROP_ASSERT(mat_max_abs_diff(K2, K) <= tol, "(out,in) K: %g > %g", mat_max_abs_diff(K2, K),
                    tol);
        PROP_ASSERT(mat_max_abs_diff(V2, V) <= tol, "(out,in) V: %g > %g", mat_max_abs_diff(V2, V),
                    tol);

        mat_free(X); mat_free(WQ); mat_free(WK); mat_free(WV); mat_free(W); mat_free(Wt);
        mat_free(QKV); mat_free(Q); mat_free(K); mat_free(V); mat_free(Q2); mat_free(K2);
        mat_free(V2); mat_free(Qs); mat_free(Ks); mat_free(Vs);
    }
    gsl_rng_free(rng);
}
END_TEST

START_TEST(test_prop_batched_equals_one_by_one)
{
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    double worst = 0.0;
    PROP_FOR(k, rng, "batched head = one sequence at a time") {
        size_t B = prop_size(rng, 1, 5), T = prop_size(rng, 1, 12), d = prop_size(rng, 1, 32);
        int rope = (int)(k % 2), biases = k % 4 < 2;
        size_t d_k = rope ? 2 * prop_size(rng, 1, 6) : prop_size(rng, 1, 12);
        size_t d_v = prop_size(rng, 1, 12);
        double sw = 1.0 / sqrt((double)d);
        gsl_matrix *X = rand_mat(rng, B * T, d, 1.0), *O = mat_new(B * T, d_v);
        gsl_matrix *WQ = rand_mat(rng, d, d_k, sw), *WK = rand_mat(rng, d, d_k, sw);
        gsl_matrix *WV = rand_mat(rng, d, d_v, sw);
        gsl_vector *bQ = mat_vec_new(d_k), *bK = mat_vec_new(d_k), *bV = mat_vec_new(d_v);
        mat_vec_randn(rng, bQ, 0.5); mat_vec_randn(rng, bK, 0.5); mat_vec_randn(rng, bV, 0.5);
        head_params p = head_params_make(WQ, WK, WV);
        if (biases) { p.b_Q = bQ; p.b_K = bK; p.b_V = bV; }
        p.rope = rope;
        p.scale = k % 3 == 0 ? 1.0 : 1.0 / sqrt((double)d_k);

        PROP_ASSERT(head_forward_batched(O, &p, X, B, T) == ATT_OK, "%s", att_last_error());
        // the scale of the projections' rounding: |X| |W| + |b|
        double P =
            fmax(abs_prod_max(X, WQ, 0), fmax(abs_prod_max(X, WK, 0), abs_prod_max(X, WV, 0))) +
            (biases ? fmax(gsl_vector_max(bQ) - gsl_vector_min(bQ),
                           fmax(gsl_vector_max(bK) - gsl_vector_min(bK),
                                gsl_vector_max(bV) - gsl_vector_min(bV))) +
                          1.0
                    : 0.0);
        head_state st;
        PROP_ASSERT(head_state_alloc(&st, T, T, d, d_k, d_v) == ATT_OK, "%s", att_last_error());
        for (size_t b = 0; b < B; b++) {
            gsl_matrix_const_view Xb = gsl_matrix_const_submatrix(X, b * T, 0, T, d);
            gsl_matrix_const_view Ob = gsl_matrix_const_submatrix(O, b * T, 0, T, d_v);
            PROP_ASSERT(head_forward(&st, &p, &Xb.matrix, &Xb.matrix) == ATT_OK, "%s",
                        att_last_error());
            /* Q, K, V differ by rounding (2 d eps P); the scores by d_k times
             * that times |Q|, |K|; the output by the scores' change times |V| */
            double sc = fabs(p.scale) * (double)d_k
                      * fmax(mat_max_abs(st.Q), mat_max_abs(st.K)) * P;
            double tol = tol_eps(8, d + d_k + T, (1.0 + sc) * (P + mat_max_abs(st.V)));
            double err = mat_max_abs_diff(&Ob.matrix, st.O);
            worst = fmax(worst, err / tol);
            PROP_ASSERT(err <= tol, "sequence %zu of %zu: max |O_batched - O_alone| = %g > %g",
                        b, B, err, tol);
        }
        head_state_free(&st);
        mat_free(X); mat_free(O); mat_free(WQ); mat_free(WK); mat_free(WV);
        mat_vec_free(bQ); mat_vec_free(bK); mat_vec_free(bV);
    }
    printf("  batched vs one by one: worst error / tolerance = %.3g\n", worst);
    gsl_rng_free(rng);
}
END_TEST

/* fusedcheck (fused_qkv's per-head and batched checks): on random multi-head
 * cases both stay within their rounding tolerances, 2 d eps |X| |W| and
 * tol_head_output; a planted change of one fused entry by 1 is seen as 1. */
START_TEST(test_prop_fusedcheck)
{
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    PROP_FOR(k, rng, "fusedcheck: per head and batched within tolerance, planted error seen") {
        fusedcheck_case c = {"prop",
                             prop_size(rng, 1, 3),
                             prop_size(rng, 1, 8),
                             prop_size(rng, 1, 20),
                             prop_size(rng, 1, 5),
                             prop_size(rng, 1, 5),
                             prop_size(rng, 1, 3)};
        size_t N = c.B * c.T, nq = c.heads * c.d_k, nv = c.heads * c.d_v,
               w = c.d_k > c.d_v ? c.d_k : c.d_v;
        double sw = 1.0 / sqrt((double)c.d);
        gsl_matrix *X = rand_mat(rng, N, c.d, 1.0), *WQ = rand_mat(rng, c.d, nq, sw);
        gsl_matrix *WK = rand_mat(rng, c.d, nq, sw), *WV = rand_mat(rng, c.d, nv, sw);
        gsl_matrix *W = mat_new(c.d, 2 * nq + nv), *QKV = mat_new(N, 2 * nq + nv),
                   *Y = mat_new(N, w);
        gsl_matrix *F[3] = {mat_new(N, nq), mat_new(N, nq), mat_new(N, nv)}, *O = mat_new(N, c.d_v);
        head_state st;
        PROP_ASSERT(head_state_alloc(&st, c.T, c.T, c.d, c.d_k, c.d_v) == ATT_OK, "%s",
                    att_last_error());
        PROP_ASSERT(fused_pack(W, WQ, WK, WV) == ATT_OK &&
                        fused_project(F[0], F[1], F[2], QKV, X, W) == ATT_OK,
                    "%s", att_last_error());
        const gsl_matrix *Ws[3] = {WQ, WK, WV}, *Fs[3] = {F[0], F[1], F[2]};
        double err = -1.0, tol = -1.0,
               tol_proj = tol_eps(2, c.d, mat_max_row_norm(X) * mat_max_col_norm(W));
        PROP_ASSERT(fusedcheck_per_head(&err, &c, X, Ws, Fs, Y) == ATT_OK, "%s", att_last_error());
        PROP_ASSERT(err >= 0.0 && err <= tol_proj, "per head: %g > %g", err, tol_proj);
        PROP_ASSERT(fusedcheck_batched(&err, &tol, &c, X, Ws, O, &st) == ATT_OK, "%s",
                    att_last_error());
        PROP_ASSERT(err >= 0.0 && tol > 0.0 && err <= tol, "batched: %g > %g", err, tol);
        gsl_matrix_set(F[2], N - 1, nv - 1, gsl_matrix_get(F[2], N - 1, nv - 1) + 1.0);
        PROP_ASSERT(fusedcheck_per_head(&err, &c, X, Ws, Fs, Y) == ATT_OK, "%s", att_last_error());
        PROP_ASSERT(fabs(err - 1.0) <= 1e-12, "planted error 1 seen as %g", err);
        head_state_free(&st);
        mat_free(X);
        mat_free(WQ);
        mat_free(WK);
        mat_free(WV);
        mat_free(W);
        mat_free(QKV);
        mat_free(Y);
        mat_free(F[0]); mat_free(F[1]); mat_free(F[2]); mat_free(O);
    }
    gsl_rng_free(rng);
}
END_TEST

PROP_MAIN("test_fused",
          {"unit", 0, {test_pack_by_hand, test_max_norms_by_hand}},
          {"properties", 120, {test_prop_fused_equals_separate, test_prop_batched_equals_one_by_one,
                               test_prop_fusedcheck}})
