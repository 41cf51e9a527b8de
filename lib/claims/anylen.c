/* anylen.c - one head on one input, its bytes and its times (anylen.h). */
#include "anylen.h"
#include "blas.h"
#include "mat.h"
#include "mem.h"
#include "rng.h"
#include "stat.h"
#include "att.h"
#include "table.h"
#include "tiled.h"
#include "vexp.h"

#include <math.h>
#include <omp.h>

int anylen_weights(gsl_matrix *W[3], size_t d, size_t d_k, size_t d_v, unsigned long seed)
{
    W[0] = W[1] = W[2] = NULL;
    int rc = vexp_env_check();         /* a bad ATT_VEXP stops the run before any pass */
    if (rc) return rc;
    W[0] = mat_new(d, d_k); W[1] = mat_new(d, d_k); W[2] = mat_new(d, d_v);
    gsl_rng *rng = rng_new("mt19937", rng_stream_seed(seed, 0, 0));
    rc = W[0] && W[1] && W[2] && rng ? ATT_OK : att_alloc_status();
    for (int k = 0; k < 3 && !rc; k++) mat_randn(rng, W[k], 1.0 / sqrt((double)d));
    if (rng) gsl_rng_free(rng);
    return rc;
}

int anylen_alloc(anylen_case *c, const head_params *p, unsigned long seed, int plain, size_t T)
{
    size_t d = p->W_Q->size1, d_k = p->W_Q->size2, d_v = p->W_V->size2;
    *c = (anylen_case){.p = p, .plain = plain, .X = mat_new(T, d), .O = mat_new(T, d_v)};
    // X (T, d) ~ N(0, 1) on stream (1, T) of the seed
    gsl_rng *rng = rng_new("mt19937", rng_stream_seed(seed, 1, T));
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
        *bytes -= (double)(tiled_threads(T, T, d_k, d_v, tl) - 1) * (double)tiled_thread_bytes(tl, d_k, d_v);
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

static const table_col COLS[] = {COL(anylen_row, T), COL(anylen_row, flops), COL_ROUND(anylen_row, max_abs_err, "tolerance"),
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
    COL(anylen_timing_row, tiled_rss_above_baseline_bytes), COL(anylen_timing_row, plain_rss_above_baseline_bytes),
    TCOL(plain.reps, "plain_reps"),
    TCOL(tiled.ci_low, "tiled_median_ci_low"), TCOL(tiled.ci_high, "tiled_median_ci_high"),
    TCOL(tiled.ci_level, "tiled_median_ci_level"),
    TCOL(plain.ci_low, "plain_median_ci_low"), TCOL(plain.ci_high, "plain_median_ci_high"),
    TCOL(plain.ci_level, "plain_median_ci_level")};

int anylen_write_timing(const char *dir, const anylen_timing_row *rows, size_t n)
{
    return TABLE_WRITE(dir, "any_length_timing.csv", TIME_COLS, rows, n);
}
