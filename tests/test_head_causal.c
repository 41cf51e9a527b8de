/* test_head_causal.c - the causal mask of head_params (lib/math/head.h).
 *
 * Shapes: Xq (T_q, d), Xkv (T_k, d), W_Q, W_K (d, d_k), W_V (d, d_v),
 *         S, A (T_q, T_k), O (T_q, d_v), G = dL/dO (T_q, d_v).
 * Checked: off by default and then bit-identical to the head without the
 * field; masked scores are -inf and masked weights exactly 0; each row is
 * the softmax of its unmasked prefix; the backward pass against central
 * finite differences with the mask on; the batched head applies it per
 * sequence; the tiled head refuses it.
 */
#include "prop.h"
#include "head.h"
#include "mat.h"
#include "softmax.h"
#include "status.h"
#include "tiled.h"

#include <float.h>
#include <math.h>
#include <string.h>
#include <gsl/gsl_blas.h>

static gsl_matrix *rand_mat(gsl_rng *rng, size_t r, size_t c, double sigma)
{
    gsl_matrix *A = mat_new(r, c);
    ck_assert_ptr_nonnull(A);
    mat_randn(rng, A, sigma);
    return A;
}

START_TEST(test_default_off)
{
    gsl_matrix *W = mat_new(2, 2);
    head_params p = head_params_make(W, W, W);
    ck_assert_int_eq(p.causal, 0);
    mat_free(W);
}
END_TEST

/* Masked entries: s_ij = -inf, a_ij = 0 for j > i; the kept prefix of row i
 * is softmax(s_i0 .. s_ii) of the unmasked scores, bit for bit; causal = 0
 * gives the unmasked head bit for bit. */
START_TEST(test_prop_mask_forward)
{
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    PROP_FOR(k, rng, "causal mask: -inf above the diagonal, softmax of the prefix") {
        size_t T_q = prop_size(rng, 1, 7), T_k = prop_size(rng, 1, 7), d = prop_size(rng, 1, 6);
        size_t d_k = prop_size(rng, 1, 4), d_v = prop_size(rng, 1, 4);
        gsl_matrix *Xq = rand_mat(rng, T_q, d, 1.0), *Xkv = rand_mat(rng, T_k, d, 1.0);
        gsl_matrix *WQ = rand_mat(rng, d, d_k, 1.0), *WK = rand_mat(rng, d, d_k, 1.0);
        gsl_matrix *WV = rand_mat(rng, d, d_v, 1.0);
        head_params p = head_params_make(WQ, WK, WV), pc = p;
        pc.causal = 1;
        head_state s0, s1;
        ck_assert_int_eq(head_state_alloc(&s0, T_q, T_k, d, d_k, d_v), ATT_OK);
        ck_assert_int_eq(head_state_alloc(&s1, T_q, T_k, d, d_k, d_v), ATT_OK);
        PROP_ASSERT(head_forward(&s0, &p, Xq, Xkv) == ATT_OK, "%s", att_last_error());
        PROP_ASSERT(head_forward(&s1, &pc, Xq, Xkv) == ATT_OK, "%s", att_last_error());
        double row[8];
        for (size_t i = 0; i < T_q; i++) {
            size_t keep = i + 1 < T_k ? i + 1 : T_k;
            for (size_t j = 0; j < keep; j++) row[j] = gsl_matrix_get(s0.S, i, j);
            softmax_vec(row, row, keep);
            for (size_t j = 0; j < T_k; j++) {
                double s = gsl_matrix_get(s1.S, i, j), a = gsl_matrix_get(s1.A, i, j);
                if (j > i) {
                    PROP_ASSERT(s == -INFINITY && a == 0.0, "(%zu,%zu): s %g a %g", i, j, s, a);
                } else {
                    PROP_ASSERT(s == gsl_matrix_get(s0.S, i, j), "score (%zu,%zu) changed", i, j);
                    PROP_ASSERT(a == row[j], "(%zu,%zu): %.17g vs prefix softmax %.17g", i, j, a,
                                row[j]);
                }
            }
        }
        // causal = 0 is the plain head: run it again, bit for bit
        head_state s2;
        ck_assert_int_eq(head_state_alloc(&s2, T_q, T_k, d, d_k, d_v), ATT_OK);
        ck_assert_int_eq(head_forward(&s2, &p, Xq, Xkv), ATT_OK);
        PROP_ASSERT(mat_max_abs_diff(s2.O, s0.O) == 0.0, "causal = 0 changed the output");
        head_state_free(&s0); head_state_free(&s1); head_state_free(&s2);
        mat_free(Xq); mat_free(Xkv); mat_free(WQ); mat_free(WK); mat_free(WV);
    }
    gsl_rng_free(rng);
}
END_TEST

