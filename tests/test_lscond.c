/* test_lscond.c - the long_sequences conditional estimator and its crossing:
 * lib/claims/longseq.h (E[T a_ii | s, sigma] by quadrature, the W draws' control
 * variates, the density of det at 0) and lib/run/curve.h (the fit and the crossing).
 *
 * Independent computations used:
 *   sigma = 0: g_T(s, 0) = T e^s / (e^s + T - 1) exactly;
 *   psi_sigma(tau) = -log phi(e^tau) by GSL's adaptive quadrature on R (qagi);
 *   g_T by the explicit sum: T e^s / (e^s + sum_j e^{sigma z_j}) averaged over z;
 *   T = 2: T E[a_ii] = 1 (W_K -> -W_K maps s_ii -> -s_ii, s_ij -> -s_ij: a_ii -> a_jj);
 *   small T with real X: T softmax(x_1 M X^T)_1 over X (no shortcut at all);
 *   T = 256 at the section's sizes: the explicit sum of the T - 1 other terms (longseq.h);
 *   the crossing CI's coverage on synthetic curves with a known crossing.
 * Statistical checks: fixed printed seeds, 5 standard errors.
 */
#include "prop.h"
#include "curve.h"
#include "longseq_ref.h"
#include "mat.h"
#include "softmax.h"
#include "statistics.h"
#include "status.h"

#include <float.h>
#include <math.h>
#include <gsl/gsl_sf_bessel.h>
#include <gsl/gsl_blas.h>
#include <gsl/gsl_eigen.h>
#include <gsl/gsl_integration.h>
#include <gsl/gsl_linalg.h>
#include <gsl/gsl_randist.h>

static longseq_cond_table tab;

static void setup(void) { ck_assert_int_eq(longseq_cond_table_build(&tab), ATT_OK); }
static void teardown(void) { longseq_cond_table_free(&tab); }

START_TEST(test_sigma_zero_exact)
{
    const double Ts[] = {1, 2, 3, 10, 1000, 1e6};
    const double ss[] = {-8, -1, 0, 0.5, 3, 12};
    double out[6];
    for (size_t a = 0; a < 6; a++) {
        longseq_cond_self(&tab, ss[a], 0.0, Ts, 6, LONGSEQ_COND_H, out);
        for (size_t k = 0; k < 6; k++) {
            double want = Ts[k] * exp(ss[a]) / (exp(ss[a]) + Ts[k] - 1.0);
            /* the trapezoid's own error at LONGSEQ_COND_H (longseq.h): for T = 1 the integral
             * of e^{v - e^v}, Gamma(1), off by 2 |Gamma(1 + 2 pi i/h)| ~ 1.2e-6 at h = 0.6 */
            ck_assert_msg(fabs(out[k] / want - 1.0) < 3e-6, "s %g T %g: %.12g vs %.12g", ss[a],
                          Ts[k], out[k], want);
        }
    }
}
END_TEST

typedef struct { double sigma, t; } phi_par;
static double phi_integrand(double z, void *vp)
{
    const phi_par *p = vp;
    return exp(-p->t * exp(p->sigma * z) - 0.5 * z * z) / sqrt(2.0 * M_PI);
}

START_TEST(test_psi_against_adaptive_quadrature)
{
    /* phi by QAGI (GSL, adaptive, its own error estimate) where phi is not tiny;
     * psi from the table and directly, against it */
    gsl_rng *rng = rng_new("mt19937", 1);
    gsl_integration_workspace *ws = gsl_integration_workspace_alloc(2000);
    PROP_FOR(k, rng, "psi matches adaptive quadrature")
    {
        phi_par p = {gsl_rng_uniform(rng) * 6.0, exp(-8.0 + 12.0 * gsl_rng_uniform(rng))};
        gsl_function f = {phi_integrand, &p};
        double phi, err;
        gsl_integration_qagi(&f, 1e-14, 1e-12, 2000, ws, &phi, &err);
        double want = -log(phi), tau = log(p.t);
        double a = longseq_cond_psi_direct(p.sigma, tau), b = longseq_cond_psi(&tab, p.sigma, tau);
        PROP_ASSERT(fabs(a / want - 1.0) < 1e-8 + 4 * err / phi,
                    "sigma %g tau %g: direct %.12g vs %.12g", p.sigma, tau, a, want);
        PROP_ASSERT(fabs(b / want - 1.0) < 5e-5, "sigma %g tau %g: table %.12g vs %.12g", p.sigma,
                    tau, b, want);
    }
    gsl_integration_workspace_free(ws);
    gsl_rng_free(rng);
}
END_TEST

