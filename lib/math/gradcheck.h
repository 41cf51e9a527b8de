/* gradcheck.h - the one central-difference gradient checker.
 *
 * The head's backward pass (head.h) differentiates the scalar loss
 *   L = sum_ij G_ij O_ij,   G (T_q, d_v) = dL/dO,  O (T_q, d_v) the output.
 * Its check: move one number theta_i that the forward pass reads by -+h and
 *   fd_i = (L(theta + h e_i) - L(theta - h e_i)) / (theta_i^+ - theta_i^-)
 * (the steps actually taken in the denominator), which differs from dL/dtheta_i
 * by O(h^2) truncation plus about eps |L| / h rounding.
 */
#ifndef ATT_GRADCHECK_H
#define ATT_GRADCHECK_H

#include <stddef.h>
#include <gsl/gsl_matrix.h>
#include "head.h"

/* L = sum_ij G_ij O_ij, G and O (T_q, d_v). */
double gradcheck_loss(const gsl_matrix *G, const gsl_matrix *O);

/* fd[i] for the n numbers theta[0], theta[stride], ... (they must be read by
 * the head p on (Xq, Xkv): a weight, a bias or an input), with the step
 * h_i = step max(1, |theta_i|) when `relative`, else step. work is a head
 * state of the right sizes; theta is restored. The forward pass's error on
 * failure. */
int gradcheck_head(double *fd, head_state *work, const head_params *p, const gsl_matrix *Xq,
                   const gsl_matrix *Xkv, const gsl_matrix *G, double *theta, size_t n,
                   size_t stride, double step, int relative);

#endif
