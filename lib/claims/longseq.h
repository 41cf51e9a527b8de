/* longseq.h - one row's self-weight at any sequence length, without the
 * T x T matrix: the exact shortcut of the long_sequences claim.
 *
 * Shapes (tokens are rows, as everywhere):
 *   x_i (d)              the query token, N(0, I_d)
 *   W_Q, W_K (d, d_k)    entries N(0, c^2 / d)
 *   q_i = W_Q^T x_i, k_i = W_K^T x_i (d_k);  M = W_Q W_K^T (d, d)
 *   s_ij = q_i . k_j = x_i^T M x_j        (no 1/sqrt(d_k))
 *
 * The shortcut (exact). Given W and x_i, every other token x_j ~ N(0, I_d)
 * is independent of them, so the T - 1 scores s_ij = (W_K q_i) . x_j, j != i,
 * are i.i.d. N(0, sigma_i^2) with sigma_i^2 = ||W_K q_i||^2 = x_i^T M M^T x_i,
 * while s_ii = q_i . k_i is fixed. So one row needs q_i, k_i, W_K q_i
 * (O(d d_k)) and T - 1 standard normals z_j (O(T), no d-dimensional product):
 *   a_ii = e^{s_ii} / (e^{s_ii} + sum_{j != i} e^{sigma_i z_j})
 * (the brute-force reference, T - 1 explicit scores summed by a streaming log-sum-exp, is
 * tests/longseq_ref.h: the unit tests and bench/lsbench.c check the shortcuts against it).
 *
 * The tilted estimator (importance sampling of x_i, exact). With
 * B = M_sym - M M^T / 2, s_ii - sigma_i^2 / 2 = x_i^T B x_i and
 * I - 2B = (I - M)(I - M)^T, so
 *   E_x[e^{s_ii - sigma_i^2/2} | W] = det(I - 2B)^{-1/2} = 1 / |det(I_dk - W_K^T W_Q)|
 * (Sylvester: det(I_d - W_Q W_K^T) = det(I_dk - W_K^T W_Q)). Drawing x_i from
 * N(0, ((I - M)(I - M)^T)^{-1}), i.e. x = (I - W_K W_Q^T)^{-1} y with
 * y ~ N(0, I), the likelihood ratio is e^{-(s_ii - sigma_i^2/2)} / |det(I - M)|,
 * and the estimate of T a_ii becomes
 *   T e^{sigma_i^2/2} / (e^{s_ii} + sum_{j != i} e^{s_ij}) / |det(I_dk - W_K^T W_Q)|
 * which tends to 1 / |det| as T grows (the sum -> (T - 1) e^{sigma_i^2/2}):
 * a far smaller variance at long sequences than T a_ii itself, whose mean
 * comes from rare rows.
 *
 * The annealed law. For large T the sum concentrates at its mean
 * (T - 1) e^{sigma_i^2/2}, so
 *   T E[a_ii] ~ P(T) = E[T e^{s_ii} / (e^{s_ii} + (T - 1) e^{sigma_i^2/2})]
 *                    -> E_W[1 / |det(I_dk - W_K^T W_Q)|]  (T -> inf),
 * and by Jensen (1/(a + Z) is convex in Z) P(T) <= T E[a_ii] at every T.
 * That limit is INFINITE: det(I - G) takes both signs and has a smooth density
 * p0 > 0 at 0, so E[1/|det|; |det| > eps] ~ 2 p0 log(1/eps). T E[a_ii] has no
 * finite limit; it keeps rising, slowly (long_sequences reports the typical
 * value and a truncated mean instead). The second-order value 1 + d_k c^4 / d
 * describes the bulk only roughly (a third short of the excess at c = 1).
 * The curve itself is computed by the conditional integral (below).
 */
#ifndef ATT_LONGSEQ_H
#define ATT_LONGSEQ_H

#include <stddef.h>
#include <gsl/gsl_matrix.h>
#include <gsl/gsl_permutation.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_vector.h>
#include "table.h"
#include "verdict.h"

