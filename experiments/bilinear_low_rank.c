/* bilinear_low_rank - scores are a learned, low-rank bilinear form.
 *
 * Claim (bilinear_low_rank): s_ij = q_i . k_j = x_i^T W_QK x_j with
 * W_QK = W_Q W_K^T (d x d). W_QK = I gives back the naive x_i . x_j; since the
 * product passes through d_k dimensions, rank(W_QK) <= d_k, and the factored
 * form costs 2 d d_k parameters instead of d^2. Likewise W_OV = W_V W_O
 * (d x d, rank <= d_v) decides what the head moves: its contribution to the
 * residual stream is O W_O = A X W_OV.
 *
 * Measured, for d = 64, T = 16 and d_k = d_v = 1, 2, 4, 8, 16, 32
 * (X ~ N(0, 1), weights ~ N(0, 1/d)), per draw:
 *   - ||Q K^T - X W_QK X^T||_F / ||Q K^T||_F (the head's S against the
 *     bilinear form, lib/qkov.h);
 *   - W_QK = I: X I X^T against X X^T, and W_Q = W_K = U (d x d, Haar
 *     orthogonal, so W_QK = U U^T = I up to rounding) against X X^T;
 *   - the singular values of W_QK and W_OV (gsl_linalg_SV_decomp): how many
 *     exceed 1e-10 sigma_max, the smallest kept sigma_{d_k} / sigma_1 and the
 *     largest neglected sigma_{d_k+1} / sigma_1;
 *   - ||O W_O - (A X) W_OV||_F / ||O W_O||_F;
 *   - the parameter counts of W_Q, W_K against 2 d d_k and of W_QK (d^2).
 * Tolerances: two computations of one product chain of total inner length n
 * differ by at most ~ 2 gamma_n |F_1| ... |F_m| (Higham 3.5), so per draw
 *   tol = 16 n eps || |F_1| ... |F_m| ||_F / ||result||_F,
 * n = 2d + d_k for the scores (F = X, W_Q, W_K^T, X^T), 2d for U U^T, and
 * T + d + d_v for the OV product (F = A, X, W_V, W_O); the verdict compares
 * the largest error with the smallest tol.
 *
 * Writes into --out:
 *   bilinear_low_rank.csv          one row per (d_k, d_v): parameter counts,
 *                                  worst errors and tolerances, rank
 *                                  mismatches, singular-value gaps
 *   bilinear_low_rank_spectra.csv  sigma_i / sigma_1 of W_QK (columns
 *                                  "d_k=N") and of W_OV ("d_v=N") of the
 *                                  first draw
 *   bilinear_low_rank.meta, bilinear_low_rank.verdicts.csv
 * Options: --seed --draws (per point) --rng --T --d, --dk / --dv to run one
 * point (d_v defaults to d_k).
 */
#include "head.h"
#include "tol.h"
#include "mat.h"
#include "mc.h"
#include "opts.h"
#include "output.h"
#include "qkov.h"
#include "randmat.h"
#include "stats.h"
#include "status.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define ID "bilinear_low_rank"
#define RANK_TOL 1e-10

static const size_t grid[] = {1, 2, 4, 8, 16, 32};
enum { NGRID = sizeof grid / sizeof grid[0] };

enum {
    E_QK, T_QK, E_I, E_U, T_U,
    MIS_QK, KEPT_QK, ZERO_QK, MIS_OV, KEPT_OV, ZERO_OV,
    E_OV, T_OV, NSTAT
};

typedef struct {
    size_t T, d, d_k, d_v;
    double *spec_qk, *spec_ov;   /* (d) sigma_i / sigma_1 of draw 0 */
} lr_config;

typedef struct {
    gsl_matrix *X, *W_Q, *W_K, *W_V, *W_O, *WQK, *WOV, *U, *I, *S0, *S1, *AX, *P1, *P2;
    gsl_matrix *aX, *aW1, *aW2, *aOV, *tT, *tD;
    gsl_vector *sv;
    head_state st, stU;
} lr_scratch;

