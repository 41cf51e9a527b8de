/* vexp.c - e^{x_j - m} over a row of scores, vectorised, and its sum in a
 * fixed order (see vexp.h).
 *
 * Kept rather than SLEEF (Debian libsleef-dev, 1-ulp Sleef_expd8_u10): the
 * issue's bar was 95% of this exponential's speed for the whole tiled head at
 * T = 100,000. Measured side by side (bench/bench expcmp, interleaved runs,
 * 2 threads, a shared 2-core Xeon with AVX-512, load average 1 to 2):
 * T = 100,000, 3 runs each: own 23.97 / 24.19 / 24.80 s (min / median /
 * max), SLEEF 25.05 / 27.38 / 27.54 s: SLEEF at 88% of this speed by the
 * medians (96% by the minima), below the bar; an earlier run at load 2 to 4
 * gave 69% and 92%; at T = 20,000 the two were equal (99%). Both were
 * within 1 ulp of libm on 1e6 arguments, and the head's outputs differ by
 * 6.7e-16. Keeping this code also keeps the results bit for bit and adds no
 * build dependency.
 */
#include "vexp.h"
#include "status.h"

#include <math.h>
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---- the exponential --------------------------------------------------- */

/* e^x for x <= 0 (Tang's method, Cody-Waite reduction):
 *   k = round(x / ln 2),  r = x - k ln 2 in [-ln2/2, ln2/2]   (ln 2 = hi + lo,
 *   hi with trailing zero bits so k hi is exact),
 *   e^r = sum_{n=0}^{13} r^n / n!   (Taylor: remainder |r|^14 / 14! < 5e-18),
 *   e^x = e^r 2^k1 2^k2,  k1 + k2 = k, both >= -538 so each 2^kj is a normal
 *   double and the one rounding into the subnormal range is the last product.
 * round() and 2^kj use the 1.5 2^52 shifter: t = y + SH rounds y to an
 * integer; the low bits of t (as an integer) then hold that integer, and
 * bits(kj + 1023 + SH) << 52 is the exponent field of 2^kj.
 * Where the CPU has fused multiply-adds they are used (each step is then at
 * least as accurate: k hi - x, for one, becomes exact before its rounding). */
static const double EXP_SH = 0x1.8p52;
static const double EXP_LOG2E = 1.4426950408889634074;
static const double EXP_LN2HI = 6.93147180369123816490e-01;   /* 0x3fe62e42fee00000 */
static const double EXP_LN2LO = 1.90821492927058770002e-10;   /* ln 2 - hi          */
static const double EXP_MIN = -745.2;      /* e^x < 2^-1075 here: rounds to 0 */

static inline __attribute__((always_inline)) double exp_pow2(double k)
{
    double e = k + (EXP_SH + 1023.0);
    uint64_t b;
    memcpy(&b, &e, sizeof b);
    b <<= 52;
    memcpy(&e, &b, sizeof e);
    return e;
}

/* The body of e^x, x <= 0, as a macro so that it compiles once with plain
 * multiply-adds and once, for CPUs that have them, with fused ones. */
#define EXP_NONPOSITIVE_BODY                                                     \
    /* below EXP_MIN (and -inf) the result rounds to 0: clamp, then it is 0 */  \
    x = x < EXP_MIN ? EXP_MIN : x;                   /* NaN stays NaN */         \
    /* k = round(x log2 e);  r = x - k ln 2 (two steps, the first exact) */      \
    double k = (x * EXP_LOG2E + EXP_SH) - EXP_SH;                                \
    double r = (x - k * EXP_LN2HI) - k * EXP_LN2LO;                              \
    /* e^r, Horner on the Taylor series to degree 13 */                          \
    double p = 1.0 / 6227020800.0;                   /* 1/13! */                 \
    p = 1.0 / 479001600.0 + r * p;                   /* 1/12! */                 \
    p = 1.0 / 39916800.0 + r * p;                                                \
    p = 1.0 / 3628800.0 + r * p;                                                 \
    p = 1.0 / 362880.0 + r * p;                                                  \
    p = 1.0 / 40320.0 + r * p;                                                   \
    p = 1.0 / 5040.0 + r * p;                                                    \
    p = 1.0 / 720.0 + r * p;                                                     \
    p = 1.0 / 120.0 + r * p;                                                     \
    p = 1.0 / 24.0 + r * p;                                                      \
    p = 1.0 / 6.0 + r * p;                                                       \
    p = 0.5 + r * p;                                                             \
    p = 1.0 + r * p;                                                             \
    p = 1.0 + r * p;                                                             \
    /* 2^k = 2^k1 2^k2 with k1 = round(k / 2) */                                 \
    double k1 = (k * 0.5 + EXP_SH) - EXP_SH;                                     \
    /* (at x = EXP_MIN: p 2^-1075 with p < 1 rounds to 0) */                    \
    return p * exp_pow2(k1) * exp_pow2(k - k1);

