/* training.h - learning a previous-token head by gradient descent.
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
 * The gradient comes from the library's backward pass (head_backward) with
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
    head_grads hg;
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

#endif
