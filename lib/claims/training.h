/* training.h - a previous-token head: learned by gradient descent, and (at the end) an
 * exact one with tied keys and values, built by hand in the same model.
 *
 * The model (one causal attention head and an output matrix):
 *   x_t = [e_{token_t} ; e_t]                 X (T, d), d = n_vocab + T
 *   Q = X W_Q,  K = X W_K,  V = X W_V         W_Q, W_K (d, d_k), W_V (d, d_v)
 *   S = Q K^T, s_tj = -inf for j > t (causal), A = row softmax(S), O = A V
 *   Z = O W_O                                 W_O (d_v, n_vocab), Z (T, n_vocab)
 *   p_t = softmax(z_t)
 * The task: at every position t >= 1, output the previous token:
 *   L = -1/(B (T-1)) sum_b sum_{t>=1} log p_{t, token_{t-1}}   (cross-entropy)
 * over a batch of B random sequences (tokens uniform in 0 .. n_vocab-1).
 * Tied keys and values: W_V = W_K (one matrix, so k_j = v_j and d_v = d_k);
 * its gradient is then dL/dW_K + dL/dW_V (both paths).
 *
 * The gradient comes from the library's backward pass (head_backward_projected, then
 * X^T dQ etc. over the one-hot rows of X) with
 * G = dL/dO = dZ W_O^T, dZ_t = (p_t - e_{token_{t-1}}) / (B (T-1)) for t >= 1
 * and dZ_0 = 0; dW_O = O^T dZ. Training is Adam (Kingma & Ba 2015):
 *   m <- b1 m + (1-b1) g,   v <- b2 v + (1-b2) g^2,
 *   theta <- theta - lr (m / (1-b1^k)) / (sqrt(v / (1-b2^k)) + eps)
 * at step k = 1, 2, ...
 *
 * All parameters live in one flat vector theta (W_Q, W_K, [W_V], W_O, row-
 * major, in that order; no W_V block when tied), so Adam is one loop over
 * theta and a gradient check moves theta's entries. Everything is sequential
 * and seeded by the caller's generator: one run gives the same numbers for
 * any number of threads.
 */
#ifndef ATT_TRAINING_H
#define ATT_TRAINING_H

#include <stddef.h>
#include <gsl/gsl_matrix.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_vector.h>
#include "head.h"

typedef struct {
    double lr, beta1, beta2, eps;
} adam_params;

/* One Adam step on n numbers at step k >= 1 (the formula above). */
void training_adam_step(double *theta, const double *g, double *m, double *v, size_t n,
                         size_t k, const adam_params *a);

typedef struct {
    size_t n_vocab, T;      /* vocabulary, tokens per sequence (>= 2)          */
    size_t dk;              /* width d_k = d_v                                 */
    int tied;               /* 1: W_V = W_K                                    */
    size_t steps, batch;    /* Adam steps (the caller's budget), sequences per step */
    adam_params adam;
    double init;            /* weights ~ N(0, init^2 / fan_in), fan_in = d for
                               W_Q, W_K, W_V and d_k for W_O                    */
    size_t heldout;         /* fresh sequences for the evaluation              */
} prev_config;

/* The experiment's defaults for (n_vocab, T, d_k, tied). */
prev_config training_config_default(size_t n_vocab, size_t T, size_t dk, int tied);

typedef struct {
    prev_config c;
    size_t d, n;                    /* d = n_vocab + T; n = entries of theta */
    gsl_vector *theta, *grad;       /* (n), (n)                              */
    gsl_vector *m, *v;              /* Adam moments (n), (n)                 */
    gsl_matrix_view W_Q, W_K, W_V, W_O;   /* views into theta (W_V = W_K when tied) */
    gsl_matrix_view dW_Q, dW_K, dW_V, dW_O; /* the same views into grad      */
    head_params p;                  /* causal, W_V = W_K's view when tied    */
    /* workspace for one sequence */
    size_t *tokens;                 /* (T)                                   */
    gsl_matrix *X, *Z, *P, *G;      /* (T, d), (T, n_vocab) x 2, (T, d_k)    */
    head_state st;
    gsl_matrix *dS, *dQ, *dK, *dV;  /* the backward pass: (T, T), (T, d_k) x 3 */
    gsl_matrix *acc;                /* (n_vocab, d_k): X^T dY's token rows    */
} prev_model;

