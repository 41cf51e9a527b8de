/* test_tiled.c - the tiled head (online softmax, never the T x T matrix)
 * against the plain head, its exponential against libm, its determinism
 * across thread counts; and the fused W_QKV projection against the three
 * separate ones, (out, in) storage, and batched against one by one.
 *
 * Shapes: Q (T_q, d_k)  K (T_k, d_k)  V (T_k, d_v)  O (T_q, d_v)
 *         X (N, d)  W_QKV (d, 2 d_k + d_v)  tiles B_q x B_k
 * The reference is always the plain head (head_attend / head_forward), which
 * holds S and A in full. Tolerances scale with size and eps (tiled.h,
 * mat_tol): an identity computed through inner products of length n on
 * numbers of size `scale` may be off by a few n eps scale.
 */
#include "prop.h"
#include "tol.h"
#include "fused.h"
#include "head.h"
#include "mat.h"
#include "status.h"
#include "tiled.h"
#include "vexp.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>
#include <gsl/gsl_randist.h>
#include <omp.h>

/* ---- helpers ------------------------------------------------------------- */

static gsl_matrix *rand_mat(gsl_rng *rng, size_t r, size_t c, double sigma)
{
    gsl_matrix *A = mat_new(r, c);
    ck_assert_ptr_nonnull(A);
    mat_randn(rng, A, sigma);
    return A;
}

/* max_i ||row i||_2 */
static double max_row_norm(const gsl_matrix *A)
{
    double m = 0.0;
    for (size_t i = 0; i < A->size1; i++) {
        double s = 0.0;
        for (size_t j = 0; j < A->size2; j++)
            s += gsl_matrix_get(A, i, j) * gsl_matrix_get(A, i, j);
        m = fmax(m, sqrt(s));
    }
    return m;
}

/* max_j ||column j||_2 */
static double max_col_norm(const gsl_matrix *A)
{
    double m = 0.0;
    for (size_t j = 0; j < A->size2; j++) {
        double s = 0.0;
        for (size_t i = 0; i < A->size1; i++)
            s += gsl_matrix_get(A, i, j) * gsl_matrix_get(A, i, j);
        m = fmax(m, sqrt(s));
    }
    return m;
}

/* The plain head on given Q, K, V: O = softmax(scale Q K^T) V, holding S. */
static int plain_attend(gsl_matrix *O, const gsl_matrix *Q, const gsl_matrix *K,
                        const gsl_matrix *V, double scale)
{
    gsl_matrix *S = mat_new(Q->size1, K->size1);
    ck_assert_ptr_nonnull(S);
    int rc = head_attend(S, S, O, Q, K, V, scale);
    mat_free(S);
    return rc;
}

/* Tiled vs plain on Q, K, V: both must succeed and agree within
 * tiled_tolerance (inner products of length d_k). Returns the error / tol. */
static double compare_attend(const gsl_matrix *Q, const gsl_matrix *K, const gsl_matrix *V,
                             double scale, tiled_tiles tl)
{
    gsl_matrix *Ot = mat_new(Q->size1, V->size2), *Op = mat_new(Q->size1, V->size2);
    int rt = tiled_attend(Ot, Q, K, V, scale, tl);
    PROP_ASSERT(rt == ATT_OK, "tiled: %s", att_last_error());
    int rp = plain_attend(Op, Q, K, V, scale);
    PROP_ASSERT(rp == ATT_OK, "plain: %s", att_last_error());
    double tol =
        tol_attention_output(K->size1, K->size2, tol_score_bound(Q, K, scale), mat_max_abs(V));
    double err = mat_max_abs_diff(Ot, Op);
    PROP_ASSERT(err <= tol,
                "T_q %zu T_k %zu d_k %zu d_v %zu tiles %zu x %zu: |O_tiled - O_plain| "
                "= %.3g > tol %.3g",
                Q->size1, K->size1, K->size2, V->size2, tl.bq, tl.bk, err, tol);
    mat_free(Ot); mat_free(Op);
    return err / tol;
}

/* Random tiles, from 1 x 1 (every tile edge case) to larger than T. */
static tiled_tiles rand_tiles(gsl_rng *rng)
{
    tiled_tiles tl = { prop_size(rng, 1, 70), prop_size(rng, 1, 70) };
    if (gsl_rng_uniform(rng) < 0.2) tl = tiled_tiles_default();
    return tl;
}

/* ---- the exponential -------------------------------------------------------- */

