/* bilinear_low_rank - scores are a learned, low-rank bilinear form.
 *
 * Claim (bilinear_low_rank): s_ij = q_i . k_j = x_i^T W_QK x_j with
 * W_QK = W_Q W_K^T (d x d). W_QK = I gives back the naive x_i . x_j; since the
 * product passes through d_k dimensions, rank(W_QK) <= d_k, and the factored
 * form costs 2 d d_k parameters instead of d^2. Likewise W_OV = W_V W_O
 * (d x d, rank <= d_v) decides what the head moves: O W_O = A X W_OV.
 *
 * Measured, for d = 64, T = 16, d_k = d_v = 1, 2, 4, 8, 16, 32 (X ~ N(0, 1),
 * weights ~ N(0, 1/d)), 100 draws per point:
 *   - ||Q K^T - X W_QK X^T||_F / ||Q K^T||_F (identity);
 *   - W_QK = I: X I X^T, and W_Q = W_K = U (Haar orthogonal, d_k = d), against
 *     X X^T (identity);
 *   - the singular values of W_QK and W_OV: the smallest kept sigma_{d_k}/sigma_1
 *     (the claim: rank d_k, every dimension used) and the largest neglected
 *     sigma_{d_k+1}/sigma_1 (identity: rank <= d_k, the rest is rounding);
 *   - ||O W_O - (A X) W_OV||_F / ||O W_O||_F (identity);
 *   - the parameter counts 2 d d_k and d^2 (reported: arithmetic).
 * Tolerances: two computations of one product chain of inner length n differ
 * by at most ~ 2 gamma_n |F_1| ... |F_m| (Higham 3.5), so per draw
 *   tol = 16 n eps || |F_1| ... |F_m| ||_F / ||result||_F,
 * n = 2d + d_k (scores), 2d (U U^T), T + d + d_v (OV); smallest over draws.
 *
 * Writes into --out: bilinear_low_rank.csv (one row per (d_k, d_v)),
 * bilinear_low_rank_spectra.csv (sigma_i / sigma_1 of W_QK, columns "d_k=N",
 * and W_OV, "d_v=N", of the first draw), .meta, .verdicts.csv.
 * --dk / --dv run one point (d_v defaults to d_k).
 */
#include "experiment.h"
#include "head.h"
#include "mat.h"
#include "mem.h"
#include "qkov.h"
#include "randmat.h"
#include "status.h"
#include "table.h"
#include "tol.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define RANK_TOL 1e-10
static const size_t grid[] = {1, 2, 4, 8, 16, 32};
enum { NGRID = sizeof grid / sizeof grid[0] };

/* per draw: errors, tolerances, spectra summaries, then sigma_i/sigma_1 of
 * W_QK (d values) and of W_OV (d values) */
enum { E_QK, T_QK, E_I, E_U, T_U, MIS_QK, KEPT_QK, ZERO_QK, MIS_OV, KEPT_OV, ZERO_OV, E_OV, T_OV,
       NSUM };

typedef struct {
    size_t T, d, n, nstats;
    size_t d_k[NGRID], d_v[NGRID];
    uint64_t stream[NGRID];
} ctx;

/* a grid point's matrices, by name */
enum { X, W_Q, W_K, W_V, W_O, WQK, WOV, U, I, S0, S1, AX, P1, P2, aOV, tQ, tK, tT, tD, NMAT };
typedef struct {
    gsl_matrix *m[NMAT];
    gsl_vector *sv;
    head_state st, stU;
} point_scratch;
typedef struct { size_t n; point_scratch *p[NGRID]; } scratch;

static void scratch_free(void *p)
{
    scratch *all = p;
    if (all == NULL) return;
    for (size_t k = 0; k < all->n; k++) {
        point_scratch *s = all->p[k];
        if (s == NULL) continue;
        for (int j = 0; j < NMAT; j++) mat_free(s->m[j]);
        vec_free(s->sv);
        head_state_free(&s->st);
        head_state_free(&s->stU);
        free(s);
    }
    free(all);
}

/* one scratch per grid point: X, AX, P1, P2, tT, tD (T, d); W_Q, W_K (d, d_k);
 * W_V (d, d_v); W_O (d_v, d); the d x d circuits; S0, S1 (T, T); tQ, tK (T, d_k) */