static inline __attribute__((always_inline)) double exp_nonpositive(double x)
{
    EXP_NONPOSITIVE_BODY
}

/* The sum of a row, sum_i y_i, as eight interleaved partial sums added in
 * order: acc_u = sum_{i = u mod 8} y_i, then acc_0 + acc_1 + ... + acc_7:
 * the same bits for any vector width. VALUE is y_i, an expression in the
 * index variable i (it may also store y_i). */
#define SUM_FIXED_ORDER(n, i, VALUE)                                             \
    double acc[8] = { 0 };                                                       \
    size_t j0 = 0;                                                               \
    for (; j0 + 8 <= (n); j0 += 8) {                                             \
        _Pragma("omp simd") for (size_t u = 0; u < 8; u++) {                     \
            size_t i = j0 + u;                                                   \
            acc[u] += (VALUE);                                                   \
        }                                                                        \
    }                                                                            \
    for (size_t u = 0, i = j0; i < (n); i++, u++) acc[u] += (VALUE);             \
    double s = 0.0;                                                              \
    for (size_t u = 0; u < 8; u++) s += acc[u];                                  \
    return s;

/* A path's two row functions, from its one-element exponential ONE:
 *   name(y, x, n, m):       y_j = e^{x_j - m}
 *   name##_sum(y, x, n, m): the same, returning sum_j y_j in the fixed order
 *                           (one sweep over the row instead of two)
 * y may alias x. */
#define EXP_ROWS_PAIR(name, ATTRS, ONE)                                          \
    ATTRS static void name(double *y, const double *x, size_t n, double m)       \
    {                                                                            \
        _Pragma("omp simd") for (size_t j = 0; j < n; j++) y[j] = ONE(x[j] - m); \
    }                                                                            \
    ATTRS static double name##_sum(double *y, const double *x, size_t n, double m) \
    {                                                                            \
        SUM_FIXED_ORDER(n, i, y[i] = ONE(x[i] - m))                              \
    }

/* y_j = e^{x_j - m}: plain loop (SSE2 on any x86-64), no fused multiply-add */
EXP_ROWS_PAIR(exp_rows_plain, , exp_nonpositive)

#if defined(__x86_64__) && defined(__GNUC__)
/* The same with AVX2 or AVX-512 vectors and fused multiply-adds (the
 * contraction a * b + c -> fma is allowed here only): about 6% off the whole
 * head at T = 20,000 on one thread (42.6 -> 45 GFLOP/s), same 2-ulp accuracy.
 * Results then differ in the last bits between CPUs with and without FMA,
 * as BLAS results do; on one machine they are always the same.
 * no-trapping-math lets GCC turn the clamp below EXP_MIN into a blend: with
 * it on, GCC 12 kept a branch ("tree could trap") and the AVX2 loop was NOT
 * vectorised at all: 9.4 to 9.9 ns per exp (one core, interleaved runs,
 * load 10), against 2.4 to 2.6 ns now. AVX-512, which masks instead, was
 * vectorised before too (1.6 to 2.3 ns, now 1.2 to 1.3: within the noise).
 * Same operations, same bits. */
