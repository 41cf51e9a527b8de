/* anylen.c - one head on one input, its bytes and its times (anylen.h). */
#include "anylen.h"
#include "blas.h"
#include "mat.h"
#include "mem.h"
#include "rng.h"
#include "statistics.h"
#include "status.h"
#include "table.h"
#include "tiled.h"
#include "tol.h"
#include "vexp.h"

#include <float.h>
#include <math.h>
#include <omp.h>
#include <string.h>

/* the streams of --seed (rng_stream_seed(seed, stream, block)): one per kind of draw */
enum { STREAM_WEIGHTS = 0,   /* W_Q, W_K, W_V: block 0, one set for every T */
       STREAM_X = 1,         /* X at length T: block T                      */
       STREAM_ROWS = 2 };    /* the checked rows at length T: block T       */

int anylen_weights(gsl_matrix *W[3], size_t d, size_t d_k, size_t d_v, unsigned long seed)
{
    W[0] = W[1] = W[2] = NULL;
    int rc = vexp_env_check();         /* a bad ATT_VEXP stops the run before any pass */
    if (rc) return rc;
    W[0] = mat_new(d, d_k); W[1] = mat_new(d, d_k); W[2] = mat_new(d, d_v);
    gsl_rng *rng = rng_new("mt19937", rng_stream_seed(seed, STREAM_WEIGHTS, 0));
    rc = W[0] && W[1] && W[2] && rng ? ATT_OK : att_alloc_status();
    for (int k = 0; k < 3 && !rc; k++) mat_randn(rng, W[k], 1.0 / sqrt((double)d));
    if (rng) gsl_rng_free(rng);
    return rc;
}

int anylen_alloc(anylen_case *c, const head_params *p, unsigned long seed, int plain, size_t T)
{
    size_t d = p->W_Q->size1, d_k = p->W_Q->size2, d_v = p->W_V->size2;
    *c = (anylen_case){.p = p, .plain = plain, .X = mat_new(T, d), .O = mat_new(T, d_v)};
    // X (T, d) ~ N(0, 1) on stream (STREAM_X, T) of the seed
    gsl_rng *rng = rng_new("mt19937", rng_stream_seed(seed, STREAM_X, T));
    int rc = c->X && c->O && rng ? ATT_OK : att_alloc_status();
    if (!rc) mat_randn(rng, c->X, 1.0);
    if (rng) gsl_rng_free(rng);
    // the plain head's state: a refusal by --max-memory is ATT_EUSAGE (att_last_code)
    if (rc || !plain) return rc;
    return head_state_alloc(&c->st, T, T, d, d_k, d_v) ? att_alloc_status() : ATT_OK;
}

void anylen_free(anylen_case *c)
{
    head_state_free(&c->st);
    mat_free(c->X);
    mat_free(c->O);
    c->X = c->O = NULL;
}

/* one forward pass: O = softmax(scale (X W_Q)(X W_K)^T)(X W_V) */
static int anylen_once(void *arg)
{
    anylen_case *c = arg;
    if (!c->plain) return tiled_forward(c->O, c->p, c->X, c->X, tiled_tiles_default());
    int rc = head_forward(&c->st, c->p, c->X, c->X);
    if (!rc) gsl_matrix_memcpy(c->O, c->st.O);
    return rc;
}

int anylen_counted(anylen_case *c, const head_params *p, unsigned long seed, int plain, size_t T,
                   double *bytes)
{
    mem_reset_peak();
    size_t before = mem_live();
    int rc = anylen_alloc(c, p, seed, plain, T);
    if (!rc) rc = anylen_once(c);
    *bytes = (double)(mem_peak() - before);
    if (!plain) {   // minus the tiles of every thread but one
        tiled_tiles tl = tiled_tiles_default();
        size_t d_k = p->W_Q->size2, d_v = p->W_V->size2;
        *bytes -= (double)(tiled_threads(T, T, d_k, d_v, tl) - 1) *
                  (double)tiled_thread_bytes(tl, d_k, d_v);
    }
    return rc;
}

typedef struct {
    const head_params *p;
    unsigned long seed;
    int plain;
    size_t T;
    const timing_rule *rule;
} anylen_timed;

/* the child: one thread, passes until the rule stops (samples >= 0.02 s) */
static int anylen_time_child(void *ctx, timing *t)
{
    const anylen_timed *h = ctx;
    omp_set_num_threads(1);
    blas_single_thread();
    anylen_case c;
    int rc = anylen_alloc(&c, h->p, h->seed, h->plain, h->T);
    if (!rc) rc = timing_measure_until(anylen_once, &c, h->rule, 0.02, t);
    anylen_free(&c);
    return rc;
}

