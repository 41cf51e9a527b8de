/* selfweight.h - how much attention a token keeps for itself: one draw of it, the naive
 * head's mean leak E[1 - a_ii] (naive_self_attention), and the excess of T E[a_ii] over 1
 * with random projections (random_projections).
 *
 * The sections below, in order, and the claim that uses each (selfweight.c in the same order):
 *   one draw, the Monte Carlo draw, the Gram factor   both claims (their sweeps)
 *   the raw head's leak; where it crosses a level     naive_self_attention
 *   a picture: one draw's two weight matrices         random_projections (its heatmap)
 *   the naive head's leak E[1 - a_ii]                 naive_self_attention (its exact d*)
 *   the excess of T E[a_ii] over 1                    random_projections (its soft law)
 *
 * Shapes (tokens are rows):
 *   X (T, d)            the token vectors, entries N(0, 1)
 *   W_Q, W_K (d, d_k)   the projections, entries N(0, sigma_w^2) (projected head)
 *   Q, K (T, d_k)       Q = X W_Q,  K = X W_K
 *   S (T, T)            the scores
 *   X' (T, d), K' (T, d_k)   the control: fresh tokens, K' = X' W_K
 *
 *   raw (naive) head:   Q = K = X,  S = X X^T     (s_ii = ||x_i||^2)
 *   projected head:     S = Q K^T                 (s_ij = x_i^T W_Q W_K^T x_j)
 *
 * The self-weight of row i, written so that no exp() can overflow whatever
 * the size of the scores (with d = 768 the raw scores are ~768, and e^768
 * is beyond double's 1.8e308):
 *
 *   a_ii = e^{s_ii} / (e^{s_ii} + sum_{j != i} e^{s_ij}) = 1 / (1 + Z_i e^{m_i - s_ii})
 *   1 - a_ii                                             = 1 / (1 + e^{s_ii - m_i} / Z_i)
 *   m_i = max_{j != i} s_ij,   Z_i = sum_{j != i} e^{s_ij - m_i}  in [1, T - 1]
 *
 * This is the stable softmax (subtract a max) with the max taken over the
 * other tokens: every exponent in Z_i is <= 0, Z_i >= 1, and an overflowing
 * e^{m_i - s_ii} = inf gives the correct limit 0. Writing 1 - a_ii this way
 * keeps its precision when a_ii is within 1e-300 of 1.
 *
 * Control (projected head): the same row with the self key k_i replaced by
 * the key k'_i = W_K^T x'_i of an independent fresh token. Given the weights
 * and x_i, the T keys of that row are then i.i.d., so by symmetry
 * E[a'_ii] = 1/T exactly: any excess of E[a_ii] over 1/T comes from k_i
 * sharing x_i with q_i.
 *
 * What one draw reports: out[SW_*] (the one representation of a draw),
 * each averaged over the T rows:
 *   SW_SELF      (1/T) sum_i a_ii
 *   SW_LEAK      (1/T) sum_i (1 - a_ii)          (the weight on other tokens)
 *   SW_LEAK_LAW  SW_LEAK / ((T - 1) 2^(-d/2)): the leak in units of the large-d
 *                law (raw head, T >= 2; else 0). O(1) where the leak itself is
 *                1e-200, so its variance does not underflow
 *   SW_ARGMAX    (1/T) #{ i : s_ii > s_ij for every j != i }   (ties: not self)
 *   SW_CONTROL   (1/T) sum_i a'_ii               (0 without a control)
 *   SW_EXCESS    T (SW_SELF - SW_CONTROL)       (0 without a control)
 *   SW_DIAG_SQ   (1/T) sum_i s_ii^2
 *   SW_OFF_SQ    (1/(T (T-1))) sum_{i != j} s_ij^2   (NAN for T = 1)
 *   SW_MAX_SCORE max_ij s_ij                      (how large the scores get)
 *
 * The workspace is allocated once (per Monte Carlo thread) and reused, so a
 * draw allocates nothing.
 */
