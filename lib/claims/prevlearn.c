/* prevlearn.c - the learned_previous_token sweep's plumbing (prevlearn.h). */
#include "prevlearn.h"
#include "rng.h"
#include "att.h"
#include "mat.h"
#include "table.h"
#include "tiedhead.h"

#include <gsl/gsl_cdf.h>
#include <math.h>
#include <stdlib.h>

measure prevlearn_seed_ci(const stat_acc *a, size_t predictions, int accuracy)
{
    double h = a->n > 1 ? gsl_cdf_tdist_Pinv(0.975, (double)(a->n - 1)) * stat_se(a) : NAN;
    double lo = a->mean - h, hi = a->mean + h, N = (double)a->n * (double)predictions, wl, wh;
    if (accuracy) {
        stat_ci95_wilson(round(a->mean * N), N, &wl, &wh);
        lo = fmax(0.0, fmin(lo, wl)), hi = fmin(1.0, fmax(hi, wh));
    }
    return verdict_measure_as(verdict_measure_ci(a->mean, lo, hi, a->n), NAT_TRAINING);
}

/* the CI columns <name>_ci_lo, <name>_ci_hi (derived columns k, k + 1), compared as training results */
#define CI_PAIR(k, name) SWEEP_DERIVED(k, name "_ci_lo", NAT_TRAINING, name "_ci_lo", name "_ci_hi", NULL), \
                         SWEEP_DERIVED((k) + 1, name "_ci_hi", NAT_TRAINING, name "_ci_lo", name "_ci_hi", NULL)
const table_col prevlearn_derived[PREVLEARN_NDERIVED] = {CI_PAIR(0, "sep_acc"), CI_PAIR(2, "sep_weight"),
                                                         CI_PAIR(4, "tied_acc"), CI_PAIR(6, "tied_weight")};

void prevlearn_derive(double *col, const sweep_point *pt, const stat_acc *a, const void *ctx)
{
    const prevlearn_ctx *c = ctx;
    (void)pt;
    for (int k = 0; k < 4; k++) {   // k: separate acc, weight, then tied acc, weight
        measure m = prevlearn_seed_ci(&a[(size_t)(k / 2) * c->tied + (k % 2 ? c->weight : c->acc)], c->predictions, k % 2 == 0);
        col[2 * k] = m.ci_low, col[2 * k + 1] = m.ci_high;
    }
}

void prevlearn_work_free(void *p)
{
    prevlearn_work *w = p;
    if (w && w->train) gsl_rng_free(w->train);
    if (w && w->eval) gsl_rng_free(w->eval);
    free(w);
}

void *prevlearn_work_alloc(const sweep_grid *g, const void *c)
{
    (void)g;
    const char *name = ((const prevlearn_ctx *)c)->rng_name;
    prevlearn_work *w = calloc(1, sizeof *w);
    if (w && (w->train = rng_new(name, 1)) && (w->eval = rng_new(name, 1))) return w;
    prevlearn_work_free(w);
    return NULL;
}

typedef struct { size_t query, key; double separate, tied; } map_row;
static const table_col map_cols[] = {COL(map_row, query), COL(map_row, key), COL(map_row, separate), COL(map_row, tied)};

int prevlearn_map_write(const char *dir, const char *name, const gsl_matrix *A_sep, const gsl_matrix *A_tied)
{
    size_t T = A_sep->size1;
    map_row *rows = calloc(T * T, sizeof *rows);
    if (!rows) return att_fail(ATT_ERUNTIME, "%s: out of memory", name);
    for (size_t i = 0; i < T * T; i++)
        rows[i] = (map_row){i / T, i % T, gsl_matrix_get(A_sep, i / T, i % T), gsl_matrix_get(A_tied, i / T, i % T)};
    int rc = TABLE_WRITE(dir, name, map_cols, rows, T * T);
    free(rows);
    return rc;
}

