/* tqfk.h - two queries, four keys: the section's small attention picture.
 *
 * Two queries and four keys live in one plane (d_k = 2), four values in a
 * second plane (d_v = 2). With scale s (the section's convention is s = 1):
 *   S (2, 4) = s Q K^T          Q (2, 2) rows q1, q2;  K (4, 2) rows k1..k4
 *   A (2, 4) = row softmax(S)   every row sums to 1
 *   O (2, 2) = A V              V (4, 2) rows v1..v4;  o_i = sum_j a_ij v_j
 * so each output o_i is a weighted average of the four values.
 */
#ifndef ATT_TQFK_H
#define ATT_TQFK_H

#include <locale.h>
#include <stddef.h>
#include <stdio.h>
#include <gsl/gsl_rng.h>
#include "opts.h"

enum { TQFK_NQ = 2, TQFK_NK = 4, TQFK_DIM = 2 };

/* The twelve movable vectors, numbered in this order:
 * 0-1 queries q1, q2; 2-5 keys k1..k4; 6-9 values v1..v4. */
enum { TQFK_NVEC = TQFK_NQ + 2 * TQFK_NK };

typedef struct {
    double q[TQFK_NQ][TQFK_DIM];
    double k[TQFK_NK][TQFK_DIM];
    double v[TQFK_NK][TQFK_DIM];
    double scale;                  /* S = scale * Q K^T */
} tqfk_config;

typedef struct {
    double S[TQFK_NQ][TQFK_NK];    /* scores  */
    double A[TQFK_NQ][TQFK_NK];    /* weights */
    double O[TQFK_NQ][TQFK_DIM];   /* outputs */
} tqfk_result;

/* The default picture: four keys on the axes, q1 close to k1 (it takes most
 * of its weight), q2 halfway between k2 and k3 (they share its weight
 * equally), and four values at distinct corners of the value plane. */
void tqfk_config_default(tqfk_config *c);

/* Vector number i (0 .. TQFK_NVEC-1) as a pointer to its (x, y), and its
 * label "q1".."q2", "k1".."k4", "v1".."v4". NULL for i out of range. */
double *tqfk_vec(tqfk_config *c, int i);
const double *tqfk_vec_const(const tqfk_config *c, int i);
const char *tqfk_vec_name(int i);

/* Inputs are kept to |coordinate| <= TQFK_MAX and |scale| <= TQFK_MAX, so
 * that every score is finite and is computed without overflow in between
 * (|s| <= 2 TQFK_MAX^3). ATT_EUSAGE naming the first offending vector. */
#define TQFK_MAX 1e6
int tqfk_config_check(const tqfk_config *c);

/* r = scores, weights and outputs of c, through the library's product and
 * softmax (mat_gemm, softmax_rows). ATT_EUSAGE if a score is NaN (only
 * possible for inputs far outside tqfk_config_check's limits). */
int tqfk_compute(tqfk_result *r, const tqfk_config *c);

/* Independent checks by the definitions, written as plain loops:
 *   row_sum_err  = max_i |sum_j a_ij - 1|
 *   average_err  = max_i,c |o_ic - sum_j a_ij v_jc|
 *   value_scale  = max_j,c |v_jc| (the size the averaging error scales with) */
typedef struct {
    double row_sum_err;
    double average_err;
    double value_scale;
} tqfk_check;

void tqfk_check_result(tqfk_check *ck, const tqfk_config *c, const tqfk_result *r);

/* The claim over many states (the headline): is r's o_i the weighted average of the values?
 * Against the definition computed independently in long double from c alone,
 *   w_ij = e^{s_ij - m_i} / sum_l e^{s_il - m_i},  s_ij = scale q_i . k_j,  m_i = max_l s_il,
 *   ref_ic = sum_j w_ij v_jc,
 * returns max_{i,c} |o_ic - ref_ic| / bound_ic, the rounding bound of the double head
 *   bound_ic = tol_attention_output(4, 2, qk_i, max_j |v_jc|) = 8 eps (4 qk_i + 8) max_j |v_jc|,
 *   qk_i = |scale| ||q_i|| max_j ||k_j||  (each score's size: its rounding moves the weights by
 *   at most 2 max_j |ds_ij| in l1, and the 4-term sums round by 2 . 4 eps of max |v_jc|).
 * At most 1 for a correct head; NaN stays NaN; a zero bound counts 0 if o_ic = ref_ic exactly. */
double tqfk_average_units(const tqfk_config *c, const tqfk_result *r);

/* A random state for it: q, k coordinates N(0, 1) 10^U(-1, 1), v coordinates N(0, 1) 10^U(-3, 3)
 * (each vector its own magnitude), scale 10^U(-1, 1); uniform and Gaussian draws from rng. */
void tqfk_random_state(gsl_rng *rng, tqfk_config *c);


/* The program's command line: the configuration (--q1 .. --v4, --scale) and
 * the explorer's switches (--interactive, --keys); tqfk_options is its
 * option table (NULL-terminated, writing into cli; one table per program). */
typedef struct {
    tqfk_config cfg;
    int interactive;
    const char *keys;
} tqfk_cli;
const opt_spec *tqfk_options(tqfk_cli *cli);

/* Print the configuration as the command line that reproduces it
 * ("--q1 x,y ... --scale s"), numbers as by tqfk_format_num. */
void tqfk_print_args(FILE *f, const tqfk_config *c);

/* x as the shortest of %.15g, %.16g, %.17g that reads back exactly, always
 * with a decimal point '.': formatted and read back in the C locale
 * whatever LC_NUMERIC the program runs under (the explorer sets the
 * terminal's locale, and a decimal comma would not paste back as an option).
 * buf needs >= 32 bytes; returns buf. */
char *tqfk_format_num(char *buf, size_t n, double x);

/* The C locale for numbers (uselocale(tqfk_c_numeric()) ... uselocale(old)),
 * or (locale_t)0 if it cannot be made. */
locale_t tqfk_c_numeric(void);

#endif
