/* mat.h - small helpers over gsl_matrix / gsl_vector.
 *
 * Conventions: tokens are rows. A matrix handed to a function is (rows, cols)
 * as stated in its comment. Allocation is checked: the *_new functions return
 * NULL and record an error instead of calling GSL's abort handler.
 */
#ifndef ATT_MAT_H
#define ATT_MAT_H

#include <stddef.h>
#include <gsl/gsl_matrix.h>
#include <gsl/gsl_vector.h>
#include <gsl/gsl_rng.h>

/* (rows, cols) zero matrix, or NULL (error recorded) on overflow / no memory. */
gsl_matrix *mat_new(size_t rows, size_t cols);
gsl_vector *mat_vec_new(size_t n);
gsl_matrix *mat_dup(const gsl_matrix *A);
void mat_free(gsl_matrix *A);          /* NULL is fine */
void mat_vec_free(gsl_vector *v);          /* NULL is fine */

/* Row i of A (rows, cols): &A_i0, no range check (for the hot loops; gsl_matrix_ptr is a
 * checked call). */
static inline double *mat_row(gsl_matrix *A, size_t i) { return A->data + i * A->tda; }
static inline const double *mat_crow(const gsl_matrix *A, size_t i)
{
    return A->data + i * A->tda;
}

/* Bytes needed by `count` doubles, 0 on size_t overflow. */
size_t mat_bytes(size_t rows, size_t cols);

/* A_ij ~ N(0, sigma^2), i.i.d., drawn row by row from rng. */
void mat_randn(gsl_rng *rng, gsl_matrix *A, double sigma);
void mat_vec_randn(gsl_rng *rng, gsl_vector *v, double sigma);

/* C = alpha * op(A) op(B) + beta * C, op = transpose when tA/tB is nonzero.
 * Shapes must conform; returns ATT_EUSAGE (with both shapes named) if not.
 * A small product, m n k <= MAT_FIXED_MAX_MNK multiply-adds, op(B) of
 * k n <= MAT_FIXED_MAX_KN entries and k <= MAT_FIXED_MAX_K, is a fixed-order loop (mat.c: every
 * c_ij summed over p = 0 .. k-1 in order): the same bits under every BLAS kernel
 * (OPENBLAS_CORETYPE), CPU and thread count, and faster than a BLAS call at
 * that size (a trained head's 8 x 16 products: learned_previous_token). A
 * larger one goes to the BLAS (GSL's CBLAS, OpenBLAS when linked), whose
 * rounding depends on the kernel it picks. */
#define MAT_FIXED_MAX_MNK 4096.0
#define MAT_FIXED_MAX_KN 1024
#define MAT_FIXED_MAX_K 256

int mat_gemm(gsl_matrix *C, double alpha, const gsl_matrix *A, int tA,
             const gsl_matrix *B, int tB, double beta);

/* ||A||_F and max |A_ij|. */
double mat_frob(const gsl_matrix *A);
double mat_max_abs(const gsl_matrix *A);

/* max_ij |A_ij - B_ij| and max_l |v_l|; a NaN anywhere gives NaN (so an
 * error cannot hide), and so do matrices of different shapes. */
double mat_max_abs_diff(const gsl_matrix *A, const gsl_matrix *B);
double mat_vec_max_abs(const gsl_vector *v);

/* max_i ||row i of A||_2 and max_j ||column j of A||_2 (0 for no rows; a
 * NaN propagates). */
double mat_max_row_norm(const gsl_matrix *A);
double mat_max_col_norm(const gsl_matrix *A);
/* ||A||_1 = max_j sum_i |a_ij|, the largest column 1-norm (0 for no columns). */
double mat_norm1(const gsl_matrix *A);

/* ||A - B||_F (shapes must match; returns NAN otherwise). */
double mat_diff_frob(const gsl_matrix *A, const gsl_matrix *B);

/* ||A - B||_F / max(||B||_F, tiny): relative difference. */
double mat_rel_diff(const gsl_matrix *A, const gsl_matrix *B);


/* A == B elementwise, bitwise-equal shapes. */
int mat_same_shape(const gsl_matrix *A, const gsl_matrix *B);

#endif