START_TEST(test_exp_special_values)
{
    /* input x, m -> e^{x - m}, exactly */
    double x[] = { 0.0, 5.0, -INFINITY, -746.0, -1e308, -745.3, 1e300 };
    double m[] = { 0.0, 5.0, 0.0,        0.0,    0.0,    0.0,    1e300 };
    double want[] = { 1.0, 1.0, 0.0,     0.0,    0.0,    0.0,    1.0 };
    /* vexp_shifted and vexp_shifted_head alike */
    double (*const fns[])(double *, const double *, size_t, double) = { vexp_shifted,
                                                                         vexp_shifted_head };
    for (size_t f = 0; f < 2; f++) {
        for (size_t i = 0; i < sizeof x / sizeof x[0]; i++) {
            double y;
            double s = fns[f](&y, &x[i], 1, m[i]);
            ck_assert_msg(y == want[i] && s == want[i], "fn %zu: e^(%g - %g) = %.17g, want %.17g",
                          f, x[i], m[i], y, want[i]);
        }
        double nan_in = NAN, y;
        fns[f](&y, &nan_in, 1, 0.0);
        ck_assert_msg(isnan(y), "NaN in must give NaN out");
        /* e^{-1} and e^{-700} by libm (correctly rounded to within an ulp) */
        double xs[] = { -1.0, -700.0, -0.5 * M_LN2, -1e-300 }, ys[4];
        fns[f](ys, xs, 4, 0.0);
        for (size_t i = 0; i < 4; i++)
            ck_assert_msg(fabs(ys[i] - exp(xs[i])) <= 2 * DBL_EPSILON * exp(xs[i]),
                          "fn %zu: e^%g = %.17g, libm %.17g", f, xs[i], ys[i], exp(xs[i]));
    }
}
END_TEST

/* |a - b| in ulps for a, b >= 0: the distance of their bit patterns. */
static double ulps_apart(double a, double b)
{
    int64_t ia, ib;
    memcpy(&ia, &a, sizeof ia);
    memcpy(&ib, &b, sizeof ib);
    return fabs((double)(ia - ib));
}

START_TEST(test_ulps_apart)
{
    ck_assert(ulps_apart(1.0, 1.0) == 0);
    ck_assert(ulps_apart(1.0, nextafter(1.0, 2.0)) == 1);
    ck_assert(ulps_apart(0.0, 0x1p-1074) == 1);
    ck_assert(ulps_apart(DBL_MIN, nextafter(nextafter(DBL_MIN, 0), 0)) == 2);
}
END_TEST

/* Every variant of the exponential this CPU can run. */
static const char *exp_variants[] = { "plain", "avx2", "avx512" };   /* "plain" = "scalar" */

/* Both exponentials of vexp.h: the general one and the tiled head's. */
typedef double exp_fn(double *y, const double *x, size_t n, double m);
static exp_fn *const exp_fns[] = { vexp_shifted, vexp_shifted_head };
static const char *const exp_fn_names[] = { "vexp_shifted", "vexp_shifted_head" };

/* loop index i: variant i % 3 of function i / 3 */
START_TEST(test_prop_exp_accuracy)
{
    const char *variant = exp_variants[_i % 3];
    exp_fn *vexp = exp_fns[_i / 3];
    const char *fname = exp_fn_names[_i / 3];
    if (vexp_variant(variant) != ATT_OK) {
        printf("test_tiled: exponential variant %s: not on this CPU, skipped\n", variant);
        return;
    }
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    enum { N = 257 };    /* odd: exercises every vector tail */
    PROP_FOR(k, rng, "vectorised e^{x - m} within 2 ulp of libm, sum in order") {
        double x[N], y[N];
        double range = gsl_rng_uniform(rng) < 0.5 ? 750.0 : pow(10.0, gsl_rng_uniform(rng) * 3 - 2);
        double m = gsl_ran_gaussian(rng, 100.0);
        size_t n = prop_size(rng, 1, N);
        for (size_t j = 0; j < n; j++) x[j] = m - range * gsl_rng_uniform(rng);
        double s = vexp(y, x, n, m), sref = 0.0;
        for (size_t j = 0; j < n; j++) {
            double e = exp(x[j] - m);
            sref += e;
            /* at most 2 ulp from libm: the distance of the two doubles as
             * integers (both >= 0, so their bit patterns order like them;
             * in the subnormal range an ulp is 2^-1074) */
            double u = ulps_apart(y[j], e);
            PROP_ASSERT(u <= 2, "%s %s: x - m = %.17g: %.17g vs libm %.17g (%g ulp)",
                        fname, variant, x[j] - m, y[j], e, u);
        }
        PROP_ASSERT(fabs(s - sref) <= tol_eps(4, n, sref), "%s %s: sum %.17g vs %.17g", fname,
                    variant, s, sref);
    }
    /* the special values too */
    double x[] = { 0.0, -INFINITY, -745.2, -746.0, -1e308, NAN }, y[6];
    vexp(y, x, 6, 0.0);
    ck_assert_msg(y[0] == 1.0 && y[1] == 0.0 && y[2] == 0.0 && y[3] == 0.0 && y[4] == 0.0
                  && isnan(y[5]), "%s %s: special values %g %g %g %g %g %g", fname, variant,
                  y[0], y[1], y[2], y[3], y[4], y[5]);
    vexp_variant(NULL);
    gsl_rng_free(rng);
}
END_TEST

