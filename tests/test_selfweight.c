/* test_selfweight.c - the Monte Carlo claims concentration,
 * naive_self_attention and random_projections: lib/claims/selfweight (the draw the experiments and
 * the bench use) against the library softmax, the engine's thread-count invariance on these draws,
 * and statistical checks of exact expectations at 5 standard errors with fixed seeds (so they never
 * flake).
 *
 * Exact expectations used (X, x, y entries N(0, 1); W entries N(0, c^2/d)):
 *   E||x||^2 = d,  Var ||x||^2 = 2d,  E(x.y)^2 = d                 (concentration)
 *   T = 2: T E[a_ii] = 1 exactly (W_Q -> -W_Q flips S, a(-S) = 1 - a(S))
 *   fresh-token control: T E[a'_ii] = 1 exactly (exchangeable keys)
 *   E[s_ii^2] = d_k c^4 (1 + 2/d),  E[s_ij^2] = d_k c^4   (i != j)
 *   raw head, T = 2: E[1 - a_ii] = 2^(-d/2 - 1)   (selfweight_leak_t2)
 *   Gram factor R of W = [W_K W_Q]: E[R^T R] = d sigma_w^2 I; its draw has the full draw's law
 *   raw head: E[s_ii^2] = E||x||^4 = d (d + 2), E[s_ij^2] = d; S = R^T R has X X^T's law
 */
#include "prop.h"
#include "tol.h"
#include "mat.h"
#include "mc.h"
#include "selfweight.h"
#include "softmax.h"
#include "statistics.h"
#include "status.h"

#include <float.h>
#include <math.h>
#include <string.h>
#include <omp.h>
#include <gsl/gsl_randist.h>

#define EPS DBL_EPSILON

/* ---- selfweight_row against the library softmax ------------------------ */

START_TEST(test_row_by_hand)
{
    /* s = (ln 3, 0, 0), self index 0: a_00 = 3 / (3 + 1 + 1) = 0.6, leak 0.4,
     * m = 0, Z = 2; the argmax is self */
    const double s[3] = {log(3.0), 0.0, 0.0};
    selfweight_row_t r;
    ck_assert_int_eq(selfweight_row(&r, s, 3, 0), ATT_OK);
    ck_assert_double_eq_tol(r.self, 0.6, 4 * EPS);
    ck_assert_double_eq_tol(r.leak, 0.4, 4 * EPS);
    ck_assert_double_eq(r.m, 0.0);
    ck_assert_double_eq(r.Z, 2.0);
    ck_assert_int_eq(r.argmax_self, 1);
    /* self index 1 of the same row: a_11 = 1/5, the argmax is not self */
    ck_assert_int_eq(selfweight_row(&r, s, 3, 1), ATT_OK);
    ck_assert_double_eq_tol(r.self, 0.2, 4 * EPS);
    ck_assert_int_eq(r.argmax_self, 0);
    /* a tie is not "argmax is self" */
    const double tie[2] = {1.0, 1.0};
    ck_assert_int_eq(selfweight_row(&r, tie, 2, 0), ATT_OK);
    ck_assert_double_eq(r.self, 0.5);
    ck_assert_int_eq(r.argmax_self, 0);
    /* one token: all its weight is self */
    ck_assert_int_eq(selfweight_row(&r, tie, 1, 0), ATT_OK);
    ck_assert_double_eq(r.self, 1.0);
    ck_assert_double_eq(r.leak, 0.0);
    /* NaN and infinite scores are errors, not numbers */
    const double bad[2] = {0.0, NAN}, inf[2] = {INFINITY, 0.0};
    ck_assert_int_eq(selfweight_row(&r, bad, 2, 0), ATT_ERUNTIME);
    ck_assert_int_eq(selfweight_row(&r, bad, 2, 1), ATT_ERUNTIME);
    ck_assert_int_eq(selfweight_row(&r, inf, 2, 0), ATT_ERUNTIME);
    ck_assert_int_eq(selfweight_row(&r, inf, 2, 1), ATT_ERUNTIME);
}
END_TEST

START_TEST(test_row_huge_scores)
{
    /* scores of the size d = 768 gives, and far beyond: no overflow */
    const double s[3] = {800.0, 700.0, 799.0};
    selfweight_row_t r;
    ck_assert_int_eq(selfweight_row(&r, s, 3, 0), ATT_OK);
    double want = 1.0 / (1.0 + exp(-100.0) + exp(-1.0));
    ck_assert_double_eq_tol(r.self, want, 4 * EPS);
    ck_assert_double_eq_tol(r.leak, 1.0 - want, 8 * EPS);
    const double far[2] = {1e150, -1e150};     /* e^{m - s} = e^{-2e150} = 0 */
    ck_assert_int_eq(selfweight_row(&r, far, 2, 0), ATT_OK);
    ck_assert_double_eq(r.self, 1.0);
    ck_assert_double_eq(r.leak, 0.0);
    ck_assert_int_eq(selfweight_row(&r, far, 2, 1), ATT_OK);   /* e^{+2e150} = inf */
    ck_assert_double_eq(r.self, 0.0);
    ck_assert_double_eq(r.leak, 1.0);
}
END_TEST

