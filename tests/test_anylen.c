/* test_anylen.c - any_length's headline, anylen_row_check (lib/claims/anylen.h): the tiled
 * head's rows agree with o_i = sum_j a_ij v_j recomputed in long double within their rounding
 * bound, for random heads and lengths from a printed seed (with the causal mask: the plain head);
 * planted wrong heads fail it: the scale off by 1e-6, the last key dropped, the output rows
 * shifted by one position.
 */
#include "prop.h"
#include "anylen.h"
#include "mat.h"
#include "tiled.h"
#include "head.h"
#include "status.h"

#include <math.h>

/* O = the head on X: tiled, or (causal: the tiled head has no mask) the plain head */
static void forward(gsl_matrix *O, const head_params *p, const gsl_matrix *X)
{
    if (!p->causal) {
        ck_assert_int_eq(tiled_forward(O, p, X, X, tiled_tiles_default()), ATT_OK);
        return;
    }
    head_state st;
    size_t T = X->size1;
    ck_assert_int_eq(head_state_alloc(&st, T, T, X->size2, p->W_Q->size2, p->W_V->size2), ATT_OK);
    ck_assert_int_eq(head_forward(&st, p, X, X), ATT_OK);
    gsl_matrix_memcpy(O, st.O);
    head_state_free(&st);
}

START_TEST(prop_rows_within_bound_wrong_heads_outside)
{
    gsl_rng *rng = rng_new("mt19937", 0);
    PROP_FOR(k, rng, "tiled rows within their bound; wrong heads outside it")
    {
        if (k >= 4) break;
        size_t T = prop_size(rng, 200, 800), d = prop_size(rng, 4, 16);
        gsl_matrix *W[3];
        unsigned long seed = gsl_rng_get(rng);
        ck_assert_int_eq(anylen_weights(W, d, d, d, seed), ATT_OK);
        head_params p = head_params_make(W[0], W[1], W[2]);
        p.causal = (int)(k % 2);
        anylen_case c;
        ck_assert_int_eq(anylen_alloc(&c, &p, seed, 0, T), ATT_OK);
        forward(c.O, &p, c.X);
        double u, e;
        ck_assert_int_eq(anylen_row_check(&p, c.X, c.O, 64, seed, &u, &e), ATT_OK);
        PROP_ASSERT(u <= 1.0, "T %zu d %zu causal %d: %g bounds (error %g)", T, d, p.causal, u, e);
        gsl_matrix *O2 = mat_new(T, d);
        // planted: the scale off by 1e-6
        head_params w = p;
        w.scale = 1.0 + 1e-6;
        forward(O2, &w, c.X);
        ck_assert_int_eq(anylen_row_check(&p, c.X, O2, 64, seed, &u, &e), ATT_OK);
        PROP_ASSERT(u > 1.0, "T %zu: a scale off by 1e-6 at only %g bounds", T, u);
        // planted: the last key dropped (keys 0 .. T - 2)
        gsl_matrix_const_view kv = gsl_matrix_const_submatrix(c.X, 0, 0, T - 1, d);
        if (!p.causal) {
            ck_assert_int_eq(tiled_forward(O2, &p, c.X, &kv.matrix, tiled_tiles_default()), ATT_OK);
            ck_assert_int_eq(anylen_row_check(&p, c.X, O2, 64, seed, &u, &e), ATT_OK);
            PROP_ASSERT(u > 1.0, "T %zu: the last key dropped at only %g bounds", T, u);
        }
        // planted: row i holds o_{i+1} (a position off by one)
        for (size_t i = 0; i < T; i++)
            for (size_t j = 0; j < d; j++)
                gsl_matrix_set(O2, i, j, gsl_matrix_get(c.O, (i + 1) % T, j));
        ck_assert_int_eq(anylen_row_check(&p, c.X, O2, 64, seed, &u, &e), ATT_OK);
        PROP_ASSERT(u > 1.0, "T %zu: rows shifted at only %g bounds", T, u);
        mat_free(O2);
        anylen_free(&c);
        for (int i = 0; i < 3; i++) mat_free(W[i]);
    }
    gsl_rng_free(rng);
}
END_TEST

PROP_MAIN("anylen", {"properties", 300, {prop_rows_within_bound_wrong_heads_outside}})