START_TEST(test_table_matches_direct_everywhere)
{
    gsl_rng *rng = rng_new("mt19937", 2);
    PROP_FOR(k, rng, "psi table within 5e-5 of the direct psi")
    {
        double sg = gsl_rng_uniform(rng) * 8.5, tau = -105.0 + 150.0 * gsl_rng_uniform(rng);
        double a = longseq_cond_psi(&tab, sg, tau), b = longseq_cond_psi_direct(sg, tau);
        PROP_ASSERT(fabs(a / b - 1.0) < 5e-5, "sigma %g tau %g: %.12g vs %.12g", sg, tau, a, b);
    }
    gsl_rng_free(rng);
}
END_TEST

START_TEST(test_step_converged)
{
    /* the experiment's step against a step 8 times finer, psi computed directly: within
     * 1e-5 relative, far below the curve's smallest Monte Carlo standard error (7e-5) */
    gsl_rng *rng = rng_new("mt19937", 3);
    const double Ts[] = {2, 16, 1024, 65536, 1048576};
    PROP_FOR(k, rng, "v-step LONGSEQ_COND_H agrees with one 8 times finer")
    {
        if (k >= 12) break;
        double s = gsl_ran_gaussian(rng, 3.0), sg = gsl_rng_uniform(rng) * 7.0, a[5], b[5];
        longseq_cond_self(&tab, s, sg, Ts, 5, LONGSEQ_COND_H, a);
        longseq_cond_self(NULL, s, sg, Ts, 5, LONGSEQ_COND_H / 8.0, b);
        for (size_t j = 0; j < 5; j++)
            PROP_ASSERT(fabs(a[j] - b[j]) <= 1e-5 * b[j] + 1e-300,
                        "s %g sigma %g T %g: %.10g vs %.10g", s, sg, Ts[j], a[j], b[j]);
    }
    gsl_rng_free(rng);
}
END_TEST

START_TEST(test_doubling_grid_matches_single_lengths)
{
    /* longseq_cond_self squares e^{-(T - 1) psi} along a doubling grid: against a call per T
     * (its e^{-(T - 1) psi} by its own exp); relative rounding grows like 2^k DBL_EPSILON */
    gsl_rng *rng = rng_new("mt19937", 1);   /* reseeded per case by PROP_FOR */
    double Ts[20];
    for (int k = 0; k < 20; k++) Ts[k] = ldexp(1.0, k + 1);
    PROP_FOR(k, rng, "the doubling grid equals single lengths")
    {
        double s = gsl_ran_gaussian(rng, 4.0), sg = gsl_rng_uniform(rng) * 7.0, a[20];
        longseq_cond_self(&tab, s, sg, Ts, 20, LONGSEQ_COND_H, a);
        for (int j = 0; j < 20; j++) {
            /* {T_j, 2^20}: the same v-range (it depends on the longest T), no doubling but for j =
             * 18 */
            double pair[2] = {Ts[j], Ts[19]}, bb[2];
            longseq_cond_self(&tab, s, sg, pair, j == 19 ? 1 : 2, LONGSEQ_COND_H, bb);
            double b = bb[0];
            PROP_ASSERT(fabs(a[j] - b) <= 64.0 * ldexp(1.0, j + 1) * DBL_EPSILON * b + 1e-300,
                        "s %g sigma %g T %g: grid %.17g, alone %.17g", s, sg, Ts[j], a[j], b);
        }
    }
    gsl_rng_free(rng);
}
END_TEST

