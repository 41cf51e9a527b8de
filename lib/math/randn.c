/* randn.c - bulk Gaussian variates, byte-identical to gsl_ran_gaussian_ziggurat.
 *
 * GSL's ziggurat (Marsaglia & Tsang 2000, 128 strips, GSL 2.x), for a
 * generator with 32 random bits per word (max - min >= 2^32 - 1):
 *   k = one word - min;  i = k & 0xff;  j = (k >> 8) & 0xffffff;
 *   sign = +1 if bit 7 of i is set, else -1;  i = i & 0x7f;
 *   x = j w_i;  if j < k_i: return sign sigma x          (the fast path)
 *   else: the wedge (i < 127) or the tail (i = 127), with further uniforms,
 *         accept or start over.
 * For a generator of 31 random bits per word (0x00ffffff <= max - min < 2^32 - 1, like
 * cmrg's), GSL reads two words instead: i = (first word - min) & 0xff, j = (second
 * word - min) & 0xffffff, the rest as above.
 * The fast path is done here; anything else is returned to GSL after
 * stepping the generator back by the word(s) just read (the state before them is kept).
 */
#include "randn.h"

#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <gsl/gsl_randist.h>

enum { ZIG_STRIPS = 128, ZIG_J = 1 << 24 };

/* k_i, w_i of the linked GSL (read by zig_probe below) */
static unsigned long zig_k[ZIG_STRIPS];
static double zig_w[ZIG_STRIPS];
static pthread_once_t zig_once = PTHREAD_ONCE_INIT;

/* ---- reading k_i and w_i from GSL: a scripted generator ----
 * Its first word is the probe's k; every later word is strip 127, j = 0
 * (always the fast path: x = 0), so the call ends; uniforms are 1/2.
 * "took the fast path" = no uniform was asked for. */
typedef struct { unsigned long first; unsigned long words, uniforms; } probe_state;

static void probe_set(void *s, unsigned long seed) { (void)s, (void)seed; }
static unsigned long probe_get(void *vs)
{
    probe_state *s = vs;
    return s->words++ == 0 ? s->first : 0xffUL;
}
static double probe_get_double(void *vs)
{
    ((probe_state *)vs)->uniforms++;
    return 0.5;
}
static const gsl_rng_type probe_type = {"randn-probe", 0xffffffffUL, 0, sizeof(probe_state),
                                        probe_set, probe_get, probe_get_double};

/* GSL's value for the word k (sigma = 1), and whether it took the fast path */
static double probe(unsigned long k, int *fast)
{
    probe_state s = {k, 0, 0};
    gsl_rng r = {&probe_type, &s};
    double x = gsl_ran_gaussian_ziggurat(&r, 1.0);
    *fast = s.uniforms == 0;
    return x;
}

/* k_i = the smallest j that leaves the fast path (2^24 if none does: binary search,
 * the fast path being j < k_i); w_i = the value at j = 1, sign +, sigma 1: 1 w_i.
 * A strip with k_i <= 1 needs no w_i: its fast path is at most j = 0, x = 0. */
static void zig_probe(void)
{
    for (unsigned long i = 0; i < ZIG_STRIPS; i++) {
        unsigned long lo = 0, hi = ZIG_J;       /* k_i in [lo, hi] */
        while (lo < hi) {
            unsigned long mid = lo + (hi - lo) / 2;
            int fast;
            (void)probe((mid << 8) | 0x80 | i, &fast);
            if (fast) lo = mid + 1;
            else hi = mid;
        }
        zig_k[i] = lo;
        int fast = 0;
        zig_w[i] = lo > 1 ? probe((1UL << 8) | 0x80 | i, &fast) : 0.0;
    }
}

/* the fast path for the word k (min = 0): 1 and *x = sign sigma (j w_i), or 0 */
static inline int zig_fast(unsigned long k, double sigma, double *x)
{
    unsigned long i = k & 0x7f, j = (k >> 8) & 0xffffff;
    if (j >= zig_k[i]) return 0;
    double sign = (double)((int)((k >> 6) & 2) - 1);   /* bit 7: +1, else -1, without a branch */
    /* GSL's sign * sigma * x, left to right; j < 2^24 converts exactly through int */
    *x = sign * sigma * ((double)(int)j * zig_w[i]);
    return 1;
}