#ifndef ATT_SELFWEIGHT_H
#define ATT_SELFWEIGHT_H

#include <stddef.h>
#include <gsl/gsl_matrix.h>
#include <gsl/gsl_vector.h>
#include <gsl/gsl_rng.h>
#include "statistics.h"
#include "sweep.h"
#include "table.h"

enum { SW_SELF, SW_LEAK, SW_LEAK_LAW, SW_ARGMAX, SW_CONTROL, SW_EXCESS, SW_DIAG_SQ,
       SW_OFF_SQ, SW_MAX_SCORE, SW_NSTAT };

typedef struct {
    size_t T, d, d_k;      /* the current shape; d_k = 0: raw head only     */
    int control;           /* draw X' and compute the control self-weight  */
    gsl_matrix *X;         /* (T, d)                                       */
    gsl_matrix *W_Q, *W_K; /* (d, d_k)                                     */
    gsl_matrix *Q, *K;     /* (T, d_k)                                     */
    gsl_matrix *S;         /* (T, T)                                       */
    gsl_matrix *Xc, *Kc;   /* control: X' (T, d), K' (T, d_k)              */
    gsl_vector *s_ctrl;    /* control: s'_i = q_i . k'_i (T)               */
} selfweight_work;

/* Allocate every matrix at exactly (T, d, d_k); d_k = 0 for the raw head
 * only; control = 1 adds the fresh-token control (needs d_k >= 1). T, d >= 1.
 * ATT_EUSAGE (over --max-memory) or ATT_ERUNTIME (message recorded) on
 * failure; w is then empty, safe to free. */
int selfweight_work_alloc(selfweight_work *w, size_t T, size_t d, size_t d_k, int control);
void selfweight_work_free(selfweight_work *w);

/* Draw, in this order from rng: X ~ N(0, 1); if d_k > 0, W_Q then W_K
 * ~ N(0, sigma_w^2); if control, X' ~ N(0, 1). */
void selfweight_draw_inputs(gsl_rng *rng, selfweight_work *w, double sigma_w);

/* Raw head on w->X: S = X X^T (dsyrk, mirrored), then out[SW_NSTAT]. */
int selfweight_raw(selfweight_work *w, double *out);

/* Projected head on w->X, W_Q, W_K: Q = X W_Q, K = X W_K, S = Q K^T, then
 * out[SW_NSTAT] (with the control if w->control). */
int selfweight_projected(selfweight_work *w, double *out);

/* One row: the scores s (n) of token i against tokens 0..n-1 (i < n). */
typedef struct {
    double self;       /* a_ii                                            */
    double leak;       /* 1 - a_ii, without cancellation                  */
    double m, Z;       /* m_i = max_{j != i} s_j, Z_i = sum_{j != i} e^{s_j - m_i} */
    int argmax_self;   /* s_i > s_j for every j != i                      */
    double off_sq;     /* sum_{j != i} s_j^2                              */
} selfweight_row_t;

/* The scores must be finite (a NaN or infinite score: ATT_ERUNTIME; so
 * must their squares, |s| < 1e154). n = 1: a_ii = 1, leak 0, m = -inf, Z = 0. */
int selfweight_row(selfweight_row_t *r, const double *s, size_t n, size_t i);

/* out[SW_NSTAT] from S (T, T); s_ctrl (T) holds the control self-scores, or
 * is NULL (SW_CONTROL, SW_EXCESS = 0); SW_LEAK_LAW = 0 (it needs d: raw). */
int selfweight_from_scores(double *out, const gsl_matrix *S, const gsl_vector *s_ctrl);

/* *mean = (1/T) sum_i a_ii of the flipped scores -S (T, T): the antithetic draw of a
 * projected head, W_K -> -W_K (same law as W_K), at the cost of the softmax alone (its
 * exponentials by vexp.h). Finite S. ATT_OK, or ATT_ERUNTIME on no memory. */
int selfweight_self_flipped(const gsl_matrix *S, double *mean);