START_TEST(test_mixture_two_tokens_section_scale)
{
    /* the experiment's rows at the section's scale (d = 64, d_k = 16, c = 1), where the
     * tilted law's weights have infinite variance: 8 rows per W from q = p/8 + 7 q1/8 give
     * T E[a_ii] = 1 at T = 2 (W_K -> -W_K) within 5 standard errors (seed 11) */
    gsl_rng *rng = rng_new("mt19937", 11);
    longseq_work w;
    ck_assert_int_eq(longseq_work_alloc(&w, 64, 16), ATT_OK);
    const double T2[] = {2};
    stat_acc a;
    stat_init(&a);
    for (size_t n = 0; n < prop_draws(3000); n++) {
        longseq_weights g;
        ck_assert_int_eq(longseq_draw_weights(rng, &w, 1.0, &g), ATT_OK);
        double m = 0.0;
        for (int r = 0; r < 8; r++) {
            longseq_query q;
            double out;
            longseq_draw_row(rng, &w, &g, r > 0, 0.125, &q);
            ck_assert(q.log_ratio <= log(8.0) + 1e-12);   /* p/q <= 1/alpha */
            longseq_cond_self(&tab, q.s, sqrt(q.sigma2), T2, 1, LONGSEQ_COND_H, &out);
            m += out * exp(q.log_ratio) / 8.0;
        }
        stat_push(&a, m);
    }
    ck_assert_msg(fabs(a.mean - 1.0) < 5.0 * stat_se(&a),
                  "mixture at T = 2: %.5f +- %.5f, not 1 (seed 11)", a.mean, stat_se(&a));
    longseq_work_free(&w);
    gsl_rng_free(rng);
}
END_TEST

START_TEST(test_against_explicit_sum)
{
    const double cases[][2] = {{1.0, 1.0}, {-3.0, 2.0}, {2.0, 4.0}, {0.0, 0.3}, {5.0, 6.0}};
    const double Ts[] = {2, 3, 5, 17};
    gsl_rng *rng = rng_new("mt19937", 4);
    for (size_t c = 0; c < 5; c++) {
        double s = cases[c][0], sg = cases[c][1], g[4];
        longseq_cond_self(&tab, s, sg, Ts, 4, LONGSEQ_COND_H, g);
        for (size_t t = 0; t < 4; t++) {
            stat_acc a;
            stat_init(&a);
            for (size_t n = 0; n < prop_draws(40000); n++) {
                double S = 0.0;
                for (int j = 0; j + 1 < Ts[t]; j++)
                    S += exp(sg * gsl_ran_gaussian_ziggurat(rng, 1.0));
                stat_push(&a, Ts[t] * exp(s) / (exp(s) + S));
            }
            double z = (a.mean - g[t]) / stat_se(&a);
            ck_assert_msg(fabs(z) < 5.0,
                          "s %g sigma %g T %g: explicit %.6g +- %.2g, quadrature %.6g (seed 4)", s,
                          sg, Ts[t], a.mean, stat_se(&a), g[t]);
        }
    }
    gsl_rng_free(rng);
}
END_TEST

/* T a_ii of row 1 of T real tokens: T softmax(x_1 M X^T)_1, M = W_Q W_K^T */
static double explicit_row(gsl_rng *rng, const gsl_matrix *WQ, const gsl_matrix *WK, size_t T,
                           gsl_vector *x1)
{
    size_t d = WQ->size1, dk = WQ->size2;
    double q[16], sc[64];
    for (size_t a = 0; a < dk; a++) {
        q[a] = 0.0;
        for (size_t m = 0; m < d; m++) q[a] += gsl_matrix_get(WQ, m, a) * gsl_vector_get(x1, m);
    }
    for (size_t j = 0; j < T; j++) {
        double xj[16];
        for (size_t m = 0; m < d; m++)
            xj[m] = j == 0 ? gsl_vector_get(x1, m) : gsl_ran_gaussian(rng, 1.0);
        sc[j] = 0.0;
        for (size_t a = 0; a < dk; a++) {
            double k = 0.0;
            for (size_t m = 0; m < d; m++) k += gsl_matrix_get(WK, m, a) * xj[m];
            sc[j] += q[a] * k;
        }
    }
    double l = softmax_logsumexp(sc, T);
    return (double)T * exp(sc[0] - l);
}

