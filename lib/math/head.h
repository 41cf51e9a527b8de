/* head.h - one attention head: forward and backward pass.
 *
 * Shapes (tokens are rows; self-attention is Xq == Xkv):
 *   Xq  (T_q, d)    queries come from here
 *   Xkv (T_k, d)    keys and values come from here
 *   W_Q, W_K (d, d_k)   W_V (d, d_v)   b_Q, b_K (d_k)   b_V (d_v)
 *   Q (T_q, d_k)  K (T_k, d_k)  V (T_k, d_v)
 *   S, A (T_q, T_k)   O (T_q, d_v)
 *
 * Forward:
 *   Q = Xq W_Q + 1 b_Q^T      K = Xkv W_K + 1 b_K^T      V = Xkv W_V + 1 b_V^T
 *   (optional) Q <- rope(Q), K <- rope(K), applied after the biases
 *   S = scale * Q K^T          (scale = 1 is the section's convention)
 *   (optional, causal) s_ij = -inf for j > i: query i sees keys 0..i only,
 *                      as in a language model (top-left aligned when T_q != T_k)
 *   A = row softmax(S)         (a masked key gets weight exactly 0)
 *   O = A V
 *
 * Backward, for the scalar loss L = sum(G .* O), G (T_q, d_v) = dL/dO.
 */
#ifndef ATT_HEAD_H
#define ATT_HEAD_H

#include <stddef.h>
#include <gsl/gsl_matrix.h>
#include <gsl/gsl_vector.h>

typedef struct {
    const gsl_matrix *W_Q, *W_K, *W_V;   /* (d, d_k), (d, d_k), (d, d_v)    */
    const gsl_vector *b_Q, *b_K, *b_V;   /* NULL = no bias                   */
    double scale;                        /* S = scale * Q K^T                */
    int rope;                            /* rotary embedding after the bias  */
    double rope_base;                    /* theta_i = base^(-2i/d_k); 10000  */
    int causal;                          /* mask keys j > i (default 0: off) */
} head_params;

/* Defaults: no biases, scale 1, no RoPE, base 10000, no causal mask.
 * Weights must be set. */
head_params head_params_make(const gsl_matrix *W_Q, const gsl_matrix *W_K,
                             const gsl_matrix *W_V);

/* The parameters against themselves and against Xq (T_q, d), Xkv (T_k, d):
 * the weights set, W_Q, W_K (d, d_k), W_V (d, d_v), b_Q, b_K (d_k), b_V (d_v),
 * a finite scale, and with RoPE an even d_k and a finite base > 0. ATT_EUSAGE
 * naming the two that disagree ("head: ..."); every forward pass, the tiled
 * one too (tiled.h), checks its arguments with it. */
int head_check_params(const head_params *p, const gsl_matrix *Xq, const gsl_matrix *Xkv);

/* The steps of the forward pass, each usable on matrix views (the batched
 * head and a tiled head reuse them). Shapes are checked, naming both
 * matrices on a mismatch. */

/* Y (N, n) = X (N, d) W (d, n) + 1 b^T, b (n) or NULL for no bias. */
int head_project(gsl_matrix *Y, const gsl_matrix *X, const gsl_matrix *W,
                 const gsl_vector *b);

/* S (T_q, T_k) = scale Q (T_q, d_k) K (T_k, d_k)^T. */
int head_scores(gsl_matrix *S, const gsl_matrix *Q, const gsl_matrix *K,
                double scale);

/* The causal mask on S (T_q, T_k), in place: s_ij = -inf for j > i. Every
 * row keeps key 0, so no row is fully masked. The backward pass needs no
 * change: a masked key has a_ij = 0, so dS_ij = a_ij (dA_ij - r_i) = 0 and
 * no gradient flows through it. */
void head_causal_mask(gsl_matrix *S);

/* O (T_q, d_v) = A (T_q, T_k) V (T_k, d_v): row i is a weighted average of
 * the rows of V. */
int head_weighted_sum(gsl_matrix *O, const gsl_matrix *A, const gsl_matrix *V);

/* S = scale Q K^T;  A = row softmax(S);  O = A V.  A may be S. (No mask:
 * head_forward and head_forward_batched apply p->causal.) */
int head_attend(gsl_matrix *S, gsl_matrix *A, gsl_matrix *O,
                const gsl_matrix *Q, const gsl_matrix *K, const gsl_matrix *V,
                double scale);

/* Everything the forward pass computes, kept for the backward pass. */
typedef struct {
    size_t T_q, T_k, d, d_k, d_v;
    gsl_matrix *Qb, *Kb;       /* projections + bias, before RoPE (T_q,d_k),(T_k,d_k) */
    gsl_matrix *Q, *K, *V;     /* what enters the scores (after RoPE if on)           */
    gsl_matrix *S, *A, *O;
} head_state;

/* Allocate for the given sizes (all > 0). ATT_ERUNTIME if memory fails. */
int head_state_alloc(head_state *st, size_t T_q, size_t T_k, size_t d,
                     size_t d_k, size_t d_v);
void head_state_free(head_state *st);

/* Run the forward pass into st. Checks every shape against st and p
 * (ATT_EUSAGE naming the two matrices and their shapes on mismatch). */
int head_forward(head_state *st, const head_params *p,
                 const gsl_matrix *Xq, const gsl_matrix *Xkv);

/* The forward pass after the projections: from st->Qb, st->Kb, st->V (filled by the
 * caller, e.g. for inputs with a structure a product does not know) to Q, K, S, A, O. */
int head_forward_projected(head_state *st, const head_params *p);

/* The backward pass down to the projections, for L = sum(G .* O), G (T_q, d_v):
 * dQ (T_q, d_k) = dL/dQb, dK (T_k, d_k) = dL/dKb, dV (T_k, d_v) = dL/dV; dS (T_q, T_k)
 * is workspace (it ends as dL/dS). head_backward goes on from these to the weights. */
int head_backward_projected(gsl_matrix *dS, gsl_matrix *dQ, gsl_matrix *dK, gsl_matrix *dV,
                            const head_state *st, const head_params *p, const gsl_matrix *G);

/* Gradients of L = sum(G .* O). For self-attention dL/dX = dXq + dXkv. */
typedef struct {
    gsl_matrix *dXq, *dXkv;          /* (T_q, d), (T_k, d)                 */
    gsl_matrix *dW_Q, *dW_K, *dW_V;  /* (d, d_k), (d, d_k), (d, d_v)       */
    gsl_vector *db_Q, *db_K, *db_V;  /* (d_k), (d_k), (d_v): always filled */
} head_grads;

int head_grads_alloc(head_grads *g, size_t T_q, size_t T_k, size_t d,
                     size_t d_k, size_t d_v);
void head_grads_free(head_grads *g);

/* Backward pass from a completed forward pass st (same p, Xq, Xkv). */
int head_backward(head_grads *g, const head_state *st, const head_params *p,
                  const gsl_matrix *Xq, const gsl_matrix *Xkv,
                  const gsl_matrix *G);

/* Convenience: O (T_q, d_v) only, allocating and freeing a state. */
int head_output(gsl_matrix *O, const head_params *p,
                const gsl_matrix *Xq, const gsl_matrix *Xkv);

/* Batched self-attention: X is (B*T, d), B sequences of T rows stacked;
 * O is (B*T, d_v). Projections are one product over all B*T rows; scores,
 * softmax and the weighted sum run per sequence. */
int head_forward_batched(gsl_matrix *O, const head_params *p,
                         const gsl_matrix *X, size_t B, size_t T);

#endif