/* L = sum(G .* O) with the mask on */
static double masked_loss(const head_params *p, const gsl_matrix *X, const gsl_matrix *G,
                          size_t d_v)
{
    gsl_matrix *O = mat_new(X->size1, d_v);
    ck_assert_int_eq(head_output(O, p, X, X), ATT_OK);
    double L = 0.0;
    for (size_t i = 0; i < O->size1; i++)
        for (size_t j = 0; j < d_v; j++) L += gsl_matrix_get(G, i, j) * gsl_matrix_get(O, i, j);
    mat_free(O);
    return L;
}

/* Backward with the mask: dW_Q, dW_K, dW_V and dX (self-attention) against
 * central differences, ||fd - g|| <= 1e-6 ||g|| + 1e-8 (1 + |L|) sqrt(n);
 * the weights of row 0 do not depend on the scores at all (one key). */
START_TEST(test_prop_mask_backward)
{
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    PROP_FOR(k, rng, "causal mask: backprop = finite differences") {
        size_t T = prop_size(rng, 1, 6), d = prop_size(rng, 1, 6);
        size_t d_k = prop_size(rng, 1, 4), d_v = prop_size(rng, 1, 4);
        gsl_matrix *X = rand_mat(rng, T, d, 1.0), *G = rand_mat(rng, T, d_v, 1.0);
        gsl_matrix *W[3] = { rand_mat(rng, d, d_k, 1.0), rand_mat(rng, d, d_k, 1.0),
                             rand_mat(rng, d, d_v, 1.0) };
        head_params p = head_params_make(W[0], W[1], W[2]);
        p.causal = 1;
        head_state st;
        head_grads g;
        ck_assert_int_eq(head_state_alloc(&st, T, T, d, d_k, d_v), ATT_OK);
        ck_assert_int_eq(head_grads_alloc(&g, T, T, d, d_k, d_v), ATT_OK);
        ck_assert_int_eq(head_forward(&st, &p, X, X), ATT_OK);
        PROP_ASSERT(head_backward(&g, &st, &p, X, X, G) == ATT_OK, "%s", att_last_error());
        gsl_matrix *dX = mat_dup(g.dXq);
        gsl_matrix_add(dX, g.dXkv);
        gsl_matrix *target[4] = { W[0], W[1], W[2], X }, *grad[4] = { g.dW_Q, g.dW_K, g.dW_V, dX };
        const char *name[4] = { "dW_Q", "dW_K", "dW_V", "dX" };
        double L0 = fabs(masked_loss(&p, X, G, d_v));
        for (int t = 0; t < 4; t++) {
            size_t n = target[t]->size1 * target[t]->size2;
            double e2 = 0.0, g2 = 0.0;
            for (size_t i = 0; i < n; i++) {
                double *x = target[t]->data + i, x0 = *x, h = 1e-5 * fmax(1.0, fabs(x0));
                volatile double xp = x0 + h, xm = x0 - h;
                *x = xp;
                double Lp = masked_loss(&p, X, G, d_v);
                *x = xm;
                double Lm = masked_loss(&p, X, G, d_v);
                *x = x0;
                double fd = (Lp - Lm) / (xp - xm), gi = grad[t]->data[i];
                e2 += (fd - gi) * (fd - gi);
                g2 += gi * gi;
            }
            double allow = 1e-6 * sqrt(g2) + 1e-8 * (1.0 + L0) * sqrt((double)n);
            PROP_ASSERT(sqrt(e2) <= allow, "%s: ||fd - backprop|| = %.3g, allowed %.3g (T %zu)",
                        name[t], sqrt(e2), allow, T);
        }
        mat_free(dX); head_state_free(&st); head_grads_free(&g);
        mat_free(X); mat_free(G); mat_free(W[0]); mat_free(W[1]); mat_free(W[2]);
    }
    gsl_rng_free(rng);
}
END_TEST

