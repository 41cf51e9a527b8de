/* mat.c - checked allocation, Gaussian fill, products, norms, tolerances. */
#include "mat.h"
#include "randn.h"
#include "mem.h"
#include "status.h"
#include <stdio.h>

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>
#include <gsl/gsl_blas.h>
#include <gsl/gsl_randist.h>

size_t mat_bytes(size_t rows, size_t cols)
{
    if (rows != 0 && cols > SIZE_MAX / rows) return 0;
    size_t n = rows * cols;
    if (n > SIZE_MAX / sizeof(double)) return 0;
    return n * sizeof(double);
}

gsl_matrix *mat_new(size_t rows, size_t cols)
{
    if (rows == 0 || cols == 0) {
        att_fail(ATT_EUSAGE, "matrix of size %zu x %zu: sizes must be >= 1", rows, cols);
        return NULL;
    }
    if (mat_bytes(rows, cols) == 0) {
        att_fail(ATT_EUSAGE, "matrix of size %zu x %zu overflows size_t", rows, cols);
        return NULL;
    }
    // the label is formatted only when the budget refuses (mat_new runs inside training loops)
    if (mem_reserve_fmt(mat_bytes(rows, cols), "a %zu x %zu matrix", rows, cols)) return NULL;
    gsl_matrix *A = gsl_matrix_calloc(rows, cols);
    if (A == NULL) {
        mem_release(mat_bytes(rows, cols));
        att_fail(ATT_ERUNTIME, "out of memory allocating a %zu x %zu matrix", rows, cols);
    }
    return A;
}

gsl_vector *mat_vec_new(size_t n)
{
    if (n == 0 || mat_bytes(n, 1) == 0) {
        att_fail(ATT_EUSAGE, "vector of length %zu is not allowed", n);
        return NULL;
    }
    if (mem_reserve_fmt(mat_bytes(n, 1), "a vector of %zu", n)) return NULL;
    gsl_vector *v = gsl_vector_calloc(n);
    if (v == NULL) {
        mem_release(mat_bytes(n, 1));
        att_fail(ATT_ERUNTIME, "out of memory allocating a vector of %zu", n);
    }
    return v;
}

gsl_matrix *mat_dup(const gsl_matrix *A)
{
    gsl_matrix *B = mat_new(A->size1, A->size2);
    if (B) gsl_matrix_memcpy(B, A);
    return B;
}

void mat_free(gsl_matrix *A)
{
    if (A == NULL) return;
    mem_release(mat_bytes(A->size1, A->tda));
    gsl_matrix_free(A);
}
void mat_vec_free(gsl_vector *v)
{
    if (v == NULL) return;
    mem_release(mat_bytes(v->size, v->stride));
    gsl_vector_free(v);
}

/* A (m, n), row by row: entries N(0, sigma^2), gsl_ran_gaussian_ziggurat's values (randn.h) */
void mat_randn(gsl_rng *rng, gsl_matrix *A, double sigma)
{
    for (size_t i = 0; i < A->size1; i++) randn_fill(rng, A->data + i * A->tda, A->size2, sigma);
}

/* v (n): entries N(0, sigma^2), in order */
void mat_vec_randn(gsl_rng *rng, gsl_vector *v, double sigma)
{
    if (v->stride == 1) {
        randn_fill(rng, v->data, v->size, sigma);
        return;
    }
    for (size_t i = 0; i < v->size; i++) randn_fill(rng, v->data + i * v->stride, 1, sigma);
}

/* ---- the fixed-order kernel (mat.h: MAT_FIXED_MAX_MNK) ------------------ */

/* C (m, n) = alpha op(A) (m, k) op(B) (k, n) + beta C, every entry as
 *   s_ij = (...((0 + a_i0 b_0j) + a_i1 b_1j) + ...) + a_i,k-1 b_k-1,j   (p = 0 .. k-1 in order)
 *   c_ij = alpha s_ij                 (beta = 0: C is not read, as in the BLAS)
 *   c_ij = alpha s_ij + beta c_ij     (otherwise)
 * one multiply and one add per term, each rounded (no fused multiply-add:
 * fp-contract=off below; no sum reassociated). So every c_ij is the same
 * sequence of IEEE operations whatever the instruction set: the clones for
 * AVX-512, AVX2 and plain x86-64 differ in how many independent c_ij one
 * instruction computes (the vectors run over j), never in the bits.
 * The vectors hold 8 columns of C (4 for a last panel of <= 4 columns);
 * op(B) is read in panels of that width, so a B^T, or a B whose width n is
 * not a multiple of 8, is first copied into a row-major buffer with zero
 * columns after the last (a copy rounds nothing; a padded column's sums are
 * dropped). Sums for 4 rows at a time stay in registers. */
typedef double mat_v8 __attribute__((vector_size(8 * sizeof(double))));
typedef double mat_v8u __attribute__((vector_size(8 * sizeof(double)), aligned(sizeof(double))));
typedef double mat_v4 __attribute__((vector_size(4 * sizeof(double))));
typedef double mat_v4u __attribute__((vector_size(4 * sizeof(double)), aligned(sizeof(double))));

