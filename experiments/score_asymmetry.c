/* score_asymmetry - raw scores are symmetric, learned scores need not be.
 *
 * Claim (score_asymmetry): with raw vectors s_ij = x_i . x_j = s_ji, so
 * relevance is forced to be mutual. With projections s_ij = x_i^T W_QK x_j,
 * W_QK = W_Q W_K^T, and s_ij != s_ji unless W_QK is symmetric.
 *
 * Measured, for T = 16, d = 64, d_k = 16 (X ~ N(0, 1), weights ~ N(0, 1/d)),
 * per draw, the relative asymmetry
 *   a(S) = ||S - S^T||_F / ||S||_F
 * of four score matrices:
 *   raw          S = X X^T
 *   tied         W_Q = W_K = W:  S = (X W)(X W)^T
 *   symmetric    W_K = W_Q M with M = (B + B^T)/sqrt(2) symmetric (d_k x d_k),
 *                so W_QK = W_Q M W_Q^T is symmetric although W_Q != W_K
 *   independent  W_Q, W_K drawn independently
 * (the last three through the head, lib/head.h). The first three are zero in
 * exact arithmetic; computed, s_ij and s_ji come from different products and
 * may differ by rounding: |fl(q.k) - q.k| <= gamma_n |q|.|k| (Higham 3.5) on
 * a chain of n = d (raw), d + d_k (tied), d + 2 d_k (symmetric) inner
 * products, so per draw
 *   tol = 16 n eps rho,   rho = || |Q| |K|^T ||_F / ||S||_F,
 * and the verdict compares the largest asymmetry with the smallest tol.
 * For independent projections a(S) is O(1) (about sqrt(2) when W_QK's
 * symmetric and antisymmetric parts are equally large); PASS when the CI of
 * its mean lies above 0.5.
 *
 * Writes into --out:
 *   score_asymmetry.csv        one row per case: draws, mean, 95% CI, min, max,
 *                              smallest tol, draws with a(S) exactly 0
 *   score_asymmetry_draws.csv  a(S) of every draw, one column per case
 *   score_asymmetry.meta, score_asymmetry.verdicts.csv
 * Options: --seed --draws --rng --T (>= 2) --d --dk.
 */
#include "head.h"
#include "tol.h"
#include "mat.h"
#include "mc.h"
#include "opts.h"
#include "output.h"
#include "qkov.h"
#include "stats.h"
#include "status.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define ID "score_asymmetry"

enum { C_RAW, C_TIED, C_SYM, C_IND, NCASE };
static const char *const case_names[NCASE] = {"raw", "tied", "symmetric", "independent"};
/* per-draw statistics: the asymmetry of each case, then its tolerance, then
 * 1 when the asymmetry is exactly 0 */
enum { S_ASYM = 0, S_TOL = NCASE, S_ZERO = 2 * NCASE, NSTAT = 3 * NCASE };

typedef struct {
    size_t T, d, d_k;
    double *asym[NCASE];      /* per draw, for the figure */
} sa_config;

typedef struct {
    gsl_matrix *X, *W_Q, *W_K, *W_V, *B, *M, *S, *D;
    head_state st;
} sa_scratch;

static void sa_free(void *p)
{
    sa_scratch *s = p;
    if (s == NULL) return;
    mat_free(s->X); mat_free(s->W_Q); mat_free(s->W_K); mat_free(s->W_V);
    mat_free(s->B); mat_free(s->M); mat_free(s->S); mat_free(s->D);
    head_state_free(&s->st);
    free(s);
}

static void *sa_alloc(void *ctx)
{
    const sa_config *c = ctx;
    sa_scratch *s = calloc(1, sizeof *s);
    if (s == NULL) return NULL;
    s->X = mat_new(c->T, c->d);
    s->W_Q = mat_new(c->d, c->d_k); s->W_K = mat_new(c->d, c->d_k); s->W_V = mat_new(c->d, 1);
    s->B = mat_new(c->d_k, c->d_k); s->M = mat_new(c->d_k, c->d_k);
    s->S = mat_new(c->T, c->T); s->D = mat_new(c->T, c->T);
    int ok = s->X && s->W_Q && s->W_K && s->W_V && s->B && s->M && s->S && s->D
             && head_state_alloc(&s->st, c->T, c->T, c->d, c->d_k, 1) == ATT_OK;
    if (!ok) { sa_free(s); return NULL; }
    return s;
}

