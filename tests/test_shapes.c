/* test_shapes.c - attention_shapes, parameter counts, and agreement of the
 * shapes with the matrices the head really computes.
 */
#include "prop.h"
#include "head.h"
#include "mat.h"
#include "shapes.h"
#include "status.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

/* the entry called name in sh[SHAPES_COUNT] */
static const shape *shape_find(const shape *sh, const char *name)
{
    for (int i = 0; i < SHAPES_COUNT; i++)
        if (strcmp(sh[i].name, name) == 0) return &sh[i];
    ck_abort_msg("no shape called %s", name);
    return NULL;
}

static size_t shape_count(const shape *s)
{
    size_t n = 1;
    for (int i = 0; i < s->rank; i++) n *= s->dim[i];
    return n;
}

/* ---- unit tests ------------------------------------------------------------ */

START_TEST(test_gpt2_counts)
{
    /* GPT-2 small: d = 768, d_k = d_v = 64, 12 heads */
    ck_assert_uint_eq(shapes_head_projection_params(768, 64, 64), 147456);      /* 3 * 768 * 64 */
    ck_assert_uint_eq(12 * shapes_head_projection_params(768, 64, 64), 1769472);
    ck_assert_uint_eq(shapes_qk_factored_params(768, 64), 98304);               /* 2 * 768 * 64 */
    ck_assert_uint_lt(shapes_qk_factored_params(768, 64), 768u * 768u); /* vs d^2 = 589824 */
    ck_assert_uint_eq(shapes_head_projection_params(4, 2, 2), 24);      /* the worked example */
    ck_assert_uint_eq(shapes_head_projection_params(10, 3, 5), 10 * 3 + 10 * 3 + 10 * 5);
    /* overflow is reported as 0, not wrapped */
    ck_assert_uint_eq(shapes_head_projection_params(SIZE_MAX / 2, 2, 1), 0);
    ck_assert_uint_eq(shapes_head_projection_params(2, SIZE_MAX / 2 + 1, 1), 0);
    ck_assert_uint_eq(shapes_qk_factored_params(SIZE_MAX / 2, 2), 0);
}
END_TEST

START_TEST(test_shapes_by_hand)
{
    /* B = 2, T_q = 5, T_k = 7, d = 16, d_k = 4, d_v = 3 */
    shape sh[SHAPES_COUNT];
    ck_assert_int_eq(attention_shapes(sh, 2, 5, 7, 16, 4, 3), ATT_OK);
    static const struct { const char *name; int rank; size_t dim[3]; } want[SHAPES_COUNT] = {
        { "X_q", 3, { 2, 5, 16 } }, { "X_kv", 3, { 2, 7, 16 } },
        { "W_Q", 2, { 16, 4, 0 } }, { "W_K", 2, { 16, 4, 0 } }, { "W_V", 2, { 16, 3, 0 } },
        { "Q", 3, { 2, 5, 4 } }, { "K", 3, { 2, 7, 4 } }, { "V", 3, { 2, 7, 3 } },
        { "S", 3, { 2, 5, 7 } }, { "A", 3, { 2, 5, 7 } }, { "O", 3, { 2, 5, 3 } },
    };
    for (int i = 0; i < SHAPES_COUNT; i++) {
        ck_assert_str_eq(sh[i].name, want[i].name);
        ck_assert_int_eq(sh[i].rank, want[i].rank);
        for (int j = 0; j < 3; j++) ck_assert_uint_eq(sh[i].dim[j], want[i].dim[j]);
    }
    /* zero sizes are usage errors */
    ck_assert_int_eq(attention_shapes(sh, 0, 5, 7, 16, 4, 3), ATT_EUSAGE);
    ck_assert_int_eq(attention_shapes(sh, 1, 5, 7, 16, 0, 3), ATT_EUSAGE);
    ck_assert_ptr_nonnull(strstr(att_last_error(), "d_k=0"));
}
END_TEST

/* ---- properties ------------------------------------------------------------ */

#define SHAPE_IS(sh, name, a, b, c)                                                   \
    do {                                                                              \
        const shape *s_ = shape_find(sh, name);                                       \
        PROP_ASSERT(s_->rank == 3 && s_->dim[0] == (a) && s_->dim[1] == (b)           \
                    && s_->dim[2] == (c), "%s is (%zu, %zu, %zu), expected (%zu, %zu, %zu)", \
                    name, s_->dim[0], s_->dim[1], s_->dim[2], (size_t)(a), (size_t)(b), \
                    (size_t)(c));                                                     \
    } while (0)

