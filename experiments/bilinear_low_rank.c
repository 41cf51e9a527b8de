/* bilinear_low_rank - "The similarity is learned, and it is low rank"
 *
 * Claim: scores are a learned, low-rank bilinear form, s_ij = q_i . k_j =
 * x_i^T W_QK x_j with W_QK = W_Q W_K^T (d x d). W_QK = I gives back the naive
 * x_i . x_j; the product passes through d_k dimensions, so rank(W_QK) <= d_k,
 * and the factors cost 2 d d_k parameters instead of d^2. Likewise W_OV =
 * W_V W_O (d x d, rank <= d_v) decides what the head moves: O W_O = A X W_OV.
 *
 * Measured (T = 16, d = 64, d_k = d_v = 1, 2, 4, .., 32, lowrank.h; 100 draws
 * per point): the largest neglected sigma_{d_k+1} / sigma_1 of W_QK and W_OV
 * (the section's rank <= d_k: the rest is rounding; the headline is W_QK's in
 * units of its per-draw bound, lowrank_zero_bound) and the smallest kept
 * sigma_{d_k} / sigma_1 (rank = d_k for random factors: the converse, a control); the
 * relative errors of X W_QK X^T against Q K^T, of X I X^T and (X U)(X U)^T (U Haar
 * orthogonal) against X X^T, of A X W_OV against O W_O (identities: a chain of inner
 * length n rounds by at most ~ 2 gamma_n |F_1|..|F_m|, Higham 3.5, so tol = 16 n eps
 * || |F_1|..|F_m| ||_F / ||result||_F per draw, the smallest over draws); the
 * parameter count 2 d d_k (reported). --dk lists filter it; --dv N sets d_v.
 */
#include "prelude.h"
#include "lowrank.h"
#include "profile.h"
#include "qkov.h"
#include "randmat.h"
#define RANK_TOL 1e-10   /* numerical rank: the sigma_i > RANK_TOL sigma_1 */

/* per draw: errors and their tolerances, the spectra's summaries */
#define STATS(X) X(E_QK, "score_err") X(T_QK, "score_tol") X(E_I, "identity_err")           \
    X(E_U, "uut_err") X(T_U, "uut_tol") X(MIS_QK, "qk_rank_mismatch") X(KEPT_QK, "qk_kept") \
    X(ZERO_QK, "qk_zero") X(MIS_OV, "ov_rank_mismatch") X(KEPT_OV, "ov_kept")               \
    X(ZERO_OV, "ov_zero") X(E_OV, "ov_err") X(T_OV, "ov_tol") X(ZU_QK, "qk_zero_units")
SWEEP_STATS(STATS);

/* a point's buffers (workset.h, one per point, sized exactly): X, AX, P1, P2, tT, tD (T, d);
 * W_Q, W_K (d, d_k); W_V (d, d_v); W_O (d_v, d); the d x d circuits; S0, S1 (T, T); tQ, tK
 * (T, d_k); sv, and the spectra of W_QK and W_OV (d); the head, and with W_Q = W_K = U */
enum { X, W_Q, W_K, W_V, W_O, WQK, WOV, U, I, S0, S1, AX, P1, P2, aOV, tQ, tK, tT, tD, NMAT };
enum { SV, SPEC_QK, SPEC_OV };