/* ---- mt19937 (Matsumoto & Nishimura 1998): GSL's state {mt[624], mti} ---- */
enum { MT_N = 624, MT_M = 397, MT_RUN = 64 };   /* MT_RUN: words tempered at once */
typedef struct { unsigned long mt[MT_N]; int mti; } mt_layout;

/* the next 624 words: mt[k] = mt[k + M] ^ (y >> 1) ^ (y odd ? 0x9908b0df : 0),
 * y = upper bit of mt[k] | lower 31 bits of mt[k + 1] (indices mod N), in
 * three runs so that no index needs a modulo */
static inline unsigned long mt_twist(unsigned long upper, unsigned long lower, unsigned long far)
{
    unsigned long y = (upper & 0x80000000UL) | (lower & 0x7fffffffUL);
    return far ^ (y >> 1) ^ ((0UL - (y & 1UL)) & 0x9908b0dfUL);
}
/* each run reads only words it has not yet rewritten, or (the second) words
 * rewritten at least N - M = 227 places before: both vectorise */
/* AVX2 where the CPU has it (4 words per instruction), else SSE2: integer work, the same words */
__attribute__((target_clones("avx2", "default")))
static void mt_regenerate(unsigned long *mt)
{
    #pragma omp simd
    for (int k = 0; k < MT_N - MT_M; k++) mt[k] = mt_twist(mt[k], mt[k + 1], mt[k + MT_M]);
    #pragma omp simd safelen(128)
    for (int k = MT_N - MT_M; k < MT_N - 1; k++)
        mt[k] = mt_twist(mt[k], mt[k + 1], mt[k + MT_M - MT_N]);
    mt[MT_N - 1] = mt_twist(mt[MT_N - 1], mt[0], mt[MT_M - 1]);
}

/* tempering of one state word */
static inline unsigned long mt_temper(unsigned long k)
{
    k ^= k >> 11;
    k ^= (k << 7) & 0x9d2c5680UL;
    k ^= (k << 15) & 0xefc60000UL;
    return k ^ (k >> 18);
}

/* in runs of at most the words left in the state: temper the run (vectorised),
 * then the ziggurat's fast path word by word; a word that leaves it goes to
 * GSL unconsumed, and the run restarts after what GSL consumed */
__attribute__((target_clones("avx2", "default")))
static void fill_mt(gsl_rng *rng, double *out, size_t n, double sigma)
{
    mt_layout *s = rng->state;
    unsigned long w[MT_RUN];
    size_t m = 0;
    while (m < n) {
        if (s->mti >= MT_N) mt_regenerate(s->mt), s->mti = 0;
        size_t i0 = (size_t)s->mti, run = MT_N - i0 < n - m ? MT_N - i0 : n - m, r = 0;
        if (run > MT_RUN) run = MT_RUN;
        #pragma omp simd
        for (size_t q = 0; q < run; q++) w[q] = mt_temper(s->mt[i0 + q]);
        while (r < run && zig_fast(w[r], sigma, &out[m + r])) r++;
        s->mti = (int)(i0 + r);
        m += r;
        if (r < run) out[m++] = gsl_ran_gaussian_ziggurat(rng, sigma); /* word i0 + r, unconsumed */
    }
}

/* ---- taus, taus2 (L'Ecuyer 1996): GSL's state {s1, s2, s3} ---- */
typedef struct { unsigned long s1, s2, s3; } taus_layout;

/* one component step: (((s & c) << d) ^ (((s << a) ^ s) >> b)), 32 bits */
static inline unsigned long taus_step(unsigned long s, int a, int b, unsigned long c, int d)
{
    return (((s & c) << d) & 0xffffffffUL) ^ ((((s << a) & 0xffffffffUL) ^ s) >> b);
}

