/* tqfk.c - two queries, four keys: scores, weights, outputs, and checks (shapes in tqfk.h).
 * The arrays of tqfk_config / tqfk_result are row-major, so GSL matrix views over them let
 * the head's own building blocks (mat_gemm, softmax_rows) do the work without allocating. */
#include "tqfk.h"
#include "mat.h"
#include "softmax.h"
#include "status.h"
#include "table.h"
#include "tol.h"

#include <float.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

void tqfk_config_default(tqfk_config *c)
{
    /* keys on the axes, length 2 */
    static const double k[TQFK_NK][TQFK_DIM] = {{2, 0}, {0, 2}, {-2, 0}, {0, -2}};
    /* q1 leans towards k1; q2 is halfway between k2 and k3:
     *   q1 . k = (2, 1, -2, -1)     q2 . k = (-2, 2, 2, -2)
     * (q1 = (1, 0.5) keeps o1 = (-1.83, 2.04) clear of v1 = (-3, 2) in the figure) */
    static const double q[TQFK_NQ][TQFK_DIM] = {{1, 0.5}, {-1, 1}};
    /* values at four distinct places, one per quadrant */
    static const double v[TQFK_NK][TQFK_DIM] = {{-3, 2}, {1, 3}, {3, -1}, {-1, -3}};
    memcpy(c->q, q, sizeof q);
    memcpy(c->k, k, sizeof k);
    memcpy(c->v, v, sizeof v);
    c->scale = 1.0;
}

static const char *const VEC_NAMES[TQFK_NVEC] = {
    "q1", "q2", "k1", "k2", "k3", "k4", "v1", "v2", "v3", "v4"
};

const char *tqfk_vec_name(int i)
{
    return (i >= 0 && i < TQFK_NVEC) ? VEC_NAMES[i] : NULL;
}

const double *tqfk_vec_const(const tqfk_config *c, int i)
{
    if (i < 0 || i >= TQFK_NVEC) return NULL;
    if (i < TQFK_NQ) return c->q[i];
    if (i < TQFK_NQ + TQFK_NK) return c->k[i - TQFK_NQ];
    return c->v[i - TQFK_NQ - TQFK_NK];
}

double *tqfk_vec(tqfk_config *c, int i) { return (double *)tqfk_vec_const(c, i); }

int tqfk_config_check(const tqfk_config *c)
{
    for (int i = 0; i < TQFK_NVEC; i++) {
        const double *x = tqfk_vec_const(c, i);
        if (!(fabs(x[0]) <= TQFK_MAX && fabs(x[1]) <= TQFK_MAX))
            return att_fail(ATT_EUSAGE, "--%s %g,%g: coordinates must lie in [-%g, %g]",
                            tqfk_vec_name(i), x[0], x[1], TQFK_MAX, TQFK_MAX);
    }
    if (!(fabs(c->scale) <= TQFK_MAX))
        return att_fail(ATT_EUSAGE, "--scale %g: must lie in [-%g, %g]", c->scale,
                        TQFK_MAX, TQFK_MAX);
    return ATT_OK;
}

/* S (2, 4) = scale Q (2, 2) K^T (2, 4);  A = row softmax(S);  O (2, 2) = A V (4, 2) */
int tqfk_compute(tqfk_result *r, const tqfk_config *c)
{
    gsl_matrix_const_view Q = gsl_matrix_const_view_array(&c->q[0][0], TQFK_NQ, TQFK_DIM);
    gsl_matrix_const_view K = gsl_matrix_const_view_array(&c->k[0][0], TQFK_NK, TQFK_DIM);
    gsl_matrix_const_view V = gsl_matrix_const_view_array(&c->v[0][0], TQFK_NK, TQFK_DIM);
    gsl_matrix_view S = gsl_matrix_view_array(&r->S[0][0], TQFK_NQ, TQFK_NK);
    gsl_matrix_view A = gsl_matrix_view_array(&r->A[0][0], TQFK_NQ, TQFK_NK);
    gsl_matrix_view O = gsl_matrix_view_array(&r->O[0][0], TQFK_NQ, TQFK_DIM);

    /* s_ij = scale * q_i . k_j */
    int st = mat_gemm(&S.matrix, c->scale, &Q.matrix, 0, &K.matrix, 1, 0.0);
    /* a_ij = exp(s_ij) / sum_l exp(s_il), computed with the row max removed */
    if (st == ATT_OK) st = softmax_rows(&A.matrix, &S.matrix);
    /* o_i = sum_j a_ij v_j */
    if (st == ATT_OK) st = mat_gemm(&O.matrix, 1.0, &A.matrix, 0, &V.matrix, 0, 0.0);
    return st;
}

/* max(a, b) that keeps a NaN (fmax would drop it) */
static double max_keep_nan(double a, double b)
{
    return (isnan(a) || isnan(b)) ? NAN : fmax(a, b);
}

void tqfk_check_result(tqfk_check *ck, const tqfk_config *c, const tqfk_result *r)
{
    ck->row_sum_err = 0.0;
    ck->average_err = 0.0;
    ck->value_scale = 0.0;
    for (int j = 0; j < TQFK_NK; j++)
        for (int d = 0; d < TQFK_DIM; d++)
            ck->value_scale = fmax(ck->value_scale, fabs(c->v[j][d]));
    for (int i = 0; i < TQFK_NQ; i++) {
        /* sum_j a_ij = 1 */
        double sum = 0.0;
        for (int j = 0; j < TQFK_NK; j++) sum += r->A[i][j];
        ck->row_sum_err = max_keep_nan(ck->row_sum_err, fabs(sum - 1.0));
        /* o_i = sum_j a_ij v_j, by the definition */
        for (int d = 0; d < TQFK_DIM; d++) {
            double avg = 0.0;
            for (int j = 0; j < TQFK_NK; j++) avg += r->A[i][j] * c->v[j][d];
            ck->average_err = max_keep_nan(ck->average_err, fabs(r->O[i][d] - avg));
        }
    }
}

