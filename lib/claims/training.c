/* training.c - a previous-token head learned by Adam, and the exact tied one (the model and
 * its shapes in training.h). */
#include "training.h"
#include "prevtoken.h"
#include "mat.h"
#include "softmax.h"
#include "status.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_randist.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

/* theta (n), g (n), m (n), v (n); step k >= 1 */
void training_adam_step(double *theta, const double *g, double *m, double *v, size_t n,
                         size_t k, const adam_params *a)
{
    double c1 = 1.0 - pow(a->beta1, (double)k), c2 = 1.0 - pow(a->beta2, (double)k);
    size_t i = 0;
#ifdef __SSE2__
    /* two elements at a time: the scalar loop's IEEE operations in its order (sqrt and /
     * correctly rounded either way: the same bits), which the compiler does not vectorise
     * itself (sqrt may set errno) */
    const __m128d b1 = _mm_set1_pd(a->beta1), b1c = _mm_set1_pd(1.0 - a->beta1),
                  b2 = _mm_set1_pd(a->beta2), b2c = _mm_set1_pd(1.0 - a->beta2),
                  lr = _mm_set1_pd(a->lr), eps = _mm_set1_pd(a->eps), C1 = _mm_set1_pd(c1),
                  C2 = _mm_set1_pd(c2);
    for (; i + 2 <= n; i += 2) {
        __m128d gi = _mm_loadu_pd(g + i);
        __m128d mi = _mm_add_pd(_mm_mul_pd(b1, _mm_loadu_pd(m + i)), _mm_mul_pd(b1c, gi));
        __m128d vi = _mm_add_pd(_mm_mul_pd(b2, _mm_loadu_pd(v + i)),
                                _mm_mul_pd(_mm_mul_pd(b2c, gi), gi));
        __m128d step = _mm_div_pd(_mm_mul_pd(lr, _mm_div_pd(mi, C1)),
                                  _mm_add_pd(_mm_sqrt_pd(_mm_div_pd(vi, C2)), eps));
        _mm_storeu_pd(m + i, mi);
        _mm_storeu_pd(v + i, vi);
        _mm_storeu_pd(theta + i, _mm_sub_pd(_mm_loadu_pd(theta + i), step));
    }
#endif
    for (; i < n; i++) {
        // m <- b1 m + (1-b1) g ;  v <- b2 v + (1-b2) g^2
        m[i] = a->beta1 * m[i] + (1.0 - a->beta1) * g[i];
        v[i] = a->beta2 * v[i] + (1.0 - a->beta2) * g[i] * g[i];
        // theta <- theta - lr mhat / (sqrt(vhat) + eps),  mhat = m/c1, vhat = v/c2
        theta[i] -= a->lr * (m[i] / c1) / (sqrt(v[i] / c2) + a->eps);
    }
}

prev_config training_config_default(size_t n_vocab, size_t T, size_t dk, int tied)
{
    return (prev_config){ .n_vocab = n_vocab, .T = T, .dk = dk, .tied = tied,
                          .steps = 1600, .batch = 8,
                          .adam = { .lr = 0.05, .beta1 = 0.9, .beta2 = 0.999, .eps = 1e-8 },
                          .init = 1.0, .heldout = 200 };
}

static int prev_check(const prev_config *c)
{
    if (c->n_vocab < 2)
        return att_fail(ATT_EUSAGE, "training: n_vocab = %zu, needs >= 2", c->n_vocab);
    if (c->T < 2)
        return att_fail(ATT_EUSAGE, "training: T = %zu, needs >= 2 (a previous token)", c->T);
    if (c->dk < 1) return att_fail(ATT_EUSAGE, "training: d_k = 0, needs >= 1");
    if (c->batch < 1 || c->heldout < 1)
        return att_fail(ATT_EUSAGE, "training: batch (%zu) and heldout (%zu) must be >= 1",
                        c->batch, c->heldout);
    if (!(c->adam.lr > 0 && isfinite(c->adam.lr)) || !(c->init > 0 && isfinite(c->init)))
        return att_fail(ATT_EUSAGE, "training: lr (%g) and init (%g) must be finite and > 0",
                        c->adam.lr, c->init);
    if (!(c->adam.beta1 >= 0 && c->adam.beta1 < 1) || !(c->adam.beta2 >= 0 && c->adam.beta2 < 1)
        || !(c->adam.eps > 0 && isfinite(c->adam.eps)))
        return att_fail(ATT_EUSAGE, "training: Adam needs 0 <= beta1, beta2 < 1 and eps > 0 "
                        "(beta1 %g, beta2 %g, eps %g)", c->adam.beta1, c->adam.beta2, c->adam.eps);
    return ATT_OK;
}