/* Allocate for c (checked: n_vocab >= 2, T >= 2, dk >= 1, batch >= 1,
 * heldout >= 1, finite positive lr and init, 0 <= beta < 1, eps > 0;
 * ATT_EUSAGE naming the field otherwise). Weights are zero until
 * training_init. */
int training_model_alloc(prev_model *mdl, const prev_config *c);
void training_model_free(prev_model *mdl);

/* W ~ N(0, init^2 / fan_in) for W_Q, W_K, W_V, W_O, drawn in that order
 * from rng; W_V is drawn even when tied (and discarded), so a tied and a
 * separate model from the same generator state share W_Q, W_K, W_O and
 * every later draw (the training batches, the held-out sequences). Adam's
 * moments are set to 0. */
void training_init(gsl_rng *rng, prev_model *mdl);

/* tokens (T) uniform in 0 .. n_vocab-1. */
void training_draw_tokens(gsl_rng *rng, size_t *tokens, size_t n_vocab, size_t T);

/* Forward pass of one sequence tokens (T): fills mdl->X, st (Q, K, V, S, A,
 * O), Z and P; returns the sequence's summed loss
 *   sum_{t>=1} -log p_{t, token_{t-1}}   (via log-sum-exp, stable)
 * in *loss, and the number of positions t >= 1 whose argmax_v z_tv (first
 * on ties) is token_{t-1} in *correct (may be NULL). */
int training_forward(prev_model *mdl, const size_t *tokens, double *loss, size_t *correct);

/* Loss and gradient over a batch of B sequences (tokens: B x T, row b is
 * sequence b): *loss = L above, mdl->grad = dL/dtheta. */
int training_loss_grad(prev_model *mdl, const size_t *tokens, size_t B, double *loss);

/* Train: Adam steps k = first .. last (first >= 1; Adam's bias correction
 * uses k, so training in pieces 1..a, a+1..b equals one run 1..b), each on
 * a fresh batch of c.batch random sequences drawn from rng. *mean_loss =
 * the mean batch loss over these steps (may be NULL). c.steps is not read. */
int training_run(gsl_rng *rng, prev_model *mdl, size_t first, size_t last, double *mean_loss);

/* What the evaluation measures on c.heldout fresh random sequences. */
typedef struct {
    double accuracy;        /* correct / predictions, positions t >= 1       */
    size_t correct, predictions;
    double weight_prev;     /* mean a_{t,t-1} over sequences and t >= 1      */
    double loss;            /* mean cross-entropy per prediction             */
    size_t distinct;        /* how many different tokens the head outputs    */
} prev_eval;

/* Evaluate on c.heldout sequences from rng; A_mean (T, T) (may be NULL)
 * receives the mean attention matrix over them. */
int training_evaluate(gsl_rng *rng, prev_model *mdl, prev_eval *ev, gsl_matrix *A_mean);