/* ---- one Monte Carlo draw, shared by the experiments, tests and bench ---- */

/* What a draw is: T tokens of width d; d_k = 0 the raw head (Q = K = X),
 * else the projected head with W_Q, W_K ~ N(0, sigma_w^2) (d, d_k); control
 * adds the fresh-token control (projected head only). */
typedef struct {
    size_t T, d, d_k;
    double sigma_w;
    int control;
} selfweight_config;


/* A workspace (malloc'd) for config max, allocated now so that a run over
 * --max-memory stops before any draw (as a Monte Carlo scratch: one per
 * thread); NULL with the error recorded. */
selfweight_work *selfweight_scratch_new(const selfweight_config *max);
void selfweight_scratch_delete(void *w);

/* One draw of config into out[SW_NSTAT] (SW_* above), using w (re-allocated at config's
 * shape when it has another: a grid point gives the same bits alone as in a
 * sweep, whatever the other points' sizes): the inputs in the order of selfweight_draw_inputs
 * (X, then W_Q, W_K, then X'), then the raw or projected head. */
int selfweight_draw(gsl_rng *rng, const selfweight_config *config, selfweight_work *w,
                    double *out);

/* ---- the same draw through the scores' law: the Gram factor ---------- */

/* The projected head's scores depend on X and W only through x_i^T [W_K W_Q]. With
 * W = [W_K W_Q] (d, p), p = 2 d_k, entries N(0, sigma_w^2), and W = U R its thin QR
 * (U (d, r) orthonormal columns, R (r, p) upper trapezoidal, r = min(d, p)):
 *   [k_i q_i] = x_i^T W = z_i^T R,   z_i = U^T x_i ~ N(0, I_r), i.i.d. and independent of R
 * (given W, U^T x_i is standard normal whatever U), and R has Bartlett's law, all
 * entries independent:
 *   R_aa = sigma_w sqrt(chi^2_{d - a}),  R_ab ~ N(0, sigma_w^2) (b > a),  R_ab = 0 (b < a)
 * (a, b from 0; for d < p the columns past d are U^T W_2, Gaussian). The fresh keys
 * k'_i = x'_i^T W_K = z'_i^T R[:, 0 .. d_k) need only z'_i's first m = min(d_k, r) entries,
 * the rows of R[:, 0 .. d_k) past m being 0. So (Q, K, K') has exactly its law from X,
 * W, X' while a draw takes T r + T m + r p Gaussians instead of 2 T d + 2 d d_k.
 *
 * selfweight_gram_factor: from rng, row a = 0 .. r-1 in order: R_aa's chi^2 (GSL's
 * gsl_ran_chisq), then R_ab (b > a, in b order) by randn_fill; R[:, 0 .. d_k) into RK,
 * R[:, d_k .. p) into RQ, both row-major (r rows, d_k columns, leading dimensions ldk, ldq),
 * every entry written. */
void selfweight_gram_factor(gsl_rng *rng, size_t d, size_t d_k, double sigma_w, double *RK,
                            size_t ldk, double *RQ, size_t ldq);

/* The rows r = min(d, 2 d_k) of the factor (the fresh keys take m = min(d_k, r)). */
size_t selfweight_gram_rows(size_t d, size_t d_k);

/* selfweight_draw of a projected config (d_k >= 1) through the factor: w at shape
 * (T, r, d_k, control) (re-allocated as selfweight_draw does), then from rng R
 * (selfweight_gram_factor: into W_K, W_Q), Z (T, r) into X, Z' (T, m) into X' (its
 * columns past m zero), and selfweight_projected. Same law of out as selfweight_draw.
 * The raw head (d_k = 0) likewise: X^T (d, T) = U R, S = X X^T = R^T R with R (r, T) of
 * Bartlett's law (r = min(d, T), sigma 1; for d >= T the Wishart's Bartlett factor), so a
 * draw takes r T - r (r - 1) / 2 Gaussians and r chi^2 for X's T d, and the product r T^2 / 2
 * multiply-adds for d T^2 / 2; w at (T, r, 0, 0), R in X's data (selfweight_raw's stats, the
 * leak law at the true d). */