static void lr_free(void *p)
{
    lr_scratch *s = p;
    if (s == NULL) return;
    gsl_matrix *m[] = {s->X, s->W_Q, s->W_K, s->W_V, s->W_O, s->WQK, s->WOV, s->U, s->I, s->S0,
                       s->S1, s->AX, s->P1, s->P2, s->aX, s->aW1, s->aW2, s->aOV, s->tT, s->tD};
    for (size_t k = 0; k < sizeof m / sizeof m[0]; k++) mat_free(m[k]);
    vec_free(s->sv);
    head_state_free(&s->st);
    head_state_free(&s->stU);
    free(s);
}

static void *lr_alloc(void *ctx)
{
    const lr_config *c = ctx;
    size_t T = c->T, d = c->d, dk = c->d_k, dv = c->d_v;
    lr_scratch *s = calloc(1, sizeof *s);
    if (s == NULL) return NULL;
    s->X = mat_new(T, d);
    s->W_Q = mat_new(d, dk); s->W_K = mat_new(d, dk); s->W_V = mat_new(d, dv); s->W_O = mat_new(dv, d);
    s->WQK = mat_new(d, d); s->WOV = mat_new(d, d); s->U = mat_new(d, d); s->I = mat_new(d, d);
    s->S0 = mat_new(T, T); s->S1 = mat_new(T, T);
    s->AX = mat_new(T, d); s->P1 = mat_new(T, d); s->P2 = mat_new(T, d);
    s->aX = mat_new(T, d); s->aOV = mat_new(d, d); s->aW1 = mat_new(d, d); s->aW2 = mat_new(d, d);
    s->tT = mat_new(T, d); s->tD = mat_new(T, d);
    s->sv = vec_new(d);
    int ok = s->X && s->W_Q && s->W_K && s->W_V && s->W_O && s->WQK && s->WOV && s->U && s->I
             && s->S0 && s->S1 && s->AX && s->P1 && s->P2 && s->aX && s->aOV && s->aW1 && s->aW2
             && s->tT && s->tD && s->sv
             && !head_state_alloc(&s->st, T, T, d, dk, dv)
             && !head_state_alloc(&s->stU, T, T, d, d, dv);
    if (!ok) { lr_free(s); return NULL; }
    gsl_matrix_set_identity(s->I);
    return s;
}

/* B = |A| elementwise (same shape) */
static void lr_abs(gsl_matrix *B, const gsl_matrix *A)
{
    for (size_t i = 0; i < A->size1; i++)
        for (size_t j = 0; j < A->size2; j++) gsl_matrix_set(B, i, j, fabs(gsl_matrix_get(A, i, j)));
}

/* The spectrum of W (d, d): sets *mis = (numerical rank != r), *kept =
 * sigma_r / sigma_1, *zero = sigma_{r+1} / sigma_1 (0 when r = d), and, when
 * spec != NULL, spec[i] = sigma_{i+1} / sigma_1. */
static int lr_spectrum(const gsl_matrix *W, gsl_vector *sv, size_t r, double *mis, double *kept,
                       double *zero, double *spec)
{
    int rc = qkov_singular_values(sv, W);
    if (rc) return rc;
    double s1 = gsl_vector_get(sv, 0);
    *mis = qkov_numerical_rank(sv, RANK_TOL) != r;
    *kept = gsl_vector_get(sv, r - 1) / s1;
    *zero = r < sv->size ? gsl_vector_get(sv, r) / s1 : 0.0;
    if (spec)
        for (size_t i = 0; i < sv->size; i++) spec[i] = gsl_vector_get(sv, i) / s1;
    return ATT_OK;
}

