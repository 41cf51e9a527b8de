/* test_tiled_rows.c - tiled_row_check (lib/fast/tiled.h), any_length's headline: the tiled
 * head's rows agree with o_i = sum_j a_ij v_j recomputed in long double within their rounding
 * bound, for random heads and lengths from a printed seed (with the causal mask: the plain head);
 * planted wrong heads fail it: the scale off by 1e-6, the last key dropped, the output rows
 * shifted by one position. And the calls it refuses: no rows, a row >= T, a key bias.
 */
#include "prop.h"
#include "mat.h"
#include "tiled.h"
#include "head.h"
#include "status.h"

#include <math.h>

enum { NROWS = 64 };

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

/* W_Q, W_K, W_V (d, d) ~ N(0, 1/d), X (T, d) ~ N(0, 1), from rng in this order */
static gsl_matrix *draw_head(gsl_rng *rng, gsl_matrix *W[3], size_t T, size_t d)
{
    for (int k = 0; k < 3; k++) {
        W[k] = mat_new(d, d);
        ck_assert_ptr_nonnull(W[k]);
        mat_randn(rng, W[k], 1.0 / sqrt((double)d));
    }
    gsl_matrix *X = mat_new(T, d);
    ck_assert_ptr_nonnull(X);
    mat_randn(rng, X, 1.0);
    return X;
}

START_TEST(prop_rows_within_bound_wrong_heads_outside)
{
    gsl_rng *rng = rng_new("mt19937", 0);
    PROP_FOR(k, rng, "tiled rows within their bound; wrong heads outside it")
    {
        if (k >= 4) break;
        size_t T = prop_size(rng, 200, 800), d = prop_size(rng, 4, 16);
        gsl_matrix *W[3], *X = draw_head(rng, W, T, d), *O = mat_new(T, d), *O2 = mat_new(T, d);
        head_params p = head_params_make(W[0], W[1], W[2]);
        p.causal = (int)(k % 2);
        // the rows: 0, T - 1, then uniform (repeats possible), as any_length picks them
        size_t rows[NROWS];
        for (size_t r = 0; r < NROWS; r++)
            rows[r] = r == 0 ? 0 : r == 1 ? T - 1 : prop_size(rng, 0, T - 1);
        forward(O, &p, X);
        double u, e;
        ck_assert_int_eq(tiled_row_check(&p, X, O, rows, NROWS, &u, &e), ATT_OK);
        PROP_ASSERT(u <= 1.0, "T %zu d %zu causal %d: %g bounds (error %g)", T, d, p.causal, u, e);
        // planted: the scale off by 1e-6
        head_params w = p;
        w.scale = 1.0 + 1e-6;
        forward(O2, &w, X);
        ck_assert_int_eq(tiled_row_check(&p, X, O2, rows, NROWS, &u, &e), ATT_OK);
        PROP_ASSERT(u > 1.0, "T %zu: a scale off by 1e-6 at only %g bounds", T, u);
        // planted: the last key dropped (keys 0 .. T - 2)
        gsl_matrix_const_view kv = gsl_matrix_const_submatrix(X, 0, 0, T - 1, d);
        if (!p.causal) {
            ck_assert_int_eq(tiled_forward(O2, &p, X, &kv.matrix, tiled_tiles_default()), ATT_OK);
            ck_assert_int_eq(tiled_row_check(&p, X, O2, rows, NROWS, &u, &e), ATT_OK);
            PROP_ASSERT(u > 1.0, "T %zu: the last key dropped at only %g bounds", T, u);
        }
        // planted: row i holds o_{i+1} (a position off by one)
        for (size_t i = 0; i < T; i++)
            for (size_t j = 0; j < d; j++)
                gsl_matrix_set(O2, i, j, gsl_matrix_get(O, (i + 1) % T, j));
        ck_assert_int_eq(tiled_row_check(&p, X, O2, rows, NROWS, &u, &e), ATT_OK);
        PROP_ASSERT(u > 1.0, "T %zu: rows shifted at only %g bounds", T, u);
        mat_free(O2);
        mat_free(O);
        mat_free(X);
        for (int i = 0; i < 3; i++) mat_free(W[i]);
    }
    gsl_rng_free(rng);
}
END_TEST

START_TEST(test_refused)
{
    gsl_rng *rng = rng_new("mt19937", prop_seed());
    size_t T = 20, d = 4, rows[2] = {0, T - 1}, bad[2] = {0, T};
    gsl_matrix *W[3], *X = draw_head(rng, W, T, d), *O = mat_new(T, d);
    head_params p = head_params_make(W[0], W[1], W[2]);
    forward(O, &p, X);
    double u, e;
    ck_assert_int_eq(tiled_row_check(&p, X, O, rows, 2, &u, &e), ATT_OK);
    ck_assert(u <= 1.0);
    ck_assert_int_eq(tiled_row_check(&p, X, O, rows, 0, &u, &e), ATT_EUSAGE);
    ck_assert_int_eq(tiled_row_check(&p, X, O, bad, 2, &u, &e), ATT_EUSAGE);
    gsl_vector *b = gsl_vector_calloc(d);
    p.b_K = b;
    ck_assert_int_eq(tiled_row_check(&p, X, O, rows, 2, &u, &e), ATT_EUSAGE);
    gsl_vector_free(b);
    mat_free(O);
    mat_free(X);
    for (int i = 0; i < 3; i++) mat_free(W[i]);
    gsl_rng_free(rng);
}
END_TEST

PROP_MAIN("tiled_rows", {"unit", 60, {test_refused}},
          {"properties", 300, {prop_rows_within_bound_wrong_heads_outside}})
