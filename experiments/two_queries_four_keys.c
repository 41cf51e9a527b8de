/* two_queries_four_keys - "A worked example you can check by hand"
 *
 * Each output is a weighted average of the values.
 *
 * Claim (two_queries_four_keys): two queries and four keys in one plane, four
 * values in another; the 2 x 4 attention matrix A = row softmax(s Q K^T)
 * gives each query a weighting of the keys (every row sums to 1), and each
 * output o_i = sum_j a_ij v_j is the weighted average of the values under
 * that weighting: it lies inside their convex hull.
 *
 * Measured, for the configuration on the command line (defaults: keys on the
 * axes, q1 leaning towards k1, q2 halfway between k2 and k3, one value per
 * quadrant):
 *   - max_i |sum_j a_ij - 1|                    (rows of A sum to 1)
 *   - max_i |o_i - sum_j a_ij v_j|, o = A V by BLAS, the sum by a plain loop
 * both identities against tol_eps (4 terms per sum); the weights q1 gives k1
 * and q2 gives k2 are reported (the numbers the figure shows). The headline,
 * the claim over --draws random states (tqfk_random_state, seed --seed):
 * the largest |o_i - sum_j w_ij v_j| with w the softmax weights recomputed in
 * long double from the vectors, in units of the double head's rounding bound
 * (tqfk_average_units; at most 1). A head whose outputs are not that average
 * (a wrong scale, unnormalised or shifted weights) exceeds it by orders.
 *
 * Writes into --out:
 *   two_queries_four_keys_vectors.csv   name,plane,x,y   (q, k, v and o)
 *   two_queries_four_keys_A.csv         one row per (query, key): scale,
 *                                       score, weight, the value and output
 *                                       coordinates (for the figure's spokes)
 *   two_queries_four_keys.meta, two_queries_four_keys.verdicts.csv
 *
 * --interactive runs the terminal explorer instead, --keys STRING replays
 * its keys without a terminal (letters in lib/claims/explorer.h); both write
 * nothing and create no folder, and print the options that rebuild the state.
 * results/explorer.html (web/explorer.html) is the same picture in a browser.
 */
#include "prelude.h"
#include "explorer_tui.h"
#include "tqfk.h"

#define ID "two_queries_four_keys"
#define CLAIM "each output is a weighted average of the values"

enum { TQFK_MAX_DRAWS = 1000000000 };

static tqfk_cli cli;            /* the options write into cli.cfg (tqfk_options) */

static int run(experiment *e)
{
    /* Q (2, 2), K (4, 2), V (4, 2) -> S = s Q K^T, A = row softmax(S) (2, 4), O = A V (2, 2) */
    const tqfk_config *cfg = &cli.cfg;
    tqfk_result r;
    int st = tqfk_config_check(cfg);
    /* the random states are checked one at a time: --draws costs time, no memory, so it is
     * bounded in time (about 1 s per million states) */
    if (st == ATT_OK && e->o.draws > TQFK_MAX_DRAWS)
        st = att_fail(ATT_EUSAGE, "--draws %zu: at most %d random states (about %d minutes; "
                      "each is checked one at a time, so more only takes time)", e->o.draws,
                      TQFK_MAX_DRAWS, TQFK_MAX_DRAWS / 60000000);
    if (st == ATT_OK) st = tqfk_compute(&r, cfg);
    if (st == ATT_OK) st = tqfk_write_tables(e->o.out_dir, ID, cfg, &r);
    if (st) return st;
    if (!e->o.quiet) tqfk_print(stdout, cfg, &r);
    exp_meta(e, "scale: %.17g", cfg->scale);

    /* sum_j a_ij = 1 and o_i = sum_j a_ij v_j, each a sum of 4 terms of size
     * <= 1 (weights) or <= max|v| (the averages): tol = 4 n eps scale */
    tqfk_check ck;
    tqfk_check_result(&ck, cfg, &r);
    exp_identity(e, "tqfkRowSumErr", 0.0,
                verdict_measure_exact(ck.row_sum_err, TQFK_NQ),
                verdict_rule_at_most(tol_eps(4.0, TQFK_NK, 1.0)),
                "max over queries of |sum_j a_ij - 1|");
    exp_identity(e, "tqfkOutputAvgErr", 0.0,
                verdict_measure_exact(ck.average_err, TQFK_NQ * TQFK_DIM),
                verdict_rule_at_most(tol_eps(4.0, TQFK_NK, ck.value_scale)),
                "max |o_i - sum_j a_ij v_j| (o = A V by BLAS, sum by a loop)");
    /* the claim over random states: max over states of tqfk_average_units (tqfk.h) */
    gsl_rng *rng = rng_new(e->o.rng_name, rng_stream_seed(e->o.seed, 0x7F4B, 0));
    if (rng == NULL) return ATT_EUSAGE;
    double worst = 0.0;
    tqfk_config rc;
    tqfk_result rr;
    for (size_t n = 0; n < e->o.draws && st == ATT_OK; n++) {
        tqfk_random_state(rng, &rc);
        if ((st = tqfk_compute(&rr, &rc)) == ATT_OK) {
            double u = tqfk_average_units(&rc, &rr);
            worst = isnan(u) || isnan(worst) ? NAN : fmax(worst, u);
        }
    }
    gsl_rng_free(rng);
    if (st) return st;
    measure wm = verdict_measure_as(verdict_measure_exact(worst, e->o.draws), NAT_ROUNDING);
    exp_claim(e, "tqfkQoneKoneWeight", 0.0, wm, verdict_rule_at_most(1.0),
              "each o_i is the weighted average sum_j a_ij v_j: largest |o_i - sum_j w_ij v_j| "
              "over %zu random states (w recomputed in long double), in units of the rounding "
              "bound 8 eps (4 |s| ||q_i|| max ||k_j|| + 8) max_j |v_jc|", e->o.draws);
    exp_headline(e);
    /* the numbers the figure shows: how much q1 looks at k1, q2 at k2 */
    exp_reported(e, "tqfkPictureWeight", NAN, verdict_measure_exact(r.A[0][0], 1),
                "weight a_11 that q1 gives k1 (scale %g)", cfg->scale);
    exp_reported(e, "tqfkQtwoKtwoWeight", NAN, verdict_measure_exact(r.A[1][1], 1),
                "weight a_22 that q2 gives k2 (scale %g)", cfg->scale);
    exp_summary(e, "rows of A sum to 1 (largest error %.2g); each o_i is the weighted average "
                "sum_j a_ij v_j (largest difference %.2g)", ck.row_sum_err, ck.average_err);
    exp_summary(e, "q1 gives k1 the weight %.4f, q2 gives k2 %.4f (scale %g)", r.A[0][0], r.A[1][1],
                cfg->scale);
    return ATT_OK;
}

int main(int argc, char **argv)
{
    tqfk_config_default(&cli.cfg);
    if (explorer_tui_wanted(argc, argv)) return explorer_tui_main(argc, argv, ID, CLAIM, &cli);
    static experiment_def def = {ID, CLAIM, OPT_MC, 20261129UL, 100000, NULL, run};
    def.extra = tqfk_options(&cli);
    return exp_main(&def, argc, argv);
}