/* One panel: C (m, w) at column j, w <= W, from the panel Bp (k, W) at column j
 * (row stride ldb), W-wide vectors VT (VTU: unaligned); four rows of
 *   s_q = sum_p a_{i+q,p} Bp_{p, j..j+W-1}   (p in order)
 * at a time, then one; c = alpha s (+ beta c unless beta = 0), w entries. */
#define MAT_FIXED_PANEL(VT, VTU, W)                                                                \
    do {                                                                                           \
        size_t i = 0;                                                                              \
        for (; i + 4 <= m; i += 4) {                                                               \
            VT s0 = {0}, s1 = {0}, s2 = {0}, s3 = {0}; /* in registers */                          \
            const double *a0 = a + i * ars, *a1 = a0 + ars, *a2 = a1 + ars, *a3 = a2 + ars;        \
            for (size_t p = 0; p < k; p++) {                                                       \
                VT b = *(const VTU *)(Bp + p * ldb + j);                                           \
                size_t o = p * acs;                                                                \
                s0 += a0[o] * b, s1 += a1[o] * b, s2 += a2[o] * b, s3 += a3[o] * b;                \
            }                                                                                      \
            VT s[4] = {alpha * s0, alpha * s1, alpha * s2, alpha * s3};                            \
            for (size_t q = 0; q < 4; q++)                                                         \
                MAT_FIXED_STORE(C->data + (i + q) * ldc + j, s[q], VTU, W);                        \
        }                                                                                          \
        for (; i < m; i++) {                                                                       \
            VT s0 = {0};                                                                           \
            for (size_t p = 0; p < k; p++)                                                         \
                s0 += a[i * ars + p * acs] * *(const VTU *)(Bp + p * ldb + j);                     \
            s0 = alpha * s0;                                                                       \
            MAT_FIXED_STORE(C->data + i * ldc + j, s0, VTU, W);                                    \
        }                                                                                          \
    } while (0)
/* c (w entries) = v (+ beta c unless beta = 0) */
#define MAT_FIXED_STORE(c, v, VTU, W)                                                              \
    do {                                                                                           \
        double *c_ = (c);                                                                          \
        if (w == (W))                                                                              \
            *(VTU *)c_ = beta == 0.0 ? (v) : (v) + beta * *(VTU *)c_;                              \
        else                                                                                       \
            for (size_t j_ = 0; j_ < w; j_++)                                                      \
                c_[j_] = beta == 0.0 ? (v)[j_] : (v)[j_] + beta * c_[j_];                          \
    } while (0)

/* no contraction: GCC's optimize attribute; clang (make fuzz) reads the standard pragma */
#ifdef __clang__
#pragma STDC FP_CONTRACT OFF
#define MAT_FIXED_ATTR __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define MAT_FIXED_ATTR                                                                             \
    __attribute__((target_clones("avx512f", "avx2", "default"), optimize("fp-contract=off")))
#endif
MAT_FIXED_ATTR
static void mat_gemm_fixed(gsl_matrix *C, double alpha, const gsl_matrix *A, int tA,
                           const gsl_matrix *B, int tB, double beta)
{
    size_t m = C->size1, n = C->size2, k = tA ? A->size1 : A->size2, ldc = C->tda;
    // a_ip = a[i * ars + p * acs]
    size_t ars = tA ? 1 : A->tda, acs = tA ? A->tda : 1;
    const double *a = A->data;
    // Bp (k, n) = op(B), row p at Bp + p ldb: B itself, or a copy padded to whole panels
    double pack[MAT_FIXED_MAX_KN + 8 * MAT_FIXED_MAX_K];
    const double *Bp = B->data;
    size_t ldb = B->tda, n8 = n / 8 * 8, nup = n8 + (n - n8 > 4 ? 8 : n - n8 > 0 ? 4 : 0);
    if (tB || nup != n) {
        const double *b = B->data;
        size_t bj = tB ? ldb : 1, bp = tB ? 1 : ldb;   /* op(B)_pj = b[p bp + j bj] */
        for (size_t p = 0; p < k; p++) {
            double *row = pack + p * nup;
            for (size_t j = 0; j < n; j++) row[j] = b[p * bp + j * bj];
            for (size_t j = n; j < nup; j++) row[j] = 0.0;
        }
        Bp = pack, ldb = nup;
    }
    for (size_t j = 0; j < n; j += 8) {
        size_t w = n - j < 8 ? n - j : 8;
        if (w > 4)
            MAT_FIXED_PANEL(mat_v8, mat_v8u, 8);
        else
            MAT_FIXED_PANEL(mat_v4, mat_v4u, 4);
    }
}

/* C (m, n) = alpha op(A) (m, k) op(B) (k, n) + beta C: the fixed-order kernel
 * above for a small product (mat.h: MAT_FIXED_MAX_MNK), the BLAS otherwise */