START_TEST(test_row_matches_softmax)
{
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    double s[300], a[300];
    PROP_FOR(k, rng, "selfweight_row equals the softmax's diagonal entry") {
        size_t n = prop_size(rng, 1, 300), i = prop_size(rng, 0, n - 1);
        double scale = pow(10.0, gsl_rng_uniform(rng) * 6.0 - 3.0);   /* 1e-3 .. 1e3 */
        for (size_t j = 0; j < n; j++) s[j] = gsl_ran_gaussian(rng, scale);
        if (gsl_rng_uniform(rng) < 0.3) s[i] += 10.0 * scale;          /* a dominant self */
        PROP_ASSERT(softmax_vec(a, s, n) == ATT_OK, "softmax failed");
        selfweight_row_t r;
        PROP_ASSERT(selfweight_row(&r, s, n, i) == ATT_OK, "selfweight_row failed");
        double others = 0.0;
        for (size_t j = 0; j < n; j++) if (j != i) others += a[j];
        double tol = tol_eps(8.0, n, 1.0);
        PROP_ASSERT(fabs(r.self - a[i]) <= tol, "n %zu: a_ii %.17g vs softmax %.17g", n, r.self,
                    a[i]);
        /* the leak keeps relative precision even when it is tiny */
        PROP_ASSERT(fabs(r.leak - others) <= tol * (others + 1e-300) + DBL_MIN,
                    "n %zu: leak %.17g vs sum of the others %.17g", n, r.leak, others);
        int argmax = 1;
        for (size_t j = 0; j < n; j++) if (j != i && s[j] >= s[i]) argmax = 0;
        PROP_ASSERT(r.argmax_self == argmax, "argmax flag %d, want %d", r.argmax_self, argmax);
    }
    gsl_rng_free(rng);
}
END_TEST

START_TEST(test_stable_at_d768)
{
    /* raw scores at GPT-2's width: s_ii ~ 768, beyond exp's 709.78 limit.
     * The row softmax stays finite and exact; plain exp overflows. */
    const size_t T = 64, d = 768;
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(rng, 768);
    gsl_matrix *X = mat_new(T, d), *S = mat_new(T, T), *A = mat_new(T, T);
    mat_randn(rng, X, 1.0);
    ck_assert_int_eq(mat_gemm(S, 1.0, X, 0, X, 1, 0.0), ATT_OK);
    ck_assert_int_eq(softmax_rows(A, S), ATT_OK);
    size_t overflow = 0;
    for (size_t i = 0; i < T; i++) {
        const double *s = S->data + i * S->tda, *a = A->data + i * A->tda;
        double sum = 0.0;
        for (size_t j = 0; j < T; j++) {
            ck_assert_msg(isfinite(a[j]), "a_%zu%zu not finite", i, j);
            sum += a[j];
            overflow += isinf(exp(s[j])) != 0;
        }
        ck_assert_msg(fabs(sum - 1.0) <= tol_eps(4.0, T, 1.0), "row %zu sums to %.17g", i, sum);
        selfweight_row_t r;
        ck_assert_int_eq(selfweight_row(&r, s, T, i), ATT_OK);
        ck_assert_msg(fabs(r.self - a[i]) <= tol_eps(8.0, T, 1.0), "row %zu: %.17g vs %.17g",
                      i, r.self, a[i]);
        ck_assert(r.argmax_self);
        ck_assert(r.leak < 1e-100);          /* 1 - a_ii is astronomically small ... */
        ck_assert(r.leak >= 0.0);            /* ... but never negative */
    }
    ck_assert_msg(overflow > 0, "no plain exp(s) overflowed: the test lost its point");
    /* and the workspace path (dsyrk) agrees with the gemm one */
    selfweight_work w;
    ck_assert_int_eq(selfweight_work_alloc(&w, T, d, 0, 0), ATT_OK);
    gsl_matrix_memcpy(w.X, X);
    double st[SW_NSTAT];
    ck_assert_int_eq(selfweight_raw(&w, st), ATT_OK);
    ck_assert_double_eq_tol(st[SW_SELF], 1.0, 4 * EPS);
    ck_assert_double_eq(st[SW_ARGMAX], 1.0);
    ck_assert(st[SW_MAX_SCORE] > 709.78);
    selfweight_work_free(&w);
    mat_free(X); mat_free(S); mat_free(A);
    gsl_rng_free(rng);
}
END_TEST