static int draw(gsl_rng *rng, double *out, const sweep_point *pt, void *sp, const void *cp)
{
    workset *s = sp;
    gsl_matrix **m = s->m;
    size_t T = pt->T, d = pt->d, dk = pt->dk, dv = lowrank_dv(pt, cp);
    // X ~ N(0, 1), W_Q, W_K, W_V, W_O ~ N(0, 1/d)
    randmat_head(rng, m[X], m[W_Q], m[W_K], m[W_V], m[W_O]);
    int rc;
    // the head: S = Q K^T, A, O = A V;  S1 = X W_QK X^T, W_QK = W_Q W_K^T
    head_params hp = head_params_make(m[W_Q], m[W_K], m[W_V]);
    if ((rc = head_forward(&s->h[0], &hp, m[X], m[X]))) return rc;
    if ((rc = qkov_qk(m[WQK], m[W_Q], m[W_K]))) return rc;
    if ((rc = qkov_bilinear_scores(m[S1], m[X], m[WQK], m[X]))) return rc;
    out[E_QK] = mat_rel_diff(m[S1], s->h[0].S);
    // tol = 16 (2d + d_k) eps || (|X| |W_Q|) (|X| |W_K|)^T ||_F / ||S||_F
    if ((rc = qkov_abs_product(m[tQ], m[X], m[W_Q]))) return rc;
    if ((rc = qkov_abs_product(m[tK], m[X], m[W_K]))) return rc;
    double rho_qk = tol_product_scale_frob(m[tQ], m[tK]) / mat_frob(s->h[0].S);
    out[T_QK] = tol_eps(16.0, 2 * d + dk, rho_qk);
    // W_QK = I: X I X^T, and W_Q = W_K = U orthogonal (U U^T = I), against X X^T
    gsl_matrix_set_identity(m[I]);
    if ((rc = head_scores(m[S0], m[X], m[X], 1.0))) return rc;
    if ((rc = qkov_bilinear_scores(m[S1], m[X], m[I], m[X]))) return rc;
    out[E_I] = mat_rel_diff(m[S1], m[S0]);
    if ((rc = randmat_orthogonal(rng, m[U]))) return rc;
    head_params pU = head_params_make(m[U], m[U], m[W_V]);
    if ((rc = head_forward(&s->h[1], &pU, m[X], m[X]))) return rc;
    out[E_U] = mat_rel_diff(s->h[1].S, m[S0]);
    // tol = 16 (2d) eps || (|X| |U|) (|X| |U|)^T ||_F / ||X X^T||_F
    if ((rc = qkov_abs_product(m[tT], m[X], m[U]))) return rc;
    out[T_U] = tol_eps(16.0, 2 * d, tol_product_scale_frob(m[tT], m[tT]) / mat_frob(m[S0]));
    // spectra of W_QK (rank <= d_k) and W_OV = W_V W_O (rank <= d_v)
    if ((rc = qkov_ov(m[WOV], m[W_V], m[W_O]))) return rc;
    if ((rc = qkov_rank_profile(m[WQK], dk, RANK_TOL, s->v[SV], s->v[SPEC_QK]->data, &out[MIS_QK],
                                &out[KEPT_QK], &out[ZERO_QK]))) return rc;
    // sigma_{d_k+1} / sigma_1 in units of 2 eps (d_k || |W_Q| |W_K|^T ||_F + 8 d sigma_1) / sigma_1
    out[ZU_QK] = out[ZERO_QK] / lowrank_zero_bound(m[W_Q], m[W_K], gsl_vector_get(s->v[SV], 0));
    if ((rc = qkov_rank_profile(m[WOV], dv, RANK_TOL, s->v[SV], s->v[SPEC_OV]->data, &out[MIS_OV],
                                &out[KEPT_OV], &out[ZERO_OV]))) return rc;
    // the head's contribution: P1 = O W_O  vs  P2 = (A X) W_OV
    if ((rc = mat_gemm(m[P1], 1.0, s->h[0].O, 0, m[W_O], 0, 0.0))) return rc;
    if ((rc = mat_gemm(m[AX], 1.0, s->h[0].A, 0, m[X], 0, 0.0))) return rc;
    if ((rc = mat_gemm(m[P2], 1.0, m[AX], 0, m[WOV], 0, 0.0))) return rc;
    out[E_OV] = mat_rel_diff(m[P2], m[P1]);
    // tol = 16 (T + d + d_v) eps || A |X| |W_V| |W_O| ||_F / ||O W_O||_F   (A >= 0)
    if ((rc = qkov_abs_product(m[aOV], m[W_V], m[W_O]))) return rc;
    if ((rc = qkov_abs_product(m[tT], s->h[0].A, m[X]))) return rc;
    if ((rc = mat_gemm(m[tD], 1.0, m[tT], 0, m[aOV], 0, 0.0))) return rc;
    out[T_OV] = tol_eps(16.0, T + d + dv, mat_frob(m[tD]) / mat_frob(m[P1]));
    return ATT_OK;
}

