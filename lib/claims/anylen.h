/* anylen.h - the machinery of any_length: one head, plain (head.h) or tiled
 * (tiled.h), on one input of length T, with the bytes it allocates and its
 * times in a fresh process.
 *
 * Shapes: X (T, d) ~ N(0, 1) on block T of stream 1 of the seed; W_Q, W_K (d, d_k),
 * W_V (d, d_v) given; O (T, d_v). The plain head also holds S, A (T, T).
 */
#ifndef ATT_ANYLEN_H
#define ATT_ANYLEN_H

#include <stddef.h>
#include <gsl/gsl_matrix.h>
#include "head.h"
#include "timing.h"

/* W[0] = W_Q, W[1] = W_K (d, d_k), W[2] = W_V (d, d_v), each ~ N(0, 1/d) from
 * block 0 of stream 0 of the seed, in this order. On failure W[k] may be NULL; mat_free them.
 * First checks ATT_VEXP (vexp_env_check: ATT_EUSAGE for a path this CPU lacks). */
int anylen_weights(gsl_matrix *W[3], size_t d, size_t d_k, size_t d_v, unsigned long seed);

/* One head on one input. */
typedef struct {
    const head_params *p;
    int plain;              /* 1: head_forward (S, A held), 0: tiled_forward */
    gsl_matrix *X, *O;      /* (T, d), (T, d_v) */
    head_state st;          /* the plain head's state */
} anylen_case;

/* Allocate X (drawn), O and, for the plain head, its state; a refusal by the
 * memory budget is ATT_EUSAGE. anylen_free is always safe after it. */
int anylen_alloc(anylen_case *c, const head_params *p, unsigned long seed, int plain, size_t T);
void anylen_free(anylen_case *c);

/* anylen_alloc, then one forward pass into c->O; *bytes = the most it
 * allocated at once, with ONE thread's tiles for the tiled head (tiled.h:
 * each further thread adds the same constant), so the bytes do not depend
 * on OMP_NUM_THREADS. */
int anylen_counted(anylen_case *c, const head_params *p, unsigned long seed, int plain, size_t T,
                   double *bytes);

/* The head at T timed on ONE thread in a child process (timing_in_child):
 * one warm-up pass, then passes until `rule` stops (timing.h); *rss = the
 * child's peak resident bytes, *cpu = the CPU seconds the child used. */
int anylen_time(const head_params *p, unsigned long seed, int plain, size_t T,
                const timing_rule *rule, timing *t, double *rss, double *cpu);

/* mean of O (T, d_v): sum_ic O_ic / (T d_v), summed row by row (a checksum) */
double anylen_mean(const gsl_matrix *O);

/* Least-squares slope of log y against log T over the points with T >= t_min
 * and y > 0 (NaN below 3 such points). */
double anylen_loglog_slope(const size_t *T, const double *y, size_t n, size_t t_min);

/* The claim at one length, row by row: does the head's O (T, d_v) on X (T, d) hold the
 * attention the formula gives? For `nrows` rows i (0, T - 1 and the rest uniform from stream
 * (2, T) of the seed), recompute from X and p's weights directly, in long double,
 *   q_i = x_i W_Q,  k_j = x_j W_K,  v_j = x_j W_V,  s_ij = scale q_i . k_j  (j <= i if causal),
 *   ref_i = sum_j a_ij v_j,  a_ij = e^{s_ij - m_i} / sum_l e^{s_il - m_i}
 * (one pass over j in 64 fixed chunks, an online softmax per chunk, the chunks merged in order:
 * the same numbers for any thread count; long double's own rounding, about T 1e-19 relative,
 * is far below the bound). *units = max_{i,c} |O_ic - ref_ic| / B_i, the double head's
 * rounding bound for row i, growing with T (tol.h's, with row i's own score size):
 *   B_i = 8 eps (2 (d + d_k) qk_i + 2 T) max_jc |v_jc| + 8 d eps max_j ||x_j|| max_c ||w_V,c||,
 *   qk_i = |scale| ||q_i|| max_j ||k_j||;
 * *err = max_{i,c} |O_ic - ref_ic|. At most 1 for a correct head. NaN sticks. ATT_EUSAGE for
 * biases or RoPE (not this experiment's head), nrows 0 or shapes that disagree. */
int anylen_row_check(const head_params *p, const gsl_matrix *X, const gsl_matrix *O, size_t nrows,
                     unsigned long seed, double *units, double *err);

/* One row of any_length.csv: the flops of a pass, 2 T^2 (d_k + d_v) + 2 T d (2 d_k + d_v),
 * max |O_tiled - O_plain| and its tolerance (NaN where the plain head did not
 * run), the mean of the tiled head's O. */
typedef struct { size_t T; double flops, max_abs_err, tolerance, output_mean; } anylen_row;
int anylen_write_lengths(const char *dir, const anylen_row *rows, size_t n);

/* One row of any_length_timing.csv: both heads at T, one thread each. */
typedef struct {
    size_t T, threads;
    timing tiled, plain;
    double tiled_gflops, plain_gflops, tiled_counted_bytes, plain_counted_bytes;
    double tiled_rss_above_baseline_bytes, plain_rss_above_baseline_bytes;
} anylen_timing_row;

/* Write any_length_timing.csv into dir (machine-dependent: times with their
 * repetition counts and median intervals, GFLOP/s, counted and resident bytes). */
int anylen_write_timing(const char *dir, const anylen_timing_row *rows, size_t n);

#endif
