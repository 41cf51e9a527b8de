/* test_head.c - one attention head: the worked example by hand, RoPE, shape
 * errors, the bias identities, key/value permutation, and every backprop
 * gradient against central finite differences.
 *
 * Shapes: Xq (T_q, d)  Xkv (T_k, d)  W_Q, W_K (d, d_k)  W_V (d, d_v)
 *         S, A (T_q, T_k)  O (T_q, d_v)  G = dL/dO (T_q, d_v)
 * Random cases: X ~ N(0, 1), weights ~ N(0, 1/d), biases ~ N(0, 1/4).
 */
#include "prop.h"
#include "tol.h"
#include "head.h"
#include "gradcheck.h"
#include "mat.h"
#include "rope.h"
#include "status.h"

#include <float.h>
#include <math.h>
#include <string.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_permutation.h>
#include <gsl/gsl_blas.h>

/* ---- helpers ------------------------------------------------------------- */

static gsl_matrix *rand_mat(gsl_rng *rng, size_t r, size_t c, double sigma)
{
    gsl_matrix *A = mat_new(r, c);
    ck_assert_ptr_nonnull(A);
    mat_randn(rng, A, sigma);
    return A;
}

static gsl_vector *rand_vec(gsl_rng *rng, size_t n, double sigma)
{
    gsl_vector *v = mat_vec_new(n);
    ck_assert_ptr_nonnull(v);
    mat_vec_randn(rng, v, sigma);
    return v;
}

static gsl_matrix *mat_from(size_t r, size_t c, const double *x)
{
    gsl_matrix *A = mat_new(r, c);
    for (size_t i = 0; i < r; i++)
        for (size_t j = 0; j < c; j++) gsl_matrix_set(A, i, j, x[i * c + j]);
    return A;
}

/* One random head and its inputs. The bias vectors always exist (so finite
 * differences can move them); p uses them only when `biases` is set. */
typedef struct {
    size_t T_q, T_k, d, d_k, d_v;
    int self;
    gsl_matrix *Xq, *Xkv;           /* Xkv == Xq for self-attention */
    gsl_matrix *W_Q, *W_K, *W_V;
    gsl_vector *b_Q, *b_K, *b_V;
    head_params p;
} hcase;

static void hcase_make(gsl_rng *rng, hcase *c, size_t T_q, size_t T_k, size_t d,
                       size_t d_k, size_t d_v, int self, int rope, double scale, int biases)
{
    *c = (hcase){.T_q = T_q, .T_k = self ? T_q : T_k, .d = d, .d_k = d_k, .d_v = d_v, .self = self};
    c->Xq = rand_mat(rng, T_q, d, 1.0);
    c->Xkv = self ? c->Xq : rand_mat(rng, c->T_k, d, 1.0);
    double sw = 1.0 / sqrt((double)d);
    c->W_Q = rand_mat(rng, d, d_k, sw);
    c->W_K = rand_mat(rng, d, d_k, sw);
    c->W_V = rand_mat(rng, d, d_v, sw);
    c->b_Q = rand_vec(rng, d_k, 0.5);
    c->b_K = rand_vec(rng, d_k, 0.5);
    c->b_V = rand_vec(rng, d_v, 0.5);
    if (!biases) {
        gsl_vector_set_zero(c->b_Q); gsl_vector_set_zero(c->b_K); gsl_vector_set_zero(c->b_V);
    }
    c->p = head_params_make(c->W_Q, c->W_K, c->W_V);
    if (biases) { c->p.b_Q = c->b_Q; c->p.b_K = c->b_K; c->p.b_V = c->b_V; }
    c->p.scale = scale;
    c->p.rope = rope;
}

static void hcase_free(hcase *c)
{
    if (c->Xkv != c->Xq) mat_free(c->Xkv);
    mat_free(c->Xq);
    mat_free(c->W_Q); mat_free(c->W_K); mat_free(c->W_V);
    mat_vec_free(c->b_Q); mat_vec_free(c->b_K); mat_vec_free(c->b_V);
}

/* forward into a fresh state */
static void hcase_forward(head_state *st, const hcase *c, const head_params *p,
                          const gsl_matrix *Xkv)
{
    ck_assert_int_eq(head_state_alloc(st, c->T_q, Xkv->size1, c->d, c->d_k, c->d_v), ATT_OK);
    int rc = head_forward(st, p, c->Xq, Xkv);
    ck_assert_msg(rc == ATT_OK, "%s", att_last_error());
}

/* ---- unit: the worked example ------------------------------------------- */