START_TEST(test_shortcut_against_real_tokens)
{
    /* d = 6, d_k = 3, one W; x_1 plain; T = 2, 4, 9: the conditional estimator over
     * x_1 against the explicit softmax over x_1 and the other rows */
    gsl_rng *rng = rng_new("mt19937", 5);
    longseq_work w;
    ck_assert_int_eq(longseq_work_alloc(&w, 6, 3), ATT_OK);
    longseq_weights g;
    ck_assert_int_eq(longseq_draw_weights(rng, &w, 1.3, &g), ATT_OK);
    const double Ts[] = {2, 4, 9};
    stat_acc a[3], b[3];
    for (int t = 0; t < 3; t++) { stat_init(&a[t]); stat_init(&b[t]); }
    for (size_t n = 0; n < prop_draws(40000); n++) {
        longseq_query q;
        double out[3];
        longseq_draw_row(rng, &w, &g, n & 1, 0.5, &q);   /* the mixture */
        longseq_cond_self(&tab, q.s, sqrt(q.sigma2), Ts, 3, LONGSEQ_COND_H, out);
        for (int t = 0; t < 3; t++) stat_push(&a[t], out[t] * exp(q.log_ratio));
        mat_vec_randn(rng, w.x, 1.0);
        for (int t = 0; t < 3; t++)
            stat_push(&b[t], explicit_row(rng, w.W_Q, w.W_K, (size_t)Ts[t], w.x));
    }
    for (int t = 0; t < 3; t++) {
        double z = (a[t].mean - b[t].mean) / hypot(stat_se(&a[t]), stat_se(&b[t]));
        ck_assert_msg(fabs(z) < 5.0,
                      "T %g: conditional %.5f +- %.5f, explicit %.5f +- %.5f (seed 5)", Ts[t],
                      a[t].mean, stat_se(&a[t]), b[t].mean, stat_se(&b[t]));
    }
    longseq_work_free(&w);
    gsl_rng_free(rng);
}
END_TEST

START_TEST(test_against_explicit_sum_long)
{
    /* the section's sizes at the soft scale (d = 64, d_k = 16, c^2 = 1/2), T = 256: the
     * conditional integral against the explicit sum of T - 1 other terms (the streaming
     * log-sum-exp of tests/longseq_ref.h), both on tilted rows of independent draws */
    gsl_rng *rng = rng_new("mt19937", 9);
    longseq_work w;
    ck_assert_int_eq(longseq_work_alloc(&w, 64, 16), ATT_OK);
    const double T[] = {256};
    stat_acc a, b;
    stat_init(&a);
    stat_init(&b);
    for (size_t n = 0; n < prop_draws(20000); n++) {
        longseq_weights g;
        longseq_query q;
        double h;
        ck_assert_int_eq(longseq_draw_weights(rng, &w, M_SQRT1_2, &g), ATT_OK);
        longseq_draw_row(rng, &w, &g, 1, 0.0, &q);
        longseq_cond_self(&tab, q.s, sqrt(q.sigma2), T, 1, LONGSEQ_COND_H, &h);
        stat_push(&a, h * exp(q.log_ratio));
        longseq_draw_row(rng, &w, &g, 1, 0.0, &q);
        double lse = longseq_log_denominator(rng, q.s, sqrt(q.sigma2), 256);
        stat_push(&b, longseq_estimate(&q, 256, lse));
    }
    double z = (a.mean - b.mean) / hypot(stat_se(&a), stat_se(&b));
    ck_assert_msg(fabs(z) < 5.0,
                  "T = 256: conditional %.5f +- %.5f, explicit sum %.5f +- %.5f (seed 9)", a.mean,
                  stat_se(&a), b.mean, stat_se(&b));
    longseq_work_free(&w);
    gsl_rng_free(rng);
}
END_TEST