START_TEST(test_prop_shapes_match_head)
{
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    PROP_FOR(k, rng, "attention_shapes agrees with the head's matrices") {
        int self = (int)(k % 2);
        size_t B = prop_size(rng, 1, 3), T_q = prop_size(rng, 1, 20);
        size_t T_k = self ? T_q : prop_size(rng, 1, 20), d = prop_size(rng, 1, 24);
        size_t d_k = prop_size(rng, 1, 12), d_v = prop_size(rng, 1, 12);
        shape sh[SHAPES_COUNT];
        PROP_ASSERT(attention_shapes(sh, B, T_q, T_k, d, d_k, d_v) == ATT_OK, "%s",
                    att_last_error());

        gsl_matrix *WQ = mat_new(d, d_k), *WK = mat_new(d, d_k), *WV = mat_new(d, d_v);
        mat_randn(rng, WQ, 1.0 / sqrt((double)d));
        mat_randn(rng, WK, 1.0 / sqrt((double)d));
        mat_randn(rng, WV, 1.0 / sqrt((double)d));
        head_params p = head_params_make(WQ, WK, WV);
        gsl_matrix *Xq = mat_new(B * T_q, d), *Xkv = self ? Xq : mat_new(B * T_k, d);
        mat_randn(rng, Xq, 1.0);
        if (!self) mat_randn(rng, Xkv, 1.0);
        head_state st;
        PROP_ASSERT(head_state_alloc(&st, T_q, T_k, d, d_k, d_v) == ATT_OK, "%s", att_last_error());
        for (size_t b = 0; b < B; b++) {
            gsl_matrix_const_view xq = gsl_matrix_const_submatrix(Xq, b * T_q, 0, T_q, d);
            gsl_matrix_const_view xkv = gsl_matrix_const_submatrix(Xkv, b * T_k, 0, T_k, d);
            PROP_ASSERT(head_forward(&st, &p, &xq.matrix, &xkv.matrix) == ATT_OK, "%s",
                        att_last_error());
        }
        /* each computed (rows, cols) is the shape's (dim1, dim2), batch B */
        SHAPE_IS(sh, "X_q", B, Xq->size1 / B, Xq->size2);
        SHAPE_IS(sh, "X_kv", B, Xkv->size1 / B, Xkv->size2);
        SHAPE_IS(sh, "Q", B, st.Q->size1, st.Q->size2);
        SHAPE_IS(sh, "K", B, st.K->size1, st.K->size2);
        SHAPE_IS(sh, "V", B, st.V->size1, st.V->size2);
        SHAPE_IS(sh, "S", B, st.S->size1, st.S->size2);
        SHAPE_IS(sh, "A", B, st.A->size1, st.A->size2);
        SHAPE_IS(sh, "O", B, st.O->size1, st.O->size2);
        /* weights: exactly the matrices used, with no T and no B in them */
        const gsl_matrix *W[3] = { WQ, WK, WV };
        const char *wn[3] = { "W_Q", "W_K", "W_V" };
        size_t total = 0;
        for (int i = 0; i < 3; i++) {
            const shape *s = shape_find(sh, wn[i]);
            PROP_ASSERT(s->rank == 2 && s->dim[0] == W[i]->size1 && s->dim[1] == W[i]->size2,
                        "%s is (%zu, %zu), the matrix (%zu x %zu)", wn[i], s->dim[0], s->dim[1],
                        W[i]->size1, W[i]->size2);
            total += shape_count(s);
        }
        shape sh2[SHAPES_COUNT];
        attention_shapes(sh2, B + 1, T_q + 3, T_k + 5, d, d_k, d_v);
        for (int i = 0; i < 3; i++)
            PROP_ASSERT(memcmp(shape_find(sh, wn[i])->dim, shape_find(sh2, wn[i])->dim,
                               sizeof sh[0].dim) == 0, "%s depends on B or T", wn[i]);
        PROP_ASSERT(total == shapes_head_projection_params(d, d_k, d_v), "count %zu vs %zu",
                    total, shapes_head_projection_params(d, d_k, d_v));
        PROP_ASSERT(shapes_qk_factored_params(d, d_k) == 2 * d * d_k, "factored W_QK count");
        /* the batched self-attention head returns O as (B*T, d_v) */
        if (self) {
            gsl_matrix *O = mat_new(B * T_q, d_v);
            PROP_ASSERT(head_forward_batched(O, &p, Xq, B, T_q) == ATT_OK, "%s", att_last_error());
            const shape *so = shape_find(sh, "O");
            PROP_ASSERT(O->size1 == so->dim[0] * so->dim[1] && O->size2 == so->dim[2],
                        "batched O (%zu x %zu) vs O (%zu, %zu, %zu)", O->size1, O->size2,
                        so->dim[0], so->dim[1], so->dim[2]);
            mat_free(O);
        }
        head_state_free(&st);
        if (!self) mat_free(Xkv);
        mat_free(Xq); mat_free(WQ); mat_free(WK); mat_free(WV);
    }
    gsl_rng_free(rng);
}
END_TEST

PROP_MAIN("test_shapes",
          {"unit", 0, {test_gpt2_counts, test_shapes_by_hand}},
          {"properties", 120, {test_prop_shapes_match_head}})