static void fill_taus(gsl_rng *rng, double *out, size_t n, double sigma)
{
    taus_layout *s = rng->state;
    unsigned long s1 = s->s1, s2 = s->s2, s3 = s->s3;   /* the state before the word */
    for (size_t m = 0; m < n; m++) {
        unsigned long t1 = taus_step(s1, 13, 19, 4294967294UL, 12),
                      t2 = taus_step(s2, 2, 25, 4294967288UL, 4),
                      t3 = taus_step(s3, 3, 11, 4294967280UL, 17);
        if (zig_fast(t1 ^ t2 ^ t3, sigma, &out[m])) {
            s1 = t1, s2 = t2, s3 = t3;
            continue;
        }
        s->s1 = s1, s->s2 = s2, s->s3 = s3;                 /* the word not yet consumed: */
        out[m] = gsl_ran_gaussian_ziggurat(rng, sigma);     /* GSL draws it, and on */
        s1 = s->s1, s2 = s->s2, s3 = s->s3;
    }
    s->s1 = s1, s->s2 = s2, s->s3 = s3;
}

/* ---- cmrg (L'Ecuyer 1996): GSL's state {x1, x2, x3, y1, y2, y3}, newest first ---- */
typedef struct { long x1, x2, x3, y1, y2, y3; } cmrg_layout;
#define CMRG_M1 2147483647L
#define CMRG_M2 2145483479L

/* one word: x_n = (63308 x_{n-2} - 183326 x_{n-3}) mod m1,
 * y_n = (86098 y_{n-1} - 539608 y_{n-3}) mod m2, the word (x_n - y_n) mod m1
 * (GSL's Schrage steps give these exact residues; here in 64 bits: |products| < 2^51) */
static inline unsigned long cmrg_word(cmrg_layout *s)
{
    int64_t x = (63308 * (int64_t)s->x2 - 183326 * (int64_t)s->x3) % CMRG_M1;
    int64_t y = (86098 * (int64_t)s->y1 - 539608 * (int64_t)s->y3) % CMRG_M2;
    x += x < 0 ? CMRG_M1 : 0;
    y += y < 0 ? CMRG_M2 : 0;
    s->x3 = s->x2, s->x2 = s->x1, s->x1 = (long)x;
    s->y3 = s->y2, s->y2 = s->y1, s->y1 = (long)y;
    return (unsigned long)(x < y ? x - y + CMRG_M1 : x - y);
}

static void fill_cmrg(gsl_rng *rng, double *out, size_t n, double sigma)
{
    cmrg_layout *s = rng->state, t = *s;   /* t: the state after the words consumed */
    for (size_t m = 0; m < n; m++) {
        const cmrg_layout before = t;
        unsigned long k1 = cmrg_word(&t), k2 = cmrg_word(&t);
        // GSL's two-word ziggurat: i (and the sign) from k1, j from k2, as one word's bits
        if (zig_fast((k1 & 0xffUL) | ((k2 & 0xffffffUL) << 8), sigma, &out[m])) continue;
        *s = before;                                        /* the two words not consumed: */
        out[m] = gsl_ran_gaussian_ziggurat(rng, sigma);     /* GSL draws them, and on */
        t = *s;
    }
    *s = t;
}

typedef void fill_fn(gsl_rng *, double *, size_t, double);

/* the bulk path for rng's generator: same get function (hence same state and
 * words) as mt19937's, taus's or cmrg's, words from 0 of their width, the state size known */
static fill_fn *fast_fill(const gsl_rng *rng)
{
    const gsl_rng_type *t = rng->type;
    if (t->min != 0) return NULL;
    if (t->max == 0xffffffffUL && t->get == gsl_rng_mt19937->get && t->size == sizeof(mt_layout))
        return fill_mt;
    if (t->max == 0xffffffffUL && t->get == gsl_rng_taus->get && t->size == sizeof(taus_layout))
        return fill_taus;
    if (t->max == CMRG_M1 - 1 && t->get == gsl_rng_cmrg->get && t->size == sizeof(cmrg_layout))
        return fill_cmrg;
    return NULL;
}

int randn_has_fast_path(const gsl_rng *rng)
{
    return fast_fill(rng) != NULL;
}

void randn_fill(gsl_rng *rng, double *out, size_t n, double sigma)
{
    fill_fn *f = fast_fill(rng);
    if (f == NULL) {
        for (size_t m = 0; m < n; m++) out[m] = gsl_ran_gaussian_ziggurat(rng, sigma);
        return;
    }
    pthread_once(&zig_once, zig_probe);
    f(rng, out, n, sigma);
}
