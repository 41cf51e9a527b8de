/* qkov.h - a head seen as two d x d matrices (the QK and OV circuits).
 *
 * Shapes (tokens are rows):
 *   W_Q, W_K (d, d_k)   W_V (d, d_v)   W_O (d_v, d)   X (T, d)
 *   W_QK = W_Q W_K^T (d, d):  s_ij = q_i . k_j = x_i^T W_QK x_j
 *   W_OV = W_V W_O   (d, d):  what the head moves from token j into token i
 *                             is x_j^T W_OV, and its output is A X W_OV
 * rank(W_QK) <= d_k and rank(W_OV) <= d_v: both are products through a
 * narrower space.
 */
#ifndef ATT_QKOV_H
#define ATT_QKOV_H

#include <stddef.h>
#include <gsl/gsl_matrix.h>
#include <gsl/gsl_vector.h>
#include "head.h"

/* W_QK (d, d) = W_Q (d, d_k) W_K (d, d_k)^T. */
int qkov_qk(gsl_matrix *W_QK, const gsl_matrix *W_Q, const gsl_matrix *W_K);

/* W_OV (d, d) = W_V (d, d_v) W_O (d_v, d). */
int qkov_ov(gsl_matrix *W_OV, const gsl_matrix *W_V, const gsl_matrix *W_O);

/* S (T_q, T_k) = Xq (T_q, d) W (d, d) Xkv (T_k, d)^T, s_ij = x_i^T W x_j:
 * the scores as a bilinear form, without forming Q or K. */
int qkov_bilinear_scores(gsl_matrix *S, const gsl_matrix *Xq, const gsl_matrix *W,
                            const gsl_matrix *Xkv);

/* s (n) = singular values of A (m, n), m >= n, in descending order
 * (Golub-Reinsch SVD, gsl_linalg_SV_decomp, on a copy of A). */
int qkov_singular_values(gsl_vector *s, const gsl_matrix *A);

/* Numerical rank: how many s_i > rel_tol * s_0 (s descending, s_0 = max).
 * 0 for a zero matrix. */
size_t qkov_numerical_rank(const gsl_vector *s, double rel_tol);

/* The relative asymmetry of a square S (T, T): ||S - S^T||_F / ||S||_F
 * (0 for symmetric scores; NaN on no memory or a non-square S). */
double qkov_asymmetry(const gsl_matrix *S);

/* C (m, n) = |A| (m, p) |B| (p, n), with elementwise absolute values: the
 * scale of the rounding error of the product A B (Higham 3.5,
 * |fl(A B) - A B| <= gamma_p |A| |B|). Copies of |A|, |B| are counted
 * allocations. */
int qkov_abs_product(gsl_matrix *C, const gsl_matrix *A, const gsl_matrix *B);

/* The spectrum of W (d, d) against a rank r (1 <= r <= d): fills
 * spec[i] = sigma_{i+1} / sigma_1 (i < d), *kept = sigma_r / sigma_1,
 * *next = sigma_{r+1} / sigma_1 (0 when r = d), and returns in *mismatch
 * whether the numerical rank at rel_tol differs from r. sv (d) is work. */
int qkov_rank_profile(const gsl_matrix *W, size_t r, double rel_tol, gsl_vector *sv,
                      double *spec, double *mismatch, double *kept, double *next);

/* The reparametrization that leaves W_QK unchanged, for R (d_k, d_k)
 * invertible:
 *   WQ2 (d, d_k) = W_Q R
 *   WK2 (d, d_k) = W_K R^{-T}
 * R^{-T} is never formed: with R = P^T L U (partial pivoting), row w^T of W_K
 * becomes y^T = w^T R^{-T}, i.e. y solves R y = w, one LU solve per row.
 * ATT_EUSAGE on shape mismatch, ATT_ERUNTIME if R is singular. */
int qkov_reparam(gsl_matrix *WQ2, gsl_matrix *WK2, const gsl_matrix *W_Q,
                       const gsl_matrix *W_K, const gsl_matrix *R);

/* The reparametrization that leaves W_OV unchanged, for R (d_v, d_v)
 * invertible:
 *   WV2 (d, d_v) = W_V R
 *   WO2 (d_v, d) = R^{-1} W_O
 * R^{-1} is never formed: every column w of W_O becomes y with R y = w (LU
 * solves). ATT_EUSAGE on shape mismatch, ATT_ERUNTIME if R is singular. */
int qkov_reparam_ov(gsl_matrix *WV2, gsl_matrix *WO2, const gsl_matrix *W_V,
                    const gsl_matrix *W_O, const gsl_matrix *R);

/* A head's factors rebuilt from its circuit alone: W (d, d) of rank r gives
 * Wa, Wb (d, r) with Wa Wb^T = W (to rounding) by the SVD W = U S V^T,
 *   Wa = U_r S_r^{1/2},  Wb = V_r S_r^{1/2}      (balanced factors).
 * For the QK circuit Wa = W_Q, Wb = W_K; for the OV circuit Wa = W_V and
 * Wb = W_O^T. ATT_EUSAGE on shapes or r = 0, ATT_ERUNTIME on no memory. */
int qkov_factor(gsl_matrix *Wa, gsl_matrix *Wb, const gsl_matrix *W);
/* A head with its output matrix and biases (NULL bias = none):
 *   y_i = softmax_j((x_i W_Q + b_Q) . (x_j W_K + b_K)) (x_j W_V + b_V) W_O + b_O
 * Shapes: W_Q, W_K (d, d_k), W_V (d, d_v), W_O (d_v, d), b_Q, b_K (d_k),
 * b_V (d_v), b_O (d). Since the rows of A sum to 1 and the softmax ignores
 * terms constant in j, y depends only on
 *   W_QK = W_Q W_K^T,  u = W_K b_Q,  W_OV = W_V W_O,  c = W_O^T b_V + b_O;
 * b_K does not matter at all. */
typedef struct {
    gsl_matrix *W_Q, *W_K, *W_V, *W_O;
    gsl_vector *b_Q, *b_K, *b_V, *b_O;
} qkov_head;

/* Y (T, d) = the head's output on X (T, d) (self-attention, scale 1);
 * st is a head state of the head's sizes. */
int qkov_head_output(gsl_matrix *Y, const qkov_head *h, const gsl_matrix *X, head_state *st);

/* Rebuild head h2 from h1's (W_QK, u, W_OV, c) alone: its factors by
 * qkov_factor, b_Q2 with W_K2 b_Q2 = u, b_O2 = c - W_O2^T b_V2. h2->b_K and
 * h2->b_V are free choices, read as given (h2->b_K is never used). h2's
 * biases must be present exactly when h1's are (all four, or none). */
int qkov_rebuild(qkov_head *h2, const qkov_head *h1);

/* The rounding tolerance of qkov_asymmetry for scores S (T, T) = Q K^T
 * computed through a chain of n products, Q (T, n'), K (T, n'):
 *   tol = 16 n eps || |Q| |K|^T ||_F / ||S||_F
 * (|fl(q.k) - q.k| <= gamma_n |q|.|k|, Higham 3.5). */
double qkov_asymmetry_tol(size_t n, const gsl_matrix *Q, const gsl_matrix *K, const gsl_matrix *S);

#endif