static void *scratch_alloc(void *cp)
{
    const ctx *c = cp;
    size_t T = c->T, d = c->d;
    scratch *all = calloc(1, sizeof *all);
    for (size_t p = 0; all && p < c->n; p++) {
        size_t dk = c->d_k[p], dv = c->d_v[p];
        const size_t shape[NMAT][2] = {
            [X] = {T, d}, [W_Q] = {d, dk}, [W_K] = {d, dk}, [W_V] = {d, dv}, [W_O] = {dv, d},
            [WQK] = {d, d}, [WOV] = {d, d}, [U] = {d, d}, [I] = {d, d}, [S0] = {T, T},
            [S1] = {T, T}, [AX] = {T, d}, [P1] = {T, d}, [P2] = {T, d}, [aOV] = {d, d},
            [tQ] = {T, dk}, [tK] = {T, dk}, [tT] = {T, d}, [tD] = {T, d}};
        point_scratch *s = all->p[p] = calloc(1, sizeof *s);
        all->n = p + 1;
        int ok = s != NULL;
        for (int k = 0; k < NMAT && ok; k++) ok = (s->m[k] = mat_new(shape[k][0], shape[k][1])) != NULL;
        if (!ok || !(s->sv = vec_new(d)) || head_state_alloc(&s->st, T, T, d, dk, dv)
            || head_state_alloc(&s->stU, T, T, d, d, dv)) {
            scratch_free(all);
            return NULL;
        }
        gsl_matrix_set_identity(s->m[I]);
    }
    return all;
}

static uint64_t point_stream(const void *cp, size_t p) { return ((const ctx *)cp)->stream[p]; }

static int draw_at(void *cp, void *sp, gsl_rng *rng, size_t p, size_t i, double *out)
{
    (void)i;
    const ctx *c = cp;
    point_scratch *s = ((scratch *)sp)->p[p];
    gsl_matrix **m = s->m;
    size_t T = c->T, d = c->d, dk = c->d_k[p], dv = c->d_v[p];
    double sw = 1.0 / sqrt((double)d);
    mat_randn(m[X], rng, 1.0);
    mat_randn(m[W_Q], rng, sw);
    mat_randn(m[W_K], rng, sw);
    mat_randn(m[W_V], rng, sw);
    mat_randn(m[W_O], rng, sw);
    int rc;
    // the head: S = Q K^T, A, O = A V;  S1 = X W_QK X^T, W_QK = W_Q W_K^T
    head_params hp = head_params_make(m[W_Q], m[W_K], m[W_V]);
    if ((rc = head_forward(&s->st, &hp, m[X], m[X]))) return rc;
    if ((rc = qkov_qk(m[WQK], m[W_Q], m[W_K]))) return rc;
    if ((rc = qkov_bilinear_scores(m[S1], m[X], m[WQK], m[X]))) return rc;
    out[E_QK] = mat_rel_diff(m[S1], s->st.S);
    // tol = 16 (2d + d_k) eps || (|X| |W_Q|) (|X| |W_K|)^T ||_F / ||S||_F
    if ((rc = qkov_abs_product(m[tQ], m[X], m[W_Q]))) return rc;
    if ((rc = qkov_abs_product(m[tK], m[X], m[W_K]))) return rc;
    out[T_QK] = tol_eps(16.0, 2 * d + dk, tol_product_scale_frob(m[tQ], m[tK]) / mat_frob(s->st.S));

    // W_QK = I: X I X^T, and W_Q = W_K = U orthogonal (U U^T = I), against X X^T
    if ((rc = head_scores(m[S0], m[X], m[X], 1.0))) return rc;
    if ((rc = qkov_bilinear_scores(m[S1], m[X], m[I], m[X]))) return rc;
    out[E_I] = mat_rel_diff(m[S1], m[S0]);
    if ((rc = randmat_orthogonal(m[U], rng))) return rc;
    head_params pU = head_params_make(m[U], m[U], m[W_V]);
    if ((rc = head_forward(&s->stU, &pU, m[X], m[X]))) return rc;
    out[E_U] = mat_rel_diff(s->stU.S, m[S0]);
    // tol = 16 (2d) eps || (|X| |U|) (|X| |U|)^T ||_F / ||X X^T||_F
    if ((rc = qkov_abs_product(m[tT], m[X], m[U]))) return rc;
    out[T_U] = tol_eps(16.0, 2 * d, tol_product_scale_frob(m[tT], m[tT]) / mat_frob(m[S0]));

    // spectra of W_QK (rank <= d_k) and W_OV = W_V W_O (rank <= d_v)
    if ((rc = qkov_ov(m[WOV], m[W_V], m[W_O]))) return rc;
    if ((rc = qkov_rank_profile(m[WQK], dk, RANK_TOL, s->sv, &out[NSUM], &out[MIS_QK],
                                &out[KEPT_QK], &out[ZERO_QK]))) return rc;
    if ((rc = qkov_rank_profile(m[WOV], dv, RANK_TOL, s->sv, &out[NSUM + d], &out[MIS_OV],
                                &out[KEPT_OV], &out[ZERO_OV]))) return rc;

    // the head's contribution: P1 = O W_O  vs  P2 = (A X) W_OV
    if ((rc = mat_gemm(m[P1], 1.0, s->st.O, 0, m[W_O], 0, 0.0))) return rc;
    if ((rc = mat_gemm(m[AX], 1.0, s->st.A, 0, m[X], 0, 0.0))) return rc;
    if ((rc = mat_gemm(m[P2], 1.0, m[AX], 0, m[WOV], 0, 0.0))) return rc;
    out[E_OV] = mat_rel_diff(m[P2], m[P1]);
    // tol = 16 (T + d + d_v) eps || A |X| |W_V| |W_O| ||_F / ||O W_O||_F   (A >= 0)
    if ((rc = qkov_abs_product(m[aOV], m[W_V], m[W_O]))) return rc;
    if ((rc = qkov_abs_product(m[tT], s->st.A, m[X]))) return rc;
    if ((rc = mat_gemm(m[tD], 1.0, m[tT], 0, m[aOV], 0, 0.0))) return rc;
    out[T_OV] = tol_eps(16.0, T + d + dv, mat_frob(m[tD]) / mat_frob(m[P1]));
    return ATT_OK;
}