/* Every vector path agrees with the scalar path to 2 ulp (each is within
 * 2 ulp of libm; they differ only by fused against separate roundings), and
 * their sums agree to the summation's bound. */
START_TEST(test_prop_exp_paths_agree)
{
    const char *variant = exp_variants[_i % 2 + 1];
    exp_fn *vexp = exp_fns[_i / 2];
    const char *fname = exp_fn_names[_i / 2];
    if (vexp_variant(variant) != ATT_OK) {
        printf("test_tiled: exponential path %s: not on this CPU, skipped\n", variant);
        return;
    }
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    enum { N = 301 };
    PROP_FOR(k, rng, "each vector path of e^{x - m} within 2 ulp of the scalar path") {
        double x[N], y[N], ys[N];
        double range = gsl_rng_uniform(rng) < 0.5 ? 750.0 : pow(10.0, gsl_rng_uniform(rng) * 3 - 2);
        double m = gsl_ran_gaussian(rng, 100.0);
        size_t n = prop_size(rng, 1, N);
        for (size_t j = 0; j < n; j++) x[j] = m - range * gsl_rng_uniform(rng);
        ck_assert(vexp_variant(variant) == ATT_OK);
        double s = vexp(y, x, n, m);
        ck_assert(vexp_variant("scalar") == ATT_OK);
        double ss = vexp_shifted(ys, x, n, m);
        for (size_t j = 0; j < n; j++)
            PROP_ASSERT(ulps_apart(y[j], ys[j]) <= 2,
                        "%s %s: x - m = %.17g: %.17g vs scalar %.17g (%g ulp)", fname, variant,
                        x[j] - m, y[j], ys[j], ulps_apart(y[j], ys[j]));
        PROP_ASSERT(fabs(s - ss) <= tol_eps(4, n, ss), "%s %s: sum %.17g vs scalar %.17g", fname,
                    variant, s, ss);
    }
    vexp_variant(NULL);
    gsl_rng_free(rng);
}
END_TEST

/* ATT_VEXP picks a path the CPU runs; unset, the widest; anything else is
 * ATT_EUSAGE, and the tiled head refuses to run. */
START_TEST(test_exp_env)
{
    const char *widest = "scalar";
    for (size_t k = 1; k < 3; k++)
        if (vexp_variant(exp_variants[k]) == ATT_OK) widest = exp_variants[k];
    unsetenv("ATT_VEXP");
    vexp_variant(NULL);
    ck_assert_str_eq(vexp_path(), widest);
    ck_assert_int_eq(vexp_env_check(), ATT_OK);
    for (size_t k = 0; k < 3; k++) {
        setenv("ATT_VEXP", k ? exp_variants[k] : "scalar", 1);
        int have = vexp_variant(exp_variants[k]) == ATT_OK;
        vexp_variant(NULL);
        ck_assert_int_eq(vexp_env_check(), have ? ATT_OK : ATT_EUSAGE);
        if (have) ck_assert_str_eq(vexp_path(), k ? exp_variants[k] : "scalar");
    }
    setenv("ATT_VEXP", "sse9", 1);
    ck_assert_int_eq(vexp_env_check(), ATT_EUSAGE);
    ck_assert_msg(strstr(att_last_error(), "ATT_VEXP=sse9") != NULL, "message: %s",
                  att_last_error());
    gsl_matrix *Q = mat_new(3, 2), *K = mat_new(4, 2), *V = mat_new(4, 2), *O = mat_new(3, 2);
    gsl_matrix_set_zero(Q); gsl_matrix_set_zero(K); gsl_matrix_set_zero(V);
    ck_assert_int_eq(tiled_attend(O, Q, K, V, 1.0, tiled_tiles_default()), ATT_EUSAGE);
    unsetenv("ATT_VEXP");
    ck_assert_int_eq(tiled_attend(O, Q, K, V, 1.0, tiled_tiles_default()), ATT_OK);
    mat_free(Q); mat_free(K); mat_free(V); mat_free(O);
    vexp_variant(NULL);
}
END_TEST

/* ---- tiled vs plain ----------------------------------------------------------- */

START_TEST(test_prop_tiled_attend_random)
{
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    PROP_FOR(k, rng, "tiled attention equals the plain head (random scores)") {
        size_t T_q = prop_size(rng, 1, 150), T_k = prop_size(rng, 1, 300);
        size_t d_k = prop_size(rng, 1, 40), d_v = prop_size(rng, 1, 40);
        double sigma = pow(10.0, gsl_rng_uniform(rng) * 2 - 1);     /* 0.1 .. 10 */
        gsl_matrix *Q = rand_mat(rng, T_q, d_k, sigma), *K = rand_mat(rng, T_k, d_k, 1.0);
        gsl_matrix *V = rand_mat(rng, T_k, d_v, 1.0);
        double scale = gsl_rng_uniform(rng) < 0.5 ? 1.0 : 1.0 / sqrt((double)d_k);
        compare_attend(Q, K, V, scale, rand_tiles(rng));
        mat_free(Q); mat_free(K); mat_free(V);
    }
    gsl_rng_free(rng);
}
END_TEST