typedef struct {
    size_t d, d_k;
    gsl_matrix *W_Q, *W_K;      /* (d, d_k)                      */
    gsl_matrix *W_Kt;           /* (d_k, d) W_K^T, by longseq_weights_of: W_K b along its rows */
    gsl_matrix *G;              /* (d_k, d_k) I - W_Q^T W_K, then its LU */
    gsl_matrix *QQ, *KK;        /* (d_k, d_k) W_Q^T W_Q, W_K^T W_K       */
    gsl_permutation *perm;      /* (d_k)                         */
    int signum;                 /* the permutation's sign         */
    gsl_vector *x, *y;          /* (d)                           */
    gsl_vector *q, *k, *u;      /* (d_k)                         */
    gsl_vector *v;              /* (d) W_K q                     */
} longseq_work;

/* One query row given W and x_i. */
typedef struct {
    double s;           /* s_ii = q_i . k_i                               */
    double sigma2;      /* sigma_i^2 = ||W_K q_i||^2                       */
    double inv_det;     /* 1 / |det(I_dk - W_K^T W_Q)| (the limit given W) */
    double log_ratio;   /* log of the likelihood ratio p(x)/q(x): 0 (plain)
                           or -(s - sigma2/2) - log|det| (tilted)          */
} longseq_query;

/* d, d_k >= 1. ATT_EUSAGE / ATT_ERUNTIME (message recorded) on failure;
 * w is then empty and safe to free. */
int longseq_work_alloc(longseq_work *w, size_t d, size_t d_k);
void longseq_work_free(longseq_work *w);
/* The same on the heap (for mc.h's per-thread work): NULL on failure; delete(NULL) is safe. */
void *longseq_work_new(size_t d, size_t d_k);
void longseq_work_delete(void *w);

/* s = q_i . k_i and sigma2 = ||W_K q_i||^2 of the query x_i in w->x, for the W_Q, W_K in w
 * (after longseq_weights_of, which fills w->W_Kt; the rest of r untouched) */
void longseq_scores(longseq_work *w, longseq_query *r);

/* ---- the conditional estimator's draws (its integral: below) ----
 *
 * One draw: W once, then R rows x_i given W, from the defensive mixture
 * (Hesterberg 1995) q = alpha p + (1 - alpha) q1 of p = N(0, I) and the tilted q1
 * above, stratified: R alpha rows from p, the rest from q1 (the experiment:
 * R = ROWS = 8, alpha = 1/8, row 0 plain). With q1/p = e^a,
 * a = s - sigma^2/2 + log|det(I - W_K^T W_Q)|,
 * every row, whichever law drew it, is weighted by
 *   p/q = 1 / (alpha + (1 - alpha) e^a)  <=  1/alpha,
 * and (1/R) sum_r g(x_r) p/q(x_r) is unbiased for E_p[g]: its mean is
 * alpha E_p[g p/q] + (1 - alpha) E_q1[g p/q] = int g (p/q) q = E_p[g].
 * Why the mixture (tools/report/notes/long_sequences.md): the tilted law alone has weights
 * p/q1 = e^{-a} with a power tail, P(p/q1 > t) ~ t^{-k}, k = 1 + 1/(lambda_max - 1),
 * lambda_max the largest eigenvalue of (I - M)(I - M)^T (E_q1[(p/q1)^j] = E_p[e^{-(j-1) a}]
 * is finite iff I + (j - 1)(I - (I - M)(I - M)^T) is positive definite). At c = 1,
 * lambda_max ~ 4.7 (d_k = 16), so k ~ 1.3 < 2: infinite variance, and at T = 2, where
 * T a_ii does not damp the weight, a mean that the draws typically underestimate. The
 * mixture's weights are bounded by 1/alpha, so the estimate of T a_ii <= T is bounded,
 * its variance finite and its CI calibrated at every T; at long T, where
 * T a_ii p/q1 -> 1/|det|, p/q <= (p/q1) / (1 - alpha) keeps most of the tilted rows' gain.
 *
 * Control variates of W with known means (G = W_K^T W_Q (d_k, d_k), entries
 * G_ab = sum_m W_K[m,a] W_Q[m,b], independent zero-mean Gaussians in the W's):
 *   E[det(I - G)] = 1 (det is multilinear in the columns of W_Q; each term of
 *                      the expansion over minors but the empty one has mean 0)
 *   E[tr G] = 0,  E[(tr G)^2] = E[tr G^2] = d_k c^4 / d,  E[||G||_F^2] = d_k^2 c^4 / d
 * (E[G_ab G_a'b'] = [a = a'][b = b'] d (c^2/d)^2; E[G_ab G_ba] = [a = b] c^4 / d).
 *
 * The density p0 of det(I - G) at 0, by conditioning (exact, no window). det(I - G) is
 * affine in column a of I - G, -W_K^T w_a (w_a = W_Q's column a, N(0, c^2/d I_d),
 * independent of the rest): expanding along that column with the cofactors C (which do
 * not involve it), det = C_aa - w_a^T W_K C_{:,a}. Given the rest, det is Gaussian with mean
 * C_aa and sd sw ||W_K C_{:,a}|| (sw = c / sqrt(d)), so its density at 0 given the rest is
 * phi(C_aa / sd) / sd, and its mean over the draws is p0 exactly, for every a. With
 * C_{:,a} = det r_a, r_a = row a of (I - G)^{-1}:
 *   p_a = phi(r_aa / t_a) / (|det| t_a),  t_a = sw ||W_K r_a||,  dens0 = (1/d_k) sum_a p_a.
 * (d_k = 1: det = 1 - w_K . w_Q, N(1, sw^2 ||w_K||^2) given w_K.) */