typedef struct {
    size_t d, d_k, d_v, draws, params_factored, params_2ddk, params_full;
    double score_err_max, score_tol_min, identity_err_max, uut_err_max, uut_tol_min;
    size_t qk_rank_mismatch;
    double qk_kept_min, qk_zero_max;
    size_t ov_rank_mismatch;
    double ov_kept_min, ov_zero_max, ov_err_max, ov_tol_min;
} point_row;
static const table_col point_cols[] = {
    COL(point_row, d), COL(point_row, d_k), COL(point_row, d_v), COL(point_row, draws),
    COL(point_row, params_factored), COL(point_row, params_2ddk), COL(point_row, params_full),
    COL_ROUND(point_row, score_err_max, "score_tol_min"), COL(point_row, score_tol_min), COL_ROUND(point_row, identity_err_max, "1e-10"),
    COL_ROUND(point_row, uut_err_max, "uut_tol_min"), COL(point_row, uut_tol_min), COL(point_row, qk_rank_mismatch),
    COL(point_row, qk_kept_min), COL_ROUND(point_row, qk_zero_max, "1e-10"), COL(point_row, ov_rank_mismatch),
    COL(point_row, ov_kept_min), COL_ROUND(point_row, ov_zero_max, "1e-10"), COL_ROUND(point_row, ov_err_max, "ov_tol_min"),
    COL(point_row, ov_tol_min)};

static size_t count(const stat_acc *a) { return (size_t)(a->mean * (double)a->n + 0.5); }