/* A (rows, cols) view of v (n) at offset *off; *off += rows cols. */
static gsl_matrix_view block(gsl_vector *v, size_t *off, size_t rows, size_t cols)
{
    gsl_matrix_view w = gsl_matrix_view_array(v->data + *off, rows, cols);
    *off += rows * cols;
    return w;
}

int training_model_alloc(prev_model *mdl, const prev_config *c)
{
    memset(mdl, 0, sizeof *mdl);
    int rc = prev_check(c);
    if (rc) return rc;
    size_t V = c->n_vocab, T = c->T, d = V + T, dk = c->dk;
    mdl->c = *c;
    mdl->d = d;
    // theta = [W_Q (d, dk) ; W_K (d, dk) ; W_V (d, dk) unless tied ; W_O (dk, V)]
    mdl->n = (c->tied ? 2 : 3) * d * dk + dk * V;
    mdl->theta = mat_vec_new(mdl->n);
    mdl->grad = mat_vec_new(mdl->n);
    mdl->m = mat_vec_new(mdl->n);
    mdl->v = mat_vec_new(mdl->n);
    mdl->tokens = calloc(T, sizeof *mdl->tokens);
    mdl->X = mat_new(T, d);
    mdl->Z = mat_new(T, V);
    mdl->P = mat_new(T, V);
    mdl->G = mat_new(T, dk);
    mdl->dS = mat_new(T, T), mdl->acc = mat_new(V, dk);
    mdl->dQ = mat_new(T, dk), mdl->dK = mat_new(T, dk), mdl->dV = mat_new(T, dk);
    if (!mdl->theta || !mdl->grad || !mdl->m || !mdl->v || !mdl->tokens || !mdl->X || !mdl->Z
        || !mdl->P || !mdl->G || !mdl->dS || !mdl->acc || !mdl->dQ || !mdl->dK || !mdl->dV
        || (rc = head_state_alloc(&mdl->st, T, T, d, dk, dk))) {
        training_model_free(mdl);
        if (rc) return rc;   // a --max-memory refusal stays a usage error (exit 2)
        if (att_alloc_status() == ATT_EUSAGE) return ATT_EUSAGE;
        return att_fail(ATT_ERUNTIME, "training: out of memory");
    }
    size_t o1 = 0, o2 = 0;
    mdl->W_Q = block(mdl->theta, &o1, d, dk);   mdl->dW_Q = block(mdl->grad, &o2, d, dk);
    mdl->W_K = block(mdl->theta, &o1, d, dk);   mdl->dW_K = block(mdl->grad, &o2, d, dk);
    if (c->tied) { mdl->W_V = mdl->W_K; mdl->dW_V = mdl->dW_K; }
    else { mdl->W_V = block(mdl->theta, &o1, d, dk); mdl->dW_V = block(mdl->grad, &o2, d, dk); }
    mdl->W_O = block(mdl->theta, &o1, dk, V);   mdl->dW_O = block(mdl->grad, &o2, dk, V);
    mdl->p = head_params_make(&mdl->W_Q.matrix, &mdl->W_K.matrix, &mdl->W_V.matrix);
    mdl->p.causal = 1;
    return ATT_OK;
}

void training_model_free(prev_model *mdl)
{
    mat_vec_free(mdl->theta); mat_vec_free(mdl->grad); mat_vec_free(mdl->m); mat_vec_free(mdl->v);
    free(mdl->tokens);
    mat_free(mdl->X); mat_free(mdl->Z); mat_free(mdl->P); mat_free(mdl->G);
    if (mdl->st.Q) head_state_free(&mdl->st);
    mat_free(mdl->dS); mat_free(mdl->acc); mat_free(mdl->dQ); mat_free(mdl->dK); mat_free(mdl->dV);
    memset(mdl, 0, sizeof *mdl);
}

void training_init(gsl_rng *rng, prev_model *mdl)
{
    size_t d = mdl->d, dk = mdl->c.dk, V = mdl->c.n_vocab;
    double s_in = mdl->c.init / sqrt((double)d), s_out = mdl->c.init / sqrt((double)dk);
    // W_Q, W_K, W_V ~ N(0, init^2 / d) ; W_O ~ N(0, init^2 / d_k); W_V drawn even when tied
    mat_randn(rng, &mdl->W_Q.matrix, s_in);
    mat_randn(rng, &mdl->W_K.matrix, s_in);
    if (mdl->c.tied) {
        for (size_t i = 0; i < d * dk; i++) (void)gsl_ran_gaussian(rng, s_in);
    } else {
        mat_randn(rng, &mdl->W_V.matrix, s_in);
    }
    mat_randn(rng, &mdl->W_O.matrix, s_out);
    (void)V;
    gsl_vector_set_zero(mdl->m);
    gsl_vector_set_zero(mdl->v);
}

