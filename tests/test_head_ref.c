/* test_head_ref.c - the loop-level head (head_ref.h, the formulas as the
 * section writes them) equals the BLAS head (head_forward) on random heads:
 * self- and cross-attention, with and without biases, any scale, causal or
 * not, within the bound of a head computed two ways (tol_head_output, which
 * scales with the sizes and DBL_EPSILON). And it refuses what it does not
 * write (RoPE) or a shape that does not fit. */
#include "prop.h"
#include "head.h"
#include "head_ref.h"
#include "mat.h"
#include "tol.h"

#include <math.h>

START_TEST(prop_ref_equals_forward)
{
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    PROP_FOR(k, rng, "head_ref_forward equals head_forward") {
        size_t T_q = prop_size(rng, 1, 12), d = prop_size(rng, 1, 24), d_k = prop_size(rng, 1, 12);
        size_t d_v = prop_size(rng, 1, 12);
        int self = gsl_rng_uniform(rng) < 0.5, biases = gsl_rng_uniform(rng) < 0.5;
        size_t T_k = self ? T_q : prop_size(rng, 1, 12);
        double scale = pow(10.0, gsl_rng_uniform(rng) * 2.0 - 1.0);   /* 0.1 .. 10 */
        gsl_matrix *Xq = mat_new(T_q, d), *Xk = self ? Xq : mat_new(T_k, d);
        gsl_matrix *W_Q = mat_new(d, d_k), *W_K = mat_new(d, d_k), *W_V = mat_new(d, d_v);
        gsl_vector *b_Q = mat_vec_new(d_k), *b_K = mat_vec_new(d_k), *b_V = mat_vec_new(d_v);
        gsl_matrix *O = mat_new(T_q, d_v), *A = mat_new(T_q, T_k);
        mat_randn(rng, Xq, 1.0);
        if (!self) mat_randn(rng, Xk, 1.0);
        mat_randn(rng, W_Q, 1.0 / sqrt((double)d));
        mat_randn(rng, W_K, 1.0 / sqrt((double)d));
        mat_randn(rng, W_V, 1.0 / sqrt((double)d));
        mat_vec_randn(rng, b_Q, 0.5), mat_vec_randn(rng, b_K, 0.5), mat_vec_randn(rng, b_V, 0.5);
        head_params p = head_params_make(W_Q, W_K, W_V);
        if (biases) p.b_Q = b_Q, p.b_K = b_K, p.b_V = b_V;
        p.scale = scale;
        p.causal = gsl_rng_uniform(rng) < 0.3;
        head_state st;
        PROP_ASSERT(head_state_alloc(&st, T_q, T_k, d, d_k, d_v) == ATT_OK, "alloc");
        PROP_ASSERT(head_forward(&st, &p, Xq, Xk) == ATT_OK, "%s", att_last_error());
        PROP_ASSERT(head_ref_forward(O, A, &p, Xq, Xk) == ATT_OK, "%s", att_last_error());
        double tol = tol_head_output(&st, Xk, W_V, scale);
        double eO = mat_max_abs_diff(O, st.O), eA = mat_max_abs_diff(A, st.A);
        PROP_ASSERT(eO <= tol, "|O_ref - O| = %g > %g (T_q %zu T_k %zu d %zu d_k %zu d_v %zu)", eO,
                    tol, T_q, T_k, d, d_k, d_v);
        /* the weights: A is O's formula with V = I, so the same bound with max|v| = 1 */
        double tolA = tol_attention_output(T_k, d + d_k, tol_score_bound(st.Q, st.K, scale), 1.0);
        PROP_ASSERT(eA <= tolA, "|A_ref - A| = %g > %g", eA, tolA);
        head_state_free(&st);
        if (!self) mat_free(Xk);
        mat_free(Xq), mat_free(W_Q), mat_free(W_K), mat_free(W_V), mat_free(O), mat_free(A);
        mat_vec_free(b_Q), mat_vec_free(b_K), mat_vec_free(b_V);
    }
    gsl_rng_free(rng);
}
END_TEST

START_TEST(test_ref_refuses)
{
    gsl_matrix *X = mat_new(3, 4), *W = mat_new(4, 2), *O = mat_new(3, 2), *Obad = mat_new(2, 2);
    gsl_matrix_set_all(X, 0.5), gsl_matrix_set_all(W, 0.25);
    head_params p = head_params_make(W, W, W);
    ck_assert_int_eq(head_ref_forward(O, NULL, &p, X, X), ATT_OK);
    /* equal scores: every weight 1/3, every output the mean value row */
    ck_assert_double_eq_tol(gsl_matrix_get(O, 1, 1), 0.5, 1e-15);
    ck_assert_int_eq(head_ref_forward(Obad, NULL, &p, X, X), ATT_EUSAGE);
    p.rope = 1;
    ck_assert_int_eq(head_ref_forward(O, NULL, &p, X, X), ATT_EUSAGE);
    mat_free(X), mat_free(W), mat_free(O), mat_free(Obad);
}
END_TEST

PROP_MAIN("test_head_ref",
          {"unit", 0, {test_ref_refuses}},
          {"properties", 120, {prop_ref_equals_forward}})