START_TEST(test_two_tokens_exactly_one)
{
    /* T = 2 over W and x: plain and tilted rows (d = 8, d_k = 4, c = 1) */
    gsl_rng *rng = rng_new("mt19937", 6);
    longseq_work w;
    ck_assert_int_eq(longseq_work_alloc(&w, 8, 4), ATT_OK);
    const double T2[] = {2};
    for (int mode = 0; mode < 2; mode++) {
        stat_acc a;
        stat_init(&a);
        for (size_t n = 0; n < prop_draws(20000); n++) {
            longseq_weights g;
            longseq_query q;
            double out;
            ck_assert_int_eq(longseq_draw_weights(rng, &w, 1.0, &g), ATT_OK);
            longseq_draw_row(rng, &w, &g, mode, mode ? 0.0 : 1.0, &q);
            longseq_cond_self(&tab, q.s, sqrt(q.sigma2), T2, 1, LONGSEQ_COND_H, &out);
            stat_push(&a, out * exp(q.log_ratio));
        }
        ck_assert_msg(fabs(a.mean - 1.0) < 5.0 * stat_se(&a),
                      "%s: T E[a_ii] at T = 2 is %.5f +- %.5f, not 1", mode ? "tilted" : "plain",
                      a.mean, stat_se(&a));
    }
    longseq_work_free(&w);
    gsl_rng_free(rng);
}
END_TEST

START_TEST(test_tilted_weight_second_moment)
{
    /* the diagnosis of the tilted law (longseq.h): E_q1[w^2] = E_p[w] for w = p/q1, and
     *   E_p[w] = E_p[e^{-x^T B x}] / |det(I - M)| = det(2I - L L^T)^{-1/2} / |det L|,  L = I - M,
     * finite iff lambda_max(L L^T) < 2. On a W with lambda_max < 5/4 (so w^2 has a finite
     * variance too: 4 < 1 + 1/(lambda_max - 1)), d = 6, d_k = 2: the Monte Carlo mean of w^2
     * over tilted rows against the determinant (seed 12) */
    gsl_rng *rng = rng_new("mt19937", 12);
    const size_t d = 6;
    longseq_work w;
    ck_assert_int_eq(longseq_work_alloc(&w, d, 2), ATT_OK);
    gsl_matrix *L = gsl_matrix_alloc(d, d), *A = gsl_matrix_alloc(d, d);
    gsl_vector *ev = gsl_vector_alloc(d);
    gsl_eigen_symm_workspace *ws = gsl_eigen_symm_alloc(d);
    gsl_permutation *pm = gsl_permutation_alloc(d);
    longseq_weights g;
    double lmax = INFINITY, expect = NAN;
    for (int tries = 0; tries < 1000 && !(lmax < 1.25); tries++) {
        ck_assert_int_eq(longseq_draw_weights(rng, &w, 0.6, &g), ATT_OK);
        /* L = I - W_Q W_K^T (d, d); A = L L^T */
        gsl_blas_dgemm(CblasNoTrans, CblasTrans, -1.0, w.W_Q, w.W_K, 0.0, L);
        for (size_t a = 0; a < d; a++) gsl_matrix_set(L, a, a, gsl_matrix_get(L, a, a) + 1.0);
        gsl_blas_dgemm(CblasNoTrans, CblasTrans, 1.0, L, L, 0.0, A);
        gsl_matrix *E = gsl_matrix_alloc(d, d);
        gsl_matrix_memcpy(E, A);
        gsl_eigen_symm(E, ev, ws);
        gsl_matrix_free(E);
        lmax = gsl_vector_max(ev);
        /* expect = det(2I - A)^{-1/2} / |det L| (Cholesky-free: LU of each) */
        gsl_matrix_scale(A, -1.0);
        for (size_t a = 0; a < d; a++) gsl_matrix_set(A, a, a, gsl_matrix_get(A, a, a) + 2.0);
        int sg;
        gsl_linalg_LU_decomp(A, pm, &sg);
        double ldA = gsl_linalg_LU_lndet(A);
        gsl_linalg_LU_decomp(L, pm, &sg);
        expect = exp(-0.5 * ldA - gsl_linalg_LU_lndet(L));
    }
    ck_assert_msg(lmax < 1.25, "no W with lambda_max < 5/4 in 1000 draws (seed 12)");
    stat_acc a;
    stat_init(&a);
    for (size_t n = 0; n < prop_draws(200000); n++) {
        longseq_query q;
        longseq_draw_row(rng, &w, &g, 1, 0.0, &q);
        stat_push(&a, exp(2.0 * q.log_ratio));
    }
    ck_assert_msg(fabs(a.mean - expect) < 5.0 * stat_se(&a),
                  "E_q1[w^2] %.6f +- %.6f, det formula %.6f (lambda_max %.4f, seed 12)", a.mean,
                  stat_se(&a), expect, lmax);
    gsl_permutation_free(pm);
    gsl_eigen_symm_free(ws);
    gsl_vector_free(ev);
    gsl_matrix_free(A);
    gsl_matrix_free(L);
    longseq_work_free(&w);
    gsl_rng_free(rng);
}
END_TEST