START_TEST(test_from_scores_by_hand)
{
    /* S = [ 2 0 ]   row 0: a_00 = e^2/(e^2+1), argmax self
     *     [ 3 1 ]   row 1: a_11 = e/(e^3+e) = 1/(e^2+1), argmax not self
     * diag_sq = (4 + 1)/2, off_sq = (0 + 9)/2; control s' = (0, 3):
     * a'_00 = 1/2, a'_11 = 1/2 */
    gsl_matrix *S = mat_new(2, 2);
    gsl_vector *c = mat_vec_new(2);
    gsl_matrix_set(S, 0, 0, 2); gsl_matrix_set(S, 0, 1, 0);
    gsl_matrix_set(S, 1, 0, 3); gsl_matrix_set(S, 1, 1, 1);
    gsl_vector_set(c, 0, 0.0); gsl_vector_set(c, 1, 3.0);
    double r[SW_NSTAT];
    ck_assert_int_eq(selfweight_from_scores(r, S, c), ATT_OK);
    double e2 = exp(2.0);
    ck_assert_double_eq_tol(r[SW_SELF], 0.5 * (e2 / (e2 + 1) + 1 / (e2 + 1)), 4 * EPS);
    ck_assert_double_eq_tol(r[SW_SELF] + r[SW_LEAK], 1.0, 4 * EPS);
    ck_assert_double_eq(r[SW_ARGMAX], 0.5);
    ck_assert_double_eq_tol(r[SW_CONTROL], 0.5, 4 * EPS);
    ck_assert_double_eq_tol(r[SW_EXCESS], 2.0 * (r[SW_SELF] - 0.5),
                            8 * EPS); /* T (self - control) */
    ck_assert_double_eq(r[SW_DIAG_SQ], 2.5);
    ck_assert_double_eq(r[SW_OFF_SQ], 4.5);
    ck_assert_double_eq(r[SW_MAX_SCORE], 3.0);
    ck_assert_int_eq(selfweight_from_scores(r, S, NULL), ATT_OK);                /* no control: 0 */
    ck_assert_double_eq(r[SW_CONTROL], 0.0);
    ck_assert_double_eq(r[SW_EXCESS], 0.0);
    gsl_vector *bad = mat_vec_new(3);
    ck_assert_int_eq(selfweight_from_scores(r, S, bad), ATT_EUSAGE);
    mat_vec_free(bad); mat_vec_free(c); mat_free(S);
}
END_TEST

START_TEST(test_work_errors)
{
    selfweight_work w;
    ck_assert_int_eq(selfweight_work_alloc(&w, 0, 4, 0, 0), ATT_EUSAGE);
    ck_assert_int_eq(selfweight_work_alloc(&w, 4, 4, 0, 1), ATT_EUSAGE);   /* control needs d_k */
    ck_assert_int_eq(selfweight_work_alloc(&w, 4, 4, 0, 0), ATT_OK);
    double r[SW_NSTAT];
    ck_assert_int_eq(selfweight_projected(&w, r), ATT_EUSAGE);           /* no projections */
    selfweight_work_free(&w);
    selfweight_work_free(&w);                                             /* twice is safe */
}
END_TEST

/* ---- the Monte Carlo draws of the experiments, through the engine -------- */

/* the experiments' draw itself (lib/claims/selfweight.h), through the engine */
typedef selfweight_config draw_ctx;

enum { S_SELF = SW_SELF, S_ARGMAX = SW_ARGMAX, S_CTRL = SW_CONTROL, S_DSQ = SW_DIAG_SQ,
       S_OSQ = SW_OFF_SQ, S_LEAK = SW_LEAK, NSTAT = SW_NSTAT };

static void *draw_alloc(void *ctx) { return selfweight_scratch_new(ctx); }

static int draw_one(gsl_rng *rng, void *ctx, void *scratch, size_t point, size_t i,
                    double *out)
{
    (void)point;   /* one point */
    (void)i;
    return selfweight_draw(rng, ctx, scratch, out);
}

/* the same through the Gram factor (selfweight_draw_gram) */
static int draw_one_gram(gsl_rng *rng, void *ctx, void *scratch, size_t point, size_t i,
                         double *out)
{
    (void)point;   /* one point */
    (void)i;
    return selfweight_draw_gram(rng, ctx, scratch, out);
}

typedef int draw_fn(gsl_rng *, void *, void *, size_t, size_t, double *);

static void run_with(draw_fn *draw, stat_acc acc[NSTAT], draw_ctx *c, size_t draws,
                     unsigned long seed, int threads)
{
    mc_config cfg = {.rng_name = "mt19937",
                     .seed = seed,
                     .stream = 1,
                     .draws = draws,
                     .nstats = NSTAT,
                     .draw = draw,
                     .alloc = draw_alloc,
                     .free = selfweight_scratch_delete,
                     .ctx = c,
                     .quiet = 1};
    omp_set_num_threads(threads);
    ck_assert_int_eq(mc_run(&cfg, acc), ATT_OK);
}