/* Scores built on purpose: Q's first column is 1 and K's first column holds
 * the score pattern (other columns 0), so s_ij = pattern_j for every row. */
enum { ADV_LARGE, ADV_TIES, ADV_DOMINANT, ADV_RISING, ADV_FALLING, ADV_KINDS };
static const char *adv_name[ADV_KINDS] = { "large", "ties", "dominant", "rising", "falling" };

START_TEST(test_prop_tiled_attend_adversarial)
{
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    PROP_FOR(k, rng, "tiled attention equals the plain head (adversarial scores)") {
        int kind = (int)(k % ADV_KINDS);
        size_t T_q = prop_size(rng, 1, 60), T_k = prop_size(rng, 1, 400);
        size_t d_k = prop_size(rng, 2, 16), d_v = prop_size(rng, 1, 16);
        gsl_matrix *Q = rand_mat(rng, T_q, d_k, 1.0), *K = rand_mat(rng, T_k, d_k, 1.0);
        gsl_matrix *V = rand_mat(rng, T_k, d_v, 1.0);
        size_t star = (size_t)gsl_rng_uniform_int(rng, (unsigned long)T_k);
        double big = pow(10.0, 1.0 + gsl_rng_uniform(rng) * 299.0);   /* 10 .. 1e300 */
        if (kind == ADV_LARGE) {
            /* scores of size up to ~1e150 (entries 1e75): finite, far apart */
            double mag = sqrt(pow(10.0, gsl_rng_uniform(rng) * 150.0));
            gsl_matrix_scale(Q, mag);
            gsl_matrix_scale(K, mag);
        } else {
            for (size_t i = 0; i < T_q; i++) {
                gsl_matrix_set(Q, i, 0, 1.0);
                for (size_t c = 1; c < d_k; c++) gsl_matrix_set(Q, i, c, 0.0);
            }
            double level = gsl_ran_gaussian(rng, 1e3);
            for (size_t j = 0; j < T_k; j++) {
                double s = level;                                        /* ties */
                if (kind == ADV_DOMINANT)
                    s = j == star ? level + big : level - gsl_rng_uniform(rng);
                if (kind == ADV_RISING) s = level + 3.0 * (double)j;     /* new max every tile */
                if (kind == ADV_FALLING) s = level - 3.0 * (double)j;
                gsl_matrix_set(K, j, 0, s);
                for (size_t c = 1; c < d_k; c++) gsl_matrix_set(K, j, c, 0.0);
            }
        }
        tiled_tiles tl = rand_tiles(rng);
        compare_attend(Q, K, V, 1.0, tl);

        /* closed forms. Ties: the plain average of the values. Otherwise, a row
         * whose best score beats the next by more than 40 (plus the scores'
         * rounding error) puts all but e^-40 < eps of its weight on that key,
         * so its output is that key's value; with scores of 1e150 this is the
         * check that means something (the tolerance above is then huge). */
        gsl_matrix *O = mat_new(T_q, d_v), *S = mat_new(T_q, T_k);
        ck_assert_int_eq(tiled_attend(O, Q, K, V, 1.0, tl), ATT_OK);
        ck_assert_int_eq(head_scores(S, Q, K, 1.0), ATT_OK);
        double vtol = tol_eps(8, T_k, mat_max_abs(V));
        double err_s = 2.0 * (double)d_k * DBL_EPSILON * tol_score_bound(Q, K, 1.0);
        for (size_t i = 0; i < T_q; i++) {
            size_t j1 = 0;
            double top2 = -INFINITY;
            for (size_t j = 1; j < T_k; j++) {
                double s = gsl_matrix_get(S, i, j);
                if (s > gsl_matrix_get(S, i, j1)) { top2 = gsl_matrix_get(S, i, j1); j1 = j; }
                else if (s > top2) top2 = s;
            }
            int one_hot = gsl_matrix_get(S, i, j1) - top2 > 40.0 + 2.0 * err_s;
            if (kind != ADV_TIES && !one_hot) continue;
            for (size_t c = 0; c < d_v; c++) {
                double want = 0.0;
                if (kind == ADV_TIES) {
                    for (size_t j = 0; j < T_k; j++) want += gsl_matrix_get(V, j, c);
                    want /= (double)T_k;
                } else {
                    want = gsl_matrix_get(V, j1, c);
                }
                PROP_ASSERT(fabs(gsl_matrix_get(O, i, c) - want) <= vtol,
                            "%s: o_%zu,%zu = %.17g, closed form %.17g", adv_name[kind], i, c,
                            gsl_matrix_get(O, i, c), want);
            }
        }
        mat_free(O); mat_free(S);
        mat_free(Q); mat_free(K); mat_free(V);
    }
    gsl_rng_free(rng);
}
END_TEST