int selfweight_draw_gram(gsl_rng *rng, const selfweight_config *config, selfweight_work *w,
                         double *out);

/* ---- the raw head's leak, exactly and at large d ---------------------- */

/* T = 2, x_1, x_2 ~ N(0, I_d): E[1 - a_11] = 2^(-d/2 - 1) exactly.
 * Derivation: 1 - a_11 = sigma(z) with z = x_1.x_2 - ||x_1||^2 and sigma the
 * logistic function. Given r = ||x_1||^2, x_1.x_2 = sqrt(r) u with
 * u ~ N(0, 1), and substituting u = sqrt(r) + v,
 *   E[sigma(sqrt(r) u - r) | r] = e^{-r/2} E[e^{-sqrt(r) v} sigma(sqrt(r) v)]
 *                               = e^{-r/2} E[sigma(-sqrt(r) v)] = e^{-r/2} / 2
 * (v is symmetric); r ~ chi^2_d has E[e^{-r/2}] = (1 + 1)^{-d/2}. */
double selfweight_leak_t2(double d);

/* The same expectation by numerical integration over r ~ chi^2_d and u
 * (GSL adaptive quadrature, relative accuracy ~1e-9): the check of the
 * closed form. d >= 1; NaN when the quadrature fails. */
double selfweight_leak_t2_numeric(double d);

/* The large-d law (T - 1) 2^(-d/2): for large d, 1 - a_ii is about the sum
 * over the T - 1 other tokens of e^{s_ij - s_ii}, each with mean
 * E[e^{x_i.x_j - ||x_i||^2}] = E[e^{-||x_i||^2 / 2}] = 2^(-d/2); the exact
 * T = 2 value is half of it (the softmax caps each term below 1). */
double selfweight_leak_law(size_t T, double d);

/* ---- where the mean self-weight crosses a level ------------------------ */

/* The mean leak l(d) = 1 - mean a_ii falls with d. Given the points
 * (d_k, l_k, se_k), k = 0..n-1 (increasing d, independent estimates), find
 * the first k with l_k > L >= l_{k+1}, L = 1 - level, and interpolate
 * linearly in log l (the large-d law makes log l linear in d):
 *   lambda = log l,  t = (log L - lambda_k) / (lambda_{k+1} - lambda_k),
 *   d* = d_k + t (d_{k+1} - d_k).
 * Its standard error and 95% CI are the delta method's (curve_crossing_between,
 * curve.h, with y = lambda, Var lambda = (se(l) / l)^2, the two points
 * independent). ATT_OK, or ATT_ERUNTIME when the leak
 * never crosses L (or a neighbour has l <= 0). */
typedef struct {
    double d_star, se, lo, hi;
    size_t k;          /* the crossing lies between point k and k + 1 */
} selfweight_crossing;
int selfweight_contour_crossing(const double *d, const double *leak, const double *leak_se,
                                size_t n, double level, selfweight_crossing *out);

/* The slope b of y = a + b x by weighted least squares (weights 1/se_i^2),
 * and in *slope_se its standard error sqrt(sum w / D), widened by
 * sqrt(chi^2 / (n - 2)) when the points scatter more than their errors say
 * (D = sum w sum w x^2 - (sum w x)^2). n >= 3, every se_i > 0. */
double selfweight_weighted_slope(const double *x, const double *y, const double *se, size_t n,
                                 double *slope_se);

/* ---- a picture: one draw's two weight matrices (random_projections) ---- */

/* One draw for a picture: X (T, d) ~ N(0, 1), then W_Q, W_K (d, d_k) ~
 * N(0, 1/d), from rng (selfweight_draw_inputs' order); A_raw = softmax_rows(X X^T)
 * and A_proj = softmax_rows((X W_Q)(X W_K)^T), both (T, T), T = A_raw's rows. */