static void run(stat_acc acc[NSTAT], draw_ctx *c, size_t draws, unsigned long seed, int threads)
{
    run_with(draw_one, acc, c, draws, seed, threads);
}

/* |mean - want| <= 5 se */
static void assert_near(const stat_acc *a, double k, double want, const char *what)
{
    double m = k * a->mean, se = k * stat_se(a);
    ck_assert_msg(fabs(m - want) <= 5.0 * se, "%s: %.6f, want %.6f (se %.2g)", what, m, want, se);
}

START_TEST(test_threads_bit_identical)
{
    /* the random_projections draw with the control, 1 vs 2 threads: the same
     * bits, including a partial last block */
    draw_ctx c = {8, 16, 4, 0.25, 1};
    stat_acc a1[NSTAT], a2[NSTAT];
    run(a1, &c, 3 * MC_BLOCK + 5, 7, 1);
    run(a2, &c, 3 * MC_BLOCK + 5, 7, 2);
    for (int s = 0; s < NSTAT; s++)
        ck_assert_msg(a1[s].n == a2[s].n && !memcmp(&a1[s].mean, &a2[s].mean, sizeof(double)) &&
                          !memcmp(&a1[s].m2, &a2[s].m2, sizeof(double)),
                      "statistic %d: %.17g (1 thread) vs %.17g (2 threads)", s, a1[s].mean,
                      a2[s].mean);
    /* the naive draw too */
    draw_ctx n = {12, 20, 0, 0.0, 0};
    run(a1, &n, 2 * MC_BLOCK, 7, 1);
    run(a2, &n, 2 * MC_BLOCK, 7, 2);
    ck_assert(!memcmp(&a1[S_SELF].mean, &a2[S_SELF].mean, sizeof(double)));
    ck_assert(!memcmp(&a1[S_SELF].m2, &a2[S_SELF].m2, sizeof(double)));
}
END_TEST

START_TEST(test_naive_large_d_is_self)
{
    /* d = 64, T = 8: 1 - a_ii ~ 7 * 2^-32, every row's argmax is itself */
    draw_ctx c = {8, 64, 0, 0.0, 0};
    stat_acc a[NSTAT];
    run(a, &c, 512, 11, 2);
    ck_assert_msg(a[S_SELF].min > 1.0 - 1e-6, "smallest self-weight %.17g", a[S_SELF].min);
    ck_assert_double_eq(a[S_ARGMAX].min, 1.0);
    /* and at d = 2, T = 64 it is far from self-dominant */
    draw_ctx s = {64, 2, 0, 0.0, 0};
    run(a, &s, 512, 11, 2);
    ck_assert_msg(a[S_SELF].mean < 0.2, "mean self-weight %.4f at d = 2", a[S_SELF].mean);
}
END_TEST

START_TEST(test_projected_exact_expectations)
{
    /* T = 2: T E[a_ii] = 1 exactly, at a scale and width where the excess
     * would otherwise be large (d = 4) */
    draw_ctx two = {2, 4, 4, 1.0 / sqrt(4.0), 1};
    stat_acc a[NSTAT];
    run(a, &two, 8192, 21, 2);
    assert_near(&a[S_SELF], 2.0, 1.0, "T = 2: T mean a_ii");
    /* the fresh-token control is exactly 1/T; E[s_ii^2] = d_k (1 + 2/d), E[s_ij^2] = d_k */
    draw_ctx c = {8, 4, 4, 1.0 / sqrt(4.0), 1};
    run(a, &c, 8192, 22, 2);
    assert_near(&a[S_CTRL], 8.0, 1.0, "control: T mean a'_ii");
    assert_near(&a[S_DSQ], 1.0, 4.0 * (1.0 + 2.0 / 4.0), "E[s_ii^2]");
    assert_near(&a[S_OSQ], 1.0, 4.0, "E[s_ij^2]");
}
END_TEST

START_TEST(test_projected_about_one_over_T)
{
    /* about 1/T: at d = 64, d_k = 16, T = 8, T mean a_ii within 0.05 of 1 */
    draw_ctx c = {8, 64, 16, 1.0 / 8.0, 0};
    stat_acc a[NSTAT];
    run(a, &c, 4096, 23, 2);
    double m = 8.0 * a[S_SELF].mean, se = 8.0 * stat_se(&a[S_SELF]);
    ck_assert_msg(fabs(m - 1.0) <= 0.05 && se < 0.02, "T mean a_ii %.4f (se %.3f)", m, se);
    /* ... but not exactly: at d = 4 the own key beats the fresh-token control */
    draw_ctx s = {16, 4, 4, 1.0 / 2.0, 1};
    run(a, &s, 4096, 24, 2);
    double diff = 16.0 * (a[S_SELF].mean - a[S_CTRL].mean);
    double se2 = 16.0 * sqrt(stat_var(&a[S_SELF]) + stat_var(&a[S_CTRL])) / sqrt(4096.0);
    ck_assert_msg(diff > 5.0 * se2, "excess %.4f (se <= %.4f)", diff, se2);
}
END_TEST