int anylen_time(const head_params *p, unsigned long seed, int plain, size_t T,
                const timing_rule *rule, timing *t, double *rss, double *cpu)
{
    anylen_timed h = {p, seed, plain, T, rule};
    return timing_in_child(anylen_time_child, &h, t, rss, cpu);
}

double anylen_mean(const gsl_matrix *O)
{
    double s = 0.0;
    for (size_t i = 0; i < O->size1; i++)
        for (size_t c = 0; c < O->size2; c++) s += gsl_matrix_get(O, i, c);
    return s / ((double)O->size1 * (double)O->size2);
}

double anylen_loglog_slope(const size_t *T, const double *y, size_t n, size_t t_min)
{
    double lx[64], ly[64];
    size_t m = 0;
    for (size_t i = 0; i < n && m < 64; i++)
        if (T[i] >= t_min && y[i] > 0) { lx[m] = log((double)T[i]); ly[m++] = log(y[i]); }
    return m >= 3 ? stat_fit_line(lx, ly, m, NULL, NULL) : NAN;
}

static const table_col COLS[] = {COL(anylen_row, T), COL(anylen_row, flops),
                                 COL_ROUND(anylen_row, max_abs_err, "tolerance"),
                                 COL(anylen_row, tolerance), COL(anylen_row, output_mean)};

int anylen_write_lengths(const char *dir, const anylen_row *rows, size_t n)
{
    return TABLE_WRITE(dir, "any_length.csv", COLS, rows, n);
}

#define TCOL(f, name) COL_AS(anylen_timing_row, f, name)
static const table_col TIME_COLS[] = {
    COL(anylen_timing_row, T), COL(anylen_timing_row, threads), TCOL(tiled.reps, "tiled_reps"),
    TCOL(tiled.min, "tiled_min_seconds"), TCOL(tiled.median, "tiled_median_seconds"),
    TCOL(tiled.max, "tiled_max_seconds"), COL(anylen_timing_row, tiled_gflops),
    TCOL(plain.min, "plain_min_seconds"), TCOL(plain.median, "plain_median_seconds"),
    TCOL(plain.max, "plain_max_seconds"), COL(anylen_timing_row, plain_gflops),
    COL(anylen_timing_row, tiled_counted_bytes), COL(anylen_timing_row, plain_counted_bytes),
    COL(anylen_timing_row, tiled_rss_above_baseline_bytes),
    COL(anylen_timing_row, plain_rss_above_baseline_bytes),
    TCOL(plain.reps, "plain_reps"),
    TCOL(tiled.ci_low, "tiled_median_ci_low"), TCOL(tiled.ci_high, "tiled_median_ci_high"),
    TCOL(tiled.ci_level, "tiled_median_ci_level"),
    TCOL(plain.ci_low, "plain_median_ci_low"), TCOL(plain.ci_high, "plain_median_ci_high"),
    TCOL(plain.ci_level, "plain_median_ci_level")};

int anylen_write_timing(const char *dir, const anylen_timing_row *rows, size_t n)
{
    return TABLE_WRITE(dir, "any_length_timing.csv", TIME_COLS, rows, n);
}

/* ---- the claim at one length: sampled rows against the formula in long double ---- */

enum { CHECK_CHUNKS = 64, CHECK_BLOCK = 16 };   /* chunks of keys; keys per block */

/* y (n) = x (d) W (d, n) in long double: y_c = sum_l x_l w_lc, the terms added in the order
 * l = 0 .. d - 1 (each sum held in a register, four columns at a time: the roundings of
 * adding term by term into y_c, but no 80-bit store and load of y_c per term) */
static void ld_row_times(long double *y, const double *x, const gsl_matrix *W)
{
    size_t d = W->size1, n = W->size2, tda = W->tda, c = 0;
    for (; c + 4 <= n; c += 4) {
        long double s0 = 0.0L, s1 = 0.0L, s2 = 0.0L, s3 = 0.0L;
        const double *w = W->data + c;
        for (size_t l = 0; l < d; l++, w += tda) {
            long double xl = x[l];
            s0 += xl * w[0], s1 += xl * w[1], s2 += xl * w[2], s3 += xl * w[3];
        }
        y[c] = s0, y[c + 1] = s1, y[c + 2] = s2, y[c + 3] = s3;
    }
    for (; c < n; c++) {
        long double s = 0.0L;
        for (size_t l = 0; l < d; l++) s += (long double)x[l] * W->data[l * tda + c];
        y[c] = s;
    }
}