#define EXP_ROWS_FMA(name, arch)                                                                   \
    __attribute__((target(arch), optimize("fp-contract=fast", "no-trapping-math"))) static inline  \
        __attribute__((always_inline)) double name##_one(double x)                                 \
    {                                                                                              \
        EXP_NONPOSITIVE_BODY                                                                       \
    }                                                                                              \
    EXP_ROWS_PAIR(name, __attribute__((target(arch),                                               \
                                       optimize("fp-contract=fast", "no-trapping-math"))),         \
                  name##_one)
EXP_ROWS_FMA(exp_rows_avx512, "arch=x86-64-v4")
EXP_ROWS_FMA(exp_rows_avx2, "arch=x86-64-v3")

/* ---- the head's exponential on AVX-512: a table of 2^{j/16} ------------- */

/* e^x for x <= 0, eight lanes (Tang's table method, the one glibc uses):
 *   k = round(16 x / ln 2),  r = x - k ln2/16 in [-ln2/32, ln2/32]
 *     (ln2/16 = hi + lo, hi with 32 trailing zero bits so k hi is exact),
 *   k = 16 e + j with j in 0..15,  e^x = 2^e 2^{j/16} e^r,
 *   e^r - 1 = q = r + r^2 (1/2! + r/3! + ... + r^5/7!)   (Taylor: remainder
 *     |r|^8 / 8! < 1.2e-18),
 *   e^x = 2^e (t_j + (t_j q + u_j)),  t_j + u_j = 2^{j/16} to 106 bits
 *     (t_j the double nearest 2^{j/16}, u_j the double nearest the rest),
 *   2^e applied by vscalefpd, one rounding also into the subnormal range.
 * 16 table entries fit two registers, so a lookup is one permute
 * (vpermi2pd), not a gather. The errors: 0.5 ulp for the last addition,
 * about 0.02 ulp before it (measured: at most 1 ulp from libm on 2e7
 * arguments, 99.4% equal). Against the Taylor series to degree 13 of the
 * other paths this takes 19 vector operations instead of 29; the results may
 * differ from theirs in the last bit. */
static const double EXP_TAB_HI[16] = {
    0x1.0000000000000p+0, 0x1.0b5586cf9890fp+0, 0x1.172b83c7d517bp+0, 0x1.2387a6e756238p+0,
    0x1.306fe0a31b715p+0, 0x1.3dea64c123422p+0, 0x1.4bfdad5362a27p+0, 0x1.5ab07dd485429p+0,
    0x1.6a09e667f3bcdp+0, 0x1.7a11473eb0187p+0, 0x1.8ace5422aa0dbp+0, 0x1.9c49182a3f090p+0,
    0x1.ae89f995ad3adp+0, 0x1.c199bdd85529cp+0, 0x1.d5818dcfba487p+0, 0x1.ea4afa2a490dap+0,
};
static const double EXP_TAB_LO[16] = {
    0x0.0p+0, 0x1.8a62e4adc610bp-54, -0x1.19041b9d78a76p-55, 0x1.9b07eb6c70573p-54,
    0x1.6f46ad23182e4p-55, 0x1.ada0911f09ebcp-55, 0x1.d4397afec42e2p-56, 0x1.6324c054647adp-54,
    -0x1.bdd3413b26456p-54, -0x1.41577ee04992fp-55, 0x1.6e9f156864b27p-54, 0x1.c7c46b071f2bep-56,
    0x1.7a1cd345dcc81p-54, 0x1.11065895048ddp-55, 0x1.2ed02d75b3707p-55, -0x1.e9c23179c2893p-54,
};
static const double EXP_16_LN2 = 0x1.71547652b82fep+4;        /* 16 / ln 2          */
static const double EXP_LN2_16HI = 0x1.62e4200000000p-5;      /* ln2/16, 21 bits    */
static const double EXP_LN2_16LO = 0x1.fdf473de6af28p-26;     /* ln2/16 - hi        */

#define AVX512_FN __attribute__((target("arch=x86-64-v4")))

AVX512_FN static inline __m512d exp8_nonpositive(__m512d x, const __m512d tab[4])
{
    /* below EXP_MIN (and -inf) the result rounds to 0: clamp (max keeps
     * its second operand, x, when that is NaN) */
    x = _mm512_max_pd(_mm512_set1_pd(EXP_MIN), x);
    /* k = round(16 x / ln 2): the low bits of t hold k (the shifter, above) */
    __m512d t = _mm512_fmadd_pd(x, _mm512_set1_pd(EXP_16_LN2), _mm512_set1_pd(EXP_SH));
    __m512d k = _mm512_sub_pd(t, _mm512_set1_pd(EXP_SH));
    /* r = x - k ln2/16 (two steps, the first exact) */
    __m512d r = _mm512_fnmadd_pd(k, _mm512_set1_pd(EXP_LN2_16HI), x);
    r = _mm512_fnmadd_pd(k, _mm512_set1_pd(EXP_LN2_16LO), r);
    /* q = r + r^2 (1/2! + r (1/3! + ... + r/7!)), Horner */
    __m512d p = _mm512_set1_pd(1.0 / 5040.0);
    p = _mm512_fmadd_pd(p, r, _mm512_set1_pd(1.0 / 720.0));
    p = _mm512_fmadd_pd(p, r, _mm512_set1_pd(1.0 / 120.0));
    p = _mm512_fmadd_pd(p, r, _mm512_set1_pd(1.0 / 24.0));
    p = _mm512_fmadd_pd(p, r, _mm512_set1_pd(1.0 / 6.0));
    p = _mm512_fmadd_pd(p, r, _mm512_set1_pd(0.5));
    __m512d q = _mm512_fmadd_pd(_mm512_mul_pd(r, r), p, r);
    /* t_j, u_j by j = k mod 16, the low 4 bits of t */
    __m512i j = _mm512_castpd_si512(t);
    __m512d tj = _mm512_permutex2var_pd(tab[0], j, tab[1]);
    __m512d uj = _mm512_permutex2var_pd(tab[2], j, tab[3]);
    /* 2^{j/16} e^r = t_j + (t_j q + u_j);  e = floor(k / 16) */
    __m512d y = _mm512_add_pd(tj, _mm512_fmadd_pd(tj, q, uj));
    __m512d e = _mm512_roundscale_pd(_mm512_mul_pd(k, _mm512_set1_pd(1.0 / 16.0)),
                                     _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC);
    return _mm512_scalef_pd(y, e);
}

AVX512_FN static void exp_table_load(__m512d tab[4])
{
    tab[0] = _mm512_loadu_pd(EXP_TAB_HI);
    tab[1] = _mm512_loadu_pd(EXP_TAB_HI + 8);
    tab[2] = _mm512_loadu_pd(EXP_TAB_LO);
    tab[3] = _mm512_loadu_pd(EXP_TAB_LO + 8);
}

/* y_j = e^{x_j - m} and sum_j y_j in the fixed order of SUM_FIXED_ORDER:
 * lane u of acc is acc_u, and the tail (masked) adds to lanes 0, 1, ... */
AVX512_FN static double exp_rows_avx512t_sum(double *y, const double *x, size_t n, double m)
{
    __m512d tab[4], acc = _mm512_setzero_pd(), vm = _mm512_set1_pd(m);
    exp_table_load(tab);
    size_t j = 0;
    for (; j + 8 <= n; j += 8) {
        __m512d v = exp8_nonpositive(_mm512_sub_pd(_mm512_loadu_pd(x + j), vm), tab);
        _mm512_storeu_pd(y + j, v);
        acc = _mm512_add_pd(acc, v);
    }
    if (j < n) {
        __mmask8 lanes = (__mmask8)((1u << (n - j)) - 1);
        __m512d v = exp8_nonpositive(_mm512_sub_pd(_mm512_maskz_loadu_pd(lanes, x + j), vm), tab);
        _mm512_mask_storeu_pd(y + j, lanes, v);
        acc = _mm512_mask_add_pd(acc, lanes, acc, v);
    }
    double a[8], s = 0.0;
    _mm512_storeu_pd(a, acc);
    for (size_t u = 0; u < 8; u++) s += a[u];
    return s;
}
#endif



/* The paths by name: the scalar loop first, then widening vectors. */
/* f: the rows, fs: the rows and their sum in one sweep, fh: the same for the
 * tiled head (vexp_shifted_head) */
typedef double exp_sum_fn(double *y, const double *x, size_t n, double m);
typedef struct {
    const char *name;
    vexp_rows_fn *f;
    exp_sum_fn *fs, *fh;
    const char *cpu;
} exp_path;
static const exp_path EXP_PATHS[] = {
    {"scalar", exp_rows_plain, exp_rows_plain_sum, exp_rows_plain_sum, NULL},
#if defined(__x86_64__) && defined(__GNUC__)
    /* AVX2 + FMA (+ BMI, ...) */
    {"avx2", exp_rows_avx2, exp_rows_avx2_sum, exp_rows_avx2_sum, "x86-64-v3"},
    /* AVX-512 F, BW, CD, DQ, VL */
    {"avx512", exp_rows_avx512, exp_rows_avx512_sum, exp_rows_avx512t_sum, "x86-64-v4"},
#endif
};
enum { EXP_NPATHS = sizeof EXP_PATHS / sizeof EXP_PATHS[0] };

static vexp_rows_fn *exp_rows;          /* chosen once; a race writes the same value */
static exp_sum_fn *exp_sum;             /* its fused row-and-sum, NULL for a foreign one */
static exp_sum_fn *exp_head;            /* the head's, NULL for a foreign one */

/* 1 if this CPU runs path k */
static int exp_path_ok(size_t k)
{
#if defined(__x86_64__) && defined(__GNUC__)
    __builtin_cpu_init();
    if (EXP_PATHS[k].cpu && strcmp(EXP_PATHS[k].cpu, "x86-64-v3") == 0)
        return __builtin_cpu_supports("x86-64-v3");
    if (EXP_PATHS[k].cpu && strcmp(EXP_PATHS[k].cpu, "x86-64-v4") == 0)
        return __builtin_cpu_supports("x86-64-v4");
#endif
    return EXP_PATHS[k].cpu == NULL;
}

/* The path named `name` ("plain" is the scalar one's old name); -1 if none. */
static int exp_path_find(const char *name)
{
    if (strcmp(name, "plain") == 0) name = "scalar";
    for (size_t k = 0; k < EXP_NPATHS; k++) if (strcmp(name, EXP_PATHS[k].name) == 0) return (int)k;
    return -1;
}

/* The widest path this CPU runs. */
static int exp_path_best(void)
{
    int best = 0;
    for (size_t k = 0; k < EXP_NPATHS; k++) if (exp_path_ok(k)) best = (int)k;
    return best;
}

/* ATT_VEXP's path if it is set, valid and runs here (else -1, *why says
 * what is wrong), or the best path when it is unset or empty. */
static int exp_path_env(const char **why)
{
    const char *v = getenv("ATT_VEXP");
    *why = NULL;
    if (v == NULL || *v == '\0') return exp_path_best();
    int k = exp_path_find(v);
    if (k < 0) { *why = "is not a path (avx512, avx2 or scalar)"; return -1; }
    if (!exp_path_ok((size_t)k)) { *why = "is not supported by this CPU"; return -1; }
    return k;
}

/* Use the row function f, and its fused sum if it is one of ours. */
static void exp_use(vexp_rows_fn *f)
{
    exp_sum_fn *fs = NULL, *fh = NULL;
    for (size_t k = 0; k < EXP_NPATHS; k++)
        if (EXP_PATHS[k].f == f) { fs = EXP_PATHS[k].fs; fh = EXP_PATHS[k].fh; }
    exp_sum = fs;
    exp_head = fh;
    exp_rows = f;
}

static vexp_rows_fn *exp_rows_pick(void)
{
    const char *why;
    int k = exp_path_env(&why);
    return EXP_PATHS[k < 0 ? exp_path_best() : k].f;   /* vexp_env_check reports a bad one */
}

int vexp_env_check(void)
{
    const char *why;
    int k = exp_path_env(&why);
    if (k < 0) {
        char have[64] = "";
        for (size_t j = 0; j < EXP_NPATHS; j++)
            if (exp_path_ok(j)) {
                strcat(have, *have ? ", " : "");
                strcat(have, EXP_PATHS[j].name);
            }
        return att_fail(ATT_EUSAGE, "ATT_VEXP=%s %s; this CPU runs: %s (unset: the best)",
                        getenv("ATT_VEXP"), why, have);
    }
    if (exp_rows == NULL) exp_use(EXP_PATHS[k].f);
    return ATT_OK;
}

const char *vexp_path(void)
{
    vexp_rows_fn *f = exp_rows ? exp_rows : exp_rows_pick();
    for (size_t k = 0; k < EXP_NPATHS; k++) if (EXP_PATHS[k].f == f) return EXP_PATHS[k].name;
    return "other";                     /* vexp_set_rows installed one */
}

int vexp_variant(const char *name)
{
    if (name == NULL) { exp_use(exp_rows_pick()); return ATT_OK; }
    int k = exp_path_find(name);
    if (k < 0 || !exp_path_ok((size_t)k))
        return att_fail(ATT_EUSAGE, "exponential variant \"%s\" is not available on this CPU",
                        name);
    exp_use(EXP_PATHS[k].f);
    return ATT_OK;
}

/* sum_j y_j as eight interleaved partial sums added in order: the same bits
 * for any vector width. */
__attribute__((target_clones("avx512f", "avx2", "default")))
static double sum_fixed_order(const double *y, size_t n)
{
    SUM_FIXED_ORDER(n, i, y[i])
}

/* Our own paths exponentiate and sum in one sweep (the same bits as the
 * two sweeps of a foreign row function below). */
double vexp_shifted(double *y, const double *x, size_t n, double m)
{
    exp_sum_fn *fs = exp_sum;
    if (fs) return fs(y, x, n, m);
    if (exp_rows == NULL) exp_use(exp_rows_pick());
    if ((fs = exp_sum)) return fs(y, x, n, m);
    exp_rows(y, x, n, m);
    return sum_fixed_order(y, n);
}

double vexp_shifted_head(double *y, const double *x, size_t n, double m)
{
    exp_sum_fn *fh = exp_head;
    if (fh) return fh(y, x, n, m);
    if (exp_rows == NULL) exp_use(exp_rows_pick());
    if ((fh = exp_head)) return fh(y, x, n, m);
    return vexp_shifted(y, x, n, m);     /* a foreign row function (vexp_set_rows) */
}

void vexp_set_rows(vexp_rows_fn *f)
{
    exp_use(f ? f : exp_rows_pick());
}

