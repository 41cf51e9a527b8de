/* fused.h - the fused projection W_QKV = [W_Q | W_K | W_V] and its split.
 *
 * Shapes: X (N, d), W_QKV (d, 2 d_k + d_v), QKV (N, 2 d_k + d_v)
 *   QKV = X W_QKV ;  Q = QKV[:, 0:d_k]  K = QKV[:, d_k:2d_k]  V = QKV[:, 2d_k:]
 * Frameworks (nn.Linear) store the weight as (out, in) = W_QKV^T.
 */
#ifndef ATT_FUSED_H
#define ATT_FUSED_H

#include <gsl/gsl_matrix.h>

/* W (d, 2 d_k + d_v) = [W_Q | W_K | W_V]. Shapes checked. */
int fused_pack(gsl_matrix *W, const gsl_matrix *W_Q, const gsl_matrix *W_K,
               const gsl_matrix *W_V);

/* The inverse of fused_pack: W_Q, W_K (d, d_k), W_V (d, d_v) = the three
 * column blocks of W (d, 2 d_k + d_v), in that order. Shapes checked. */
int fused_unpack(gsl_matrix *W_Q, gsl_matrix *W_K, gsl_matrix *W_V, const gsl_matrix *W);

/* QKV (N, 2d_k+d_v) = X W; then Q, K, V (N,d_k),(N,d_k),(N,d_v) copied out. */
int fused_project(gsl_matrix *Q, gsl_matrix *K, gsl_matrix *V,
                  gsl_matrix *QKV, const gsl_matrix *X, const gsl_matrix *W);

/* Same, with the weight stored as (out, in): Wt is (2 d_k + d_v, d), QKV = X Wt^T. */
int fused_project_out_in(gsl_matrix *Q, gsl_matrix *K, gsl_matrix *V,
                         gsl_matrix *QKV, const gsl_matrix *X,
                         const gsl_matrix *Wt);

#endif