START_TEST(test_prop_tiled_forward)
{
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    PROP_FOR(k, rng, "tiled head (projections + biases) equals head_forward") {
        size_t T_q = prop_size(rng, 1, 120), T_k = prop_size(rng, 1, 200);
        size_t d = prop_size(rng, 1, 48), d_k = prop_size(rng, 1, 32), d_v = prop_size(rng, 1, 32);
        int self = gsl_rng_uniform(rng) < 0.5, biases = gsl_rng_uniform(rng) < 0.5;
        if (self) T_k = T_q;
        gsl_matrix *Xq = rand_mat(rng, T_q, d, 1.0);
        gsl_matrix *Xkv = self ? Xq : rand_mat(rng, T_k, d, 1.0);
        double sw = 1.0 / sqrt((double)d);
        gsl_matrix *W_Q = rand_mat(rng, d, d_k, sw), *W_K = rand_mat(rng, d, d_k, sw);
        gsl_matrix *W_V = rand_mat(rng, d, d_v, sw);
        gsl_vector *b_Q = mat_vec_new(d_k), *b_K = mat_vec_new(d_k), *b_V = mat_vec_new(d_v);
        mat_vec_randn(rng, b_Q, 0.5); mat_vec_randn(rng, b_K, 0.5); mat_vec_randn(rng, b_V, 0.5);
        head_params p = head_params_make(W_Q, W_K, W_V);
        if (biases) { p.b_Q = b_Q; p.b_K = b_K; p.b_V = b_V; }
        p.scale = gsl_rng_uniform(rng) < 0.5 ? 1.0 : 1.0 / sqrt((double)d_k);

        head_state st;
        ck_assert_int_eq(head_state_alloc(&st, T_q, T_k, d, d_k, d_v), ATT_OK);
        PROP_ASSERT(head_forward(&st, &p, Xq, Xkv) == ATT_OK, "%s", att_last_error());
        gsl_matrix *O = mat_new(T_q, d_v);
        tiled_tiles tl = rand_tiles(rng);
        PROP_ASSERT(tiled_forward(O, &p, Xq, Xkv, tl) == ATT_OK, "%s", att_last_error());
        /* scores come from inner products of length d (projections), then d_k */
        double tol = tol_attention_output(T_k, d + d_k, tol_score_bound(st.Q, st.K, p.scale),
                                     mat_max_abs(st.V))
                     + tol_eps(8, d, max_row_norm(Xkv) * max_col_norm(W_V));
        double err = mat_max_abs_diff(O, st.O);
        PROP_ASSERT(err <= tol, "T_q %zu T_k %zu d %zu d_k %zu d_v %zu: err %.3g > tol %.3g",
                    T_q, T_k, d, d_k, d_v, err, tol);
        head_state_free(&st);
        mat_free(O); mat_free(Xq); if (!self) mat_free(Xkv);
        mat_free(W_Q); mat_free(W_K); mat_free(W_V);
        mat_vec_free(b_Q); mat_vec_free(b_K); mat_vec_free(b_V);
    }
    gsl_rng_free(rng);
}
END_TEST

/* T up to 4096 with the default tiles, random and a dominant last key. */
START_TEST(test_tiled_long_sequences)
{
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(rng, prop_seed());
    snprintf(prop_ctx, sizeof prop_ctx, "[long sequences] seed %lu", prop_seed());
    const size_t Ts[] = { 257, 1000, 2500, 4096 };
    /* a reduced run (ATT_TEST_CASES below the default, as under valgrind)
     * stops at T = 1000: the plain head at 4096 holds 128 MiB of scores */
    size_t nT = prop_env_ulong("ATT_TEST_CASES", PROP_DEFAULT_CASES) < PROP_DEFAULT_CASES ? 2 : 4;
    if (nT < 4) printf("test_tiled: reduced run, long sequences up to T = %zu only\n", Ts[nT - 1]);
    for (size_t t = 0; t < nT; t++) {
        size_t T = Ts[t], d_k = 64;
        gsl_matrix *Q = rand_mat(rng, T, d_k, 1.0), *K = rand_mat(rng, T, d_k, 1.0);
        gsl_matrix *V = rand_mat(rng, T, d_k, 1.0);
        double r = compare_attend(Q, K, V, 1.0, tiled_tiles_default());
        ck_assert_msg(r <= 1.0, "T = %zu: error / tol = %g", T, r);
        /* the last key dominates every row: the max moves in the last tile */
        for (size_t c = 0; c < d_k; c++) gsl_matrix_set(K, T - 1, c, 30.0 * (c % 2 ? 1 : -1));
        for (size_t i = 0; i < T; i++)
            for (size_t c = 0; c < d_k; c++)
                gsl_matrix_set(Q, i, c, fabs(gsl_matrix_get(Q, i, c)) * (c % 2 ? 1 : -1));
        compare_attend(Q, K, V, 1.0, tiled_tiles_default());
        mat_free(Q); mat_free(K); mat_free(V);
    }
    gsl_rng_free(rng);
}
END_TEST

