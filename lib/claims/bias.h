/* bias.h - the identities behind the three biases of a head.
 *
 *   key bias:   s_ij = q_i . (k_j + b_K) = q_i . k_j + q_i . b_K, a constant
 *               per row that softmax removes (unless RoPE rotates b_K per key);
 *   query bias: s_ij = (q_i + b_Q) . k_j = q_i . k_j + b_Q . k_j, a term that
 *               depends on the key only: S(b_Q) - S(0) has identical rows;
 *   value bias: rows of A sum to 1, so sum_j a_ij (v_j + b_V) = o_i + b_V and
 *               b_V folds into the output bias, b_O' = b_O + b_V W_O.
 *
 * Shapes: S, A, D (T_q, T_k), W_O (d_v, d), b_V (d_v), b_O (d).
 */
#ifndef ATT_BIAS_H
#define ATT_BIAS_H

#include <stddef.h>
#include <gsl/gsl_matrix.h>
#include <gsl/gsl_vector.h>
#include <gsl/gsl_rng.h>
#include "head.h"

/* Folding the value bias into the output bias. W_O (d_v, d), b_V (d_v),
 * b_O and b_out (d):
 *   (o_i + b_V) W_O + b_O = o_i W_O + (b_O + b_V W_O)
 *   b_out = b_O + W_O^T b_V   (b_V W_O written as a column). b_out may be b_O. */
int bias_fold_value(gsl_vector *b_out, const gsl_vector *b_O, const gsl_vector *b_V,
                    const gsl_matrix *W_O);

/* A (T_q, T_k) = sigmoid(S) elementwise, 1 / (1 + e^{-s}): weights in (0, 1)
 * whose rows do NOT sum to 1 (the negative control of folding). A may be S. */
int bias_sigmoid_weights(gsl_matrix *A, const gsl_matrix *S);

/* The spread between the rows of D (m, n): max_ij |D_ij - D_0j|; 0 when
 * every row equals the first; NaN propagates. */
double bias_row_spread(const gsl_matrix *D);

/* The largest |sum_j A_ij - 1| over the rows of A (T_q, T_k). */
double bias_row_sum_defect(const gsl_matrix *A);

/* ---- the value bias's folding, checked ------------------------------------- */
/* Final outputs of one weighting A (T_q, T_k), with V1 = V0 + 1 b_V^T (T_k, d_v):
 *   Y_u = (A V1) W_O + 1 b_O^T       (head with b_V, unfolded)
 *   Y_f = (A V0) W_O + 1 b_fold^T    (head without b_V, folded bias)
 * *err = max |Y_u - Y_f| (0 up to rounding when the rows of A sum to 1;
 * (sum_j a_ij - 1) (b_V W_O)_c otherwise); A V1 and A V0 into O1, O0
 * (T_q, d_v) when they are not NULL. W_O (d_v, d), b_O, b_fold (d). */
int bias_fold_error(double *err, gsl_matrix *O1, gsl_matrix *O0, const gsl_matrix *A,
                    const gsl_matrix *V1, const gsl_matrix *V0, const gsl_matrix *W_O,
                    const gsl_vector *b_O, const gsl_vector *b_fold);

/* ---- the key bias ------------------------------------------------------------ */

/* A random self-attention head with all three biases and a loss direction,
 * run with b_K and without it: X (T, d), W_Q, W_K (d, d_k), W_V (d, d_v),
 * b_Q, b_K (d_k), b_V (d_v), G (T, d_v) for L = sum(G .* O). */
typedef struct {
    gsl_matrix *X, *W_Q, *W_K, *W_V, *G;
    gsl_vector *b_Q, *b_K, *b_V;
    head_state with, without;   /* the forward passes with b_K and without */
} bias_head;

int bias_head_alloc(bias_head *h, size_t T, size_t d, size_t d_k, size_t d_v);
void bias_head_free(bias_head *h);   /* a zeroed or partly allocated head is fine */
/* Draw, in this order, X ~ N(0, 1), W_Q, W_K, W_V ~ N(0, 1/d),
 * b_Q, b_K, b_V ~ N(0, 1), G ~ N(0, 1); run the head with and without b_K
 * (RoPE after the bias when rope != 0). */
int bias_head_draw(gsl_rng *rng, bias_head *h, int rope);
/* The parameters of the head (b_K left out when with_bk = 0). */
head_params bias_head_params(const bias_head *h, int rope, int with_bk);

/* The rounding bounds of the key bias without RoPE, for a head run by
 * bias_head_draw(rng, h, 0) (one function for the experiment and its test):
 *   output:   the two runs differ by the rounding of q_i . k_j, <= (d_k + 1) eps P,
 *             P = max_ij sum_l |q_il| |k_jl| of either run (Higham 3.5), and of the
 *             softmax and sum, ~ T eps; a score error D moves a weight row by <= 2 D
 *             in l1, so ||O(b_K) - O(0)||_F <= 16 (d_k + T) eps (1 + P) sqrt(T) vmax;
 *   gradient: dL/db_K = sum_i q_i sum_j dS_ij with sum_j dS_ij = 0 up to rounding,
 *             so ||dL/db_K|| <= 8 T eps sum_i ||q_i|| ||g_i|| vmax,
 * vmax = max_j ||v_j|| (mat_max_row_norm of V (T, d_v)). */