int prevlearn_exact_tied(const experiment *e, size_t n_vocab, size_t T, size_t w, size_t heldout, prev_eval *ev,
                         prev_eval *nomask)
{
    prev_config c = prevtrain_config_default(n_vocab, T, w, 1);
    c.heldout = heldout;
    prev_model m;
    int rc = prevtrain_model_alloc(&m, &c);
    if (rc) return rc;
    const sweep_point pt = {.dk = w, .kase = 1};     /* its held-out stream */
    gsl_rng *g = sweep_rng(e, &pt);
    rc = g ? tiedhead_exact(&m, 12.0) : att_alloc_status();
    if (!rc) rc = prevtrain_evaluate(g, &m, ev, NULL);
    m.p.causal = 0;   /* the same weights without the mask */
    if (!rc) rc = prevtrain_evaluate(g, &m, nomask, NULL);
    if (g) gsl_rng_free(g);
    prevtrain_model_free(&m);
    return rc;
}

size_t prevlearn_find(const sweep_result *r, size_t dk, double S)
{
    size_t p = 0;
    while (p < r->npoints && !(r->pt[p].dk == dk && r->pt[p].x == S)) p++;
    return p;
}

int prevlearn_exact_check(experiment *e, size_t n_vocab, size_t T)
{
    prev_eval ex[2][2];
    int st = ATT_OK;
    for (size_t w = 2; w <= 3 && !st; w++) st = prevlearn_exact_tied(e, n_vocab, T, w, 20000, &ex[w - 2][0], &ex[w - 2][1]);
    if (st) return st;
    for (size_t w = 2; w <= 3; w++) {   // the width allows d_k = 2 under the causal mask
        double lo, hi;
        stat_ci95_wilson((double)ex[w - 2][0].correct, (double)ex[w - 2][0].predictions, &lo, &hi);
        exp_control(e, w == 2 ? "lptTiedExact" : "lptTiedExactThree", 1.0,
                    verdict_measure_ci(ex[w - 2][0].accuracy, lo, hi, ex[w - 2][0].predictions), verdict_rule_ci_above(0.999),
                    "an exact tied head W_V = W_K at d_k = %zu, built (1-D zig-zag position code, token "
                    "heights 4^v, token-blind queries, sector read-out; needs the causal mask): accuracy "
                    "over %zu predictions", w, ex[w - 2][0].predictions);
        if (w == 2)
            exp_reported(e, "lptTiedExactNoMask", NAN, verdict_measure_exact(ex[0][1].accuracy, ex[0][1].predictions),
                         "the same exact tied head without the causal mask: accuracy (all T keys "
                         "visible: a 1-D code is extreme at two positions only)");
    }
    exp_summary(e, "an exact tied head at d_k = 2 (causal mask): accuracy %.4f; without the mask %.4f",
                ex[0][0].accuracy, ex[0][1].accuracy);
    return ATT_OK;
}

int prevlearn_map_run(experiment *e, const prevlearn_ctx *c, size_t T, size_t dk, size_t S, size_t nstat,
                      prevlearn_train_fn *train, const char *name)
{
    const sweep_point pt = {.dk = dk, .x = (double)S};
    gsl_rng *rng = sweep_rng(e, &pt);
    prevlearn_work *w = prevlearn_work_alloc(NULL, c);
    gsl_matrix *A[2] = {mat_new(T, T), mat_new(T, T)};
    double *out = calloc(nstat, sizeof *out);
    int rc = rng && w && A[0] && A[1] && out ? ATT_OK : att_alloc_status();
    unsigned long eval_seed = rng ? gsl_rng_get(rng) : 0;   /* as the sweep's draw takes it */
    for (int t = 0; t < 2 && !rc; t++) rc = train(rng, out, c, dk, t, S, eval_seed, w, A[t]);
    if (!rc) rc = prevlearn_map_write(e->o.out_dir, name, A[0], A[1]);
    mat_free(A[0]), mat_free(A[1]), prevlearn_work_free(w), free(out);
    if (rng) gsl_rng_free(rng);
    return rc;
}