START_TEST(test_worked_example)
{
    /* features: determiner, noun, verb, animal; tokens the, cat, sat */
    gsl_matrix *X = mat_from(3, 4, (double[]){ 1, 0, 0, 0,     /* the */
                                               0, 1, 0, 1,     /* cat */
                                               0, 0, 1, 0 });  /* sat */
    gsl_matrix *W_Q = mat_from(4, 2, (double[]){ 0, 0,  0, 3,  3, 0,  0, 0 });
    gsl_matrix *W_K = mat_from(4, 2, (double[]){ 0, 1,  1, 0,  0, 0,  0, 0 });
    gsl_matrix *W_V = mat_from(4, 2, (double[]){ 0, 1,  0, 0,  0, 0,  1, 0 });
    head_params p = head_params_make(W_Q, W_K, W_V);
    head_state st;
    ck_assert_int_eq(head_state_alloc(&st, 3, 3, 4, 2, 2), ATT_OK);
    ck_assert_int_eq(head_forward(&st, &p, X, X), ATT_OK);

    /* Q = [0 0; 0 3; 3 0], K = [0 1; 1 0; 0 0], V = [0 1; 1 0; 0 0] */
    const double Q[] = { 0, 0, 0, 3, 3, 0 }, K[] = { 0, 1, 1, 0, 0, 0 }, V[] = { 0, 1, 1, 0, 0, 0 };
    /* S = [0 0 0; 3 0 0; 0 3 0]: "cat" finds "the", "sat" finds "cat" */
    const double S[] = { 0, 0, 0, 3, 0, 0, 0, 3, 0 };
    for (size_t i = 0; i < 3; i++)
        for (size_t j = 0; j < 2; j++) {
            ck_assert_double_eq(gsl_matrix_get(st.Q, i, j), Q[2 * i + j]);
            ck_assert_double_eq(gsl_matrix_get(st.K, i, j), K[2 * i + j]);
            ck_assert_double_eq(gsl_matrix_get(st.V, i, j), V[2 * i + j]);
        }
    for (size_t i = 0; i < 3; i++)
        for (size_t j = 0; j < 3; j++)
            ck_assert_double_eq(gsl_matrix_get(st.S, i, j), S[3 * i + j]);

    /* winner e^3/(e^3+2) = 0.909, others 1/(e^3+2) = 0.045, "the" uniform 1/3 */
    double e3 = exp(3.0), w = e3 / (e3 + 2.0), o = 1.0 / (e3 + 2.0), u = 1.0 / 3.0;
    const double A[] = { u, u, u,  w, o, o,  o, w, o };
    const double O[] = { u, u,  o, w,  w, o };      /* the, cat, sat */
    ck_assert_double_eq_tol(w, 0.909, 5e-4);
    ck_assert_double_eq_tol(o, 0.045, 5e-4);
    for (size_t i = 0; i < 3; i++)
        for (size_t j = 0; j < 3; j++)
            ck_assert_double_eq_tol(gsl_matrix_get(st.A, i, j), A[3 * i + j], 1e-12);
    for (size_t i = 0; i < 3; i++)
        for (size_t j = 0; j < 2; j++)
            ck_assert_double_eq_tol(gsl_matrix_get(st.O, i, j), O[2 * i + j], 1e-12);

    /* head_output gives the same O */
    gsl_matrix *O2 = mat_new(3, 2);
    ck_assert_int_eq(head_output(O2, &p, X, X), ATT_OK);
    ck_assert_double_eq(mat_diff_frob(O2, st.O), 0.0);
    head_state_free(&st);
    mat_free(O2); mat_free(X); mat_free(W_Q); mat_free(W_K); mat_free(W_V);
}
END_TEST

/* ---- unit: shape errors name both matrices ------------------------------- */

static void expect_usage(int rc, const char *a, const char *b)
{
    ck_assert_int_eq(rc, ATT_EUSAGE);
    ck_assert_msg(strstr(att_last_error(), a) && strstr(att_last_error(), b),
                  "message \"%s\" should name \"%s\" and \"%s\"", att_last_error(), a, b);
}