/* max_{i,c} |o_ic - sum_j w_ij v_jc| / (8 eps (4 qk_i + 8) max_j |v_jc|), w in long double (tqfk.h)
 */
double tqfk_average_units(const tqfk_config *c, const tqfk_result *r)
{
    double worst = 0.0, kmax = 0.0;
    for (int j = 0; j < TQFK_NK; j++) kmax = fmax(kmax, hypot(c->k[j][0], c->k[j][1]));
    for (int i = 0; i < TQFK_NQ; i++) {
        // s_ij = scale q_i . k_j, w_ij = e^{s_ij - m_i} / Z_i, in long double
        long double s[TQFK_NK], w[TQFK_NK], m = -INFINITY, Z = 0.0L;
        for (int j = 0; j < TQFK_NK; j++) {
            s[j] = (long double)c->scale *
                   ((long double)c->q[i][0] * c->k[j][0] + (long double)c->q[i][1] * c->k[j][1]);
            m = s[j] > m ? s[j] : m;
        }
        for (int j = 0; j < TQFK_NK; j++) Z += w[j] = expl(s[j] - m);
        double qk = fabs(c->scale) * hypot(c->q[i][0], c->q[i][1]) * kmax;
        for (int d = 0; d < TQFK_DIM; d++) {
            long double ref = 0.0L;
            double vmax = 0.0;
            for (int j = 0; j < TQFK_NK; j++)
                ref += w[j] / Z * c->v[j][d], vmax = fmax(vmax, fabs(c->v[j][d]));
            double err = fabs((double)((long double)r->O[i][d] - ref));
            double bound = tol_attention_output(TQFK_NK, TQFK_DIM, qk, vmax);
            double u = bound > 0.0 ? err / bound : (err == 0.0 ? 0.0 : INFINITY);
            worst = max_keep_nan(worst, u);
        }
    }
    return worst;
}

void tqfk_random_state(gsl_rng *rng, tqfk_config *c)
{
    for (int i = 0; i < TQFK_NVEC; i++) {
        double *x = tqfk_vec(c, i),
               mag = pow(10.0, i < TQFK_NQ + TQFK_NK ? gsl_ran_flat(rng, -1.0, 1.0)
                                                     : gsl_ran_flat(rng, -3.0, 3.0));
        x[0] = mag * gsl_ran_gaussian_ziggurat(rng, 1.0);
        x[1] = mag * gsl_ran_gaussian_ziggurat(rng, 1.0);
    }
    c->scale = pow(10.0, gsl_ran_flat(rng, -1.0, 1.0));
}

locale_t tqfk_c_numeric(void)
{
    static locale_t c;
    if (c == (locale_t)0) c = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
    return c;
}

char *tqfk_format_num(char *buf, size_t n, double x)
{
    locale_t c = tqfk_c_numeric(), old = c ? uselocale(c) : (locale_t)0;
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(buf, n, "%.*g", prec, x);
        if (strtod(buf, NULL) == x) break;
    }
    if (c) uselocale(old);
    else                              /* no C locale object: mend the text */
        for (char *p = buf; *p; p++) if (*p == ',') *p = '.';
    return buf;
}

static void print_num(FILE *f, double x)
{
    char buf[40];
    fputs(tqfk_format_num(buf, sizeof buf, x), f);
}

void tqfk_print_args(FILE *f, const tqfk_config *c)
{
    for (int i = 0; i < TQFK_NVEC; i++) {
        const double *x = tqfk_vec_const(c, i);
        fprintf(f, "%s--%s ", i ? " " : "", tqfk_vec_name(i));
        print_num(f, x[0]);
        fputc(',', f);
        print_num(f, x[1]);
    }
    fputs(" --scale ", f);
    print_num(f, c->scale);
}

const opt_spec *tqfk_options(tqfk_cli *cli)
{
    tqfk_config *c = &cli->cfg;
    static opt_spec t[14];
    const opt_spec o[14] = {
        {"q1", OPT_VEC2, c->q[0], "x,y", "query 1 (default 1,0.5: leans towards k1)"},
        {"q2", OPT_VEC2, c->q[1], "x,y", "query 2 (default -1,1: between k2 and k3)"},
        {"k1", OPT_VEC2, c->k[0], "x,y", "key 1 (default 2,0)"},
        {"k2", OPT_VEC2, c->k[1], "x,y", "key 2 (default 0,2)"},
        {"k3", OPT_VEC2, c->k[2], "x,y", "key 3 (default -2,0)"},
        {"k4", OPT_VEC2, c->k[3], "x,y", "key 4 (default 0,-2)"},
        {"v1", OPT_VEC2, c->v[0], "x,y", "value 1 (default -3,2)"},
        {"v2", OPT_VEC2, c->v[1], "x,y", "value 2 (default 1,3)"},
        {"v3", OPT_VEC2, c->v[2], "x,y", "value 3 (default 3,-1)"},
        {"v4", OPT_VEC2, c->v[3], "x,y", "value 4 (default -1,-3)"},
        {"scale", OPT_DOUBLE, &c->scale, "S", "scores are S q.k (default 1, as in the section)"},
        {"interactive", OPT_FLAG, &cli->interactive, NULL,
         "full-screen explorer (needs a terminal; writes nothing, creates no folder)"},
        {"keys", OPT_STRING, &cli->keys, "KEYS",
         "replay explorer keys (t T h j k l + - ] [ r q), print the final state; writes nothing"},
        {NULL, 0, NULL, NULL, NULL}};
    memcpy(t, o, sizeof t);
    return t;
}