typedef struct {
    double lndet;       /* log|det(I - G)|            */
    double det;         /* det(I - G), signed          */
    double dens0;       /* the conditional density of det(I - G) at 0 given all of W but one
                           column of W_Q, averaged over the column: E[dens0] = p0 (below) */
    double cv[4];       /* tr G, (tr G)^2, tr G^2, ||G||_F^2 */
    double m_fro2;      /* ||M||_F^2 = tr(W_Q^T W_Q W_K^T W_K) = E_p[sigma_i^2 | W] (M = W_Q W_K^T);
                           E_p[s_ii | W] = tr M = tr G = cv[0] */
} longseq_weights;
enum { LONGSEQ_NCV = 5 };   /* det, and the four cv[]  */

/* Control variates of the rows, with mean 0 given W. For the stratified mixture sample
 * (R alpha rows from p, the rest from q1), (1/R) sum_r h(x_r) p/q(x_r) has mean E_p[h | W]
 * for any h (above). So each of these, averaged over the R rows, has mean 0 given W:
 *   cv[0] = q1/q - 1                 (h = q1/p: E_p[q1/p] = 1; h p/q = q1/q)
 *   cv[1] = (q1/q - 1) / |det|       (the same times a function of W)
 *   cv[2] = sigma^2 p/q - ||M||_F^2  (E_p[x^T M M^T x] = tr M M^T)
 *   cv[3] = s p/q - tr M             (E_p[x^T M x] = tr M = tr G)
 * r: a row of longseq_draw_row with the mixture's alpha in (0, 1). */
enum { LONGSEQ_NRCV = 4 };
void longseq_row_cv(const longseq_query *r, const longseq_weights *g, double cv[LONGSEQ_NRCV]);

/* The means of the control variates (det, cv[0..3]) for (d, d_k, c). */
void longseq_cv_means(size_t d, size_t d_k, double c, double mean[LONGSEQ_NCV]);

/* Draw W_Q, W_K ~ N(0, c^2/d) (ziggurat, W_Q then W_K, row by row), factor
 * I - G; fills g. ATT_ERUNTIME when singular (probability 0). */
int longseq_draw_weights(gsl_rng *rng, longseq_work *w, double c, longseq_weights *g);
/* The same for the W_Q, W_K already in w (c: their scale, for dens0). */
int longseq_weights_of(longseq_work *w, double c, longseq_weights *g);

/* One row given the W of the last longseq_draw_weights: y ~ N(0, I_d), x = y
 * (tilted = 0) or the tilted x; fills r with s, sigma2, inv_det and
 * log_ratio = log p/q for the mixture above with plain share alpha in [0, 1]
 * (alpha = 1: 0, plain rows alone; alpha = 0: -(s - sigma^2/2) - log|det|, tilted rows alone). */