int mat_gemm(gsl_matrix *C, double alpha, const gsl_matrix *A, int tA,
             const gsl_matrix *B, int tB, double beta)
{
    size_t m = tA ? A->size2 : A->size1, ka = tA ? A->size1 : A->size2;
    size_t kb = tB ? B->size2 : B->size1, n = tB ? B->size1 : B->size2;
    if (ka != kb || C->size1 != m || C->size2 != n)
        return att_fail(
            ATT_EUSAGE,
            "product does not conform: %s(%zu x %zu) times %s(%zu x %zu) into (%zu x %zu)",
            tA ? "transpose of " : "", A->size1, A->size2, tB ? "transpose of " : "", B->size1,
            B->size2, C->size1, C->size2);
    if (ka <= MAT_FIXED_MAX_K && (double)ka * (double)n <= MAT_FIXED_MAX_KN
        && (double)m * (double)n * (double)ka <= MAT_FIXED_MAX_MNK) {
        mat_gemm_fixed(C, alpha, A, tA, B, tB, beta);
        return ATT_OK;
    }
    int st = gsl_blas_dgemm(tA ? CblasTrans : CblasNoTrans, tB ? CblasTrans : CblasNoTrans,
                            alpha, A, B, beta, C);
    return st ? att_fail(ATT_ERUNTIME, "dgemm failed (GSL error %d)", st) : ATT_OK;
}

double mat_frob(const gsl_matrix *A)
{
    /* scaled sum of squares, no overflow for large entries */
    double scale = 0.0, ssq = 1.0;
    for (size_t i = 0; i < A->size1; i++)
        for (size_t j = 0; j < A->size2; j++) {
            double a = fabs(gsl_matrix_get(A, i, j));
            if (a == 0.0) continue;
            if (scale < a) { ssq = 1.0 + ssq * (scale / a) * (scale / a); scale = a; }
            else ssq += (a / scale) * (a / scale);
        }
    return scale * sqrt(ssq);
}

double mat_max_abs(const gsl_matrix *A)
{
    double m = 0.0;
    for (size_t i = 0; i < A->size1; i++)
        for (size_t j = 0; j < A->size2; j++) {
            double a = fabs(gsl_matrix_get(A, i, j));
            if (a > m || isnan(a)) m = a;
        }
    return m;
}

double mat_max_abs_diff(const gsl_matrix *A, const gsl_matrix *B)
{
    if (!mat_same_shape(A, B)) return NAN;
    double m = 0.0;
    for (size_t i = 0; i < A->size1; i++)
        for (size_t j = 0; j < A->size2; j++) {
            double e = fabs(gsl_matrix_get(A, i, j) - gsl_matrix_get(B, i, j));
            if (e > m || isnan(e)) m = e;
        }
    return m;
}

double mat_vec_max_abs(const gsl_vector *v)
{
    double m = 0.0;
    for (size_t i = 0; i < v->size; i++) {
        double a = fabs(gsl_vector_get(v, i));
        if (a > m || isnan(a)) m = a;
    }
    return m;
}

int mat_same_shape(const gsl_matrix *A, const gsl_matrix *B)
{
    return A->size1 == B->size1 && A->size2 == B->size2;
}

double mat_diff_frob(const gsl_matrix *A, const gsl_matrix *B)
{
    if (!mat_same_shape(A, B)) return NAN;
    double s = 0.0;
    for (size_t i = 0; i < A->size1; i++)
        for (size_t j = 0; j < A->size2; j++) {
            double e = gsl_matrix_get(A, i, j) - gsl_matrix_get(B, i, j);
            s += e * e;
        }
    return sqrt(s);
}

double mat_rel_diff(const gsl_matrix *A, const gsl_matrix *B)
{
    double nb = mat_frob(B);
    return mat_diff_frob(A, B) / (nb > DBL_MIN ? nb : DBL_MIN);
}


/* max_i ||row i of A||_2, or with cols max_j ||column j of A||_2 (NaN propagates) */
static double max_norm(const gsl_matrix *A, int cols)
{
    double best = 0.0;
    for (size_t i = 0; i < (cols ? A->size2 : A->size1); i++) {
        gsl_vector_const_view v = cols ? gsl_matrix_const_column(A, i) : gsl_matrix_const_row(A, i);
        double n = gsl_blas_dnrm2(&v.vector);
        if (n > best || isnan(n)) best = n;
    }
    return best;
}

double mat_max_row_norm(const gsl_matrix *A) { return max_norm(A, 0); }
double mat_max_col_norm(const gsl_matrix *A) { return max_norm(A, 1); }

double mat_norm1(const gsl_matrix *A)
{
    double m = 0.0;
    for (size_t j = 0; j < A->size2; j++) {
        double s = 0.0;
        for (size_t l = 0; l < A->size1; l++) s += fabs(gsl_matrix_get(A, l, j));
        m = fmax(m, s);
    }
    return m;
}