/* Bit-identical output for 1 and 2 threads (tiles, not threads, fix the order). */
START_TEST(test_prop_thread_count_invariance)
{
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    PROP_FOR(k, rng, "tiled output bit-identical for 1 and 2 threads") {
        size_t T_q = prop_size(rng, 1, 300), T_k = prop_size(rng, 1, 300),
               d_k = prop_size(rng, 1, 24);
        gsl_matrix *Q = rand_mat(rng, T_q, d_k, 1.0), *K = rand_mat(rng, T_k, d_k, 1.0);
        gsl_matrix *V = rand_mat(rng, T_k, d_k, 1.0);
        gsl_matrix *O1 = mat_new(T_q, d_k), *O2 = mat_new(T_q, d_k);
        tiled_tiles tl = rand_tiles(rng);
        int saved = omp_get_max_threads();
        omp_set_num_threads(1);
        PROP_ASSERT(tiled_attend(O1, Q, K, V, 1.0, tl) == ATT_OK, "%s", att_last_error());
        omp_set_num_threads(2);
        PROP_ASSERT(tiled_attend(O2, Q, K, V, 1.0, tl) == ATT_OK, "%s", att_last_error());
        omp_set_num_threads(saved);
        PROP_ASSERT(memcmp(O1->data, O2->data, T_q * d_k * sizeof(double)) == 0,
                    "outputs differ between 1 and 2 threads (max diff %.3g)",
                    mat_max_abs_diff(O1, O2));
        mat_free(Q); mat_free(K); mat_free(V); mat_free(O1); mat_free(O2);
    }
    gsl_rng_free(rng);
}
END_TEST

/* ---- errors and masked keys ---------------------------------------------------- */

static void expect_error(int rc, int code, const char *fragment)
{
    ck_assert_int_eq(rc, code);
    ck_assert_msg(strstr(att_last_error(), fragment) != NULL, "message \"%s\" lacks \"%s\"",
                  att_last_error(), fragment);
}

START_TEST(test_tiled_nonfinite_and_shapes)
{
    /* Q (3, 2), K (5, 2), V (5, 1); s_ij = q_i . k_j */
    gsl_matrix *Q = mat_new(3, 2), *K = mat_new(5, 2), *V = mat_new(5, 1), *O = mat_new(3, 1);
    gsl_matrix *Op = mat_new(3, 1);
    for (size_t j = 0; j < 5; j++) {
        gsl_matrix_set(K, j, 0, 1.0 + j);
        gsl_matrix_set(V, j, 0, (double)j);
    }
    for (size_t i = 0; i < 3; i++) gsl_matrix_set(Q, i, 0, 0.1 * (double)i);
    tiled_tiles small = { 2, 2 };

    /* NaN score in row 1 */
    gsl_matrix_set(Q, 1, 1, NAN);
    gsl_matrix_set(K, 3, 1, 1.0);
    expect_error(tiled_attend(O, Q, K, V, 1.0, small), ATT_EUSAGE, "row 1");
    /* +inf score: q_2 = (1e200, 0), k_4 = (1e200, 0) overflows to +inf */
    gsl_matrix_set(Q, 1, 1, 0.0);
    gsl_matrix_set(Q, 2, 0, 1e200);
    gsl_matrix_set(K, 4, 0, 1e200);
    expect_error(tiled_attend(O, Q, K, V, 1.0, small), ATT_EUSAGE, "+inf");

    /* -inf scores are masked keys (weight 0), as in the plain head:
     * q_2 = (1e200, 0) with k_j = (-1e200, 1) for j < 4 and k_4 = (0, 1) */
    for (size_t j = 0; j < 4; j++) {
        gsl_matrix_set(K, j, 0, -1e200);
        gsl_matrix_set(K, j, 1, 1.0);
    }
    gsl_matrix_set(K, 4, 0, 0.0); gsl_matrix_set(K, 4, 1, 1.0);
    ck_assert_int_eq(tiled_attend(O, Q, K, V, 1.0, small), ATT_OK);
    ck_assert_int_eq(plain_attend(Op, Q, K, V, 1.0), ATT_OK);
    ck_assert_double_eq(gsl_matrix_get(O, 2, 0), 4.0);         /* only key 4 is left */
    ck_assert_double_le(mat_max_abs_diff(O, Op), tol_eps(8, 5, 4.0));
    /* a row with every key masked is an error */
    gsl_matrix_set(K, 4, 0, -1e200);
    expect_error(tiled_attend(O, Q, K, V, 1.0, small), ATT_EUSAGE, "fully masked");

    /* shapes and settings */
    gsl_matrix *Kbad = mat_new(5, 3), *Obad = mat_new(2, 1);
    expect_error(tiled_attend(O, Q, Kbad, V, 1.0, small), ATT_EUSAGE, "Q (3 x 2) and K (5 x 3)");
    expect_error(tiled_attend(Obad, Q, K, V, 1.0, small), ATT_EUSAGE, "O (2 x 1)");
    expect_error(tiled_attend(O, Q, K, V, 1.0, (tiled_tiles){ 0, 4 }), ATT_EUSAGE, "tile sizes");
    expect_error(tiled_attend(O, Q, K, V, NAN, small), ATT_EUSAGE, "scale");

    gsl_matrix *X = mat_new(4, 2), *W = mat_new(2, 2);
    head_params p = head_params_make(W, W, W);
    gsl_matrix *O4 = mat_new(4, 2);
    p.rope = 1;
    expect_error(tiled_forward(O4, &p, X, X, small), ATT_EUSAGE, "RoPE");
    p.rope = 0;
    expect_error(tiled_forward(O4, &p, Kbad, Kbad, small), ATT_EUSAGE,
                 "X_q has 3 columns, W_Q has 2 rows");   /* head_check_params' words */
    ck_assert_int_eq(tiled_forward(O4, &p, X, X, small), ATT_OK);   /* zero X: uniform weights */
    ck_assert_double_eq(mat_max_abs(O4), 0.0);

    mat_free(Q); mat_free(K); mat_free(V); mat_free(O); mat_free(Op);
    mat_free(Kbad); mat_free(Obad); mat_free(X); mat_free(W); mat_free(O4);
}
END_TEST