void training_draw_tokens(gsl_rng *rng, size_t *tokens, size_t n_vocab, size_t T)
{
    for (size_t t = 0; t < T; t++) tokens[t] = gsl_rng_uniform_int(rng, n_vocab);
}

/* index of the largest entry of z (n), first on ties */
static size_t argmax(const double *z, size_t n)
{
    size_t best = 0;
    for (size_t j = 1; j < n; j++)
        if (z[j] > z[best]) best = j;
    return best;
}

/* The products with X (T, d), x_t = [e_{token_t} ; e_t], d = V + T, without X: row t
 * of X W is the sum of two rows of W. Bit for bit what mat_gemm's fixed-order kernel
 * gives for these products (mat.h): its sum over p in order, from +0, adds exactly 0
 * for the zeros of X (0 w = +-0, and x +- 0 = x for a sum that is never -0), and
 * 1 w = w, alpha = 1, for the two ones (W finite, as the training's loss check
 * keeps it). */

/* Y (T, n) = X W, W (d, n):  y_t = (0 + w_{token_t}) + w_{V+t}, token_t < V */
static void onehot_project(gsl_matrix *Y, const size_t *tok, size_t V, const gsl_matrix *W)
{
    for (size_t t = 0; t < Y->size1; t++) {
        const double *a = mat_crow(W, tok[t]);
        const double *b = mat_crow(W, V + t);
        double *y = mat_row(Y, t);
        for (size_t j = 0; j < Y->size2; j++) y[j] = (0.0 + a[j]) + b[j];
    }
}

/* dW (d, n) += X^T dY, dY (T, n), through acc (V, n):  (X^T dY)_pj = sum_{t: token_t = p}
 * dy_tj, t in order, from +0, for p < V;  (X^T dY)_{V+t, j} = 0 + dy_tj */
static void onehot_grad_add(gsl_matrix *dW, const size_t *tok, size_t V, const gsl_matrix *dY,
                            gsl_matrix *acc)
{
    size_t T = dY->size1, n = dY->size2;
    gsl_matrix_set_zero(acc);
    for (size_t t = 0; t < T; t++) {
        const double *dy = mat_crow(dY, t);
        double *s = mat_row(acc, tok[t]), *g = mat_row(dW, V + t);
        for (size_t j = 0; j < n; j++) s[j] += dy[j], g[j] += 0.0 + dy[j];
    }
    for (size_t p = 0; p < V; p++) {
        const double *s = mat_crow(acc, p);
        double *g = mat_row(dW, p);
        for (size_t j = 0; j < n; j++) g[j] += s[j];
    }
}

/* tokens (T) -> X (T, d), st, Z (T, V), P (T, V) */
int training_forward(prev_model *mdl, const size_t *tokens, double *loss, size_t *correct)
{
    size_t T = mdl->c.T, V = mdl->c.n_vocab;
    // x_t = [e_{token_t} ; e_t]
    int rc = prevtoken_circuit_inputs(mdl->X, tokens, V, T);
    // Qb = X W_Q, Kb = X W_K, V = X W_V (one-hot rows, onehot_project);
    // O = softmax(causal(Qb Kb^T)) V
    if (rc) return rc;
    onehot_project(mdl->st.Qb, tokens, V, &mdl->W_Q.matrix);
    onehot_project(mdl->st.Kb, tokens, V, &mdl->W_K.matrix);
    onehot_project(mdl->st.V, tokens, V, &mdl->W_V.matrix);
    rc = head_forward_projected(&mdl->st, &mdl->p);
    // Z = O W_O ;  P = row softmax(Z)
    if (!rc) rc = mat_gemm(mdl->Z, 1.0, mdl->st.O, 0, &mdl->W_O.matrix, 0, 0.0);
    if (rc) return rc;
    // p_t = softmax(z_t);  loss = sum_{t>=1} (logsumexp(z_t) - z_{t, token_{t-1}})
    double L = 0.0;
    size_t ok = 0;
    for (size_t t = 0; t < T; t++) {
        const double *z = mat_crow(mdl->Z, t);
        double lse;
        if ((rc = softmax_vec_lse(mat_row(mdl->P, t), z, V, &lse))) return rc;
        if (t == 0) continue;
        L += lse - z[tokens[t - 1]];
        ok += argmax(z, V) == tokens[t - 1];
    }
    *loss = L;
    if (correct) *correct = ok;
    return ATT_OK;
}

