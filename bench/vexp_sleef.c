/* vexp_sleef.c - SLEEF's 1-ulp vector exponential as a row function of
 * vexp.h, for `bench expcmp` (the comparison behind keeping lib/fast/vexp.c).
 * Compiled with -mavx512f -mavx2 -mfma by bench/run.sh when SLEEF is
 * installed (Debian libsleef-dev); the caller checks the CPU first. */
#include <stddef.h>
#include <sleef.h>
#include "vexp.h"

/* y_j = e^{x_j - m}: eight lanes at a time (Sleef_expd8_u10avx512f), the tail
 * by the scalar Sleef_exp_u10. */
void vexp_sleef_rows_avx512(double *y, const double *x, size_t n, double m)
{
    __m512d vm = _mm512_set1_pd(m);
    size_t j = 0;
    for (; j + 8 <= n; j += 8)
        _mm512_storeu_pd(y + j, Sleef_expd8_u10avx512f(_mm512_sub_pd(_mm512_loadu_pd(x + j), vm)));
    for (; j < n; j++) y[j] = Sleef_exp_u10(x[j] - m);
}

/* The same with four lanes (Sleef_expd4_u10avx2). */
void vexp_sleef_rows_avx2(double *y, const double *x, size_t n, double m)
{
    __m256d vm = _mm256_set1_pd(m);
    size_t j = 0;
    for (; j + 4 <= n; j += 4)
        _mm256_storeu_pd(y + j, Sleef_expd4_u10avx2(_mm256_sub_pd(_mm256_loadu_pd(x + j), vm)));
    for (; j < n; j++) y[j] = Sleef_exp_u10(x[j] - m);
}