/* ---- the Gram-factor draw: the same law (selfweight.h) ---------------------- */

START_TEST(test_gram_factor_shape)
{
    /* R (r, 2 d_k): zero below the diagonal, a positive diagonal, r = min(d, 2 d_k); and
     * E[R^T R] = d sigma^2 I (W^T W's mean), entry by entry over 4000 factors at 5 se */
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    const size_t cases[][2] = {{3, 4}, {8, 4}, {20, 4}, {5, 2}};
    for (size_t t = 0; t < 4; t++) {
        size_t d = cases[t][0], dk = cases[t][1], p = 2 * dk, r = selfweight_gram_rows(d, dk);
        ck_assert_uint_eq(r, d < p ? d : p);
        double RK[8][4], RQ[8][4], sigma = 0.7;
        stat_acc g[8][8];
        for (size_t a = 0; a < p; a++) for (size_t b = 0; b < p; b++) stat_init(&g[a][b]);
        for (int n = 0; n < 4000; n++) {
            selfweight_gram_factor(rng, d, dk, sigma, &RK[0][0], 4, &RQ[0][0], 4);
            for (size_t a = 0; a < r; a++)
                for (size_t b = 0; b < p; b++) {
                    double v = b < dk ? RK[a][b] : RQ[a][b - dk];
                    if (b < a) ck_assert_msg(v == 0.0, "d %zu: R[%zu][%zu] = %g", d, a, b, v);
                    if (b == a) ck_assert_msg(v > 0.0, "d %zu: R[%zu][%zu] = %g", d, a, b, v);
                }
            /* G = R^T R (p, p) */
            for (size_t a = 0; a < p; a++)
                for (size_t b = 0; b < p; b++) {
                    double v = 0.0;
                    for (size_t m = 0; m < r; m++)
                        v += (a < dk ? RK[m][a] : RQ[m][a - dk]) * (b < dk ? RK[m][b] : RQ[m][b - dk]);
                    stat_push(&g[a][b], v);
                }
        }
        for (size_t a = 0; a < p; a++)
            for (size_t b = 0; b < p; b++) {
                double want = a == b ? (double)d * sigma * sigma : 0.0;
                ck_assert_msg(fabs(g[a][b].mean - want) <= 5.0 * stat_se(&g[a][b]),
                              "d %zu d_k %zu: E[G_%zu%zu] %.4f, want %.4f (se %.2g)", d, dk, a, b,
                              g[a][b].mean, want, stat_se(&g[a][b]));
            }
    }
    gsl_rng_free(rng);
}
END_TEST

START_TEST(test_gram_draw_same_law)
{
    /* at d < 2 d_k and d > 2 d_k: the exact expectations (control 1/T, E[s_ii^2], E[s_ij^2]),
     * and the self-weight, argmax and control against the full draw (X, W drawn): two
     * independent means within 5 combined se; 1 vs 2 threads the same bits */
    const size_t ds[] = {4, 16};
    for (int t = 0; t < 2; t++) {
        size_t d = ds[t];
        draw_ctx c = {8, d, 4, 1.0 / sqrt((double)d), 1};
        stat_acc g[NSTAT], f[NSTAT], g2[NSTAT];
        run_with(draw_one_gram, g, &c, 16384, 31, 2);
        run(f, &c, 16384, 32, 2);
        assert_near(&g[S_CTRL], 8.0, 1.0, "Gram draw: control T mean a'_ii");
        assert_near(&g[S_DSQ], 1.0, 4.0 * (1.0 + 2.0 / (double)d), "Gram draw: E[s_ii^2]");
        assert_near(&g[S_OSQ], 1.0, 4.0, "Gram draw: E[s_ij^2]");
        const int cmp[] = {S_SELF, S_ARGMAX, S_CTRL, S_DSQ};
        for (int k = 0; k < 4; k++) {
            int s = cmp[k];
            double z = (g[s].mean - f[s].mean) / hypot(stat_se(&g[s]), stat_se(&f[s]));
            ck_assert_msg(fabs(z) < 5.0, "d %zu, statistic %d: Gram %.5f vs full %.5f (z %.2f)", d,
                          s, g[s].mean, f[s].mean, z);
        }
        run_with(draw_one_gram, g2, &c, 3 * MC_BLOCK + 5, 33, 1);
        run_with(draw_one_gram, g, &c, 3 * MC_BLOCK + 5, 33, 2);
        for (int s = 0; s < NSTAT; s++)
            ck_assert_msg(!memcmp(&g[s].mean, &g2[s].mean, sizeof(double)) &&
                              !memcmp(&g[s].m2, &g2[s].m2, sizeof(double)),
                          "Gram draw, statistic %d: 1 vs 2 threads differ", s);
    }
    /* the fresh keys' own law: E[s'_ii^2] = E[(q_i . k'_i)^2] = d_k c^4 (no shared token) */
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    draw_ctx c = {8, 16, 4, 0.25, 1};
    selfweight_work *w = selfweight_scratch_new(&c);
    ck_assert_ptr_nonnull(w);
    stat_acc sc;
    stat_init(&sc);
    for (int n = 0; n < 8192; n++) {
        double out[SW_NSTAT];
        ck_assert_int_eq(selfweight_draw_gram(rng, &c, w, out), ATT_OK);
        double v = 0.0;
        for (size_t i = 0; i < c.T; i++) v += pow(gsl_vector_get(w->s_ctrl, i), 2) / (double)c.T;
        stat_push(&sc, v);
    }
    assert_near(&sc, 1.0, 4.0, "Gram draw: E[s'_ii^2]");
    selfweight_scratch_delete(w);
    gsl_rng_free(rng);
}
END_TEST

