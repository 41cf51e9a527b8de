/* score_asymmetry - raw scores are symmetric, learned scores need not be.
 *
 * Claim (score_asymmetry): with raw vectors s_ij = x_i . x_j = s_ji, so
 * relevance is forced to be mutual. With projections s_ij = x_i^T W_QK x_j,
 * W_QK = W_Q W_K^T, and s_ij != s_ji unless W_QK is symmetric.
 *
 * Measured, for T = 16, d = 64, d_k = 16 (X ~ N(0, 1), weights ~ N(0, 1/d)),
 * 2000 draws, the relative asymmetry a(S) = ||S - S^T||_F / ||S||_F of
 *   raw          S = X X^T
 *   tied         W_Q = W_K = W:  S = (X W)(X W)^T
 *   symmetric    W_K = W_Q M, M = (B + B^T)/sqrt(2): W_QK = W_Q M W_Q^T is
 *                symmetric although W_Q != W_K
 *   independent  W_Q, W_K drawn independently (the claim)
 * The first three are 0 in exact arithmetic; computed, s_ij and s_ji may
 * differ by rounding, |fl(q.k) - q.k| <= gamma_n |q|.|k| (Higham 3.5), on a
 * chain of n = d (raw), d + d_k (tied), d + 2 d_k (symmetric) products:
 *   tol = 16 n eps rho,  rho = || |Q| |K|^T ||_F / ||S||_F  (smallest over draws).
 * Prediction for independent Gaussian factors (tools/notes/score_asymmetry.md):
 *   a ~ sqrt(2 (T - 1)(1 - 1/d) / (T + 2/d))   (1.357 at T = 16, d = 64)
 * And one sentence with a hand-made head (lib/claims/sentence.h): "it"
 * attends to "animal", "animal" does not attend to "it".
 *
 * Writes into --out: score_asymmetry.csv (one row per case: draws, mean, CI,
 * min, max, smallest tol, draws with a(S) exactly 0), score_asymmetry_draws.csv
 * (a(S) of every draw), score_asymmetry_sentence.csv (raw and learned scores
 * and weights of the sentence, one row per (query, key)), .meta, .verdicts.csv.
 */
#include "experiment.h"
#include "head.h"
#include "mat.h"
#include "mem.h"
#include "qkov.h"
#include "sentence.h"
#include "status.h"
#include "table.h"
#include "tol.h"

#include <math.h>
#include <stdlib.h>

enum { C_RAW, C_TIED, C_SYM, C_IND, NCASE };
static const char *const case_names[NCASE] = {"raw", "tied", "symmetric", "independent"};
/* per draw: the asymmetry of each case, its tolerance, 1 when exactly 0 */
enum { S_ASYM = 0, S_TOL = NCASE, S_ZERO = 2 * NCASE, NSTAT = 3 * NCASE };

typedef struct { size_t T, d, d_k; } ctx;

typedef struct {
    gsl_matrix *X, *W_Q, *W_K, *W_V, *B, *M, *S;
    head_state st;
} scratch;

static void scratch_free(void *p)
{
    scratch *s = p;
    if (s == NULL) return;
    gsl_matrix *m[] = {s->X, s->W_Q, s->W_K, s->W_V, s->B, s->M, s->S};
    for (size_t k = 0; k < sizeof m / sizeof m[0]; k++) mat_free(m[k]);
    head_state_free(&s->st);
    free(s);
}

/* X (T, d), W_Q, W_K (d, d_k), W_V (d, 1), B, M (d_k, d_k), S (T, T) */
static void *scratch_alloc(void *cp)
{
    const ctx *c = cp;
    scratch *s = calloc(1, sizeof *s);
    if (s == NULL) return NULL;
    s->X = mat_new(c->T, c->d);
    s->W_Q = mat_new(c->d, c->d_k); s->W_K = mat_new(c->d, c->d_k); s->W_V = mat_new(c->d, 1);
    s->B = mat_new(c->d_k, c->d_k); s->M = mat_new(c->d_k, c->d_k);
    s->S = mat_new(c->T, c->T);
    if (!s->X || !s->W_Q || !s->W_K || !s->W_V || !s->B || !s->M || !s->S
        || head_state_alloc(&s->st, c->T, c->T, c->d, c->d_k, 1) != ATT_OK) {
        scratch_free(s);
        return NULL;
    }
    return s;
}

/* tol = 16 n eps || |Q| |K|^T ||_F / ||S||_F, Q (T, n'), K (T, n'), S (T, T) */
static double rounding_tol(size_t n, const gsl_matrix *Q, const gsl_matrix *K, const gsl_matrix *S)
{
    return tol_eps(16.0, n, tol_product_scale_frob(Q, K) / mat_frob(S));
}

