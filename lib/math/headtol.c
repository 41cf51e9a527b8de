/* headtol.c - the tolerance of a head's output computed two ways (headtol.h). */
#include "headtol.h"
#include "mat.h"
#include "tol.h"

#include <math.h>
#include <gsl/gsl_blas.h>

double mat_max_row_norm(const gsl_matrix *A)
{
    double m = 0.0;
    for (size_t i = 0; i < A->size1; i++) {
        gsl_vector_const_view r = gsl_matrix_const_row(A, i);
        m = fmax(m, gsl_blas_dnrm2(&r.vector));
    }
    return m;
}

double mat_max_col_norm(const gsl_matrix *A)
{
    double m = 0.0;
    for (size_t j = 0; j < A->size2; j++) {
        gsl_vector_const_view c = gsl_matrix_const_column(A, j);
        m = fmax(m, gsl_blas_dnrm2(&c.vector));
    }
    return m;
}

/* tol_attention_output(T_k, d + d_k, qk, max|v|) + 8 d eps max||x|| max||w_V|| */
double head_output_tolerance(const head_state *st, const gsl_matrix *X,
                             const gsl_matrix *W_V, double scale)
{
    size_t d = X->size2;
    return tol_attention_output(st->K->size1, d + st->K->size2, tol_score_bound(st->Q, st->K, scale),
                                mat_max_abs(st->V))
           + tol_eps(8, d, mat_max_row_norm(X) * mat_max_col_norm(W_V));
}