static int lr_draw(void *ctx, void *scratch, gsl_rng *rng, size_t draw, double *out)
{
    lr_config *c = ctx;
    lr_scratch *s = scratch;
    double sw = 1.0 / sqrt((double)c->d);
    mat_randn(s->X, rng, 1.0);
    mat_randn(s->W_Q, rng, sw);
    mat_randn(s->W_K, rng, sw);
    mat_randn(s->W_V, rng, sw);
    mat_randn(s->W_O, rng, sw);
    int rc;

    // the head: S = Q K^T, A, O = A V
    head_params p = head_params_make(s->W_Q, s->W_K, s->W_V);
    if ((rc = head_forward(&s->st, &p, s->X, s->X))) return rc;
    // S1 = X W_QK X^T,  W_QK = W_Q W_K^T
    if ((rc = qkov_qk(s->WQK, s->W_Q, s->W_K))) return rc;
    if ((rc = qkov_bilinear_scores(s->S1, s->X, s->WQK, s->X))) return rc;
    out[E_QK] = mat_rel_diff(s->S1, s->st.S);
    // tol = 16 (2d + d_k) eps || |X| |W_Q| |W_K|^T |X|^T ||_F / ||S||_F
    lr_abs(s->aX, s->X);
    {   /* aW1, aW2 are (d, d) workspaces; use their (d, d_k) corners */
        gsl_matrix_view q = gsl_matrix_submatrix(s->aW1, 0, 0, c->d, c->d_k);
        gsl_matrix_view k = gsl_matrix_submatrix(s->aW2, 0, 0, c->d, c->d_k);
        gsl_matrix_view tq = gsl_matrix_submatrix(s->tT, 0, 0, c->T, c->d_k);
        gsl_matrix_view tk = gsl_matrix_submatrix(s->tD, 0, 0, c->T, c->d_k);
        lr_abs(&q.matrix, s->W_Q);
        lr_abs(&k.matrix, s->W_K);
        if ((rc = mat_gemm(&tq.matrix, 1.0, s->aX, 0, &q.matrix, 0, 0.0))) return rc;
        if ((rc = mat_gemm(&tk.matrix, 1.0, s->aX, 0, &k.matrix, 0, 0.0))) return rc;
        out[T_QK] = tol_eps(16.0, 2 * c->d + c->d_k,
                            tol_product_scale_frob(&tq.matrix, &tk.matrix) / mat_frob(s->st.S));
    }

    // W_QK = I: the bilinear form with I, and a factorization U U^T = I
    if ((rc = head_scores(s->S0, s->X, s->X, 1.0))) return rc;         /* naive X X^T */
    if ((rc = qkov_bilinear_scores(s->S1, s->X, s->I, s->X))) return rc;
    out[E_I] = mat_rel_diff(s->S1, s->S0);
    if ((rc = randmat_orthogonal(s->U, rng))) return rc;
    head_params pU = head_params_make(s->U, s->U, s->W_V);
    if ((rc = head_forward(&s->stU, &pU, s->X, s->X))) return rc;
    out[E_U] = mat_rel_diff(s->stU.S, s->S0);
    // tol = 16 (2d) eps || |X| |U| |U|^T |X|^T ||_F / ||X X^T||_F
    lr_abs(s->aW1, s->U);
    if ((rc = mat_gemm(s->tT, 1.0, s->aX, 0, s->aW1, 0, 0.0))) return rc;
    out[T_U] = tol_eps(16.0, 2 * c->d, tol_product_scale_frob(s->tT, s->tT) / mat_frob(s->S0));

    // spectra of W_QK (rank <= d_k) and W_OV = W_V W_O (rank <= d_v)
    if ((rc = qkov_ov(s->WOV, s->W_V, s->W_O))) return rc;
    if ((rc = lr_spectrum(s->WQK, s->sv, c->d_k, &out[MIS_QK], &out[KEPT_QK], &out[ZERO_QK],
                          draw == 0 ? c->spec_qk : NULL))) return rc;
    if ((rc = lr_spectrum(s->WOV, s->sv, c->d_v, &out[MIS_OV], &out[KEPT_OV], &out[ZERO_OV],
                          draw == 0 ? c->spec_ov : NULL))) return rc;

    // the head's contribution: P1 = O W_O  vs  P2 = (A X) W_OV
    if ((rc = mat_gemm(s->P1, 1.0, s->st.O, 0, s->W_O, 0, 0.0))) return rc;
    if ((rc = mat_gemm(s->AX, 1.0, s->st.A, 0, s->X, 0, 0.0))) return rc;
    if ((rc = mat_gemm(s->P2, 1.0, s->AX, 0, s->WOV, 0, 0.0))) return rc;
    out[E_OV] = mat_rel_diff(s->P2, s->P1);
    // tol = 16 (T + d + d_v) eps || A |X| |W_V| |W_O| ||_F / ||O W_O||_F   (A >= 0)
    {
        gsl_matrix_view v = gsl_matrix_submatrix(s->aW1, 0, 0, c->d, c->d_v);
        gsl_matrix_view o = gsl_matrix_submatrix(s->aW2, 0, 0, c->d_v, c->d);
        lr_abs(&v.matrix, s->W_V);
        lr_abs(&o.matrix, s->W_O);
        if ((rc = mat_gemm(s->aOV, 1.0, &v.matrix, 0, &o.matrix, 0, 0.0))) return rc;
        if ((rc = mat_gemm(s->tT, 1.0, s->st.A, 0, s->aX, 0, 0.0))) return rc;
        if ((rc = mat_gemm(s->tD, 1.0, s->tT, 0, s->aOV, 0, 0.0))) return rc;
        out[T_OV] = tol_eps(16.0, c->T + c->d + c->d_v, mat_frob(s->tD) / mat_frob(s->P1));
    }
    return ATT_OK;
}

