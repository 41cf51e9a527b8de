/* rope.h - rotary position embeddings (RoPE) on rows of Q or K.
 *
 * Row t (position t = 0, 1, ...) of a (T, d_k) matrix, d_k even, is rotated
 * pair by pair:  for i = 0 .. d_k/2 - 1, theta_i = base^(-2i / d_k),
 *   (y_{2i}, y_{2i+1}) = (x_{2i} cos(t theta_i) - x_{2i+1} sin(t theta_i),
 *                         x_{2i} sin(t theta_i) + x_{2i+1} cos(t theta_i))
 * An orthogonal map per row: the backward pass is the rotation by -t theta_i.
 */
#ifndef ATT_ROPE_H
#define ATT_ROPE_H

#include <gsl/gsl_matrix.h>

/* Y = rope(X), Y may alias X. d_k odd -> ATT_EUSAGE. */
int rope_apply(gsl_matrix *Y, const gsl_matrix *X, double base);

/* dX = rope^T(dY) (the inverse rotation); dX may alias dY. */
int rope_backward(gsl_matrix *dX, const gsl_matrix *dY, double base);

#endif