/* ---- the fused projection -------------------------------------------------------- */

/* A random projection case: X (N, d), W_Q, W_K (d, d_k), W_V (d, d_v). */
typedef struct {
    size_t N, d, d_k, d_v;
    gsl_matrix *X, *W_Q, *W_K, *W_V, *W, *Wt;    /* W = W_QKV, Wt = W^T (out, in) */
} fcase;

static void fcase_make(gsl_rng *rng, fcase *c, size_t N, size_t d, size_t d_k, size_t d_v)
{
    *c = (fcase){ .N = N, .d = d, .d_k = d_k, .d_v = d_v };
    double sw = 1.0 / sqrt((double)d);
    c->X = rand_mat(rng, N, d, 1.0);
    c->W_Q = rand_mat(rng, d, d_k, sw);
    c->W_K = rand_mat(rng, d, d_k, sw);
    c->W_V = rand_mat(rng, d, d_v, sw);
    c->W = mat_new(d, 2 * d_k + d_v);
    c->Wt = mat_new(2 * d_k + d_v, d);
    ck_assert_int_eq(fused_pack(c->W, c->W_Q, c->W_K, c->W_V), ATT_OK);
    gsl_matrix_transpose_memcpy(c->Wt, c->W);
}

static void fcase_free(fcase *c)
{
    mat_free(c->X); mat_free(c->W_Q); mat_free(c->W_K); mat_free(c->W_V);
    mat_free(c->W); mat_free(c->Wt);
}

START_TEST(test_prop_fused_equals_separate)
{
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    PROP_FOR(k, rng, "fused W_QKV product + split equals three products; (out, in) too") {
        fcase c;
        fcase_make(rng, &c, prop_size(rng, 1, 100), prop_size(rng, 1, 96),
                   prop_size(rng, 1, 40), prop_size(rng, 1, 40));
        size_t N = c.N, d_k = c.d_k, d_v = c.d_v, n = 2 * d_k + d_v;
        gsl_matrix *Q = mat_new(N, d_k), *K = mat_new(N, d_k), *V = mat_new(N, d_v);
        gsl_matrix *Q2 = mat_new(N, d_k), *K2 = mat_new(N, d_k), *V2 = mat_new(N, d_v);
        gsl_matrix *Qs = mat_new(N, d_k), *Ks = mat_new(N, d_k), *Vs = mat_new(N, d_v);
        gsl_matrix *QKV = mat_new(N, n);
        // separate: Q = X W_Q, K = X W_K, V = X W_V
        ck_assert_int_eq(head_project(Qs, c.X, c.W_Q, NULL), ATT_OK);
        ck_assert_int_eq(head_project(Ks, c.X, c.W_K, NULL), ATT_OK);
        ck_assert_int_eq(head_project(Vs, c.X, c.W_V, NULL), ATT_OK);
        // fused: [Q | K | V] = X W_QKV;  (out, in): X (W_QKV^T)^T
        PROP_ASSERT(fused_project(Q, K, V, QKV, c.X, c.W) == ATT_OK, "%s", att_last_error());
        PROP_ASSERT(fused_project_out_in(Q2, K2, V2, QKV, c.X, c.Wt) == ATT_OK, "%s",
                    att_last_error());
        /* |fl(x.w) - x.w| <= d eps |x| |w|; two computations, twice that */
        double tol = tol_eps(2, c.d, max_row_norm(c.X) * max_col_norm(c.W));
        double e1 =
            fmax(mat_max_abs_diff(Q, Qs), fmax(mat_max_abs_diff(K, Ks), mat_max_abs_diff(V, Vs)));
        double e2 =
            fmax(mat_max_abs_diff(Q2, Q), fmax(mat_max_abs_diff(K2, K), mat_max_abs_diff(V2, V)));
        PROP_ASSERT(e1 <= tol, "N %zu d %zu: fused vs separate %.3g > %.3g", N, c.d, e1, tol);
        PROP_ASSERT(e2 <= tol, "N %zu d %zu: (out, in) vs W_QKV %.3g > %.3g", N, c.d, e2, tol);
        mat_free(Q); mat_free(K); mat_free(V); mat_free(Q2); mat_free(K2); mat_free(V2);
        mat_free(Qs); mat_free(Ks); mat_free(Vs); mat_free(QKV);
        fcase_free(&c);
    }
    gsl_rng_free(rng);
}
END_TEST