START_TEST(test_shape_errors)
{
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    hcase c;
    hcase_make(rng, &c, 3, 5, 4, 2, 3, 0, 0, 1.0, 1);
    head_state st;
    ck_assert_int_eq(head_state_alloc(&st, 3, 5, 4, 2, 3), ATT_OK);
    ck_assert_int_eq(head_forward(&st, &c.p, c.Xq, c.Xkv), ATT_OK);

    gsl_matrix *Xbad = rand_mat(rng, 3, 6, 1.0), *Wbad = rand_mat(rng, 4, 3, 1.0);
    gsl_matrix *Vbad = rand_mat(rng, 5, 3, 1.0);
    gsl_vector *bbad = rand_vec(rng, 5, 1.0);
    expect_usage(head_forward(&st, &c.p, Xbad, c.Xkv), "X_q (3 x 6)", "W_Q (4 x 2)");
    expect_usage(head_forward(&st, &c.p, c.Xq, Vbad), "X_kv (5 x 3)", "W_K (4 x 2)");
    head_params p = c.p;
    p.W_K = Wbad;
    expect_usage(head_forward(&st, &p, c.Xq, c.Xkv), "W_Q (4 x 2)", "W_K (4 x 3)");
    p = c.p; p.b_K = bbad;
    expect_usage(head_forward(&st, &p, c.Xq, c.Xkv), "b_K (5)", "W_K (4 x 2)");
    p = c.p; p.W_V = Vbad;
    expect_usage(head_forward(&st, &p, c.Xq, c.Xkv), "W_Q (4 x 2)", "W_V (5 x 3)");
    p = c.p; p.W_Q = NULL;
    ck_assert_int_eq(head_forward(&st, &p, c.Xq, c.Xkv), ATT_EUSAGE);
    p = c.p; p.scale = NAN;
    ck_assert_int_eq(head_forward(&st, &p, c.Xq, c.Xkv), ATT_EUSAGE);
    /* inputs against the state: X_kv with 4 rows where the state has T_k = 5 */
    gsl_matrix *Xkv4 = rand_mat(rng, 4, 4, 1.0);
    expect_usage(head_forward(&st, &c.p, c.Xq, Xkv4), "X_kv (4 x 4)", "K (5 x 2)");
    /* G against O */
    head_grads g;
    ck_assert_int_eq(head_grads_alloc(&g, 3, 5, 4, 2, 3), ATT_OK);
    gsl_matrix *Gbad = rand_mat(rng, 3, 2, 1.0);
    expect_usage(head_backward(&g, &st, &c.p, c.Xq, c.Xkv, Gbad), "G (3 x 2)", "O (3 x 3)");
    /* RoPE needs an even d_k */
    hcase odd;
    hcase_make(rng, &odd, 2, 2, 4, 3, 2, 1, 1, 1.0, 0);
    gsl_matrix *O = mat_new(2, 2), *O3 = mat_new(2, 3);
    expect_usage(head_output(O, &odd.p, odd.Xq, odd.Xkv), "RoPE", "W_Q (4 x 3)");
    expect_usage(rope_apply(odd.W_Q, odd.W_Q, 10000.0), "rope", "odd");
    odd.p.rope = 0;
    ck_assert_int_eq(head_output(O, &odd.p, odd.Xq, odd.Xkv), ATT_OK);
    expect_usage(head_output(O3, &odd.p, odd.Xq, odd.Xkv), "O (2 x 3)", "W_V (4 x 2)");
    /* batched: rows must be B * T */
    expect_usage(head_forward_batched(O, &odd.p, odd.Xq, 3, 1), "X (2 x 4)", "3 * 1");
    /* zero sizes */
    head_state z;
    ck_assert_int_eq(head_state_alloc(&z, 0, 1, 1, 1, 1), ATT_EUSAGE);
    head_state_free(&z);   /* safe on a failed alloc */

    head_grads_free(&g);
    head_state_free(&st);
    hcase_free(&c); hcase_free(&odd);
    mat_free(Xbad); mat_free(Wbad); mat_free(Vbad); mat_vec_free(bbad); mat_free(Xkv4);
    mat_free(Gbad); mat_free(O); mat_free(O3);
    gsl_rng_free(rng);
}
END_TEST

/* ---- RoPE ------------------------------------------------------------------ */

START_TEST(test_rope_by_hand)
{
    /* d_k = 2, theta_0 = 1: row t turns by t radians; row 0 is untouched */
    gsl_matrix *X = mat_from(3, 2, (double[]){ 1, 0,  1, 0,  0, 2 }), *Y = mat_new(3, 2);
    ck_assert_int_eq(rope_apply(Y, X, 10000.0), ATT_OK);
    ck_assert_double_eq(gsl_matrix_get(Y, 0, 0), 1.0);
    ck_assert_double_eq(gsl_matrix_get(Y, 0, 1), 0.0);
    ck_assert_double_eq_tol(gsl_matrix_get(Y, 1, 0), cos(1.0), 1e-15);
    ck_assert_double_eq_tol(gsl_matrix_get(Y, 1, 1), sin(1.0), 1e-15);
    ck_assert_double_eq_tol(gsl_matrix_get(Y, 2, 0), -2.0 * sin(2.0), 1e-15);
    ck_assert_double_eq_tol(gsl_matrix_get(Y, 2, 1), 2.0 * cos(2.0), 1e-15);
    mat_free(X); mat_free(Y);
}
END_TEST