static void put(FILE *f, double x) { fputc(',', f); csv_num(f, x); }

int main(int argc, char **argv)
{
    att_init();
    const opts_info info = {ID, "W_QK = W_Q W_K^T: a bilinear form of rank <= d_k; W_OV of rank <= d_v",
                            OPT_MC | OPT_T | OPT_D | OPT_DK | OPT_DV, 20261129UL, 100, NULL};
    opts o;
    int st = opts_parse(&o, &info, argc, argv);
    if (st) return opts_exit(&o, st);
    size_t T = o.T ? o.T : 16, d = o.d ? o.d : 64;

    /* the sweep: d_k = d_v = n over the grid (n < d), or the one point asked for */
    size_t dks[NGRID], dvs[NGRID], n = 0;
    uint64_t streams[NGRID];
    if (o.dk || o.dv) {
        dks[0] = o.dk ? o.dk : o.dv;
        dvs[0] = o.dv ? o.dv : o.dk;
        streams[0] = 1000;
        for (size_t k = 0; k < NGRID; k++)
            if (grid[k] == dks[0] && grid[k] == dvs[0]) streams[0] = k;
        n = 1;
    } else {
        for (size_t k = 0; k < NGRID; k++)
            if (grid[k] < d) { dks[n] = dvs[n] = grid[k]; streams[n++] = k; }
    }
    if (n == 0) return opts_exit(&o, att_fail(ATT_EUSAGE, "--d %zu: no grid point d_k < d", d));
    for (size_t i = 0; i < n; i++)
        if (dks[i] > d || dvs[i] > d)
            return opts_exit(&o, att_fail(ATT_EUSAGE, "d_k = %zu, d_v = %zu: both must be <= d = %zu",
                                          dks[i], dvs[i], d));
    /* per thread: lr_alloc's matrices and two head states, plus the SVD's,
     * randmat's and qkov's temporaries (d_k, d_v <= d) */
    size_t dkmax = 0, dvmax = 0;
    for (size_t i = 0; i < n; i++) { dkmax = dks[i] > dkmax ? dks[i] : dkmax; dvmax = dvs[i] > dvmax ? dvs[i] : dvmax; }
    double dT = (double)T, dd = (double)d, ddk = (double)dkmax, ddv = (double)dvmax;
    double scratch = 12 * dT * dd + 2 * dd * ddk + 2 * dd * ddv + 11 * dd * dd + 7 * dT * dT
                     + 6 * dT * ddk + 4 * dT * ddv + 4 * dd;
    if ((st = opts_check_memory(&o, mc_run_bytes(mat_bytes_approx(scratch), o.draws, NSTAT),
                                "bilinear_low_rank scratch (per thread) and Monte Carlo blocks")))
        return opts_exit(&o, st);

    stat_acc (*acc)[NSTAT] = calloc(n, sizeof *acc);
    double *spec = calloc(2 * n * d, sizeof *spec);
    if (acc == NULL || spec == NULL) {
        free(acc); free(spec);
        return opts_exit(&o, att_fail(ATT_ERUNTIME, "out of memory"));
    }
    for (size_t i = 0; i < n && !st; i++) {
        lr_config c = {T, d, dks[i], dvs[i], spec + 2 * i * d, spec + (2 * i + 1) * d};
        mc_config mc = {.rng_name = o.rng_name, .seed = o.seed, .stream = streams[i],
                        .draws = o.draws, .nstats = NSTAT, .draw = lr_draw, .alloc = lr_alloc,
                        .free = lr_free, .ctx = &c, .label = ID, .quiet = o.quiet};
        st = mc_run(&mc, acc[i]);
    }

    /* parameter counts, from the sizes of the matrices the head really holds */
    size_t *count = calloc(n, sizeof *count), *count_full = calloc(n, sizeof *count_full);
    int counts_ok = count && count_full;
    for (size_t i = 0; i < n && !st && counts_ok; i++) {
        gsl_matrix *WQ = mat_new(d, dks[i]), *WK = mat_new(d, dks[i]), *WQK = mat_new(d, d);
        if (!WQ || !WK || !WQK) counts_ok = 0;
        else {
            count[i] = WQ->size1 * WQ->size2 + WK->size1 * WK->size2;
            count_full[i] = WQK->size1 * WQK->size2;
        }
        mat_free(WQ); mat_free(WK); mat_free(WQK);
    }
    if (!st && !counts_ok) st = att_fail(ATT_ERUNTIME, "out of memory");

    afile af;
    if (!st && !(st = afile_open(&af, o.out_dir, ID ".csv"))) {
        fputs("d,d_k,d_v,draws,params_factored,params_2ddk,params_full,score_err_max,score_tol_min,"
              "identity_err_max,uut_err_max,uut_tol_min,qk_rank_mismatch,qk_kept_min,qk_zero_max,"
              "ov_rank_mismatch,ov_kept_min,ov_zero_max,ov_err_max,ov_tol_min\n", af.f);
        for (size_t i = 0; i < n; i++) {
            stat_acc *a = acc[i];
            fprintf(af.f, "%zu,%zu,%zu,%zu,%zu,%zu,%zu", d, dks[i], dvs[i], a[0].n, count[i],
                    2 * d * dks[i], count_full[i]);
            put(af.f, a[E_QK].max); put(af.f, a[T_QK].min); put(af.f, a[E_I].max);
            put(af.f, a[E_U].max); put(af.f, a[T_U].min);
            fprintf(af.f, ",%.0f", a[MIS_QK].mean * (double)a[MIS_QK].n);
            put(af.f, a[KEPT_QK].min); put(af.f, a[ZERO_QK].max);
            fprintf(af.f, ",%.0f", a[MIS_OV].mean * (double)a[MIS_OV].n);
            put(af.f, a[KEPT_OV].min); put(af.f, a[ZERO_OV].max);
            put(af.f, a[E_OV].max); put(af.f, a[T_OV].min);
            fputc('\n', af.f);
        }
        st = afile_commit(&af);
    }
    if (!st && !(st = afile_open(&af, o.out_dir, ID "_spectra.csv"))) {
        fputs("i", af.f);
        for (size_t k = 0; k < n; k++) fprintf(af.f, ",d_k=%zu", dks[k]);
        for (size_t k = 0; k < n; k++) fprintf(af.f, ",d_v=%zu", dvs[k]);
        fputc('\n', af.f);
        for (size_t j = 0; j < d; j++) {
            fprintf(af.f, "%zu", j + 1);
            for (size_t k = 0; k < n; k++) put(af.f, spec[2 * k * d + j]);
            for (size_t k = 0; k < n; k++) put(af.f, spec[(2 * k + 1) * d + j]);
            fputc('\n', af.f);
        }
        st = afile_commit(&af);
    }
    if (!st) {
        char meta[128];
        snprintf(meta, sizeof meta, "T: %zu\nd: %zu\nrank_tol: %g (relative to sigma_max)", T, d, RANK_TOL);
        st = output_meta(&o, meta);
    }

    /* worst cases over the sweep */
    double e_qk = 0, t_qk = INFINITY, e_i = 0, e_u = 0, t_u = INFINITY, e_ov = 0, t_ov = INFINITY;
    double kq = INFINITY, zq = 0, kv = INFINITY, zv = 0, mq = 0, mv = 0;
    size_t total = 0, headline = 0;
    int params_ok = 1;
    for (size_t i = 0; i < n && !st; i++) {
        stat_acc *a = acc[i];
        total += a[0].n;
        e_qk = fmax(e_qk, a[E_QK].max); t_qk = fmin(t_qk, a[T_QK].min);
        e_i = fmax(e_i, a[E_I].max);
        e_u = fmax(e_u, a[E_U].max); t_u = fmin(t_u, a[T_U].min);
        e_ov = fmax(e_ov, a[E_OV].max); t_ov = fmin(t_ov, a[T_OV].min);
        kq = fmin(kq, a[KEPT_QK].min); zq = fmax(zq, a[ZERO_QK].max);
        kv = fmin(kv, a[KEPT_OV].min); zv = fmax(zv, a[ZERO_OV].max);
        mq += a[MIS_QK].mean * (double)a[MIS_QK].n;
        mv += a[MIS_OV].mean * (double)a[MIS_OV].n;
        params_ok = params_ok && count[i] == 2 * d * dks[i] && count_full[i] == d * d;
        if (dks[i] == 16) headline = i;
    }
    verdict_list vl;
    verdicts_init(&vl);
    char q[320], rule[96];
    if (!st) {
        snprintf(q, sizeof q, "draws where the number of singular values of W_QK above 1e-10 sigma_max "
                 "is not d_k (smallest kept sigma_{d_k}/sigma_1 %.2g, largest neglected "
                 "sigma_{d_k+1}/sigma_1 %.2g)", kq, zq);
        st = verdict_exact(&vl, "lowRankQKRankMiss", q, 0.0, mq, 0.0, mq == 0.0, "= 0 (rank exactly d_k)");
        if (!st) vl.v[vl.n - 1].m.draws = total;
    }
    if (!st) {
        snprintf(q, sizeof q, "largest ||Q K^T - X W_QK X^T||_F / ||Q K^T||_F (d = %zu, T = %zu, "
                 "d_k = %zu .. %zu)", d, T, dks[0], dks[n - 1]);
        st = verdict_exact(&vl, "lowRankScoreErr", q, 0.0, e_qk, t_qk, e_qk <= t_qk,
                           "<= 16 (2d + d_k) eps rho (smallest over draws)");
        if (!st) vl.v[vl.n - 1].m.draws = total;
    }
    if (!st) {
        double e = fmax(e_i, e_u);
        snprintf(q, sizeof q, "W_QK = I gives the naive scores: largest relative difference from "
                 "X X^T, for X I X^T (%.2g) and for W_Q = W_K = U orthogonal, d_k = d (%.2g)", e_i, e_u);
        st = verdict_exact(&vl, "lowRankIdentityErr", q, 0.0, e, t_u, e <= t_u,
                           "<= 16 (2d) eps rho (smallest over draws)");
        if (!st) vl.v[vl.n - 1].m.draws = total;
    }
    if (!st) {
        snprintf(q, sizeof q, "draws where the number of singular values of W_OV = W_V W_O above "
                 "1e-10 sigma_max is not d_v (smallest kept %.2g, largest neglected %.2g)", kv, zv);
        st = verdict_exact(&vl, "lowRankOVRankMiss", q, 0.0, mv, 0.0, mv == 0.0, "= 0 (rank exactly d_v)");
        if (!st) vl.v[vl.n - 1].m.draws = total;
    }
    if (!st) {
        size_t h = headline;
        snprintf(q, sizeof q, "parameters of W_Q and W_K at d = %zu, d_k = %zu (W_QK itself: %zu = d^2); "
                 "2 d d_k at every d_k of the sweep", d, dks[h], count_full[h]);
        snprintf(rule, sizeof rule, "= 2 d d_k exactly");
        st = verdict_exact(&vl, "lowRankParams", q, (double)(2 * d * dks[h]), (double)count[h], 0.0,
                           params_ok, rule);
    }
    if (!st) {
        snprintf(q, sizeof q, "largest ||O W_O - A X W_OV||_F / ||O W_O||_F (the head's contribution "
                 "through the OV circuit)");
        st = verdict_exact(&vl, "lowRankOVHeadErr", q, 0.0, e_ov, t_ov, e_ov <= t_ov,
                           "<= 16 (T + d + d_v) eps rho (smallest over draws)");
        if (!st) vl.v[vl.n - 1].m.draws = total;
    }
    if (!st) st = legacy_verdicts_write(&vl, &o);
    if (!st) st = verdicts_status(&vl);
    verdicts_free(&vl);
    free(acc); free(spec); free(count); free(count_full);
    return opts_exit(&o, st);
}