int selfweight_heatmaps(gsl_rng *rng, size_t d, size_t d_k, gsl_matrix *A_raw, gsl_matrix *A_proj);

/* ---- the naive head's leak E[1 - a_ii] (naive_self_attention) ----------
 *
 * The mean leak by an exact re-weighting.
 *
 * Set-up: X (T, d) rows i.i.d. N(0, I_d), S = X X^T, a_ii = softmax(S_i)_i.
 * Derivation. By exchangeability of the other rows,
 *   E[1 - a_ii] = (T - 1) E[e^{s_ij} / (e^{s_ii} + e^{s_ij} + sum_{k != i,j} e^{s_ik})]   (one j)
 *               = (T - 1) E[e^{s_ij - R} / (1 + e^{s_ij - R} + sum_k e^{s_ik - R})],  R =
 * ||x_i||^2. Given x_i, s_ij = x_i . x_j ~ N(0, R). Tilting x_j by e^{s_ij - R} (Gaussian shift,
 * E[e^{a z} g(z)] = e^{a^2/2} E[g(z + a)]): E_j[e^{s_ij - R} g(s_ij - R)] = e^{-R/2} E[g(v)],
 * v ~ N(0, R); the other u_k = s_ik - R ~ N(-R, R), independent given x_i. Then
 * R ~ chi^2_d re-weighted by e^{-R/2}: E[e^{-R/2} h(R)] = 2^{-d/2} E[h(r)], r ~ Gamma(d/2, 1)
 * (chi^2_d density ~ R^{d/2-1} e^{-R/2}; E e^{-R/2} = (1 + 1)^{-d/2}). So, exactly,
 *   E[1 - a_ii] = (T - 1) 2^{-d/2} c(T, d),
 *   c(T, d) = E[1 / (1 + e^v + sum_{k=1}^{T-2} e^{u_k})],  v ~ N(0, r), u_k ~ N(-r, r),
 * an integrand in (0, 1): a bounded, plain Monte Carlo average (no rare events).
 * Antithetic v -> -v (v is symmetric given r): the pair's mean is the estimator; at T = 2
 * it is exactly 1/2 (1/(1 + e^v) + 1/(1 + e^{-v}) = 1), giving the closed form 2^{-d/2-1}.
 * Large d at fixed T: e^{u_k} ~ e^{-r/2} -> 0, so c -> 1/2 and E[1 - a_ii] -> (T - 1) 2^{-d/2-1}
 * (the contour law: d* rises by 2 per doubling of T - 1). The first correction,
 * E[sum_k e^{u_k}] = (T - 2) E e^{-r/2} = (T - 2) (2/3)^{d/2}, is what bends the contour.
 */

/* One antithetic pair's value of the integrand of c(T, d): draws r, z_v, then z_1..z_{T-2}.
 * T >= 2, d > 0 (any real). */
double leak_c_draw(gsl_rng *rng, size_t T, double d);

/* ln E[1 - a_ii] from c: ln(T - 1) - (d/2) ln 2 + ln c. */
double leak_log_leak(size_t T, double d, double c);

/* d*(T): the width where the mean self-weight is `level` (E[1 - a_ii] = 1 - level),
 * by the estimate of c at the two integer widths around it (n antithetic pairs each,
 * from rng), ln c interpolated linearly in d, the CI by the delta method
 * (curve_crossing_between, curve.h; the two estimates independent). */
typedef struct {
    double d_star, se, lo, hi;
    int d_below;               /* the bracket [d_below, d_below + 1] */
    double c_below, c_above;   /* c at the bracket                   */
    size_t n;
} leak_width;
int leak_dstar(gsl_rng *rng, size_t T, double level, size_t n, leak_width *w);

/* The exact contour d*(T) of `level` for every T of Tl[0 .. nT-1], each T
 * from its own block T of stream 0xC0DE of the seed (rng reseeded),
 * `pairs` antithetic pairs per width: rows[t] (T, pairs, d*, its CI and se,
 * c at the bracket, the large-d law 2 log2((T - 1) / (2 (1 - level))), the
 * local rise per doubling of T - 1 from the previous T, the bracket's lower
 * width), written as dir/name (d*, c and the rise as Monte Carlo columns). */