void longseq_draw_row(gsl_rng *rng, longseq_work *w, const longseq_weights *g, int tilted,
                      double alpha, longseq_query *r);

/* ---- the conditional (Rao-Blackwellised) self-weight of one row at any sequence
 * length: E[T a_ii | s_ii, sigma_i] by quadrature, O(1) in T ----
 *
 * Set-up (the shortcut above): given W and x_i, the other T - 1 scores
 * s_ij = sigma z_j are i.i.d. N(0, sigma^2), sigma = ||W_K q_i||, while
 * s = s_ii is fixed. So, with S = sum_{j=1}^{T-1} e^{sigma z_j},
 *   g_T(s, sigma) = E[T a_ii | s, sigma] = T E[e^s / (e^s + S)].
 *
 * Derivation (all terms positive, Tonelli):
 *   1/a = int_0^inf e^{-t a} dt                                   (a > 0)
 *   E[1/(e^s + S)] = int_0^inf e^{-t e^s} E[e^{-t S}] dt
 *                  = int_0^inf e^{-t e^s} phi(t)^{T-1} dt,
 * phi(t) = E[exp(-t e^{sigma z})], the Laplace transform of a lognormal
 * (the z_j are independent, so E e^{-tS} = phi^{T-1}). With t = e^{v - s}:
 *   g_T(s, sigma) = T int_R exp(v - e^v - (T - 1) psi(v - s)) dv,
 *   psi(tau) = psi_sigma(tau) = -log phi(e^tau) >= 0.
 * (This is T E_E[phi(E e^{-s})^{T-1}], E ~ Exp(1): v = log E.)
 *
 * psi by quadrature in z (trapezoid on a uniform grid, spectrally accurate
 * for these entire integrands):
 *   1 - phi = int F(tau + sigma z) N(z) dz,  F(w) = 1 - exp(-e^w) (no cancellation)
 *   psi = -log1p(-(1 - phi))   when 1 - phi < 1/2, else -log int exp(-e^{tau + sigma z}) N(z) dz
 * For tau -> -inf the cumulants of Y = e^{sigma z} give
 *   psi = t k1 - t^2 k2 / 2 + O(t^3),  t = e^tau, k1 = e^{sigma^2/2},
 *   k2 = e^{2 sigma^2} - e^{sigma^2},
 * used where t k2 / k1 < e^{-10} (the neglected term is e^{-20} relative).
 * By Jensen, psi(tau) <= t k1 = e^{tau + sigma^2/2}.
 *
 * A table f(sigma, tau) = log psi_sigma(tau) - tau (smooth, -> sigma^2/2 as
 * tau -> -inf) on a uniform grid, read by 4 x 4 Lagrange interpolation, makes
 * one row cost a few hundred table reads whatever T is; points off the table
 * are computed directly.
 *
 * The v-integral: trapezoid with step LONGSEQ_COND_H (0.6) on [v_lo, 4]
 * (e^{v - e^v} < e^{-50} above 4), v_lo = s - log(T_max - 1) - sigma^2/2 - 22,
 * below which (T - 1) psi <= e^{-22} (Jensen) and the integrand is
 * e^{v - e^v} to that accuracy: its integral, 1 - exp(-e^{v_lo}), is added.
 */
typedef struct {
    double dsig, dtau, sig_max, tau_min, tau_max;
    size_t ns, nt;          /* grid sizes: sigma_j = j dsig, tau_i = tau_min + i dtau */
    double *f;              /* f[j * nt + i] = log psi_{sigma_j}(tau_i) - tau_i */
} longseq_cond_table;

/* psi_sigma(tau) computed directly (quadrature or the series), for tests
 * and for points off the table. sigma >= 0. */
double longseq_cond_psi_direct(double sigma, double tau);

/* Build the table (sigma in [0, 8], tau in [-106, 60]); ATT_ERUNTIME on no
 * memory (t is then empty). Takes about a second of CPU, once per run. */
int longseq_cond_table_build(longseq_cond_table *t);
void longseq_cond_table_free(longseq_cond_table *t);

/* psi_sigma(tau) from the table (or directly off it). t may be NULL: direct. */
double longseq_cond_psi(const longseq_cond_table *t, double sigma, double tau);