START_TEST(test_prop_batched_equals_one_by_one)
{
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    PROP_FOR(k, rng, "batched head equals the head run on each sequence") {
        size_t B = prop_size(rng, 1, 6), T = prop_size(rng, 1, 40);
        fcase c;
        fcase_make(rng, &c, B * T, prop_size(rng, 1, 64), 2 * prop_size(rng, 1, 12),
                   prop_size(rng, 1, 24));
        gsl_vector *b_Q = mat_vec_new(c.d_k), *b_K = mat_vec_new(c.d_k), *b_V = mat_vec_new(c.d_v);
        mat_vec_randn(rng, b_Q, 0.5); mat_vec_randn(rng, b_K, 0.5); mat_vec_randn(rng, b_V, 0.5);
        head_params p = head_params_make(c.W_Q, c.W_K, c.W_V);
        if (gsl_rng_uniform(rng) < 0.5) { p.b_Q = b_Q; p.b_K = b_K; p.b_V = b_V; }
        p.rope = gsl_rng_uniform(rng) < 0.5;
        gsl_matrix *O = mat_new(B * T, c.d_v);
        PROP_ASSERT(head_forward_batched(O, &p, c.X, B, T) == ATT_OK, "%s", att_last_error());
        head_state st;
        ck_assert_int_eq(head_state_alloc(&st, T, T, c.d, c.d_k, c.d_v), ATT_OK);
        for (size_t b = 0; b < B; b++) {
            gsl_matrix_const_view Xb = gsl_matrix_const_submatrix(c.X, b * T, 0, T, c.d);
            gsl_matrix_const_view Ob = gsl_matrix_const_submatrix(O, b * T, 0, T, c.d_v);
            PROP_ASSERT(head_forward(&st, &p, &Xb.matrix, &Xb.matrix) == ATT_OK, "%s",
                        att_last_error());
            double tol = tol_attention_output(T, c.d + c.d_k, tol_score_bound(st.Q, st.K, p.scale),
                                         mat_max_abs(st.V))
                         + tol_eps(8, c.d, max_row_norm(&Xb.matrix) * max_col_norm(c.W_V));
            double err = mat_max_abs_diff(&Ob.matrix, st.O);
            PROP_ASSERT(err <= tol, "B %zu T %zu d %zu, sequence %zu: err %.3g > tol %.3g",
                        B, T, c.d, b, err, tol);
        }
        head_state_free(&st);
        mat_free(O); mat_vec_free(b_Q); mat_vec_free(b_K); mat_vec_free(b_V);
        fcase_free(&c);
    }
    gsl_rng_free(rng);
}
END_TEST

int main(void)
{
    att_init();
    prop_announce("test_tiled");
    Suite *s = suite_create("tiled");
    TCase *unit = tcase_create("unit");
    tcase_set_timeout(unit, 120);
    tcase_add_test(unit, test_exp_special_values);
    tcase_add_test(unit, test_ulps_apart);
    tcase_add_test(unit, test_exp_env);
    tcase_add_test(unit, test_tiled_nonfinite_and_shapes);
    tcase_add_test(unit, test_tiled_long_sequences);
    suite_add_tcase(s, unit);
    TCase *prop = tcase_create("properties");
    tcase_set_timeout(prop, 120);
    tcase_add_loop_test(prop, test_prop_exp_accuracy, 0, 6);
    tcase_add_loop_test(prop, test_prop_exp_paths_agree, 0, 4);
    tcase_add_test(prop, test_prop_tiled_attend_random);
    tcase_add_test(prop, test_prop_tiled_attend_adversarial);
    tcase_add_test(prop, test_prop_tiled_forward);
    tcase_add_test(prop, test_prop_thread_count_invariance);
    tcase_add_test(prop, test_prop_fused_equals_separate);
    tcase_add_test(prop, test_prop_batched_equals_one_by_one);
    suite_add_tcase(s, prop);
    return prop_run_suite(s);
}