/* bilinear_low_rank_spectra.csv (profile.h): each point's first draw again, rows i = 1 .. d,
 * columns "d_k=N" (sigma_i / sigma_1 of W_QK) then "d_v=N" (of W_OV) */
static void spectrum_name(char *buf, size_t n, size_t k, const sweep_point *pt, const void *c)
{
    if (k == 0) snprintf(buf, n, "d_k=%zu", pt->dk);
    else snprintf(buf, n, "d_v=%zu", lowrank_dv(pt, c));
}

static int write_spectra(experiment *e, const sweep_result *r, const sweep_def *def)
{
    const size_t spectra[2] = {SPEC_QK, SPEC_OV};
    return profile_write(e, "bilinear_low_rank_spectra.csv", r, def, 2, spectra, spectrum_name,
                         NAT_ROUNDING, "1e-10");
}

static int run(experiment *e)
{
    static lowrank_ctx c;
    sweep_result r = {0};
    int st = ATT_OK;
    sweep_grid g;
    if ((st = lowrank_grid(&g, &c, e))) goto done;
    sweep_def def = SWEEP_DEF(draw);
    def.work_mats = "T.d d.dk d.dk d.dv dv.d d.d d.d d.d d.d T.T T.T T.d T.d T.d d.d T.dk T.dk "
                    "T.d T.d";
    def.work_vecs = "d d d";
    def.work_heads = "T.T.d.dk.dv T.T.d.d.dv";
    def.work_per_point = 1;
    if ((st = lowrank_def(&def, &c))) goto done;
    if ((st = sweep_run(e, &g, &def, &r))) goto done;
    if ((st = write_spectra(e, &r, &def))) goto done;
    experiment_meta(e, "rank_tol: %g (relative to sigma_max)", RANK_TOL);

    /* worst cases over the sweep: the points' statistics merged */
    stat_acc w[NSTAT];
    size_t h = 0;
    sweep_merge_all(&r, w);
    for (size_t p = 0; p < r.npoints; p++)
        if (r.pt[p].dk == 16) h = p;
    size_t total = w[0].n, dk_lo = r.pt[0].dk, dk_hi = r.pt[r.npoints - 1].dk;
    size_t d_run = r.pt[h].d, dk_h = r.pt[h].dk;
    double zero_tol = tol_eps(16.0, d_run, 1.0);   /* rounding of sigma_i / sigma_1 */
    // the section's claim, rank(W_QK) <= d_k: sigma_{d_k+1} at rounding level, in units of its
    // bound
    measure zu = verdict_measure_as(verdict_measure_exact(w[ZU_QK].max, total), NAT_ROUNDING);
    verdict_claim(e, "lowRankQKKeptMin", 0.0, zu, verdict_rule_at_most(1.0),
              "rank(W_QK) <= d_k: largest sigma_{d_k+1} / sigma_1 of W_QK = W_Q W_K^T over %zu "
              "draws, d_k = %zu .. %zu (d = %zu), in units of its per-draw rounding bound "
              "2 eps (d_k || |W_Q| |W_K|^T ||_F + 8 d sigma_1) / sigma_1", total, dk_lo, dk_hi,
              d_run);
    experiment_headline(e);
    verdict_control(e, "lowRankQKKeptSmallest", NAN, verdict_measure_exact(w[KEPT_QK].min, total),
                verdict_rule_at_least(RANK_TOL), "the converse for random factors, rank(W_QK) >= "
                "d_k: smallest sigma_{d_k} / sigma_1 of W_QK over the same draws");
    verdict_identity(e, "lowRankQKZeroMax", 0.0, verdict_measure_exact(w[ZERO_QK].max, total),
                 verdict_rule_at_most(zero_tol),
                 "rank(W_QK) <= d_k: largest sigma_{d_k+1} / sigma_1");
    verdict_claim(e, "lowRankOVKeptMin", NAN, verdict_measure_exact(w[KEPT_OV].min, total),
              verdict_rule_at_least(RANK_TOL),
              "rank(W_OV) >= d_v: smallest sigma_{d_v} / sigma_1 of W_OV = W_V W_O");
    verdict_identity(e, "lowRankOVZeroMax", 0.0, verdict_measure_exact(w[ZERO_OV].max, total),
                 verdict_rule_at_most(zero_tol),
                 "rank(W_OV) <= d_v: largest sigma_{d_v+1} / sigma_1");
    verdict_identity(e, "lowRankScoreErr", 0.0, verdict_measure_exact(w[E_QK].max, total),
                 verdict_rule_at_most(w[T_QK].min),
                 "largest ||Q K^T - X W_QK X^T||_F / ||Q K^T||_F (tolerance 16 (2d + d_k) eps rho, "
                 "smallest over draws)");
    verdict_identity(e, "lowRankIdentityErr", 0.0,
                 verdict_measure_exact(fmax(w[E_I].max, w[E_U].max), total),
                 verdict_rule_at_most(w[T_U].min), "W_QK = I gives the naive scores: largest "
                 "relative difference of X I X^T and of (X U)(X U)^T, U orthogonal, from X X^T");
    verdict_identity(e, "lowRankOVHeadErr", 0.0, verdict_measure_exact(w[E_OV].max, total),
                 verdict_rule_at_most(w[T_OV].min),
                 "largest ||O W_O - A X W_OV||_F / ||O W_O||_F (the head's contribution through "
                 "the OV circuit)");
    verdict_reported(e, "lowRankParams", NAN,
                     verdict_measure_exact(2.0 * (double)(d_run * dk_h), 1),
                     "parameters of W_Q and W_K, 2 d d_k, at d = %zu, d_k = %zu (a full W_QK: "
                     "d^2 = %zu)",
                     d_run, dk_h, d_run * d_run);
    experiment_summary(
        e,
        "W_QK = W_Q W_K^T has rank d_k exactly: smallest kept sigma_{d_k}/sigma_1 %.4g, "
        "largest neglected %.3g (rounding), over %zu draws, d_k = %zu..%zu",
        w[KEPT_QK].min, w[ZERO_QK].max, total, dk_lo, dk_hi);
    experiment_summary(e,
                       "W_OV = W_V W_O: rank d_v (kept >= %.4g, neglected <= %.3g); the scores are "
                       "x_i^T W_QK x_j to %.3g",
                       w[KEPT_OV].min, w[ZERO_OV].max, w[E_QK].max);
    experiment_summary(e, "parameters: 2 d d_k = %zu instead of d^2 = %zu (d = %zu, d_k = %zu)",
                2 * d_run * dk_h, d_run * d_run, d_run, dk_h);
done:
    sweep_result_free(&r);
    return st;
}

/* how make verify compares the statistics: Monte Carlo (SW_MC, sweep.h) but these */
SWEEP_VERIFY(stat_names, {"score_err", SW_ROUND_COL("score_tol_min")}, {"score_tol", SW_ROUND},
             {"identity_err", SW_ROUND_COL("uut_tol_min")},
             {"uut_err", SW_ROUND_COL("uut_tol_min")}, {"uut_tol", SW_ROUND},
             {"qk_rank_mismatch", SW_EXACT}, {"qk_zero", SW_ROUND},
             {"ov_rank_mismatch", SW_EXACT}, {"ov_zero", SW_ROUND},
             {"ov_err", SW_ROUND_COL("ov_tol_min")}, {"ov_tol", SW_ROUND},
             {"qk_zero_units", SW_ROUND})

int main(int argc, char **argv)
{
    static const experiment_def def = {"bilinear_low_rank", NULL,
        OPT_MC | OPT_T | OPT_D | OPT_DK | OPT_DV | OPT_LISTS, 20261129UL, 100, NULL, run};
    return experiment_main(&def, argc, argv);
}