/* a(S) = ||S - S^T||_F / ||S||_F, S (T, T); D is (T, T) workspace */
static double sa_asymmetry(const gsl_matrix *S, gsl_matrix *D)
{
    gsl_matrix_transpose_memcpy(D, S);
    return mat_diff_frob(S, D) / mat_frob(S);
}

/* tol = 16 n eps || |Q| |K|^T ||_F / ||S||_F */
static double sa_tol(size_t n, const gsl_matrix *Q, const gsl_matrix *K, const gsl_matrix *S)
{
    return tol_eps(16.0, n, tol_product_scale_frob(Q, K) / mat_frob(S));
}

static int sa_draw(void *ctx, void *scratch, gsl_rng *rng, size_t draw, double *out)
{
    sa_config *c = ctx;
    sa_scratch *s = scratch;
    double sw = 1.0 / sqrt((double)c->d);
    int rc;
    mat_randn(s->X, rng, 1.0);
    mat_randn(s->W_V, rng, sw);

    // raw: S = X X^T
    if ((rc = head_scores(s->S, s->X, s->X, 1.0))) return rc;
    out[S_ASYM + C_RAW] = sa_asymmetry(s->S, s->D);
    out[S_TOL + C_RAW] = sa_tol(c->d, s->X, s->X, s->S);

    // tied: W_Q = W_K = W
    mat_randn(s->W_Q, rng, sw);
    head_params p = head_params_make(s->W_Q, s->W_Q, s->W_V);
    if ((rc = head_forward(&s->st, &p, s->X, s->X))) return rc;
    out[S_ASYM + C_TIED] = sa_asymmetry(s->st.S, s->D);
    out[S_TOL + C_TIED] = sa_tol(c->d + c->d_k, s->st.Q, s->st.K, s->st.S);

    // symmetric on purpose: M = (B + B^T)/sqrt(2), W_K = W_Q M, so W_QK = W_Q M W_Q^T
    mat_randn(s->B, rng, 1.0 / sqrt((double)c->d_k));
    gsl_matrix_transpose_memcpy(s->M, s->B);
    gsl_matrix_add(s->M, s->B);
    gsl_matrix_scale(s->M, M_SQRT1_2);
    if ((rc = mat_gemm(s->W_K, 1.0, s->W_Q, 0, s->M, 0, 0.0))) return rc;
    p = head_params_make(s->W_Q, s->W_K, s->W_V);
    if ((rc = head_forward(&s->st, &p, s->X, s->X))) return rc;
    out[S_ASYM + C_SYM] = sa_asymmetry(s->st.S, s->D);
    out[S_TOL + C_SYM] = sa_tol(c->d + 2 * c->d_k, s->st.Q, s->st.K, s->st.S);

    // independent: fresh W_Q and W_K
    mat_randn(s->W_Q, rng, sw);
    mat_randn(s->W_K, rng, sw);
    if ((rc = head_forward(&s->st, &p, s->X, s->X))) return rc;
    out[S_ASYM + C_IND] = sa_asymmetry(s->st.S, s->D);
    out[S_TOL + C_IND] = sa_tol(c->d + c->d_k, s->st.Q, s->st.K, s->st.S);

    for (int k = 0; k < NCASE; k++) {
        out[S_ZERO + k] = out[S_ASYM + k] == 0.0;
        c->asym[k][draw] = out[S_ASYM + k];
    }
    return ATT_OK;
}

static void put(FILE *f, double x) { fputc(',', f); csv_num(f, x); }

static int sa_write(const opts *o, const sa_config *c, const stat_acc *acc)
{
    afile af;
    int st = afile_open(&af, o->out_dir, ID ".csv");
    if (st) return st;
    fputs("case,index,draws,mean,ci_lo,ci_hi,min,max,tol_min,exact_zeros\n", af.f);
    for (int k = 0; k < NCASE; k++) {
        const stat_acc *a = &acc[S_ASYM + k];
        double lo, hi;
        stat_ci95(a, &lo, &hi);
        fprintf(af.f, "%s,%d,%zu", case_names[k], k + 1, a->n);
        put(af.f, a->mean); put(af.f, lo); put(af.f, hi); put(af.f, a->min); put(af.f, a->max);
        put(af.f, k == C_IND ? NAN : acc[S_TOL + k].min);
        fprintf(af.f, ",%.0f\n", acc[S_ZERO + k].mean * (double)acc[S_ZERO + k].n);
    }
    if ((st = afile_commit(&af))) return st;

    if ((st = afile_open(&af, o->out_dir, ID "_draws.csv"))) return st;
    fputs("draw,raw,tied,symmetric,independent\n", af.f);
    for (size_t i = 0; i < o->draws; i++) {
        fprintf(af.f, "%zu", i);
        for (int k = 0; k < NCASE; k++) put(af.f, c->asym[k][i]);
        fputc('\n', af.f);
    }
    return afile_commit(&af);
}

