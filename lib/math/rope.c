/* rope.c - rotary position embeddings on the rows of Q or K (Su et al., RoFormer, 2021;
 * the rotation and its shapes in rope.h). */
#include "rope.h"
#include "status.h"

#include <math.h>

/* Y (T, d_k) = rotate every pair of X (T, d_k) by sign * t theta_i. */
static int rope_rotate(gsl_matrix *Y, const gsl_matrix *X, double base, double sign,
                       const char *who)
{
    size_t T = X->size1, d_k = X->size2;
    if (Y->size1 != T || Y->size2 != d_k)
        return att_fail(ATT_EUSAGE,
                        "%s: output (%zu x %zu) and input (%zu x %zu) must have the same shape",
                        who, Y->size1, Y->size2, T, d_k);
    if (d_k % 2 != 0)
        return att_fail(ATT_EUSAGE, "%s: d_k = %zu is odd; RoPE rotates pairs of coordinates",
                        who, d_k);
    if (!(base > 0.0) || !isfinite(base))
        return att_fail(ATT_EUSAGE, "%s: base %g must be finite and > 0", who, base);

    for (size_t i = 0; i < d_k / 2; i++) {
        // theta_i = base^(-2i / d_k)
        double theta = pow(base, -2.0 * (double)i / (double)d_k);
        for (size_t t = 0; t < T; t++) {
            double ang = sign * (double)t * theta;
            double c = cos(ang), s = sin(ang);
            double x0 = gsl_matrix_get(X, t, 2 * i), x1 = gsl_matrix_get(X, t, 2 * i + 1);
            // (y0, y1) = (x0 c - x1 s, x0 s + x1 c); read both before writing (Y may be X)
            gsl_matrix_set(Y, t, 2 * i, x0 * c - x1 * s);
            gsl_matrix_set(Y, t, 2 * i + 1, x0 * s + x1 * c);
        }
    }
    return ATT_OK;
}

/* Y (T, d_k) = rope(X (T, d_k)); Y may alias X. */
int rope_apply(gsl_matrix *Y, const gsl_matrix *X, double base)
{
    return rope_rotate(Y, X, base, +1.0, "rope_apply");
}

/* forward:  Y = R_t X  (per row, per pair)
 * backward: dX = R_t^T dY = R_{-t} dY;  dX may alias dY. */
int rope_backward(gsl_matrix *dX, const gsl_matrix *dY, double base)
{
    return rope_rotate(dX, dY, base, -1.0, "rope_backward");
}