START_TEST(test_gram_draw_raw_same_law)
{
    /* the raw head (d_k = 0), S = R^T R, at d < T and d > T: E[s_ii^2] = E||x||^4 = d (d + 2),
     * E[s_ij^2] = d, and the self-weight, leak (in units of the law at the true d), argmax
     * against the full draw S = X X^T within 5 combined se */
    const size_t ds[] = {4, 12};
    for (int t = 0; t < 2; t++) {
        double d = (double)ds[t];
        draw_ctx c = {8, ds[t], 0, 0.0, 0};
        stat_acc g[NSTAT], f[NSTAT];
        run_with(draw_one_gram, g, &c, 16384, 34, 2);
        run(f, &c, 16384, 35, 2);
        assert_near(&g[S_DSQ], 1.0, d * (d + 2.0), "raw Gram draw: E[s_ii^2]");
        assert_near(&g[S_OSQ], 1.0, d, "raw Gram draw: E[s_ij^2]");
        const int cmp[] = {S_SELF, SW_LEAK_LAW, S_ARGMAX, S_DSQ};
        for (int k = 0; k < 4; k++) {
            int s = cmp[k];
            double z = (g[s].mean - f[s].mean) / hypot(stat_se(&g[s]), stat_se(&f[s]));
            ck_assert_msg(fabs(z) < 5.0, "raw, d %g, statistic %d: Gram %.5g vs full %.5g (z %.2f)",
                          d, s, g[s].mean, f[s].mean, z);
        }
    }
}
END_TEST

/* ---- the shared draw: properties ------------------------------------------ */

START_TEST(test_draw_properties)
{
    /* for random configs: self + leak = 1, the law-scaled leak times the law
     * is the leak, fractions in [0, 1], the control in (0, 1); and a workspace
     * that served another shape gives the same bits as a fresh one (a grid
     * point alone = the same point in a sweep) */
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937), *r1 = gsl_rng_alloc(gsl_rng_mt19937),
            *r2 = gsl_rng_alloc(gsl_rng_mt19937);
    selfweight_config big = {40, 40, 8, 1.0, 1};
    selfweight_work *shared = selfweight_scratch_new(&big);
    ck_assert_ptr_nonnull(shared);
    PROP_FOR(k, rng, "selfweight_draw: self + leak = 1, same bits in a reused workspace") {
        selfweight_config c = {prop_size(rng, 2, 40), prop_size(rng, 1, 40), 0, 0.0, 0};
        if (gsl_rng_uniform(rng) < 0.5) {
            c.d_k = prop_size(rng, 1, 8);
            c.sigma_w = 1.0 / sqrt((double)c.d);
            c.control = gsl_rng_uniform(rng) < 0.5;
        }
        selfweight_work *fresh = selfweight_scratch_new(&c);
        PROP_ASSERT(fresh != NULL, "workspace");
        double a[SW_NSTAT], b[SW_NSTAT];
        unsigned long seed = gsl_rng_get(rng);
        gsl_rng_set(r1, seed);
        gsl_rng_set(r2, seed);
        PROP_ASSERT(selfweight_draw(r1, &c, fresh, a) == ATT_OK, "draw");
        PROP_ASSERT(selfweight_draw(r2, &c, shared, b) == ATT_OK, "draw (shared)");
        PROP_ASSERT(!memcmp(a, b, sizeof a), "T %zu d %zu d_k %zu: reused workspace differs", c.T,
                    c.d, c.d_k);
        PROP_ASSERT(fabs(a[SW_SELF] + a[SW_LEAK] - 1.0) <= tol_eps(4.0, c.T, 1.0),
                    "self %.17g + leak %.17g", a[SW_SELF], a[SW_LEAK]);
        PROP_ASSERT(a[SW_ARGMAX] >= 0.0 && a[SW_ARGMAX] <= 1.0, "argmax fraction %g", a[SW_ARGMAX]);
        if (c.d_k == 0)
            PROP_ASSERT(fabs(a[SW_LEAK_LAW] * selfweight_leak_law(c.T, (double)c.d) - a[SW_LEAK])
                        <= 8.0 * EPS * a[SW_LEAK], "law-scaled leak");
        if (c.control)
            PROP_ASSERT(a[SW_CONTROL] > 0.0 && a[SW_CONTROL] < 1.0, "control %g", a[SW_CONTROL]);
        selfweight_scratch_delete(fresh);
    }
    selfweight_scratch_delete(shared);
    gsl_rng_free(rng); gsl_rng_free(r1); gsl_rng_free(r2);
}
END_TEST