int main(int argc, char **argv)
{
    att_init();
    const opts_info info = {ID, "relative asymmetry of the scores: raw, tied, symmetric W_QK, independent",
                            OPT_MC | OPT_T | OPT_D | OPT_DK, 20261129UL, 2000, NULL};
    opts o;
    int st = opts_parse(&o, &info, argc, argv);
    if (st) return opts_exit(&o, st);
    sa_config cfg = {o.T ? o.T : 16, o.d ? o.d : 64, o.dk ? o.dk : 16, {NULL}};
    if (cfg.T < 2)
        return opts_exit(&o, att_fail(ATT_EUSAGE, "--T %zu: the claim compares s_ij with s_ji, "
                                      "it needs T >= 2 tokens", cfg.T));
    /* per thread: sa_alloc, the head state, qkov_rounding_scale's copies */
    double T = (double)cfg.T, d = (double)cfg.d, dk = (double)cfg.d_k;
    double scratch = T * d + 2 * d * dk + 2 * dk * dk + 5 * T * T + 6 * T * dk + d + 2 * T;
    if ((st = opts_check_memory(&o, mc_run_bytes(mat_bytes_approx(scratch), o.draws, NSTAT),
                                "score_asymmetry scratch (per thread) and Monte Carlo blocks"))
        || (st = opts_check_memory(&o, mat_bytes(o.draws, NCASE), "per-draw asymmetries")))
        return opts_exit(&o, st);
    double *mem = calloc(NCASE * o.draws, sizeof *mem);
    if (mem == NULL) return opts_exit(&o, att_fail(ATT_ERUNTIME, "out of memory for %zu draws", o.draws));
    for (int k = 0; k < NCASE; k++) cfg.asym[k] = mem + (size_t)k * o.draws;

    stat_acc acc[NSTAT];
    mc_config mc = {.rng_name = o.rng_name, .seed = o.seed, .stream = 0, .draws = o.draws,
                    .nstats = NSTAT, .draw = sa_draw, .alloc = sa_alloc, .free = sa_free,
                    .ctx = &cfg, .label = ID, .quiet = o.quiet};
    st = mc_run(&mc, acc);
    if (!st) st = sa_write(&o, &cfg, acc);
    if (!st) {
        char meta[96];
        snprintf(meta, sizeof meta, "T: %zu\nd: %zu\nd_k: %zu", cfg.T, cfg.d, cfg.d_k);
        st = output_meta(&o, meta);
    }
    free(mem);
    if (st) return opts_exit(&o, st);

    verdict_list vl;
    verdicts_init(&vl);
    char q[256];
    {
        const stat_acc *a = &acc[S_ASYM + C_IND];
        double lo, hi;
        stat_ci95(a, &lo, &hi);
        snprintf(q, sizeof q, "mean ||S - S^T||_F / ||S||_F, independent W_Q, W_K "
                 "(T = %zu, d = %zu, d_k = %zu)", cfg.T, cfg.d, cfg.d_k);
        st = verdict_mc(&vl, "asymIndep", q, NAN, a->mean, lo, hi, a->n, lo > 0.5, "CI low > 0.5");
    }
    const char *macro[3] = {"asymRawMax", "asymTiedMax", "asymSymMax"};
    const char *what[3] = {"raw scores X X^T", "tied projections W_Q = W_K",
                           "W_K = W_Q M, M symmetric (W_QK symmetric)"};
    for (int k = 0; k < 3 && !st; k++) {
        const stat_acc *a = &acc[S_ASYM + k];
        double tol = acc[S_TOL + k].min;
        snprintf(q, sizeof q, "largest ||S - S^T||_F / ||S||_F, %s (T = %zu, d = %zu, d_k = %zu; "
                 "exactly 0 in %.0f draws)", what[k], cfg.T, cfg.d, cfg.d_k,
                 acc[S_ZERO + k].mean * (double)a->n);
        st = verdict_exact(&vl, macro[k], q, 0.0, a->max, tol, a->max <= tol,
                           "<= 16 n eps rho (smallest over draws)");
        if (!st) vl.v[vl.n - 1].m.draws = a->n;
    }
    if (!st) st = legacy_verdicts_write(&vl, &o);
    if (!st) st = verdicts_status(&vl);
    verdicts_free(&vl);
    return opts_exit(&o, st);
}
