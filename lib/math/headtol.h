/* headtol.h - the rounding tolerance of a head's output computed two ways
 * (plain vs tiled, one sequence vs batched), and the norms it needs.
 *
 * Shapes: X (T, d) the input rows, W_V (d, d_v), st the plain head's state
 * on X (Q (T_q, d_k), K (T_k, d_k), V (T_k, d_v)).
 *   tol = tol_attention_output(T_k, d + d_k, qk, max|v|)      the scores pass
 *         through inner products of length d (projection) + d_k
 *       + 8 d eps max_i ||x_i|| max_c ||w_V,c||                the values' own
 *                                                              projection
 * with qk = |scale| max ||q_i|| max ||k_j|| (tol.h).
 */
#ifndef ATT_HEADTOL_H
#define ATT_HEADTOL_H

#include <gsl/gsl_matrix.h>
#include "head.h"

/* max_i ||row i of A||_2 and max_j ||column j of A||_2 (0 for no rows). */
double mat_max_row_norm(const gsl_matrix *A);
double mat_max_col_norm(const gsl_matrix *A);

double head_output_tolerance(const head_state *st, const gsl_matrix *X,
                             const gsl_matrix *W_V, double scale);

#endif