typedef struct {
    size_t T, draws;
    double d_star, d_star_lo, d_star_hi, d_star_se, c_below, c_above, d_law, slope_local;
    size_t d_below;
} leak_contour_row;
int leak_contour(gsl_rng *rng, const char *dir, const char *name, unsigned long seed,
                 const size_t *Tl, size_t nT, double level, size_t pairs, leak_contour_row *rows);

/* The median leak 1 - a_ii of `rows` plain rows (row 0 of X (T, d) ~ N(0, 1),
 * s_j = x_0 . x_j), with its order-statistic 95% CI: ranks n/2 -+ STAT_Z95 sqrt(n)/2. */
int leak_median(gsl_rng *rng, size_t T, size_t d, size_t rows, double *median, double *lo,
                double *hi);

/* The check of the T = 2 closed form: max over d = 1 .. d_max of
 * |selfweight_leak_t2_numeric(d) / selfweight_leak_t2(d) - 1| (quadrature / 2^(-d/2 - 1)). */
double leak_t2_quadrature_gap(int d_max);

/* ---- the leak, continued: the derived columns of naive_self_attention's sweep ----
 * The sweep: X (T, d) ~ N(0, 1), S = X X^T, per (T, d) the mean self-weight a_ii, the
 * leak 1 - a_ii, the leak in units of the large-d law (T - 1) 2^(-d/2), argmax-is-self.
 * The derived columns of each point: the leak's se from its ratio to the law (no
 * underflow), CIs of the leak and the self-weight, the leak's relative error (the
 * larger of the sample's and the law's), whether the point is shown, the law, the
 * exact T = 2 leak, the Wilson CI of argmax-is-self over the rows. */
/* the derived columns after the sweep's statistics, in this order */
enum { LEAK_SLO, LEAK_SHI, LEAK_LLO, LEAK_LHI, LEAK_LSE,
       LEAK_RSE, LEAK_SHOWN, LEAK_LAW, LEAK_T2, LEAK_ALO,
       LEAK_AHI, LEAK_ND };
extern const table_col leak_cols[LEAK_ND];
/* a point is shown (in the figure, in the contour) when its leak's rse is at most this */
#define LEAK_MAX_RSE 0.1

/* col[LEAK_ND] at point pt (T, d) from its accumulators of the leak 1 - a_ii,
 * of the leak / ((T - 1) 2^(-d/2)) and of argmax-is-self (each a mean over T rows). */
void leak_derive(double *col, const sweep_point *pt, const stat_acc *leak, const stat_acc *ratio,
                         const stat_acc *argmax);