/* The batched head masks within each sequence: equal to head_forward per
 * sequence up to rounding (the projections are one fused product there). */
START_TEST(test_batched_causal)
{
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(rng, 3);
    size_t B = 3, T = 5, d = 6, d_k = 3, d_v = 2;
    gsl_matrix *X = rand_mat(rng, B * T, d, 1.0), *O = mat_new(B * T, d_v), *Ob = mat_new(T, d_v);
    gsl_matrix *WQ = rand_mat(rng, d, d_k, 1.0), *WK = rand_mat(rng, d, d_k, 1.0),
               *WV = rand_mat(rng, d, d_v, 1.0);
    head_params p = head_params_make(WQ, WK, WV);
    p.causal = 1;
    ck_assert_int_eq(head_forward_batched(O, &p, X, B, T), ATT_OK);
    for (size_t b = 0; b < B; b++) {
        gsl_matrix_view Xb = gsl_matrix_submatrix(X, b * T, 0, T, d);
        gsl_matrix_view Os = gsl_matrix_submatrix(O, b * T, 0, T, d_v);
        ck_assert_int_eq(head_output(Ob, &p, &Xb.matrix, &Xb.matrix), ATT_OK);
        double diff = mat_max_abs_diff(Ob, &Os.matrix);
        ck_assert_msg(diff <= 64 * DBL_EPSILON * (1.0 + mat_max_abs(Ob)), "sequence %zu: %g", b,
                      diff);
        // row 0 sees only key 0: o_0 = v_0
        gsl_vector_view x0 = gsl_matrix_row(&Xb.matrix, 0);
        for (size_t j = 0; j < d_v; j++) {
            gsl_vector_view w = gsl_matrix_column(WV, j);
            double v0;
            gsl_blas_ddot(&x0.vector, &w.vector, &v0);
            ck_assert_double_eq_tol(gsl_matrix_get(&Os.matrix, 0, j), v0,
                                    64 * DBL_EPSILON * (1.0 + fabs(v0)));
        }
    }
    mat_free(X); mat_free(O); mat_free(Ob); mat_free(WQ); mat_free(WK); mat_free(WV);
    gsl_rng_free(rng);
}
END_TEST

START_TEST(test_tiled_refuses_causal)
{
    gsl_matrix *X = mat_new(4, 3), *W = mat_new(3, 2), *O = mat_new(4, 2);
    gsl_matrix_set_all(X, 0.5);
    gsl_matrix_set_all(W, 0.25);
    head_params p = head_params_make(W, W, W);
    p.causal = 1;
    tiled_tiles tl = tiled_tiles_default();
    ck_assert_int_eq(tiled_forward(O, &p, X, X, tl), ATT_EUSAGE);
    ck_assert_ptr_nonnull(strstr(att_last_error(), "causal"));
    mat_free(X); mat_free(W); mat_free(O);
}
END_TEST

PROP_MAIN("test_head_causal",
          {"unit", 0, {test_default_off, test_batched_causal, test_tiled_refuses_causal}},
          {"properties", 120, {test_prop_mask_forward, test_prop_mask_backward}})