static int draw(void *cp, void *sp, gsl_rng *rng, size_t i, double *out)
{
    (void)i;
    const ctx *c = cp;
    scratch *s = sp;
    double sw = 1.0 / sqrt((double)c->d);
    int rc;
    mat_randn(s->X, rng, 1.0);
    mat_randn(s->W_V, rng, sw);

    // a(S) = ||S - S^T||_F / ||S||_F of each case (qkov_asymmetry)
    // raw: S = X X^T
    if ((rc = head_scores(s->S, s->X, s->X, 1.0))) return rc;
    out[S_ASYM + C_RAW] = qkov_asymmetry(s->S);
    out[S_TOL + C_RAW] = rounding_tol(c->d, s->X, s->X, s->S);

    // tied: W_Q = W_K = W, S = (X W)(X W)^T
    mat_randn(s->W_Q, rng, sw);
    head_params p = head_params_make(s->W_Q, s->W_Q, s->W_V);
    if ((rc = head_forward(&s->st, &p, s->X, s->X))) return rc;
    out[S_ASYM + C_TIED] = qkov_asymmetry(s->st.S);
    out[S_TOL + C_TIED] = rounding_tol(c->d + c->d_k, s->st.Q, s->st.K, s->st.S);

    // symmetric on purpose: M = (B + B^T)/sqrt(2), W_K = W_Q M, so W_QK = W_Q M W_Q^T
    mat_randn(s->B, rng, 1.0 / sqrt((double)c->d_k));
    gsl_matrix_transpose_memcpy(s->M, s->B);
    gsl_matrix_add(s->M, s->B);
    gsl_matrix_scale(s->M, M_SQRT1_2);
    if ((rc = mat_gemm(s->W_K, 1.0, s->W_Q, 0, s->M, 0, 0.0))) return rc;
    p = head_params_make(s->W_Q, s->W_K, s->W_V);
    if ((rc = head_forward(&s->st, &p, s->X, s->X))) return rc;
    out[S_ASYM + C_SYM] = qkov_asymmetry(s->st.S);
    out[S_TOL + C_SYM] = rounding_tol(c->d + 2 * c->d_k, s->st.Q, s->st.K, s->st.S);

    // independent: fresh W_Q and W_K
    mat_randn(s->W_Q, rng, sw);
    mat_randn(s->W_K, rng, sw);
    if ((rc = head_forward(&s->st, &p, s->X, s->X))) return rc;
    out[S_ASYM + C_IND] = qkov_asymmetry(s->st.S);
    out[S_TOL + C_IND] = rounding_tol(c->d + c->d_k, s->st.Q, s->st.K, s->st.S);

    for (int k = 0; k < NCASE; k++) out[S_ZERO + k] = out[S_ASYM + k] == 0.0;
    return ATT_OK;
}

typedef struct {
    const char *name;
    int index;
    size_t draws;
    double mean, ci_lo, ci_hi, min, max, tol_min;
    size_t exact_zeros;
} case_row;
static const table_col case_cols[] = {
    COL_AS(case_row, name, "case"), COL(case_row, index), COL(case_row, draws),
    /* make verify (table.h): raw, tied and symmetric are zero up to rounding (below 1e-10) */
    COL_MC_ROUND(case_row, mean, "ci_lo", "ci_hi", "1e-10"), COL_MC_ROUND(case_row, ci_lo, "ci_lo", "ci_hi", "1e-10"),
    COL_MC_ROUND(case_row, ci_hi, "ci_lo", "ci_hi", "1e-10"), COL_ROUND(case_row, min, "1e-10"),
    COL_ROUND(case_row, max, "1e-10"), COL(case_row, tol_min), COL(case_row, exact_zeros)};

typedef struct { size_t draw; double a[NCASE]; } draw_row;
static const table_col draw_cols[] = {
    COL(draw_row, draw), COL_ROUND_AS(draw_row, a[0], "raw", "1e-10"), COL_ROUND_AS(draw_row, a[1], "tied", "1e-10"),
    COL_ROUND_AS(draw_row, a[2], "symmetric", "1e-10"), COL_ROUND_AS(draw_row, a[3], "independent", "1e-10")};

static const table_col sentence_cols[] = {
    COL(sentence_row, qi), COL(sentence_row, ki), COL(sentence_row, query), COL(sentence_row, key),
    COL(sentence_row, raw_score), COL(sentence_row, raw_weight), COL(sentence_row, score),
    COL(sentence_row, weight)};

