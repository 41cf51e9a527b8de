/* shapes.c - the shape of every matrix in one head; parameter counts.
 *
 * B = batch, T_q = queries, T_k = keys and values, d = model width,
 * d_k = query/key width, d_v = value width.
 */
#include "shapes.h"
#include "status.h"

#include <stdint.h>

static shape shape3(const char *name, size_t a, size_t b, size_t c)
{
    shape s = { name, { a, b, c }, 3 };
    return s;
}

static shape shape2(const char *name, size_t a, size_t b)
{
    shape s = { name, { a, b, 0 }, 2 };
    return s;
}

/* out[SHAPES_COUNT]: X_q (B,T_q,d) X_kv (B,T_k,d) W_Q (d,d_k) W_K (d,d_k)
 * W_V (d,d_v) Q (B,T_q,d_k) K (B,T_k,d_k) V (B,T_k,d_v) S, A (B,T_q,T_k)
 * O (B,T_q,d_v). */
int attention_shapes(shape out[SHAPES_COUNT], size_t B, size_t T_q,
                     size_t T_k, size_t d, size_t d_k, size_t d_v)
{
    if (B == 0 || T_q == 0 || T_k == 0 || d == 0 || d_k == 0 || d_v == 0)
        return att_fail(ATT_EUSAGE,
                        "attention_shapes: every size must be >= 1 (B=%zu T_q=%zu T_k=%zu "
                        "d=%zu d_k=%zu d_v=%zu)", B, T_q, T_k, d, d_k, d_v);
    size_t k = 0;
    out[k++] = shape3("X_q", B, T_q, d);
    out[k++] = shape3("X_kv", B, T_k, d);
    out[k++] = shape2("W_Q", d, d_k);       /* no T in any weight */
    out[k++] = shape2("W_K", d, d_k);
    out[k++] = shape2("W_V", d, d_v);
    out[k++] = shape3("Q", B, T_q, d_k);    /* Q = X_q W_Q   */
    out[k++] = shape3("K", B, T_k, d_k);    /* K = X_kv W_K  */
    out[k++] = shape3("V", B, T_k, d_v);    /* V = X_kv W_V  */
    out[k++] = shape3("S", B, T_q, T_k);    /* S = Q K^T     */
    out[k++] = shape3("A", B, T_q, T_k);    /* A = softmax S */
    out[k++] = shape3("O", B, T_q, d_v);    /* O = A V       */
    return ATT_OK;
}

/* a * b, or 0 on overflow */
static size_t mul_checked(size_t a, size_t b)
{
    return (a != 0 && b > SIZE_MAX / a) ? 0 : a * b;
}

/* d d_k (W_Q) + d d_k (W_K) + d d_v (W_V) = d (2 d_k + d_v) */
size_t shapes_head_projection_params(size_t d, size_t d_k, size_t d_v)
{
    size_t two_dk = mul_checked(2, d_k);
    if (two_dk == 0 || d_v > SIZE_MAX - two_dk) return 0;
    return mul_checked(d, two_dk + d_v);
}

/* W_Q (d, d_k) and W_K (d, d_k): 2 d d_k numbers describe the d x d W_QK */
size_t shapes_qk_factored_params(size_t d, size_t d_k)
{
    return mul_checked(2, mul_checked(d, d_k));
}
