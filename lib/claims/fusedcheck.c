/* fusedcheck.c - the fused_qkv agreement checks beyond the plain split (fusedcheck.h). */
#include "fusedcheck.h"
#include "status.h"
#include "mat.h"
#include "tol.h"

#include <math.h>

/* X (B T, d), W[k] (d, H w_k), F[k] (B T, H w_k), Y (B T, >= w_k) */
int fusedcheck_per_head(double *err, const fusedcheck_case *c, const gsl_matrix *X,
                        const gsl_matrix *const W[3], const gsl_matrix *const F[3], gsl_matrix *Y)
{
    size_t N = c->B * c->T, d = c->d;
    int rc = 0;
    *err = 0.0;
    // per head h: X W^h (d, width) against the column block h of the fused result
    for (size_t h = 0; h < c->heads && !rc; h++)
        for (int k = 0; k < 3 && !rc; k++) {
            size_t wd = k < 2 ? c->d_k : c->d_v;
            gsl_matrix_const_view Wh = gsl_matrix_const_submatrix(W[k], 0, h * wd, d, wd);
            gsl_matrix_const_view Fh = gsl_matrix_const_submatrix(F[k], 0, h * wd, N, wd);
            gsl_matrix_view Yh = gsl_matrix_submatrix(Y, 0, 0, N, wd);
            if (!(rc = head_project(&Yh.matrix, X, &Wh.matrix, NULL)))
                *err = fmax(*err, mat_max_abs_diff(&Yh.matrix, &Fh.matrix));
        }
    return rc;
}

/* X (B T, d), W[k] (d, H w_k), O (B T, d_v), st (T, T, d, d_k, d_v) */
int fusedcheck_batched(double *err, double *tol, const fusedcheck_case *c, const gsl_matrix *X,
                       const gsl_matrix *const W[3], gsl_matrix *O, head_state *st)
{
    size_t d = c->d;
    int rc = 0;
    *err = 0.0;
    *tol = NAN;
    // batched vs one by one, every head h: keep the worst error relative to its tolerance
    for (size_t h = 0; h < c->heads && !rc; h++) {
        gsl_matrix_const_view WQh = gsl_matrix_const_submatrix(W[0], 0, h * c->d_k, d, c->d_k);
        gsl_matrix_const_view WKh = gsl_matrix_const_submatrix(W[1], 0, h * c->d_k, d, c->d_k);
        gsl_matrix_const_view WVh = gsl_matrix_const_submatrix(W[2], 0, h * c->d_v, d, c->d_v);
        head_params p = head_params_make(&WQh.matrix, &WKh.matrix, &WVh.matrix);
        if ((rc = head_forward_batched(O, &p, X, c->B, c->T))) break;
        for (size_t b = 0; b < c->B && !rc; b++) {
            gsl_matrix_const_view Xb = gsl_matrix_const_submatrix(X, b * c->T, 0, c->T, d);
            gsl_matrix_const_view Ob = gsl_matrix_const_submatrix(O, b * c->T, 0, c->T, c->d_v);
            if ((rc = head_forward(st, &p, &Xb.matrix, &Xb.matrix))) break;
            double t = tol_head_output(st, &Xb.matrix, &WVh.matrix, 1.0);   /* tol.h */
            double x = mat_max_abs_diff(&Ob.matrix, st->O);
            if (isnan(*tol) || isnan(x) || x * *tol > *err * t) {
                *err = x;
                *tol = t;
            }
        }
    }
    return rc;
}
