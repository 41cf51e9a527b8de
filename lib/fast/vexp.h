/* vexp.h - the exponential of a row of shifted scores, vectorised:
 *
 *   y_j = e^{x_j - m}   (j < n),   returns sum_j y_j
 *
 * The tiled head (tiled.h) needs T_q T_k of these: 1e10 at T = 100,000,
 * which libm's scalar exp() would take longer to do than the two matrix
 * products take for the whole head.
 *
 * Method (Tang; Cody-Waite reduction): k = round(x / ln 2), r = x - k ln 2,
 * e^r by its Taylor series to degree 13 (remainder < 5e-18), e^x = e^r 2^k
 * in two factors so that only the last product may round into the
 * subnormal range. Within 2 ulp of libm's exp() for x - m in [-745, 0]
 * (tests/test_tiled.c measures the ulps), exactly 0 below -745.2 and for
 * -inf, NaN in gives NaN out. x_j - m must be <= 0 (the head always has
 * m >= x_j). The sum is eight interleaved partial sums added in order:
 * the same bits for any vector width. y may alias x.
 *
 * Paths: AVX-512 ("avx512", x86-64-v4) or AVX2 with fused multiply-adds
 * ("avx2", x86-64-v3) where the CPU has them, else a plain loop ("scalar").
 * The dispatch picks the widest path the CPU runs; the environment variable
 * ATT_VEXP=avx512|avx2|scalar forces one (a path the CPU lacks is an error,
 * vexp_env_check). The last bits may differ between paths (as BLAS results
 * differ between CPUs); one machine with one ATT_VEXP always uses one.
 */
#ifndef ATT_VEXP_H
#define ATT_VEXP_H

#include <stddef.h>

double vexp_shifted(double *y, const double *x, size_t n, double m);

/* The same for the tiled head (tiled.h), which needs T_q T_k of them: on the
 * avx512 path by a table of 2^{j/16} and a Taylor series to degree 7 (19
 * vector operations instead of 29), elsewhere vexp_shifted itself. Within
 * 2 ulp of libm as well, the same special values, the same order of the sum;
 * on avx512 its last bits may differ from vexp_shifted's. (Kept apart so that
 * the other experiments' exponentials keep their bits.) */
double vexp_shifted_head(double *y, const double *x, size_t n, double m);

/* ATT_VEXP: ATT_OK if unset, empty, or a path this CPU runs (then that
 * path is used from here on, unless vexp_variant or vexp_set_rows changed
 * it already); else ATT_EUSAGE naming the value and the paths this CPU
 * has. The tiled head calls it before every run, so a bad value makes an
 * experiment exit 2 before any work. */
int vexp_env_check(void);

/* The name of the path in use ("avx512", "avx2", "scalar", or "other" after
 * vexp_set_rows), choosing it as the first call would. */
const char *vexp_path(void);

/* Force the variant "scalar" (alias "plain"), "avx2" or "avx512" (ATT_EUSAGE if this CPU
 * lacks it), or NULL for the automatic choice. Not thread-safe. */
int vexp_variant(const char *name);

/* y_j = e^{x_j - m} for j < n, without the sum: a variant's row function. */
typedef void vexp_rows_fn(double *y, const double *x, size_t n, double m);

/* For the benchmark: install another row function (e.g. SLEEF's, to compare
 * the head's speed with it), or NULL to restore the automatic choice. */
void vexp_set_rows(vexp_rows_fn *f);

#endif