static int run(experiment *e)
{
    const opts *o = &e->o;
    ctx c = {o->T ? o->T : 16, o->d ? o->d : 64, o->dk ? o->dk : 16};
    if (c.T < 2) return exp_usage("--T %zu: the claim compares s_ij with s_ji, it needs T >= 2 tokens", c.T);
    size_t n = o->draws;
    double *values = mem_calloc(n * NSTAT, sizeof *values, "per-draw asymmetries");
    draw_row *draws = mem_calloc(n, sizeof *draws, "per-draw table");
    if (values == NULL || draws == NULL) {
        mem_free(values, n * NSTAT, sizeof *values); mem_free(draws, n, sizeof *draws);
        return att_alloc_status();
    }
    stat_acc acc[NSTAT];
    mc_config cfg = exp_mc(e, NULL);
    cfg.nstats = NSTAT; cfg.draw = draw; cfg.alloc = scratch_alloc; cfg.free = scratch_free;
    cfg.ctx = &c; cfg.values = values;
    int st = mc_run(&cfg, acc);

    // the sentence: raw scores X X^T and a hand-made head's scores
    sentence_row srow[SENTENCE_T * SENTENCE_T];
    sentence_result sr;
    if (!st) st = sentence_attention(srow, &sr);

    case_row rows[NCASE];
    for (int k = 0; k < NCASE && !st; k++) {
        const stat_acc *a = &acc[S_ASYM + k];
        rows[k] = (case_row){case_names[k], k + 1, a->n, a->mean, 0, 0, a->min, a->max,
                             k == C_IND ? NAN : acc[S_TOL + k].min,
                             (size_t)(acc[S_ZERO + k].mean * (double)a->n + 0.5)};
        stat_ci95(a, &rows[k].ci_lo, &rows[k].ci_hi);
    }
    for (size_t i = 0; i < n; i++) {
        draws[i].draw = i;
        for (int k = 0; k < NCASE; k++) draws[i].a[k] = values[i * NSTAT + S_ASYM + k];
    }
    if (!st) st = TABLE_WRITE(o->out_dir, "score_asymmetry.csv", case_cols, rows, NCASE);
    if (!st) st = TABLE_WRITE(o->out_dir, "score_asymmetry_draws.csv", draw_cols, draws, n);
    if (!st) st = TABLE_WRITE(o->out_dir, "score_asymmetry_sentence.csv", sentence_cols, srow,
                              SENTENCE_T * SENTENCE_T);
    mem_free(values, n * NSTAT, sizeof *values);
    mem_free(draws, n, sizeof *draws);
    if (st) return st;
    exp_meta(e, "T: %zu", c.T);
    exp_meta(e, "d: %zu", c.d);
    exp_meta(e, "d_k: %zu", c.d_k);

    /* the claim: independent projections give O(1) asymmetry */
    verdict_add(&e->v, KIND_CLAIM, "asymIndep", NAN, measure_stat(&acc[S_ASYM + C_IND]),
                rule_ci_above(0.5), "mean ||S - S^T||_F / ||S||_F with independent W_Q, W_K "
                "(T = %zu, d = %zu, d_k = %zu)", c.T, c.d, c.d_k);
    /* the explanation, as a prediction: sym/antisym parts of W_QK and the diagonal */
    double pred = sqrt(2.0 * (double)(c.T - 1) * (1.0 - 1.0 / (double)c.d)
                       / ((double)c.T + 2.0 / (double)c.d));
    verdict_add(&e->v, KIND_CLAIM, "asymIndepPred", pred, measure_stat(&acc[S_ASYM + C_IND]),
                rule_ci_within(0.98 * pred, 1.02 * pred), "the same mean against the prediction "
                "sqrt(2 (T-1)(1-1/d) / (T+2/d)) = %.4f, within 2%%", pred);
    /* symmetric W_QK: zero up to rounding */
    const char *macro[3] = {"asymRawMax", "asymTiedMax", "asymSymMax"};
    const char *what[3] = {"raw scores X X^T", "tied projections W_Q = W_K",
                           "W_K = W_Q M, M symmetric (W_QK symmetric, W_Q != W_K)"};
    for (int k = 0; k < 3; k++)
        verdict_add(&e->v, KIND_IDENTITY, macro[k], 0.0, measure_exact(rows[k].max, n),
                    rule_at_most(rows[k].tol_min), "largest ||S - S^T||_F / ||S||_F, %s%s", what[k],
                    rows[k].exact_zeros == n ? " (bit for bit 0 in every draw)" : "");
    /* the sentence: "it" looks at "animal", "animal" does not look at "it" */
    verdict_add(&e->v, KIND_IDENTITY, "asymSentenceRaw", 0.0,
                measure_exact(fabs(sr.raw_it_animal - sr.raw_animal_it), 1),
                rule_at_most(tol_eps(16.0, SENTENCE_D, sr.raw_scale)),
                "sentence, raw scores: |s(it, animal) - s(animal, it)|");
    /* a positive control: a W_QK built one-way is seen as one-way */
    verdict_add(&e->v, KIND_CONTROL, "asymSentenceRatio", NAN,
                measure_exact(sr.a_it_animal / sr.a_animal_it, 1), rule_at_least(10.0),
                "sentence, hand-made head: a(it -> animal) / a(animal -> it) = %.3f / %.3g",
                sr.a_it_animal, sr.a_animal_it);
    return ATT_OK;
}

int main(int argc, char **argv)
{
    static const experiment_def def = {
        "score_asymmetry", "raw scores are symmetric; learned scores x_i^T W_QK x_j need not be",
        OPT_MC | OPT_T | OPT_D | OPT_DK, 20261129UL, 2000, NULL, run};
    return experiment_main(&def, argc, argv);
}