START_TEST(test_prop_rope)
{
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    PROP_FOR(k, rng, "RoPE is orthogonal, inverted by its backward, relative in position") {
        size_t T = prop_size(rng, 1, 40), d_k = 2 * prop_size(rng, 1, 8);
        double base = k % 2 ? 10000.0 : 1.0 + 100.0 * gsl_rng_uniform(rng);
        gsl_matrix *X = rand_mat(rng, T, d_k, 1.0), *Y = mat_new(T, d_k), *Z = mat_new(T, d_k);
        PROP_ASSERT(rope_apply(Y, X, base) == ATT_OK, "%s", att_last_error());
        PROP_ASSERT(rope_backward(Z, Y, base) == ATT_OK, "%s", att_last_error());
        double mx = mat_max_abs(X);
        PROP_ASSERT(mat_diff_frob(Z, X) <= tol_eps(16, T * d_k, mx), "round trip %g",
                    mat_diff_frob(Z, X));
        for (size_t t = 0; t < T; t++) {
            gsl_vector_view x = gsl_matrix_row(X, t), y = gsl_matrix_row(Y, t);
            double nx = gsl_blas_dnrm2(&x.vector), ny = gsl_blas_dnrm2(&y.vector);
            PROP_ASSERT(fabs(nx - ny) <= tol_eps(16, d_k, nx), "row %zu norm %g -> %g", t, nx, ny);
        }
        /* the same vectors q, k at positions (i, j) and (i + s, j + s) give the
         * same score: (R_i q).(R_j k) depends on j - i only */
        if (T >= 2) {
            size_t i = prop_size(rng, 0, T - 2), j = prop_size(rng, 0, T - 2);
            gsl_matrix *P = rand_mat(rng, 2, d_k, 1.0), *Mq = mat_new(T, d_k),
                       *Mk = mat_new(T, d_k);
            for (size_t t = 0; t < T; t++) {
                gsl_vector_view r = gsl_matrix_row(P, 0), s = gsl_matrix_row(P, 1);
                gsl_matrix_set_row(Mq, t, &r.vector);
                gsl_matrix_set_row(Mk, t, &s.vector);
            }
            rope_apply(Mq, Mq, base);
            rope_apply(Mk, Mk, base);
            double s0, s1;
            gsl_vector_view qi = gsl_matrix_row(Mq, i), kj = gsl_matrix_row(Mk, j);
            gsl_vector_view qi1 = gsl_matrix_row(Mq, i + 1), kj1 = gsl_matrix_row(Mk, j + 1);
            gsl_blas_ddot(&qi.vector, &kj.vector, &s0);
            gsl_blas_ddot(&qi1.vector, &kj1.vector, &s1);
            double tol = tol_eps(64, d_k, mat_max_abs(P) * mat_max_abs(P) * (double)(T * d_k));
            PROP_ASSERT(fabs(s0 - s1) <= tol, "scores %.17g vs %.17g", s0, s1);
            mat_free(P); mat_free(Mq); mat_free(Mk);
        }
        mat_free(X); mat_free(Y); mat_free(Z);
    }
    gsl_rng_free(rng);
}
END_TEST

/* ---- properties of the forward pass -------------------------------------- */

/* max |scale| * |Q| * |K| * d_k: a bound on every score and its partial sums */
static double score_scale(const head_state *st, double scale)
{
    return fabs(scale) * mat_max_abs(st->Q) * mat_max_abs(st->K) * (double)st->d_k;
}

START_TEST(test_prop_permute_keys_values)
{
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng *prng = gsl_rng_alloc(gsl_rng_mt19937);
    PROP_FOR(k, rng, "permuting keys and values together leaves O unchanged") {
        hcase c;
        hcase_make(rng, &c, prop_size(rng, 1, 12), prop_size(rng, 1, 24), prop_size(rng, 1, 24),
                   prop_size(rng, 1, 12), prop_size(rng, 1, 12), 0, 0,
                   0.1 + 2.0 * gsl_rng_uniform(rng), (int)(k % 2));
        /* Xkv' = P Xkv: row j of Xkv' is row pi(j) of Xkv */
        gsl_permutation *pi = gsl_permutation_alloc(c.T_k);
        gsl_permutation_init(pi);
        gsl_rng_set(prng, gsl_rng_get(rng));
        gsl_ran_shuffle(prng, pi->data, c.T_k, sizeof(size_t));
        gsl_matrix *Xp = mat_new(c.T_k, c.d);
        for (size_t j = 0; j < c.T_k; j++) {
            gsl_vector_view r = gsl_matrix_row(c.Xkv, gsl_permutation_get(pi, j));
            gsl_matrix_set_row(Xp, j, &r.vector);
        }
        head_state s0, s1;
        hcase_forward(&s0, &c, &c.p, c.Xkv);
        hcase_forward(&s1, &c, &c.p, Xp);
        double tol = tol_eps(16, c.d + c.d_k + c.T_k,
                             (1.0 + score_scale(&s0, c.p.scale)) * mat_max_abs(s0.V));
        /* the weights move with their keys: A'_ij = A_{i, pi(j)} */
        double aerr = 0.0;
        for (size_t i = 0; i < c.T_q; i++)
            for (size_t j = 0; j < c.T_k; j++)
                aerr = fmax(aerr, fabs(gsl_matrix_get(s1.A, i, j) -
                                       gsl_matrix_get(s0.A, i, gsl_permutation_get(pi, j))));
        PROP_ASSERT(aerr <= tol_eps(16, c.d + c.d_k + c.T_k, 1.0 + score_scale(&s0, c.p.scale)),
                    "A not permuted with the keys: %.3g", aerr);
        double err = 0.0;
        for (size_t i = 0; i < c.T_q; i++)
            for (size_t j = 0; j < c.d_v; j++)
                err = fmax(err, fabs(gsl_matrix_get(s0.O, i, j) - gsl_matrix_get(s1.O, i, j)));
        PROP_ASSERT(err <= tol, "max |O - O_perm| = %g > tol %g", err, tol);
        /* and the weights move with their keys: A'_{i j} = A_{i pi(j)} */
        for (size_t i = 0; i < c.T_q; i++)
            for (size_t j = 0; j < c.T_k; j++) {
                double a = gsl_matrix_get(s0.A, i, gsl_permutation_get(pi, j));
                double b = gsl_matrix_get(s1.A, i, j);
                PROP_ASSERT(fabs(a - b) <= tol, "A moved wrongly at (%zu, %zu): %g vs %g", i, j, a,
                            b);
            }
        head_state_free(&s0); head_state_free(&s1);
        mat_free(Xp); gsl_permutation_free(pi);
        hcase_free(&c);
    }
    gsl_rng_free(prng);
    gsl_rng_free(rng);
}
END_TEST