/* One row's online softmax over nb keys, in long double: m = a[0], l = a[1], o = a[2 ..
 * 2 + d_v); q (d_k); key b's k_b = kb[b d_k ..] (d_k), v_b = vb[b d_v ..] (d_v). Key by key:
 *   s = scale sum_i q_i k_b,i  (the terms in the order i = 0 .. d_k - 1),
 *   if s > m: f = e^{m - s}, l = l f, m = s;  else f = 1;
 *   w = e^{s - m},  l = l + w,  o_c = o_c f + w v_b,c
 * exactly the operations (and roundings) of taking the keys one at a time (o_c 1 = o_c), but
 * four keys' dot products at once and each o_c held in a register over the nb keys (the
 * products o_c f left out while no key raised m: f = 1): the sums' latency and the 80-bit
 * stores and loads of o were most of the check's time. Measured (the 64 rows at T = 30,000,
 * 2 threads, AMD EPYC, 3 interleaved runs, load 1 to 8): 1.02 to 1.57 CPU s key by key,
 * 0.66 to 0.80 now; the same bits (units and error of 50 random heads, causal or not,
 * d 4 .. 64, compared). */
static void ld_online_block(long double *a, const long double *q, const long double *kb,
                            const long double *vb, size_t nb, size_t dk, size_t dv, double scale)
{
    long double s[CHECK_BLOCK], f[CHECK_BLOCK], w[CHECK_BLOCK], *m = a, *l = a + 1, *o = a + 2;
    size_t b = 0;
    for (; b + 4 <= nb; b += 4) {
        const long double *k0 = &kb[b * dk], *k1 = k0 + dk, *k2 = k1 + dk, *k3 = k2 + dk;
        long double s0 = 0.0L, s1 = 0.0L, s2 = 0.0L, s3 = 0.0L;
        for (size_t i = 0; i < dk; i++) {
            long double qi = q[i];
            s0 += qi * k0[i], s1 += qi * k1[i], s2 += qi * k2[i], s3 += qi * k3[i];
        }
        s[b] = s0, s[b + 1] = s1, s[b + 2] = s2, s[b + 3] = s3;
    }
    for (; b < nb; b++) {
        long double sb = 0.0L;
        for (size_t i = 0; i < dk; i++) sb += q[i] * kb[b * dk + i];
        s[b] = sb;
    }
    // m' = max(m, s); l = l e^{m - m'} + e^{s - m'}; o = o e^{m - m'} + e^{s - m'} v_b
    for (b = 0; b < nb; b++) {
        s[b] *= scale;
        f[b] = 1.0L;
        if (s[b] > *m) {
            f[b] = expl(*m - s[b]);
            *l *= f[b];
            *m = s[b];
        }
        w[b] = expl(s[b] - *m);
        *l += w[b];
    }
    // (without a new max among these keys every f is 1: the products o_c 1 are left out)
    int rescaled = 0;
    for (b = 0; b < nb; b++) rescaled |= f[b] != 1.0L;
    size_t c = 0;
    for (; c + 4 <= dv; c += 4) {
        long double o0 = o[c], o1 = o[c + 1], o2 = o[c + 2], o3 = o[c + 3];
        for (b = 0; b < nb; b++) {
            const long double *v = &vb[b * dv + c];
            long double wb = w[b];
            if (rescaled) {
                long double fb = f[b];
                o0 *= fb, o1 *= fb, o2 *= fb, o3 *= fb;
            }
            o0 += wb * v[0], o1 += wb * v[1], o2 += wb * v[2], o3 += wb * v[3];
        }
        o[c] = o0, o[c + 1] = o1, o[c + 2] = o2, o[c + 3] = o3;
    }
    for (; c < dv; c++) {
        long double oc = o[c];
        for (b = 0; b < nb; b++) oc = (rescaled ? oc * f[b] : oc) + w[b] * vb[b * dv + c];
        o[c] = oc;
    }
}