START_TEST(test_t2_exact)
{
    /* the closed form 2^(-d/2 - 1) against quadrature, d = 1..60 */
    for (int d = 1; d <= 60; d++) {
        double e = selfweight_leak_t2(d), q = selfweight_leak_t2_numeric(d);
        ck_assert_msg(fabs(q / e - 1.0) <= 1e-7, "d %d: closed form %.10g, quadrature %.10g", d, e,
                      q);
    }
    ck_assert_double_eq(selfweight_leak_t2(32), 0x1p-17);   /* 7.6e-6 */
    /* ... and against Monte Carlo of the raw head at T = 2, d = 4..12: within
     * 5 standard errors (the law-scaled leak's, well estimated at small d) */
    for (size_t d = 4; d <= 12; d += 2) {
        draw_ctx c = {2, d, 0, 0.0, 0};
        stat_acc a[NSTAT];
        run(a, &c, 20000, 30 + d, 2);
        double law = selfweight_leak_law(2, (double)d), m = a[SW_LEAK].mean;
        double se = law * stat_se(&a[SW_LEAK_LAW]), want = selfweight_leak_t2((double)d);
        ck_assert_msg(fabs(m - want) <= 5.0 * se, "d %zu: Monte Carlo %.6g (se %.2g), exact %.6g",
                      d, m, se, want);
        /* a positive control of the test: the law (twice the exact value) is rejected */
        ck_assert_msg(fabs(m - law) > 5.0 * se,
                      "d %zu: the test cannot tell the law from the exact", d);
    }
}
END_TEST

START_TEST(test_contour_crossing)
{
    /* synthetic leak l(d) = A 2^(-d/2): d* = 2 log2(A / L) exactly (log-linear) */
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    PROP_FOR(k, rng, "contour crossing recovers d* of an exact law; se by the delta method") {
        double A = pow(10.0, gsl_rng_uniform(rng) * 3.0),
               level = 0.99 + 0.009 * gsl_rng_uniform(rng);
        double d[40], l[40], se[40], rse = 0.01 + 0.1 * gsl_rng_uniform(rng);
        for (int i = 0; i < 40; i++) {
            d[i] = 2.0 + i;
            l[i] = A * exp2(-0.5 * d[i]);
            se[i] = rse * l[i];
        }
        double want = 2.0 * log2(A / (1.0 - level));
        if (want <= 2.0 || want >= 41.0) continue;
        selfweight_crossing x;
        PROP_ASSERT(selfweight_contour_crossing(d, l, se, 40, level, &x) == ATT_OK, "no crossing");
        PROP_ASSERT(fabs(x.d_star - want) <= 1e-9 * want, "d* %.12g, want %.12g", x.d_star, want);
        PROP_ASSERT(d[x.k] <= want && want <= d[x.k + 1], "bracket %g..%g", d[x.k], d[x.k + 1]);
        /* se: perturb each neighbour's log by its se, the squared shifts add up */
        double t = (want - d[x.k]), dl = -0.5 * log(2.0);
        double ga = -(1.0 - t) / dl, gb = -t / dl, s = rse * sqrt(ga * ga + gb * gb);
        PROP_ASSERT(fabs(x.se - s) <= 1e-9 * s, "se %.12g, want %.12g", x.se, s);
        PROP_ASSERT(x.lo < x.d_star && x.d_star < x.hi, "CI [%g, %g] around %g", x.lo, x.hi,
                    x.d_star);
    }
    /* no crossing: an error, not a number */
    double d[3] = {1, 2, 3}, l[3] = {0.5, 0.4, 0.3}, se[3] = {0.01, 0.01, 0.01};
    selfweight_crossing x;
    ck_assert_int_eq(selfweight_contour_crossing(d, l, se, 3, 0.995, &x), ATT_ERUNTIME);
    /* the weighted slope of points on a line is the line's, with the errors' se */
    double xs[4] = {0, 1, 2, 3}, ys[4] = {1, 3, 5, 7}, ss[4] = {1, 1, 1, 1}, sse;
    ck_assert(fabs(selfweight_weighted_slope(xs, ys, ss, 4, &sse) - 2.0) <= 16 * EPS);
    ck_assert(fabs(sse - 1.0 / sqrt(5.0)) <= 16 * EPS);   /* sqrt(sum w / D) = sqrt(4 / 20) */
    gsl_rng_free(rng);
}
END_TEST