/* a random cross- or self-attention case without RoPE */
static void hcase_random(gsl_rng *rng, hcase *c, size_t k, int rope)
{
    int self = (int)(k % 2);
    size_t d_k = rope ? 2 * prop_size(rng, 1, 6) : prop_size(rng, 1, 12);
    hcase_make(rng, c, prop_size(rng, 1, 12), prop_size(rng, 1, 24), prop_size(rng, 1, 24),
               d_k, prop_size(rng, 1, 12), self, rope, 0.1 + 2.0 * gsl_rng_uniform(rng), 1);
}

START_TEST(test_prop_key_bias_no_effect)
{
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    PROP_FOR(k, rng, "a key bias leaves the output unchanged (RoPE off)") {
        hcase c;
        hcase_random(rng, &c, k, 0);
        head_params p0 = c.p;
        p0.b_K = NULL;
        head_state s0, s1;
        hcase_forward(&s0, &c, &p0, c.Xkv);
        hcase_forward(&s1, &c, &c.p, c.Xkv);
        /* S1 - S0 = scale (Q b_K) 1^T: a constant per row, which softmax ignores */
        double sc = fmax(score_scale(&s0, c.p.scale), score_scale(&s1, c.p.scale));
        double tol = tol_eps(16, c.d + c.d_k + c.T_k, (1.0 + sc) * mat_max_abs(s0.V));
        double err = mat_diff_frob(s1.O, s0.O) / sqrt((double)(c.T_q * c.d_v));
        PROP_ASSERT(err <= tol, "rms |O(b_K) - O(0)| = %g > tol %g", err, tol);
        /* the shift really is there: rows of S moved (else the test is vacuous) */
        PROP_ASSERT(mat_diff_frob(s1.S, s0.S) > 0.0, "b_K did not change the scores at all");
        head_state_free(&s0); head_state_free(&s1);
        hcase_free(&c);
    }
    gsl_rng_free(rng);
}
END_TEST

START_TEST(test_prop_query_bias_rows)
{
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    PROP_FOR(k, rng, "S(b_Q) - S(0) has identical rows") {
        hcase c;
        hcase_random(rng, &c, k, 0);
        head_params p0 = c.p;
        p0.b_Q = NULL;
        head_state s0, s1;
        hcase_forward(&s0, &c, &p0, c.Xkv);
        hcase_forward(&s1, &c, &c.p, c.Xkv);
        /* (S1 - S0)_ij = scale b_Q . k_j, the same in every row i */
        double sc = fmax(score_scale(&s0, c.p.scale), score_scale(&s1, c.p.scale));
        double tol = tol_eps(16, c.d + c.d_k, sc);
        for (size_t i = 1; i < c.T_q; i++)
            for (size_t j = 0; j < c.T_k; j++) {
                double r0 = gsl_matrix_get(s1.S, 0, j) - gsl_matrix_get(s0.S, 0, j);
                double ri = gsl_matrix_get(s1.S, i, j) - gsl_matrix_get(s0.S, i, j);
                PROP_ASSERT(fabs(ri - r0) <= tol, "(%zu, %zu): %.17g vs row 0 %.17g, tol %g",
                            i, j, ri, r0, tol);
                double want = c.p.scale * 0.0;   /* and it equals scale b_Q . k_j */
                for (size_t l = 0; l < c.d_k; l++)
                    want += c.p.scale * gsl_vector_get(c.b_Q, l) * gsl_matrix_get(s0.K, j, l);
                PROP_ASSERT(fabs(ri - want) <= tol, "(%zu, %zu): %.17g vs b_Q.k_j %.17g", i, j, ri,
                            want);
            }
        /* W_Q = 0: every query is b_Q, so every row of A is softmax(scale K b_Q) */
        gsl_matrix *Z = mat_new(c.d, c.d_k);
        head_params pz = c.p;
        pz.W_Q = Z;
        head_state sz;
        hcase_forward(&sz, &c, &pz, c.Xkv);
        double tz = tol_eps(16, c.d_k + c.T_k, 1.0 + score_scale(&sz, c.p.scale));
        for (size_t i = 1; i < c.T_q; i++)
            for (size_t j = 0; j < c.T_k; j++)
                PROP_ASSERT(fabs(gsl_matrix_get(sz.A, i, j) - gsl_matrix_get(sz.A, 0, j)) <= tz,
                            "W_Q = 0: A rows differ at (%zu, %zu): %.17g vs %.17g", i, j,
                            gsl_matrix_get(sz.A, i, j), gsl_matrix_get(sz.A, 0, j));
        head_state_free(&sz); mat_free(Z);
        head_state_free(&s0); head_state_free(&s1);
        hcase_free(&c);
    }
    gsl_rng_free(rng);
}
END_TEST