/* ---- the excess of T E[a_ii] over 1 (random_projections) ----------------
 *
 * The self-weight's excess over 1/T with random projections, and its
 * second-order (soft-softmax) law, measured with antithetic pairs and the second-order term as
 * a control variate.
 *
 * Shapes: X (T, d), X' (T, d) fresh tokens (entries N(0, 1)); W_Q, W_K (d, d_k) entries
 * N(0, c^2/d); Q = X W_Q, K = X W_K, K' = X' W_K (T, d_k); s_ij = q_i . k_j; the control row
 * i replaces its own key k_i by k'_i: s'_ii = q_i . k'_i, s'_ij = s_ij (j != i), and by
 * exchangeability E[a'_ii] = 1/T exactly. Score sd = c^2 sqrt(d_k).
 *
 * The law (derived). Softmax to second order around s = 0, with sbar = (1/T) sum_j s_j:
 *   T a_i = 1 + (s_i - sbar) + ((s_i - sbar)^2 - (1/T) sum_j (s_j - sbar)^2) / 2 + O(s^3).
 * In row i the scores are uncorrelated (E[s_ii s_ij] = E[s_ij s_ik] = 0: the x_j, x_k are
 * independent and zero-mean), with E s_ij^2 = d_k c^4 (j != i) and E s_ii^2 = (1 + 2/d) d_k c^4
 * (Gaussian quadratic form: (tr M)^2 + tr M^2 + tr M M^T, E over W: d_k c^4 (1/d + 1/d + 1)).
 * E(s_j - sbar)^2 = (1 - 2/T) Var s_j + (1/T^2) sum_k Var s_k, so
 *   T E[a_ii] - 1 = (1/2)(1 - 1/T)(1 - 2/T)(E s_ii^2 - E s_ij^2) + O(sd^4)
 *                 = (1 - 1/T)(1 - 2/T) d_k c^4 / d + O(sd^4).
 * The estimator: antithetic pairs and one control variate.
 *   W_K -> -W_K flips every score (s -> -s) and leaves the law of the draw unchanged, so
 *   Y_anti = (Y(s) + Y(-s)) / 2, Y = T (a_ii - a'_ii), has the same mean as Y; every odd
 *   order of the expansion (the O(sd) first-order term, whose fluctuation dwarfs the
 *   O(sd^2) mean, and the third) cancels in it exactly. What remains is even: the
 *   second-order term Q2 (mean: the law, exactly) and O(sd^4). Q2 - law is the control
 *   variate (one coefficient, curve.h), leaving an O(sd^4) residual: the ratio
 *   measured / law has a relative precision O(sd^2), finer as sd -> 0.
 * Why this one (issue 32; the numbers in doc/estimators.md): against the former estimator
 * (plain pairs, four control variates) it has a 1.7 x smaller variance and one coefficient
 * instead of four; tests/test_excess.c checks the CI's coverage over replicate seeds and
 * that a planted bias of 2 se is caught.
 */

enum { RPX_MAX_T = 64, RPX_MAX_DK = 16 };
enum { RPX_PLAIN, RPX_ANTI, RPX_Q2, RPX_NOUT };   /* excess_draw's outputs */

/* One draw, each averaged over the T rows i; from rng (Q, K, K') by W's Gram factor, in
 * their exact law from X, X', W_Q, W_K (selfweight_gram_factor above: R, then Z, Z'):
 * out[RPX_PLAIN] = (1/T) sum_i T (a_ii - a'_ii), out[RPX_ANTI] the same averaged with its
 * antithetic -W_K (same mean), out[RPX_Q2] the second-order term of T (a_ii - a'_ii), even
 * in s, whose mean is the law exactly (the derivation above; tested against its Monte
 * Carlo mean). T in [2, RPX_MAX_T], d >= 1, d_k <= RPX_MAX_DK. */
void excess_draw(gsl_rng *rng, size_t T, size_t d, size_t d_k, double c, double out[RPX_NOUT]);

/* The estimate of T E[a_ii] - 1 from n draws on rng: the intercept of Y_anti regressed on
 * Q2 - law (curve.h), and its standard error. plant is added to every Y_anti (0 but in
 * the test that sees a planted bias caught). n >= 3. ATT_OK, or curve_fit's / memory status. */
int excess_estimate(gsl_rng *rng, size_t T, size_t d, size_t d_k, double c, size_t n,
                      double plant, double *est, double *se);

/* The same estimate to a standard error: n draws, then while se > se_target and fewer than
 * n_max draws, more draws on rng up to n (se / se_target)^2 x 1.1 (at most n_max) and the fit
 * on all of them (a sequential top-up: the pilot's n can fall short, its variance estimate
 * from a heavy-tailed Y_anti being rough). *used: the draws in the estimate. se_target 0:
 * exactly n draws (excess_estimate). */
int excess_estimate_to(gsl_rng *rng, size_t T, size_t d, size_t d_k, double c, size_t n,
                       size_t n_max, double se_target, double plant, double *est, double *se,
                       size_t *used);

/* The law: (1 - 1/T)(1 - 2/T) d_k c^4 / d. */
double excess_law(size_t T, size_t d, size_t d_k, double c);

#endif