int anylen_row_check(const head_params *p, const gsl_matrix *X, const gsl_matrix *O, size_t nrows,
                     unsigned long seed, double *units, double *err)
{
    size_t T = X->size1, d = X->size2, dk = p->W_Q->size2, dv = p->W_V->size2;
    if (p->b_Q || p->b_K || p->b_V || p->rope || nrows == 0 || T == 0 || p->W_Q->size1 != d ||
        p->W_K->size1 != d || p->W_K->size2 != dk || p->W_V->size1 != d || O->size1 != T ||
        O->size2 != dv)
        return att_fail(ATT_EUSAGE, "anylen_row_check: a head without biases or RoPE, X (T, d), "
                        "O (T, d_v), at least one row");
    if (nrows > T) nrows = T;
    // the rows: 0, T - 1, then uniform (with repeats possible) from stream (STREAM_ROWS, T)
    size_t *row = mem_calloc(nrows, sizeof *row, "the checked rows");
    size_t per = nrows * (2 + dv), nacc = CHECK_CHUNKS * per; /* m, l, o (d_v) per chunk and row */
    long double *acc = mem_calloc(nacc, sizeof *acc, "the row check's sums"),
                *q = mem_calloc(nrows * dk, sizeof *q, "the checked queries"), kmax_c[CHECK_CHUNKS],
                vmax_c[CHECK_CHUNKS];
    gsl_rng *rng = rng_new("mt19937", rng_stream_seed(seed, STREAM_ROWS, T));
    int rc = row && acc && q && rng ? ATT_OK : att_alloc_status();
    if (!rc) {
        for (size_t r = 0; r < nrows; r++)
            row[r] = r == 0 ? 0 : r == 1 ? T - 1
                                         : (size_t)gsl_rng_uniform_int(rng, (unsigned long)T);
        for (size_t r = 0; r < nrows; r++)
            ld_row_times(&q[r * dk], gsl_matrix_const_ptr(X, row[r], 0), p->W_Q);
        // chunk c: keys j in [c T / 64, (c + 1) T / 64); an online softmax per (chunk, row),
        // the keys taken CHECK_BLOCK at a time (ld_online_block: the same operations in the same
        // order as one key at a time)
        #pragma omp parallel for schedule(static)
        for (size_t c = 0; c < CHECK_CHUNKS; c++) {
            long double kb[CHECK_BLOCK * dk], vb[CHECK_BLOCK * dv], *a = &acc[c * per];
            kmax_c[c] = vmax_c[c] = 0.0L;
            for (size_t r = 0; r < nrows; r++) a[r * (2 + dv)] = -INFINITY;
            size_t jend = (c + 1) * T / CHECK_CHUNKS;
            for (size_t j0 = c * T / CHECK_CHUNKS; j0 < jend; j0 += CHECK_BLOCK) {
                size_t nb = jend - j0 < CHECK_BLOCK ? jend - j0 : CHECK_BLOCK;
                for (size_t b = 0; b < nb; b++) {
                    const double *x = gsl_matrix_const_ptr(X, j0 + b, 0);
                    long double *k = &kb[b * dk], *v = &vb[b * dv];
                    ld_row_times(k, x, p->W_K);
                    ld_row_times(v, x, p->W_V);
                    long double kn = 0.0L;
                    for (size_t i = 0; i < dk; i++) kn += k[i] * k[i];
                    kmax_c[c] = fmaxl(kmax_c[c], sqrtl(kn));
                    for (size_t i = 0; i < dv; i++) vmax_c[c] = fmaxl(vmax_c[c], fabsl(v[i]));
                }
                for (size_t r = 0; r < nrows; r++) {
                    // the keys j0 .. j0 + nv - 1 row r sees (causal: j <= row[r])
                    size_t nv = !p->causal ? nb : row[r] < j0 ? 0
                              : row[r] - j0 + 1 < nb ? row[r] - j0 + 1 : nb;
                    ld_online_block(&a[r * (2 + dv)], &q[r * dk], kb, vb, nv, dk, dv, p->scale);
                }
            }
        }
        // merge the chunks in order, then compare with O in units of B_i
        long double kmax = 0.0L, vmax = 0.0L;
        for (size_t c = 0; c < CHECK_CHUNKS; c++)
            kmax = fmaxl(kmax, kmax_c[c]), vmax = fmaxl(vmax, vmax_c[c]);
        double proj = tol_eps(8.0, d, mat_max_row_norm(X) * mat_max_col_norm(p->W_V));
        *units = *err = 0.0;
        for (size_t r = 0; r < nrows && !rc; r++) {
            long double m = -INFINITY, l = 0.0L, o[dv], qn = 0.0L;
            for (size_t i = 0; i < dv; i++) o[i] = 0.0L;
            for (size_t c = 0; c < CHECK_CHUNKS; c++) m = fmaxl(m, acc[c * per + r * (2 + dv)]);
            for (size_t c = 0; c < CHECK_CHUNKS; c++) {
                const long double *a = &acc[c * per + r * (2 + dv)];
                if (a[0] == -INFINITY) continue;   /* a chunk with no visible key */
                long double f = expl(a[0] - m);
                l += a[1] * f;
                for (size_t i = 0; i < dv; i++) o[i] += a[2 + i] * f;
            }
            for (size_t i = 0; i < dk; i++) qn += q[r * dk + i] * q[r * dk + i];
            double qk = fabs(p->scale) * (double)(sqrtl(qn) * kmax);
            double B = tol_attention_output(T, d + dk, qk, (double)vmax) + proj;
            for (size_t i = 0; i < dv; i++) {
                double e = fabs((double)((long double)gsl_matrix_get(O, row[r], i) - o[i] / l));
                if (isnan(e) || e > *err) *err = isnan(*err) ? *err : e;
                double u = e / B;
                if (isnan(u) || u > *units) *units = isnan(*units) ? *units : u;
            }
        }
    }
    if (rng) gsl_rng_free(rng);
    if (row) mem_free(row, nrows, sizeof *row);
    if (acc) mem_free(acc, nacc, sizeof *acc);
    if (q) mem_free(q, nrows * dk, sizeof *q);
    return rc;
}