START_TEST(test_prop_value_bias_adds)
{
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    PROP_FOR(k, rng, "a value bias adds b_V to every output row") {
        hcase c;
        hcase_random(rng, &c, k, (int)(k % 3 == 0));
        head_params p0 = c.p;
        p0.b_V = NULL;
        head_state s0, s1;
        hcase_forward(&s0, &c, &p0, c.Xkv);
        hcase_forward(&s1, &c, &c.p, c.Xkv);
        /* O1 = A (V + 1 b_V^T) = O0 + (A 1) b_V^T = O0 + 1 b_V^T */
        double tol = tol_eps(16, c.d + c.T_k, mat_max_abs(s0.V) + mat_max_abs(s1.V));
        for (size_t i = 0; i < c.T_q; i++)
            for (size_t j = 0; j < c.d_v; j++) {
                double diff = gsl_matrix_get(s1.O, i, j) - gsl_matrix_get(s0.O, i, j);
                PROP_ASSERT(fabs(diff - gsl_vector_get(c.b_V, j)) <= tol,
                            "(%zu, %zu): O1 - O0 = %.17g, b_V = %.17g, tol %g",
                            i, j, diff, gsl_vector_get(c.b_V, j), tol);
            }
        head_state_free(&s0); head_state_free(&s1);
        hcase_free(&c);
    }
    gsl_rng_free(rng);
}
END_TEST

/* ---- backprop against finite differences --------------------------------- */

/* L = sum(G .* O) after a forward pass of (p, Xq, Xkv) */
typedef struct {
    head_state st;
    const head_params *p;
    const gsl_matrix *Xq, *Xkv, *G;
    double Lmag;              /* sum |G .* O| at the base point */
} fd_ctx;

static double fd_loss(fd_ctx *f)
{
    int rc = head_forward(&f->st, f->p, f->Xq, f->Xkv);
    ck_assert_msg(rc == ATT_OK, "%s", att_last_error());
    return gradcheck_loss(f->G, f->st.O);
}

/* fd[i] by central differences (gradcheck_head), h = 1e-5 max(1, |theta_i|),
 * theta = n numbers at stride `stride` that the forward pass reads */
static void fd_grad(double *fd, fd_ctx *f, double *theta, size_t n, size_t stride)
{
    int rc = gradcheck_head(fd, &f->st, f->p, f->Xq, f->Xkv, f->G, theta, n, stride, 1e-5, 1);
    ck_assert_msg(rc == ATT_OK, "%s", att_last_error());
}

/* worst ratio of error to allowance, over a whole run of a property */
static double fd_worst;

/* Backprop gradient g (n numbers at stride) against finite differences:
 *   ||fd - g|| <= 1e-6 ||g|| + atol sqrt(n),   atol = 1e-8 (1 + sum |G .* O|)
 * atol covers the rounding of the differences (about eps |L| / h = 1e-11 |L|
 * per entry) with a margin of 1000; a wrong gradient is off by O(||g||). */
static void fd_check(fd_ctx *f, double *theta, size_t n, size_t stride,
                     const double *g, size_t gstride, const char *name)
{
    double fd[512];
    ck_assert_uint_le(n, 512);
    fd_grad(fd, f, theta, n, stride);
    double e2 = 0.0, g2 = 0.0;
    for (size_t i = 0; i < n; i++) {
        double e = fd[i] - g[i * gstride];
        e2 += e * e;
        g2 += g[i * gstride] * g[i * gstride];
    }
    double err = sqrt(e2), allow = 1e-6 * sqrt(g2) + 1e-8 * (1.0 + f->Lmag) * sqrt((double)n);
    if (err / allow > fd_worst) fd_worst = err / allow;
    PROP_ASSERT(err <= allow, "%s: ||fd - backprop|| = %.3g, ||backprop|| = %.3g, allowed %.3g "
                "(rope %d, scale %g)", name, err, sqrt(g2), allow, f->p->rope, f->p->scale);
}