/* ---- an exact previous-token head with tied keys and values (W_V = W_K) at
 * d_k = 2 (and d_k >= 2 by zero padding), built by hand in the model above (causal mask,
 * x_t = [e_token; e_t], Z = O W_O without bias) ----
 *
 * Construction (k_j = v_j = W_K^T x_j = (p_j, h_{token_j}); q_t = W_Q^T x_t token-blind):
 *   position code (axis 1):  p_j = 3T + (-1)^j (j + 1)      in [2T, 4T], zig-zag
 *   token code (axis 2):     h_v = 4^v                       (distinct heights)
 *   query:                   q_t = lambda (-1)^{t-1} (1, 0)
 * Why attention picks t - 1: s_tj = lambda (-1)^{t-1} p_j = const_t + lambda (-1)^{t-1+j} (j + 1);
 * among the visible j <= t (causal), the same-parity j's score lambda (j + 1), largest at
 * j = t - 1 (lambda t; the next, j = t - 3, is 2 lambda lower); the other parity, j = t
 * included, scores below const_t. So a_{t,t-1} >= 1 - T e^{-2 lambda}.
 * Why the read-out can name the token: O_t ~ v_{t-1} = (p, h_v) with p in [2T, 4T] > 0, so
 * the slope m = h / p lies in [4^v / (4T), 4^v / (2T)]: disjoint intervals for different v
 * (ratio 4 between tokens, 2 within). z_u = O . w_u = p (w_u1 + w_u2 m); with the tangents
 * of g(m) = m^2 at c_u = 4^u (3 / (8T)) (the intervals' centres), w_u = (-c_u^2, 2 c_u), the
 * argmax over u of 2 c_u m - c_u^2 switches at (c_u + c_{u+1}) / 2 = 4^u 15 / (16T), inside
 * the gap (4^u / (2T), 4^u / T) between the intervals of u and u + 1. So argmax z_t =
 * token_{t-1} for every sequence: accuracy 1, PROVIDED the leak is small enough (below).
 * The leak condition (the domain in n_vocab and lambda). O_t = sum_j a_tj v_j = (P, H) is not
 * exactly v_{t-1}: with eps = 1 - a_{t,t-1}, P is a mean of codes in [2T, 4T] (so P in [2T, 4T])
 * and H = (1 - eps) 4^u + (leak) with 0 <= leak <= eps 4^{V-1}, u = token_{t-1}, V = n_vocab.
 *   upper switch (u < V - 1): m = H / P <= ((1 - eps) 4^u + eps 4^{V-1}) / (2T) must stay below
 *     4^u 15 / (16T), i.e. 1 + eps (4^{V-1-u} - 1) < 15/8; worst at u = 0:
 *     eps < (7/8) / (4^{V-1} - 1);
 *   lower switch (u > 0): m >= (1 - eps) 4^u / (4T) must stay above 4^{u-1} 15 / (16T),
 *     i.e. eps < 1/16 (weaker than the first once V >= 3).
 * The leak itself: the scores of the other visible keys sit below s_{t,t-1} by gaps lambda g,
 * g = 2, 4, 6, .. (same parity) and g = t + 1 + j for the other parity (distinct, >= 2, step 2),
 * so eps <= sum e^{-lambda g} <= 2 e^{-2 lambda} / (1 - e^{-2 lambda}), whatever T.
 * Hence the condition  2 e^{-2 lambda} / (1 - e^{-2 lambda}) < b(V),
 *   b(V) = min(1/16, (7/8) / (4^{V-1} - 1)).
 * tiedhead_min_scale asks for a factor 2 of room, 2 e^{-2 lambda} / (1 - e^{-2 lambda}) <= b / 2:
 *   lambda_min(V) = (1/2) ln((2 + b/2) / (b/2)),  about 0.69 (V - 1) + 0.76 for large V.
 * lambda = 12 (the experiment's) meets it up to V = 17 (lambda_min(17) = 11.85, (18) = 12.54); the
 * vocabulary 8 of the cited rows needs lambda >= 5.6. Beyond V = 17 a fixed lambda = 12 fails: a
 * token 0 after a large token two places back reads as a larger token (the test plants it).
 * The largest vocabulary: the read-out's largest logit |z| <= P c_{V-1}^2 <= 4^{2(V-1)} 9/(16T)
 * must stay finite in double with room, 4^{2(V-1)} <= 2^996: V <= TIEDHEAD_MAX_VOCAB = 250.
 * (The earlier limit 400 overflowed c_u^2 = inf for u >= 256: NaN logits.)
 * Without the causal mask all T keys are visible, and a linear score in a 1-D code is
 * largest at one of the two extreme codes only: no 1-D position code lets every t pick t - 1
 * once T > 3. (The mask is what makes a 1-D code, hence d_k = 2, enough.)
 */
#define TIEDHEAD_MAX_VOCAB 250

/* The smallest score scale lambda_min(n_vocab) of the leak condition above (with its factor 2
 * of room); NaN for n_vocab < 2 or above TIEDHEAD_MAX_VOCAB. */
double tiedhead_min_scale(size_t n_vocab);

/* Set mdl's weights (tied, d_k >= 2, 2 <= n_vocab <= TIEDHEAD_MAX_VOCAB) to the construction
 * above with score scale lambda >= tiedhead_min_scale(n_vocab) (finite). ATT_EUSAGE when mdl
 * is not tied, d_k < 2, n_vocab is outside the domain or lambda below the leak condition. */
int tiedhead_exact(prev_model *mdl, double lambda);

#endif
