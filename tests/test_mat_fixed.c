/* test_mat_fixed.c - mat_gemm's fixed-order kernel for small products (mat.h).
 *
 * Shapes: C (m, n) = alpha op(A) (m, k) op(B) (k, n) + beta C, op = transpose or not.
 * A small product must be, bit for bit, the documented sum
 *   c_ij = alpha s_ij (+ beta c_ij),  s_ij = (...(0 + a_i0 b_0j) + ...) + a_i,k-1 b_k-1,j,
 * whatever BLAS kernel is linked or chosen (OPENBLAS_CORETYPE) and whatever
 * instruction set the kernel's clone uses; that is what makes a trained
 * head's trajectory (learned_previous_token) the same on every kernel.
 * A BLAS call in its place (an FMA kernel, or another summation order) fails
 * the bitwise property.
 */
#include "prop.h"
#include "mat.h"

#include <math.h>

/* op(X)_{rc} of a (rows, cols) matrix X */
static double op_get(const gsl_matrix *X, int t, size_t r, size_t c)
{
    return t ? gsl_matrix_get(X, c, r) : gsl_matrix_get(X, r, c);
}

/* a (rows, cols) view into a larger matrix (row stride > cols), entries N(0, 1) */
static gsl_matrix *padded(gsl_rng *rng, size_t rows, size_t cols, gsl_matrix_view *v)
{
    gsl_matrix *big = mat_new(rows + 1, cols + 3);
    mat_randn(rng, big, 1.0);
    *v = gsl_matrix_submatrix(big, 1, 2, rows, cols);
    return big;
}

START_TEST(prop_small_is_fixed_order)
{
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    PROP_FOR(k, rng, "a small product is the fixed-order sum, bit for bit") {
        size_t m = prop_size(rng, 1, 17), n = prop_size(rng, 1, 17), kk = prop_size(rng, 1, 14);
        int tA = (int)gsl_rng_uniform_int(rng, 2), tB = (int)gsl_rng_uniform_int(rng, 2);
        double alpha = gsl_rng_uniform_int(rng, 3) ? 1.0 : gsl_rng_uniform(rng) - 0.5;
        double beta = gsl_rng_uniform_int(rng, 2) ? 0.0 : gsl_rng_uniform(rng) - 0.5;
        gsl_matrix_view A, B, C;
        gsl_matrix *a = padded(rng, tA ? kk : m, tA ? m : kk, &A),
                   *b = padded(rng, tB ? n : kk, tB ? kk : n, &B);
        gsl_matrix *c = padded(rng, m, n, &C), *C0 = mat_dup(&C.matrix);
        if (beta == 0.0) gsl_matrix_set_all(&C.matrix, NAN);   /* beta = 0: C is not read */
        ck_assert_int_eq(mat_gemm(&C.matrix, alpha, &A.matrix, tA, &B.matrix, tB, beta), ATT_OK);
        for (size_t i = 0; i < m; i++)
            for (size_t j = 0; j < n; j++) {
                // s_ij = sum_p op(A)_ip op(B)_pj, p = 0 .. k-1 in order, one rounding per operation
                double s = 0.0;
                for (size_t p = 0; p < kk; p++)
                    s += op_get(&A.matrix, tA, i, p) * op_get(&B.matrix, tB, p, j);
                double want = beta == 0.0 ? alpha * s : alpha * s + beta * gsl_matrix_get(C0, i, j);
                double got = gsl_matrix_get(&C.matrix, i, j);
                PROP_ASSERT(got == want,
                            "(%zu x %zu x %zu, tA %d, tB %d, alpha %g, beta %g): c_%zu%zu = %.17g, "
                            "the fixed-order sum is %.17g",
                            m, n, kk, tA, tB, alpha, beta, i, j, got, want);
            }
        // the padding around the view is untouched
        gsl_matrix_view rim = gsl_matrix_submatrix(c, 0, 0, 1, c->size2);
        PROP_ASSERT(!gsl_matrix_isnull(&rim.matrix) && !isnan(gsl_matrix_get(c, 0, 0)),
                    "the row above C changed");
        mat_free(a), mat_free(b), mat_free(c), mat_free(C0);
    }
    gsl_rng_free(rng);
}
END_TEST

/* Above the bound the BLAS computes it: the same product within the dot-product bound. */
START_TEST(test_large_goes_to_blas)
{
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(rng, 7);
    size_t m = 40, n = 24, k = 30;   /* m n k = 28,800 > MAT_FIXED_MAX_MNK */
    ck_assert((double)(m * n * k) > MAT_FIXED_MAX_MNK);
    gsl_matrix *A = mat_new(m, k), *B = mat_new(k, n), *C = mat_new(m, n);
    mat_randn(rng, A, 1.0), mat_randn(rng, B, 1.0);
    ck_assert_int_eq(mat_gemm(C, 1.0, A, 0, B, 0, 0.0), ATT_OK);
    for (size_t i = 0; i < m; i++)
        for (size_t j = 0; j < n; j++) {
            double s = 0.0, sa = 0.0;
            for (size_t p = 0; p < k; p++) {
                s += gsl_matrix_get(A, i, p) * gsl_matrix_get(B, p, j);
                sa += fabs(gsl_matrix_get(A, i, p) * gsl_matrix_get(B, p, j));
            }
            // |fl(sum) - sum| <= k eps sum |a b| (any order), twice for the reference's own
            // rounding
            ck_assert_double_le(fabs(gsl_matrix_get(C, i, j) - s), 2.0 * (double)k * 0x1p-52 * sa);
        }
    ck_assert_int_eq(mat_gemm(C, 1.0, A, 0, A, 0, 0.0), ATT_EUSAGE);   /* (40 x 30)(40 x 30) */
    mat_free(A), mat_free(B), mat_free(C);
    gsl_rng_free(rng);
}
END_TEST

PROP_MAIN("test_mat_fixed",
          {"unit", 0, {test_large_goes_to_blas}},
          {"properties", 60, {prop_small_is_fixed_order}})