START_TEST(test_row_control_variates_zero_mean)
{
    /* the rows' control variates (longseq_row_cv) have mean 0 given W: one W (d = 10,
     * d_k = 4, c = 0.9), 20,000 stratified samples of 8 rows (1 plain, 7 tilted), seed 13 */
    gsl_rng *rng = rng_new("mt19937", 13);
    longseq_work w;
    ck_assert_int_eq(longseq_work_alloc(&w, 10, 4), ATT_OK);
    longseq_weights g;
    ck_assert_int_eq(longseq_draw_weights(rng, &w, 0.9, &g), ATT_OK);
    stat_acc a[LONGSEQ_NRCV];
    for (int j = 0; j < LONGSEQ_NRCV; j++) stat_init(&a[j]);
    for (size_t n = 0; n < prop_draws(20000); n++) {
        double m[LONGSEQ_NRCV] = {0}, cv[LONGSEQ_NRCV];
        for (int r = 0; r < 8; r++) {
            longseq_query q;
            longseq_draw_row(rng, &w, &g, r > 0, 0.125, &q);
            longseq_row_cv(&q, &g, cv);
            for (int j = 0; j < LONGSEQ_NRCV; j++) m[j] += cv[j] / 8.0;
        }
        for (int j = 0; j < LONGSEQ_NRCV; j++) stat_push(&a[j], m[j]);
    }
    for (int j = 0; j < LONGSEQ_NRCV; j++)
        ck_assert_msg(fabs(a[j].mean) < 5.0 * stat_se(&a[j]) && stat_se(&a[j]) > 0.0,
                      "row control variate %d: %.5f +- %.5f, not 0 (seed 13)", j, a[j].mean,
                      stat_se(&a[j]));
    longseq_work_free(&w);
    gsl_rng_free(rng);
}
END_TEST

START_TEST(test_control_variate_means)
{
    gsl_rng *rng = rng_new("mt19937", 7);
    longseq_work w;
    const size_t d = 10, dk = 4;
    const double c = 0.9;
    ck_assert_int_eq(longseq_work_alloc(&w, d, dk), ATT_OK);
    double mean[LONGSEQ_NCV];
    longseq_cv_means(d, dk, c, mean);
    stat_acc a[LONGSEQ_NCV];
    for (int j = 0; j < LONGSEQ_NCV; j++) stat_init(&a[j]);
    for (size_t n = 0; n < prop_draws(50000); n++) {
        longseq_weights g;
        ck_assert_int_eq(longseq_draw_weights(rng, &w, c, &g), ATT_OK);
        stat_push(&a[0], g.det);
        for (int j = 0; j < 4; j++) stat_push(&a[j + 1], g.cv[j]);
    }
    for (int j = 0; j < LONGSEQ_NCV; j++)
        ck_assert_msg(fabs(a[j].mean - mean[j]) < 5.0 * stat_se(&a[j]),
                      "control variate %d: %.5f +- %.5f, known %.5f", j, a[j].mean, stat_se(&a[j]),
                      mean[j]);
    longseq_work_free(&w);
    gsl_rng_free(rng);
}
END_TEST

/* The conditional density of det(I - W_K^T W_Q) at 0 (longseq_weights.dens0) on laws whose
 * density at 0 is known: d_k = 1, det = 1 - w_K . w_Q with w ~ N(0, c^2/d I_d);
 *   d = 1: c^2 z1 z2 has density K0(|x| / c^2) / (pi c^2), so p0 = K0(1/c^2) / (pi c^2);
 *   d = 2: z1 z2 + z3 z4 is Laplace(1), (c^2/2)(...) at 1: p0 = e^{-2/c^2} / c^2;
 * and at d_k = 2 (no closed form) against the shrinking windows P(|det| < eps) / (2 eps),
 * eps = 0.1, 0.03, which agree with each other (the window's bias is below its noise). */