static int run(experiment *e)
{
    const opts *o = &e->o;
    ctx c = {.T = o->T ? o->T : 16, .d = o->d ? o->d : 64};
    if (o->dk || o->dv) {   /* one point; its grid stream if it is on the grid */
        c.d_k[0] = o->dk ? o->dk : o->dv;
        c.d_v[0] = o->dv ? o->dv : o->dk;
        c.stream[0] = 1000;
        for (size_t k = 0; k < NGRID; k++)
            if (grid[k] == c.d_k[0] && grid[k] == c.d_v[0]) c.stream[0] = k;
        c.n = 1;
    } else {                /* d_k = d_v over the grid, below d */
        for (size_t k = 0; k < NGRID; k++)
            if (grid[k] < c.d) { c.d_k[c.n] = c.d_v[c.n] = grid[k]; c.stream[c.n++] = k; }
    }
    if (c.n == 0) return exp_usage("--d %zu: no grid point d_k < d", c.d);
    if (c.d_k[0] > c.d || c.d_v[0] > c.d)
        return exp_usage("d_k = %zu, d_v = %zu: both must be <= d = %zu", c.d_k[0], c.d_v[0], c.d);
    c.nstats = NSUM + 2 * c.d;

    mc_config cfg = exp_mc(e, NULL);
    cfg.nstats = c.nstats; cfg.points = c.n; cfg.draw_at = draw_at; cfg.point_stream = point_stream;
    cfg.alloc = scratch_alloc; cfg.free = scratch_free; cfg.ctx = &c;
    size_t nv = mc_total_draws(&cfg) * c.nstats, na = c.n * c.nstats, ns = c.d * (1 + 2 * c.n);
    stat_acc *acc = mem_calloc(na, sizeof *acc, "statistics");
    double *values = mem_calloc(nv, sizeof *values, "per-draw values");
    double *spec = mem_calloc(ns, sizeof *spec, "spectra table");
    cfg.values = values;
    int st = acc && values && spec ? mc_run(&cfg, acc) : att_alloc_status();

    point_row rows[NGRID];
    for (size_t p = 0; p < c.n && !st; p++) {
        const stat_acc *a = acc + p * c.nstats;
        size_t dk = c.d_k[p], dv = c.d_v[p];
        rows[p] = (point_row){c.d, dk, dv, a[0].n, 2 * c.d * dk, 2 * c.d * dk, c.d * c.d,
                              a[E_QK].max, a[T_QK].min, a[E_I].max, a[E_U].max, a[T_U].min,
                              count(&a[MIS_QK]), a[KEPT_QK].min, a[ZERO_QK].max, count(&a[MIS_OV]),
                              a[KEPT_OV].min, a[ZERO_OV].max, a[E_OV].max, a[T_OV].min};
        // spectra of the point's first draw: row j = (j + 1, W_QK's n, W_OV's n)
        const double *v0 = values + p * o->draws * c.nstats + NSUM;
        for (size_t j = 0; j < c.d; j++) {
            spec[j * (1 + 2 * c.n)] = (double)(j + 1);
            spec[j * (1 + 2 * c.n) + 1 + p] = v0[j];
            spec[j * (1 + 2 * c.n) + 1 + c.n + p] = v0[c.d + j];
        }
    }
    // the spectra table: columns i, d_k=N ..., d_v=N ... (names from the grid)
    char names[2 * NGRID][16];
    table_col scols[1 + 2 * NGRID] = {{"i", COL_DOUBLE, 0, NAT_EXACT, NULL, NULL, NULL}};
    for (size_t p = 0; p < c.n; p++) {
        snprintf(names[p], sizeof names[p], "d_k=%zu", c.d_k[p]);
        snprintf(names[c.n + p], sizeof names[0], "d_v=%zu", c.d_v[p]);
    }
    for (size_t k = 0; k < 2 * c.n; k++)
        // singular values / sigma_1 beyond the rank are zero up to rounding (below 1e-10): make verify
        // compares them by order of magnitude, the others as computed (table.h)
        scols[1 + k] = (table_col){names[k], COL_DOUBLE, (1 + k) * sizeof(double), NAT_ROUNDING, NULL, NULL, "1e-10"};
    if (!st) st = TABLE_WRITE(o->out_dir, "bilinear_low_rank.csv", point_cols, rows, c.n);
    if (!st) st = table_write(o->out_dir, "bilinear_low_rank_spectra.csv", scols, 1 + 2 * c.n,
                              spec, c.d, (1 + 2 * c.n) * sizeof(double));
    mem_free(values, nv, sizeof *values);
    mem_free(spec, ns, sizeof *spec);
    if (st) { mem_free(acc, na, sizeof *acc); return st; }
    exp_meta(e, "T: %zu", c.T);
    exp_meta(e, "d: %zu", c.d);
    exp_meta(e, "rank_tol: %g (relative to sigma_max)", RANK_TOL);

    /* worst cases over the sweep: the points' statistics merged */
    stat_acc w[NSUM];
    size_t h = 0;
    for (int k = 0; k < NSUM; k++) stat_init(&w[k]);
    for (size_t p = 0; p < c.n; p++) {
        for (int k = 0; k < NSUM; k++) stat_merge(&w[k], &acc[p * c.nstats + k]);
        if (c.d_k[p] == 16) h = p;
    }
    mem_free(acc, na, sizeof *acc);
    size_t total = w[0].n;
    double zero_tol = tol_eps(16.0, c.d, 1.0);   /* rounding of sigma_i / sigma_1 */
    verdict_add(&e->v, KIND_CLAIM, "lowRankQKKeptMin", NAN, measure_exact(w[KEPT_QK].min, total),
                rule_at_least(RANK_TOL), "rank(W_QK) >= d_k: smallest sigma_{d_k} / sigma_1 of "
                "W_QK = W_Q W_K^T over %zu draws, d_k = %zu .. %zu (d = %zu)", total, c.d_k[0],
                c.d_k[c.n - 1], c.d);
    verdict_add(&e->v, KIND_IDENTITY, "lowRankQKZeroMax", 0.0, measure_exact(w[ZERO_QK].max, total),
                rule_at_most(zero_tol), "rank(W_QK) <= d_k: largest sigma_{d_k+1} / sigma_1");
    verdict_add(&e->v, KIND_CLAIM, "lowRankOVKeptMin", NAN, measure_exact(w[KEPT_OV].min, total),
                rule_at_least(RANK_TOL), "rank(W_OV) >= d_v: smallest sigma_{d_v} / sigma_1 of "
                "W_OV = W_V W_O");
    verdict_add(&e->v, KIND_IDENTITY, "lowRankOVZeroMax", 0.0, measure_exact(w[ZERO_OV].max, total),
                rule_at_most(zero_tol), "rank(W_OV) <= d_v: largest sigma_{d_v+1} / sigma_1");
    verdict_add(&e->v, KIND_IDENTITY, "lowRankScoreErr", 0.0, measure_exact(w[E_QK].max, total),
                rule_at_most(w[T_QK].min), "largest ||Q K^T - X W_QK X^T||_F / ||Q K^T||_F "
                "(tolerance 16 (2d + d_k) eps rho, smallest over draws)");
    verdict_add(&e->v, KIND_IDENTITY, "lowRankIdentityErr", 0.0,
                measure_exact(fmax(w[E_I].max, w[E_U].max), total), rule_at_most(w[T_U].min),
                "W_QK = I gives the naive scores: largest relative difference of X I X^T and of "
                "(X U)(X U)^T, U orthogonal, from X X^T");
    verdict_add(&e->v, KIND_IDENTITY, "lowRankOVHeadErr", 0.0, measure_exact(w[E_OV].max, total),
                rule_at_most(w[T_OV].min), "largest ||O W_O - A X W_OV||_F / ||O W_O||_F (the "
                "head's contribution through the OV circuit)");
    verdict_add(&e->v, KIND_REPORTED, "lowRankParams", NAN,
                measure_exact((double)rows[h].params_factored, 1), rule_none(),
                "parameters of W_Q and W_K, 2 d d_k, at d = %zu, d_k = %zu (a full W_QK: d^2 = %zu)",
                c.d, rows[h].d_k, rows[h].params_full);
    return ATT_OK;
}

int main(int argc, char **argv)
{
    static const experiment_def def = {
        "bilinear_low_rank", "W_QK = W_Q W_K^T: a bilinear form of rank <= d_k; W_OV of rank <= d_v",
        OPT_MC | OPT_T | OPT_D | OPT_DK | OPT_DV, 20261129UL, 100, NULL, run};
    return experiment_main(&def, argc, argv);
}