static void fd_check_mat(fd_ctx *f, gsl_matrix *X, const gsl_matrix *g, const char *name)
{
    ck_assert(X->tda == X->size2 && g->tda == g->size2);
    fd_check(f, X->data, X->size1 * X->size2, 1, g->data, 1, name);
}

static void fd_check_vec(fd_ctx *f, gsl_vector *b, const gsl_vector *g, const char *name)
{
    fd_check(f, b->data, b->size, b->stride, g->data, g->stride, name);
}

/* One property run: every gradient of a random head against finite
 * differences, for self- or cross-attention, with RoPE on or off, the score
 * scale cycling through 1, 1/sqrt(d_k) and a random value, the biases present
 * or absent (NULL). */
static void check_gradients(gsl_rng *rng, size_t k, int self, int rope)
{
    size_t d_k = rope ? 2 * prop_size(rng, 1, 3) : prop_size(rng, 1, 6);
    size_t T_q = prop_size(rng, 1, 6), T_k = prop_size(rng, 1, 6), d = prop_size(rng, 1, 8);
    size_t d_v = prop_size(rng, 1, 5);
    double scale = k % 3 == 0 ? 1.0 : k % 3 == 1 ? 1.0 / sqrt((double)d_k)
                                    : 0.2 + 1.8 * gsl_rng_uniform(rng);
    int biases = k % 4 != 3;
    hcase c;
    hcase_make(rng, &c, T_q, T_k, d, d_k, d_v, self, rope, scale, biases);
    gsl_matrix *G = rand_mat(rng, c.T_q, d_v, 1.0);

    // backprop at the base point (NULL biases when the case has none)
    head_state st;
    hcase_forward(&st, &c, &c.p, c.Xkv);
    head_grads g;
    ck_assert_int_eq(head_grads_alloc(&g, c.T_q, c.T_k, d, d_k, d_v), ATT_OK);
    int rc = head_backward(&g, &st, &c.p, c.Xq, c.Xkv, G);
    PROP_ASSERT(rc == ATT_OK, "%s", att_last_error());

    // finite differences move the (possibly zero) bias vectors, so attach them
    head_params pf = c.p;
    pf.b_Q = c.b_Q; pf.b_K = c.b_K; pf.b_V = c.b_V;
    fd_ctx f = { .p = &pf, .Xq = c.Xq, .Xkv = c.Xkv, .G = G };
    ck_assert_int_eq(head_state_alloc(&f.st, c.T_q, c.T_k, d, d_k, d_v), ATT_OK);
    fd_loss(&f);
    for (size_t i = 0; i < c.T_q; i++)
        for (size_t j = 0; j < d_v; j++)
            f.Lmag += fabs(gsl_matrix_get(G, i, j) * gsl_matrix_get(f.st.O, i, j));

    fd_check_mat(&f, c.W_Q, g.dW_Q, "dW_Q");
    fd_check_mat(&f, c.W_K, g.dW_K, "dW_K");
    fd_check_mat(&f, c.W_V, g.dW_V, "dW_V");
    fd_check_vec(&f, c.b_Q, g.db_Q, "db_Q");
    fd_check_vec(&f, c.b_K, g.db_K, "db_K");
    fd_check_vec(&f, c.b_V, g.db_V, "db_V");
    if (!self) {
        fd_check_mat(&f, c.Xq, g.dXq, "dXq");
        fd_check_mat(&f, c.Xkv, g.dXkv, "dXkv");
    } else {
        // self-attention: move a copy that feeds only the queries (or only the
        // keys and values), then the shared X, whose gradient is dXq + dXkv
        gsl_matrix *Xc = mat_dup(c.Xq), *dX = mat_dup(g.dXq);
        f.Xq = Xc; f.Xkv = c.Xq;
        fd_check_mat(&f, Xc, g.dXq, "dXq (self)");
        f.Xq = c.Xq; f.Xkv = Xc;
        fd_check_mat(&f, Xc, g.dXkv, "dXkv (self)");
        f.Xq = f.Xkv = c.Xq;
        gsl_matrix_add(dX, g.dXkv);
        fd_check_mat(&f, c.Xq, dX, "dX = dXq + dXkv (self)");
        mat_free(Xc); mat_free(dX);
    }
    head_state_free(&f.st);
    head_state_free(&st);
    head_grads_free(&g);
    mat_free(G);
    hcase_free(&c);
}