typedef struct {
    double out;    /* bound on ||O(b_K) - O(0)||_F (absolute) */
    double grad;   /* bound on ||dL/db_K||                    */
} bias_key_bounds;
bias_key_bounds bias_key_rounding(const bias_head *h);

/* The six parameter groups of the head, in this order. */
enum { BIAS_NPARAM = 6 };
extern const char *const bias_param_names[BIAS_NPARAM];   /* b_Q b_K b_V W_Q W_K W_V */

/* Every gradient of g (from head_backward on h->with, b_K in, RoPE as given)
 * against central differences with step `step` (bias_fd_error), into
 * err[0 .. 5] in the order of bias_param_names. Each error is relative to the
 * larger of the group's gradient and the draw's largest group gradient: a
 * group whose own gradient is zero (b_K without RoPE) or tiny (a saturated
 * two-key softmax) is measured against the scale of the whole gradient, where
 * the O(eps / h) noise of the differences would swamp a relative comparison. */
int bias_head_fd_errors(double err[BIAS_NPARAM], head_state *work, bias_head *h,
                        const head_grads *g, int rope, double step);

/* Central differences of L against a backprop gradient, for one parameter
 * P (rows, cols) that p uses (a vector is passed as a 1 x n view of itself);
 * P is changed and restored entry by entry, `work` is a head state of the
 * right sizes. Entry by entry, row-major:
 *   D_fd = (L(P + h E) - L(P - h E)) / 2h, by gradcheck_head (gradcheck.h),
 *          L = gradcheck_loss (error O(h^2) + O(eps / h))
 *   err  = ||D - D_fd||_F / max(||D||_F, ||D_fd||_F, floor)
 * `floor` is the norm to compare with where the exact gradient is zero (the
 * key bias without RoPE: ||dL/db_Q||). Returns the forward pass's status. */
int bias_fd_error(double *err, head_state *work, const head_params *p, const gsl_matrix *Xq,
                  const gsl_matrix *Xkv, const gsl_matrix *G, gsl_matrix *P, const gsl_matrix *D,
                  double h, double floor);

/* ---- the query and value biases' random heads ---------------------------- */

/* Their inputs, in this order: Xq (T_q, d), Xkv (T_k, d) ~ N(0, 1) (Xkv is Xq's
 * view when self: not drawn again), W_Q ~ N(0, sharp^2 / d), W_K (d, d_k) and
 * W_V (d, d_v) ~ N(0, 1 / d); the query bias's head (experiments/query_bias.c)
 * and bias_vhead_draw both draw them so. */
void bias_draw_inputs(gsl_rng *rng, gsl_matrix *Xq, gsl_matrix *Xkv, gsl_matrix *W_Q,
                      gsl_matrix *W_K, gsl_matrix *W_V, int self, double sharp);

/* ---- the value bias ---------------------------------------------------------- */

/* A random head run without b_V (s0) and with it (s1). Its matrices have the
 * largest sizes (T, d, d_k, d_v) and are used through views; after a draw:
 * Xq (T_q, d), Xkv (T_k, d), W_Q, W_K (d, d_k), W_V (d, d_v), W_O (d_v, d),
 * b_V (d_v), b_O, b_f (d: b_f is work for the folded bias), E, O[0..3] (T_q, d_v)
 * and Ac (T_q, T_k) work, and the two forward passes at the draw's sizes. */
typedef struct {
    gsl_matrix *Xq, *Xkv, *W_Q, *W_K, *W_V, *W_O, *E_max, *Ac_max, *O_max[4];
    gsl_vector *bv_max, *bo_max, *bf_max;
    gsl_matrix_view W_O_view, E, Ac, O_view[4];   /* W_O, E, Ac, O[k] of the last draw */
    gsl_vector_view b_V, b_O, b_f;                /* b_V, b_O, b_f of the last draw */
    gsl_matrix *O[4];                             /* &O_view[k].matrix */
    head_state s0, s1;
} bias_vhead;
bias_vhead *bias_vhead_new(size_t T, size_t d, size_t d_k,
                           size_t d_v); /* NULL + error on no memory */
void bias_vhead_free(void *v);
/* Draw, in this order, Xq ~ N(0, 1), Xkv ~ N(0, 1) (Xkv = Xq when self),
 * W_Q ~ N(0, sharp^2 / d), W_K, W_V ~ N(0, 1 / d), W_O ~ N(0, 1 / d_v),
 * b_V ~ N(0, sigma^2), b_O ~ N(0, 1); run the head without and with b_V:
 * O(0) = A V, O(b_V) = A (V + 1 b_V^T). Sizes above the allocated ones: ATT_EUSAGE. */
int bias_vhead_draw(gsl_rng *rng, bias_vhead *v, size_t T_q, size_t T_k, size_t d, size_t d_k,
                    size_t d_v, int self, double sharp, double sigma);

/* max_ij |D_ij - v_j| over D (m, n), v (n): how far every row of D is from v^T
 * (0 when D = 1 v^T; a NaN entry is skipped, as fmax does). */
double bias_rows_from(const gsl_matrix *D, const gsl_vector *v);

#endif
