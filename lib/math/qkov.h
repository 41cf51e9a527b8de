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


#endif