static stat_acc density_mean(size_t d, size_t dk, double c, size_t n, unsigned long seed,
                             const double *eps, size_t ne, double *window)
{
    gsl_rng *rng = rng_new("mt19937", seed);
    longseq_work w;
    ck_assert_int_eq(longseq_work_alloc(&w, d, dk), ATT_OK);
    stat_acc a;
    stat_init(&a);
    size_t below[4] = {0};
    for (size_t i = 0; i < n; i++) {
        longseq_weights g;
        ck_assert_int_eq(longseq_draw_weights(rng, &w, c, &g), ATT_OK);
        stat_push(&a, g.dens0);
        for (size_t k = 0; k < ne; k++) below[k] += fabs(g.det) < eps[k];
    }
    for (size_t k = 0; k < ne; k++) window[k] = (double)below[k] / (2.0 * eps[k] * (double)n);
    longseq_work_free(&w);
    gsl_rng_free(rng);
    return a;
}

START_TEST(test_det_density_known)
{
    /* one law of each kind, each at a c other than 1 (so that a wrong power of c shows; c = 1
     * is the same formula) */
    const struct { size_t d; double c, p0; unsigned long seed;
    } known[] = {{1, 0.8, gsl_sf_bessel_K0(1.0 / 0.64) / (M_PI * 0.64), 32},
                 {2, 1.3, exp(-2.0 / 1.69) / 1.69, 34}};
    double win[2];
    for (int k = 0; k < 2; k++) {
        stat_acc a = density_mean(known[k].d, 1, known[k].c, prop_draws(100000), known[k].seed,
                                  NULL, 0, win);
        ck_assert_msg(fabs(a.mean - known[k].p0) < 5.0 * stat_se(&a),
                      "d %zu c %g: conditional density %.6g +- %.2g, "
                      "known %.6g (seed %lu)",
                      known[k].d, known[k].c, a.mean, stat_se(&a), known[k].p0, known[k].seed);
    }
    const double eps[2] = {0.1, 0.03};
    size_t n = prop_draws(400000);
    stat_acc a = density_mean(4, 2, 1.0, n, 35, eps, 2, win);
    for (int k = 0; k < 2; k++) {
        double se_w = sqrt(win[k] / (2.0 * eps[k] * (double)n));   /* Poisson count */
        ck_assert_msg(fabs(a.mean - win[k]) < 5.0 * hypot(stat_se(&a), se_w),
                      "d 4 d_k 2: conditional %.5g +- %.2g, "
                      "window %g: %.5g +- %.2g (seed 35)",
                      a.mean, stat_se(&a), eps[k], win[k], se_w);
    }
}
END_TEST

/* longseq_tail_density by hand: the mean, its CI's lower end clipped at 0, the largest draw's share
 */
START_TEST(test_density_summary_by_hand)
{
    const double dens[] = {0.0, 9.0, 0.0, 7.0, 0.0, 8.0};   /* stride 2: 0, 0, 0 */
    double top;
    measure m = longseq_tail_density(dens, 2, 3, &top);
    ck_assert(m.value == 0.0 && m.ci_low == 0.0 && m.ci_high == 0.0 && isnan(top));
    m = longseq_tail_density(dens + 1, 2, 3, &top);   /* 9, 7, 8 */
    ck_assert(fabs(m.value - 8.0) < 1e-15 && fabs(top - 9.0 / 24.0) < 1e-15 && m.ci_low > 0.0);
    const double one[] = {0.0, 0.0, 0.0, 6.0};
    m = longseq_tail_density(one, 1, 4, &top);
    ck_assert(fabs(m.value - 1.5) < 1e-15 && m.ci_low == 0.0 && top == 1.0);
}
END_TEST