START_TEST(test_concentration_laws)
{
    /* E||x||^2 = d, Var ||x||^2 = 2d, E(x.y)^2 = d, for a small and a large d */
    const size_t dims[2] = {3, 300};
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(rng, 25);
    for (int k = 0; k < 2; k++) {
        size_t d = dims[k];
        stat_acc n2, dev2, dot2;
        stat_init(&n2); stat_init(&dev2); stat_init(&dot2);
        for (int it = 0; it < 20000; it++) {
            double a = 0.0, b = 0.0;
            for (size_t j = 0; j < d; j++) {
                double x = gsl_ran_gaussian_ziggurat(rng, 1.0),
                       y = gsl_ran_gaussian_ziggurat(rng, 1.0);
                a += x * x;
                b += x * y;
            }
            stat_push(&n2, a);
            stat_push(&dev2, (a - (double)d) * (a - (double)d));
            stat_push(&dot2, b * b);
        }
        assert_near(&n2, 1.0, (double)d, "mean ||x||^2");
        assert_near(&dev2, 1.0, 2.0 * (double)d, "mean (||x||^2 - d)^2");
        assert_near(&dot2, 1.0, (double)d, "mean (x.y)^2");
    }
    gsl_rng_free(rng);
}
END_TEST

/* selfweight_self_flipped (random_projections' antithetic draw, -W_K): the mean a_ii of -S
 * equals selfweight_from_scores on -S, and at T = 2 a_11(S) + a_11(-S) = 1 exactly up to
 * rounding (what makes T E[a_ii] = 1 there) */
START_TEST(test_flipped_matches_negated)
{
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    PROP_FOR(k, rng, "selfweight_self_flipped equals the mean a_ii of -S") {
        size_t T = prop_size(rng, 1, 40);
        double scale = pow(10.0, gsl_rng_uniform(rng) * 4.0 - 2.0);   /* 1e-2 .. 1e2 */
        gsl_matrix *S = mat_new(T, T), *N = mat_new(T, T);
        PROP_ASSERT(S && N, "no memory");
        for (size_t i = 0; i < T; i++)
            for (size_t j = 0; j < T; j++) {
                double v = gsl_ran_gaussian(rng, scale);
                gsl_matrix_set(S, i, j, v), gsl_matrix_set(N, i, j, -v);
            }
        double out[SW_NSTAT], plain[SW_NSTAT], flip = NAN, tol = tol_eps(8.0, T, 1.0);
        PROP_ASSERT(selfweight_self_flipped(S, &flip) == ATT_OK, "flipped failed");
        PROP_ASSERT(selfweight_from_scores(out, N, NULL) == ATT_OK, "from_scores failed");
        PROP_ASSERT(fabs(flip - out[SW_SELF]) <= tol,
                    "T %zu: flipped %.17g vs mean a_ii of -S %.17g", T, flip, out[SW_SELF]);
        if (T == 2) {
            PROP_ASSERT(selfweight_from_scores(plain, S, NULL) == ATT_OK, "from_scores failed");
            PROP_ASSERT(fabs(plain[SW_SELF] + flip - 1.0) <= tol, "T 2: a(S) + a(-S) = %.17g",
                        plain[SW_SELF] + flip);
        }
        mat_free(S);
        mat_free(N);
    }
    gsl_rng_free(rng);
}
END_TEST

PROP_MAIN("test_selfweight",
          {"core",
           120,
           {test_row_by_hand, test_row_huge_scores, test_row_matches_softmax, test_stable_at_d768,
            test_from_scores_by_hand, test_work_errors, test_threads_bit_identical,
            test_naive_large_d_is_self, test_projected_exact_expectations,
            test_projected_about_one_over_T, test_concentration_laws, test_draw_properties,
            test_t2_exact, test_contour_crossing, test_flipped_matches_negated,
            test_gram_factor_shape, test_gram_draw_same_law, test_gram_draw_raw_same_law}})
