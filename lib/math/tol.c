/* tol.c - tolerances at the scale of rounding (see tol.h). */
#include "tol.h"
#include "mat.h"
#include "status.h"

#include <float.h>
#include <math.h>
#include <gsl/gsl_blas.h>

/* tol = c n eps scale */
double tol_eps(double c, size_t n, double scale)
{
    return c * (double)(n ? n : 1) * DBL_EPSILON * scale;
}

/* max_ij sum_l |a_il| |b_jl| */
double tol_product_scale(const gsl_matrix *A, const gsl_matrix *B)
{
    if (A->size2 != B->size2) return NAN;
    double m = 0.0;
    for (size_t i = 0; i < A->size1; i++)
        for (size_t j = 0; j < B->size1; j++) {
            double s = 0.0;
            for (size_t l = 0; l < A->size2; l++)
                s += fabs(gsl_matrix_get(A, i, l)) * fabs(gsl_matrix_get(B, j, l));
            if (s > m) m = s;
        }
    return m;
}

/* || |A| |B|^T ||_F */
double tol_product_scale_frob(const gsl_matrix *A, const gsl_matrix *B)
{
    if (A->size2 != B->size2) return NAN;
    gsl_matrix *aA = mat_dup(A), *aB = mat_dup(B), *P = mat_new(A->size1, B->size1);
    double r = NAN;
    if (aA && aB && P) {
        // |A|, |B| elementwise, then P = |A| |B|^T
        for (size_t i = 0; i < aA->size1; i++)
            for (size_t j = 0; j < aA->size2; j++)
                gsl_matrix_set(aA, i, j, fabs(gsl_matrix_get(aA, i, j)));
        for (size_t i = 0; i < aB->size1; i++)
            for (size_t j = 0; j < aB->size2; j++)
                gsl_matrix_set(aB, i, j, fabs(gsl_matrix_get(aB, i, j)));
        if (mat_gemm(P, 1.0, aA, 0, aB, 1, 0.0) == ATT_OK) r = mat_frob(P);
    }
    mat_free(aA); mat_free(aB); mat_free(P);
    return r;
}

/* |scale| max_i ||q_i|| max_j ||k_j|| */
double tol_score_bound(const gsl_matrix *Q, const gsl_matrix *K, double scale)
{
    return fabs(scale) * mat_max_row_norm(Q) * mat_max_row_norm(K);
}

/* 8 eps (2 n qk + 2 T_k) vmax */
double tol_attention_output(size_t T_k, size_t n, double qk, double vmax)
{
    return 8.0 * DBL_EPSILON * (2.0 * (double)n * qk + 2.0 * (double)T_k) * vmax;
}

/* tol_attention_output(T_k, d + d_k, qk, max|v|) + 8 d eps max||x|| max||w_V|| */
double tol_head_output(const head_state *st, const gsl_matrix *X, const gsl_matrix *W_V,
                       double scale)
{
    size_t d = X->size2;
    return tol_attention_output(st->K->size1, d + st->K->size2,
                                tol_score_bound(st->Q, st->K, scale), mat_max_abs(st->V)) +
           tol_eps(8, d, mat_max_row_norm(X) * mat_max_col_norm(W_V));
}