/* tokens (B x T) -> grad (n) = dL/dtheta, L = mean over B (T-1) predictions */
int training_loss_grad(prev_model *mdl, const size_t *tokens, size_t B, double *loss)
{
    size_t T = mdl->c.T, V = mdl->c.n_vocab;
    double w = 1.0 / ((double)B * (double)(T - 1)), Lsum = 0.0;
    gsl_vector_set_zero(mdl->grad);
    gsl_matrix *dZ = mdl->P;    /* P becomes dZ in place */
    for (size_t b = 0; b < B; b++) {
        const size_t *tok = tokens + b * T;
        double L;
        int rc = training_forward(mdl, tok, &L, NULL);
        if (rc) return rc;
        Lsum += L;
        // dZ_t = w (p_t - e_{token_{t-1}}), t >= 1 ;  dZ_0 = 0
        for (size_t v = 0; v < V; v++) mat_row(dZ, 0)[v] = 0.0;
        for (size_t t = 1; t < T; t++) {
            double *dz = mat_row(dZ, t);
            for (size_t v = 0; v < V; v++) dz[v] *= w;
            dz[tok[t - 1]] -= w;
        }
        // dW_O += O^T dZ ;  G = dL/dO = dZ W_O^T
        if ((rc = mat_gemm(&mdl->dW_O.matrix, 1.0, mdl->st.O, 1, dZ, 0, 1.0))) return rc;
        if ((rc = mat_gemm(mdl->G, 1.0, dZ, 0, &mdl->W_O.matrix, 1, 0.0))) return rc;
        // the head's backward pass: dQ, dK, dV of L = sum(G .* O) (no dL/dX: X is data)
        if ((rc = head_backward_projected(mdl->dS, mdl->dQ, mdl->dK, mdl->dV, &mdl->st, &mdl->p,
                                          mdl->G)))
            return rc;
        // dW_Q += X^T dQ ;  dW_K += X^T dK ;  dW_V += X^T dV (tied: dW_V is dW_K, both paths)
        onehot_grad_add(&mdl->dW_Q.matrix, tok, V, mdl->dQ, mdl->acc);
        onehot_grad_add(&mdl->dW_K.matrix, tok, V, mdl->dK, mdl->acc);
        onehot_grad_add(&mdl->dW_V.matrix, tok, V, mdl->dV, mdl->acc);
    }
    *loss = Lsum * w;
    return ATT_OK;
}

int training_run(gsl_rng *rng, prev_model *mdl, size_t first, size_t last, double *mean_loss)
{
    size_t T = mdl->c.T, B = mdl->c.batch;
    if (first < 1) return att_fail(ATT_EUSAGE, "training: Adam steps count from 1");
    size_t *tokens = calloc(B * T, sizeof *tokens);
    if (tokens == NULL) return att_fail(ATT_ERUNTIME, "training: out of memory");
    double sum = 0.0;
    int rc = ATT_OK;
    for (size_t k = first; k <= last && !rc; k++) {
        for (size_t b = 0; b < B; b++)
            training_draw_tokens(rng, tokens + b * T, mdl->c.n_vocab, T);
        double L;
        if ((rc = training_loss_grad(mdl, tokens, B, &L))) break;
        if (!isfinite(L)) {
            rc = att_fail(ATT_ERUNTIME, "training: loss %g at step %zu", L, k);
            break;
        }
        sum += L;
        // theta <- Adam(theta, dL/dtheta) at step k
        training_adam_step(mdl->theta->data, mdl->grad->data, mdl->m->data, mdl->v->data, mdl->n,
                            k, &mdl->c.adam);
    }
    free(tokens);
    if (mean_loss) *mean_loss = last >= first ? sum / (double)(last - first + 1) : NAN;
    return rc;
}