START_TEST(test_crossing_coverage)
{
    /* y(l) = 1.05 + b (l - l*) (+ a curvature), paired draws: a shared W-like part
     * explained by a control variate, a shared residual and independent noise;
     * the 95% CI must cover l* in 92-98% of 400 repetitions */
    enum { M = 12, N = 600, R = 400 };
    static double Y[N * M], X[N], yh[M], V[M * M];
    double l[M];
    for (int k = 0; k < M; k++) l[k] = (k + 1) * M_LN2;
    const double lstar = 7.3 * M_LN2, slope = 0.006;
    for (int curved = 0; curved < 2; curved++) {
        gsl_rng *rng = rng_new("mt19937", 8 + curved);
        int cover = 0, found = 0;
        for (int r = 0; r < R; r++) {
            for (int i = 0; i < N; i++) {
                double cv = gsl_ran_gaussian(rng, 0.3), u = gsl_ran_gaussian(rng, 0.02);
                X[i] = cv;
                for (int k = 0; k < M; k++) {
                    double dl = l[k] - lstar;
                    double mu = 1.05 + slope * dl + (curved ? -0.0002 * dl * dl : 0.0);
                    Y[i * M + k] = mu + cv * (1.0 + 0.01 * k) + u + gsl_ran_gaussian(rng, 0.01);
                }
            }
            ck_assert_int_eq(curve_fit(Y, N, M, X, 1, yh, V), ATT_OK);
            curve_crossing c = curve_last_crossing(l, yh, V, M, 1.05);
            if (c.status != CROSS_FOUND) continue;
            found++;
            cover += c.lo <= lstar && lstar <= c.hi;
        }
        double cov = (double)cover / R;
        ck_assert_msg(found == R && cov >= 0.92 && cov <= 0.98,
                      "%s curve: coverage %.3f over %d (found %d; seed %d)",
                      curved ? "curved" : "straight", cov, R, found, 8 + curved);
        gsl_rng_free(rng);
    }
}
END_TEST

START_TEST(test_crossing_cases)
{
    const double l[] = {0, 1, 2, 3}, V[16] = {0};
    const double up[] = {1.0, 1.02, 1.06, 1.08}, above[] = {1.1, 1.2, 1.3, 1.4},
                 below[] = {1, 1, 1, 1.04};
    const double dip[] = {1.06, 1.0, 1.04, 1.07};   /* the LAST upward crossing: in [2, 3] */
    curve_crossing c = curve_last_crossing(l, up, V, 4, 1.05);
    ck_assert(c.status == CROSS_FOUND && c.k == 1 && fabs(c.l - 1.75) < 1e-12);
    ck_assert(curve_last_crossing(l, above, V, 4, 1.05).status == CROSS_ABOVE);
    ck_assert(curve_last_crossing(l, below, V, 4, 1.05).status == CROSS_BELOW);
    c = curve_last_crossing(l, dip, V, 4, 1.05);
    ck_assert(c.status == CROSS_FOUND && c.k == 2 && fabs(c.l - (2.0 + 1.0 / 3.0)) < 1e-12);
}
END_TEST

int main(void)
{
    prop_announce("test_lscond");
    Suite *s = suite_create("lscond");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 300);
    tcase_add_unchecked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_sigma_zero_exact);
    tcase_add_test(tc, test_psi_against_adaptive_quadrature);
    tcase_add_test(tc, test_table_matches_direct_everywhere);
    tcase_add_test(tc, test_step_converged);
    tcase_add_test(tc, test_doubling_grid_matches_single_lengths);
    tcase_add_test(tc, test_against_explicit_sum);
    tcase_add_test(tc, test_mixture_two_tokens_section_scale);
    tcase_add_test(tc, test_shortcut_against_real_tokens);
    tcase_add_test(tc, test_against_explicit_sum_long);
    tcase_add_test(tc, test_two_tokens_exactly_one);
    tcase_add_test(tc, test_tilted_weight_second_moment);
    tcase_add_test(tc, test_control_variate_means);
    tcase_add_test(tc, test_row_control_variates_zero_mean);
    tcase_add_test(tc, test_det_density_known);
    tcase_add_test(tc, test_density_summary_by_hand);
    tcase_add_test(tc, test_crossing_coverage);
    tcase_add_test(tc, test_crossing_cases);
    suite_add_tcase(s, tc);
    return prop_run_suite(s);
}