#define GRAD_PROPERTY(fn, self, rope, title)                                 \
    START_TEST(fn)                                                           \
    {                                                                        \
        gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);                       \
        fd_worst = 0.0;                                                      \
        PROP_FOR(k, rng, title) check_gradients(rng, k, self, rope);         \
        printf("  [%s] worst ||fd - backprop|| / allowance = %.3g\n",        \
               title, fd_worst);                                             \
        gsl_rng_free(rng);                                                   \
    }                                                                        \
    END_TEST

GRAD_PROPERTY(test_prop_grad_cross, 0, 0, "backprop = finite differences, cross-attention")
GRAD_PROPERTY(test_prop_grad_cross_rope, 0, 1,
              "backprop = finite differences, cross-attention, RoPE")
GRAD_PROPERTY(test_prop_grad_self, 1, 0, "backprop = finite differences, self-attention")
GRAD_PROPERTY(test_prop_grad_self_rope, 1, 1, "backprop = finite differences, self-attention, RoPE")

/* The key-bias gradient: zero up to rounding without RoPE, clearly not zero
 * with RoPE (the bias term q_i . R_{j-i} b_K then depends on the key j).
 * With RoPE it is compared with db_Q, which flows through the same scores:
 * when the softmax saturates both vanish together, and such a case (db_Q
 * itself near rounding) says nothing; at most 10% of cases may be such. */
START_TEST(test_prop_key_bias_gradient)
{
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    double worst_off = 0.0, least_on = INFINITY;
    size_t n_on = 0, n_cases = 0;
    PROP_FOR(k, rng, "dL/db_K = 0 without RoPE, != 0 with RoPE") {
        /* T_k >= 2 (self-attention: T_k = T_q): one key gets weight 1 whatever its score */
        size_t T_q = prop_size(rng, 2, 8), T_k = prop_size(rng, 2, 8), d = prop_size(rng, 1, 8);
        size_t d_k = 2 * prop_size(rng, 1, 4), d_v = prop_size(rng, 1, 6);
        int self = (int)(k % 2);
        double scale = k % 4 < 2 ? 1.0 : 1.0 / sqrt((double)d_k);
        n_cases++;
        for (int rope = 0; rope <= 1; rope++) {
            hcase c;
            hcase_make(rng, &c, T_q, T_k, d, d_k, d_v, self, rope, scale, 1);
            gsl_matrix *G = rand_mat(rng, c.T_q, d_v, 1.0);
            head_state st;
            hcase_forward(&st, &c, &c.p, c.Xkv);
            head_grads g;
            ck_assert_int_eq(head_grads_alloc(&g, c.T_q, c.T_k, d, d_k, d_v), ATT_OK);
            PROP_ASSERT(head_backward(&g, &st, &c.p, c.Xq, c.Xkv, G) == ATT_OK, "%s",
                        att_last_error());
            /* db_K = scale (dS 1)^T Q and the rows of dS sum to 0. Rounding:
             * |dS| <= 2 |dA| <= 2 d_v |G| |V|, summed over T_q T_k terms */
            double bound = fabs(scale) * 2.0 * (double)d_v * mat_max_abs(G) * mat_max_abs(st.V)
                         * mat_max_abs(st.Q) * (double)d_k;
            double tol = tol_eps(4, c.T_q * c.T_k, bound);
            double nK = gsl_blas_dnrm2(g.db_K), nQ = gsl_blas_dnrm2(g.db_Q);
            if (!rope) {
                worst_off = fmax(worst_off, nK / tol);
                PROP_ASSERT(nK <= tol, "no RoPE: ||db_K|| = %g > rounding bound %g", nK, tol);
            } else if (nQ >= 1e3 * tol) {
                n_on++;
                least_on = fmin(least_on, nK / nQ);
                PROP_ASSERT(nK >= 1e-5 * nQ, "RoPE: ||db_K|| = %g, ||db_Q|| = %g", nK, nQ);
            }
            head_grads_free(&g); head_state_free(&st);
            mat_free(G); hcase_free(&c);
        }
    }
    ck_assert_msg(n_on >= n_cases - n_cases / 10, "only %zu of %zu RoPE cases were informative",
                  n_on, n_cases);
    printf("  without RoPE ||db_K|| <= %.3g x its rounding bound; with RoPE ||db_K|| / ||db_Q|| "
           ">= %.3g (%zu of %zu cases)\n", worst_off, least_on, n_on, n_cases);
    gsl_rng_free(rng);
}
END_TEST

PROP_MAIN("test_head", {"unit", 0, {test_worked_example, test_shape_errors, test_rope_by_hand}},
          {"properties",
           300,
           {test_prop_rope, test_prop_permute_keys_values, test_prop_key_bias_no_effect,
            test_prop_query_bias_rows, test_prop_value_bias_adds, test_prop_grad_cross,
            test_prop_grad_cross_rope, test_prop_grad_self, test_prop_grad_self_rope,
            test_prop_key_bias_gradient}})
