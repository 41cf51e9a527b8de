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
#endif



/* The paths by name: the scalar loop first, then widening vectors. */
/* f: the rows, fs: the rows and their sum in one sweep */
typedef double exp_sum_fn(double *y, const double *x, size_t n, double m);
typedef struct { const char *name; vexp_rows_fn *f; exp_sum_fn *fs; const char *cpu; } exp_path;
static const exp_path EXP_PATHS[] = {
    {"scalar", exp_rows_plain, exp_rows_plain_sum, NULL},
#if defined(__x86_64__) && defined(__GNUC__)
    {"avx2", exp_rows_avx2, exp_rows_avx2_sum, "x86-64-v3"},         /* AVX2 + FMA (+ BMI, ...) */
    {"avx512", exp_rows_avx512, exp_rows_avx512_sum, "x86-64-v4"},   /* AVX-512 F, BW, CD, DQ, VL */
#endif
};
enum { EXP_NPATHS = sizeof EXP_PATHS / sizeof EXP_PATHS[0] };

static vexp_rows_fn *exp_rows;          /* chosen once; a race writes the same value */
static exp_sum_fn *exp_sum;             /* its fused row-and-sum, NULL for a foreign one */

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
    exp_sum_fn *fs = NULL;
    for (size_t k = 0; k < EXP_NPATHS; k++) if (EXP_PATHS[k].f == f) fs = EXP_PATHS[k].fs;
    exp_sum = fs;
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

void vexp_set_rows(vexp_rows_fn *f)
{
    exp_use(f ? f : exp_rows_pick());
}