int training_evaluate(gsl_rng *rng, prev_model *mdl, prev_eval *ev, gsl_matrix *A_mean)
{
    size_t T = mdl->c.T, H = mdl->c.heldout;
    if (A_mean && (A_mean->size1 != T || A_mean->size2 != T))
        return att_fail(ATT_EUSAGE, "training: A_mean (%zu x %zu) must be (T x T) = (%zu x %zu)",
                        A_mean->size1, A_mean->size2, T, T);
    if (A_mean) gsl_matrix_set_zero(A_mean);
    size_t correct = 0, V = mdl->c.n_vocab;
    unsigned char *seen = calloc(V, 1);     /* seen[v] = 1: token v was output */
    if (seen == NULL) return att_fail(ATT_ERUNTIME, "training: out of memory");
    double L = 0.0, wprev = 0.0;
    for (size_t h = 0; h < H; h++) {
        training_draw_tokens(rng, mdl->tokens, mdl->c.n_vocab, T);
        double l;
        size_t ok;
        int rc = training_forward(mdl, mdl->tokens, &l, &ok);
        if (rc) { free(seen); return rc; }
        L += l;
        correct += ok;
        for (size_t t = 1; t < T; t++) {
            seen[argmax(gsl_matrix_const_ptr(mdl->Z, t, 0), V)] = 1;
        }
        // weight on the previous position, a_{t,t-1}, t >= 1
        for (size_t t = 1; t < T; t++) wprev += gsl_matrix_get(mdl->st.A, t, t - 1);
        // A_mean += A / H
        if (A_mean)
            for (size_t i = 0; i < T; i++)
                for (size_t j = 0; j < T; j++)
                    *gsl_matrix_ptr(A_mean, i, j) += gsl_matrix_get(mdl->st.A, i, j) / (double)H;
    }
    size_t n = H * (T - 1), distinct = 0;
    for (size_t v = 0; v < V; v++) distinct += seen[v];
    free(seen);
    *ev = (prev_eval){ .distinct = distinct, .accuracy = (double)correct / (double)n,
                       .correct = correct, .predictions = n, .weight_prev = wprev / (double)n,
                       .loss = L / (double)n };
    return ATT_OK;
}

/* ---- the exact tied head (training.h) ---- */

/* lambda_min(V) = (1/2) ln((2 + b/2) / (b/2)), b = min(1/16, (7/8) / (4^{V-1} - 1)) (training.h) */
double tiedhead_min_scale(size_t n_vocab)
{
    if (n_vocab < 2 || n_vocab > TIEDHEAD_MAX_VOCAB) return NAN;
    double b = fmin(1.0 / 16.0, 0.875 / (pow(4.0, (double)(n_vocab - 1)) - 1.0)), h = b / 2.0;
    return 0.5 * log((2.0 + h) / h);
}

int tiedhead_exact(prev_model *mdl, double lambda)
{
    const prev_config *c = &mdl->c;
    if (!c->tied || c->dk < 2 || c->n_vocab < 2 || c->n_vocab > TIEDHEAD_MAX_VOCAB)
        return att_fail(ATT_EUSAGE,
                        "tiedhead: needs a tied model with d_k >= 2 and 2 <= n_vocab <= %d (got "
                        "%s, d_k %zu, n_vocab %zu)",
                        TIEDHEAD_MAX_VOCAB, c->tied ? "tied" : "untied", c->dk, c->n_vocab);
    double lmin = tiedhead_min_scale(c->n_vocab);
    if (!(isfinite(lambda) && lambda >= lmin))
        return att_fail(ATT_EUSAGE,
                        "tiedhead: score scale %g below the leak condition's %.4g at n_vocab %zu "
                        "(training.h; tiedhead_min_scale gives the least that holds)",
                        lambda, lmin, c->n_vocab);
    size_t V = c->n_vocab, T = c->T;
    gsl_matrix *WQ = &mdl->W_Q.matrix, *WK = &mdl->W_K.matrix, *WO = &mdl->W_O.matrix;
    gsl_matrix_set_zero(WQ);
    gsl_matrix_set_zero(WK);
    gsl_matrix_set_zero(WO);
    for (size_t v = 0; v < V; v++) gsl_matrix_set(WK, v, 1, pow(4.0, (double)v));   /* h_v = 4^v */
    for (size_t j = 0; j < T; j++) {
        double sgn = j % 2 ? -1.0 : 1.0;
        gsl_matrix_set(WK, V + j, 0, 3.0 * (double)T + sgn * (double)(j + 1));   /* p_j */
        gsl_matrix_set(WQ, V + j, 0, -sgn * lambda);             /* (-1)^{j-1} lambda */
    }
    for (size_t u = 0; u < V; u++) {
        double cu = pow(4.0, (double)u) * 3.0 / (8.0 * (double)T);
        gsl_matrix_set(WO, 0, u, -cu * cu);
        gsl_matrix_set(WO, 1, u, 2.0 * cu);
    }
    return ATT_OK;
}
