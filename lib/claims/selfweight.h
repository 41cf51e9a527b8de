/* selfweight.h - how much attention a token keeps for itself, in one draw.
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

/* One draw for a picture: X (T, d) ~ N(0, 1), then W_Q, W_K (d, d_k) ~
 * N(0, 1/d), from rng (selfweight_draw_inputs' order); A_raw = softmax_rows(X X^T)
 * and A_proj = softmax_rows((X W_Q)(X W_K)^T), both (T, T), T = A_raw's rows. */
int selfweight_heatmaps(gsl_rng *rng, size_t d, size_t d_k, gsl_matrix *A_raw, gsl_matrix *A_proj);

#endif
