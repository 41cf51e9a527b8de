/* shapes.h - the shape of every matrix in one head, and parameter counts
 * (the section's attention_shapes).
 *
 *   Q (B, T_q, d_k)   K (B, T_k, d_k)   V (B, T_k, d_v)
 *   S, A (B, T_q, T_k)                  O (B, T_q, d_v)
 *   W_Q, W_K (d, d_k)  W_V (d, d_v)     -- no T anywhere in the weights
 */
#ifndef ATT_SHAPES_H
#define ATT_SHAPES_H

#include <stddef.h>

/* rank 3 (B, rows, cols) for activations, rank 2 (rows, cols) for weights;
 * dim entries past the rank are 0. */
typedef struct { const char *name; size_t dim[3]; int rank; } shape;

enum { SHAPES_COUNT = 11 };   /* X_q, X_kv, W_Q, W_K, W_V, Q, K, V, S, A, O */

/* Fill out[SHAPES_COUNT]. All sizes must be > 0 (ATT_EUSAGE otherwise). */
int attention_shapes(shape out[SHAPES_COUNT], size_t B, size_t T_q,
                     size_t T_k, size_t d, size_t d_k, size_t d_v);

/* Projection weights of one head: d d_k + d d_k + d d_v (biases excluded).
 * 0 if the count overflows size_t (and for zero sizes). */
size_t shapes_head_projection_params(size_t d, size_t d_k, size_t d_v);

/* W_QK = W_Q W_K^T costs 2 d d_k parameters in factored form, d^2 full.
 * 0 on overflow. */
size_t shapes_qk_factored_params(size_t d, size_t d_k);

#endif