/* out[k] = g_{T_k}(s, sigma) = E[T a_ii | s, sigma] for the n lengths
 * Ts[0 .. n-1] (each >= 1, ascending), with trapezoid step h (LONGSEQ_COND_H for
 * the experiment; tests pass a finer one). t NULL: psi computed directly.
 * The step: the trapezoid's error falls like e^{-pi^2 / h} (e^{v - e^v} is entire, its
 * strip of analyticity |Im v| < pi/2); against a step 8 times finer the largest relative
 * error over s ~ N(0, 3^2), sigma in [0, 7], T = 2 .. 2^20 is 1.2e-6 at h = 0.6 (5e-7 at
 * 0.4, 6e-5 at 0.8, 7e-4 at 1.0), far below the curve's smallest Monte Carlo standard
 * error (7e-5 relative: wide, T = 2^20); tests/test_lscond.c holds it below 1e-5. */
#define LONGSEQ_COND_H 0.6
enum { LONGSEQ_COND_MAXT = 64 };   /* at most this many lengths per call (n) */
void longseq_cond_self(const longseq_cond_table *t, double s, double sigma, const double *Ts,
                       size_t n, double h, double *out);

/* ---- the T -> inf limit: the law of |det(I_dk - W_K^T W_Q)| over the weight draws ----
 *
 * Its inverse is the T -> inf limit of T E[a_ii] given W (the annealed law above).
 *
 * Shapes: det (n) the draws' |det(I - G)|, G = W_K^T W_Q (d_k, d_k).
 * Why no mean: det(I - G) takes both signs with a smooth density p0 > 0 at 0,
 * so P(|det| < eps) ~ 2 p0 eps and
 *   E[1/|det|; |det| > eps] ~ int_eps^1 2 p0 / u du = 2 p0 log(1/eps)  ->  inf.
 * Reported instead:
 *   the tail     P(|det| < eps) with its Wilson 95% CI, and the truncated mean
 *                E[1/|det| ; |det| >= eps] with its CLT CI, for each eps;
 *   the density  p0 at 0, as the mean of each draw's conditional density of det at 0
 *                given all of W but one column of W_Q (derived above: exact, no
 *                window), with its CLT CI. Not P(|det| < eps) / (2 eps): that is the mean
 *                density over (-eps, eps), which the steep rise of the density away from 0
 *                makes about 13 times p0 at eps = 0.1 (c = 1, make reproduce-long's 17,000,000
 *                draws: 0.0021 against 0.00017);
 *   the typical  value, the median of 1/|det| = 1 / median |det|, with the
 *                order-statistic CI: ranks n/2 -+ STAT_Z95 sqrt(n)/2 (the binomial
 *                count below the median, normal approximation).
 */
typedef struct {
    size_t config;
    double eps, p_below, p_lo, p_hi, trunc_mean, trunc_lo, trunc_hi;
} longseq_tail_row;
enum { LONGSEQ_TAIL_NCOLS = 8 };
/* the table of longseq_tail_row (Monte Carlo columns) */
extern const table_col longseq_tail_cols[LONGSEQ_TAIL_NCOLS];

/* rows[j] for eps[0 .. ne-1] (config left to the caller) and the median of 1/|det| with
 * its order-statistic CI. det is sorted in place. n >= 1. */
measure longseq_tail_stats(double *det, size_t n, const double *eps, size_t ne,
                           longseq_tail_row *rows);

/* p0 from the draws' conditional densities at 0 (dens (n), stride apart): their mean with
 * its CLT CI, the lower end clipped at 0 (a density); *top = the largest draw's share of
 * the sum (near 1: one draw carries the estimate, which the draws do not resolve). */
measure longseq_tail_density(const double *dens, size_t stride, size_t n, double *top);

/* E[1/|det| ; |det| > eps] with its 95% CI (det need not be sorted). */
measure longseq_tail_trunc(const double *det, size_t n, double eps);

/* the tail rows per eps: long_sequences' eps = 1, 0.3, ..., 0.001 */
enum { LONGSEQ_TAIL_NEPS = 7 };

#endif
