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
#include "explorer.h"
#include "tqfk.h"

#define ID "two_queries_four_keys"
#define CLAIM "each output is a weighted average of the values"

enum { TQFK_MAX_DRAWS = 1000000000 };

static tqfk_cli cli;            /* the options write into cli.cfg (tqfk_options) */

/* ---- the page's numbers and the figure's tables ------------------------- */

/* the page's numbers for state c: the scores s_ij, the weights a_ij (2 x 4) with their row
 * sums, and the outputs o_i, as plain tables */
static void print_state(FILE *f, const tqfk_config *c, const tqfk_result *r)
{
    static const char *const title[2] = {"scores S = s Q K^T", "weights A = row softmax(S)"};
    fprintf(f, "two queries, four keys, scale s = %g\n", c->scale);
    for (int t = 0; t < 2; t++) {
        fprintf(f, "%-28s %8s %8s %8s %8s%s\n", title[t], "k1", "k2", "k3", "k4",
                t ? "  row sum" : "");
        for (int i = 0; i < TQFK_NQ; i++) {
            char label[64];
            double sum = 0.0;
            snprintf(label, sizeof label, "q%d = (%g, %g)", i + 1, c->q[i][0], c->q[i][1]);
            fprintf(f, "  %-26s", label);
            for (int j = 0; j < TQFK_NK; j++) {
                double x = t ? r->A[i][j] : r->S[i][j];
                sum += x;
                fprintf(f, " %8.4f", x);
            }
            if (t) fprintf(f, " %8.4f", sum);
            fprintf(f, "\n");
        }
    }
    fprintf(f, "%-28s %8s %8s\n", "outputs o_i = sum_j a_ij v_j", "x", "y");
    for (int i = 0; i < TQFK_NQ; i++)
        fprintf(f, "  o%-25d %8.4f %8.4f\n", i + 1, r->O[i][0], r->O[i][1]);
    fprintf(f, "\n");
}

/* one point of either plane: q, k, v (inputs) and o (outputs) */
typedef struct { const char *name, *plane; double x, y; } vector_row;
static const table_col vector_cols[] = {
    COL(vector_row, name), COL(vector_row, plane), COL(vector_row, x), COL(vector_row, y)};

/* one cell of A, with what the figure's spoke from o_i to v_j needs */
typedef struct {
    const char *query, *key;
    int i, j;
    double scale, score, weight, v_x, v_y, o_x, o_y;
} weight_row;
static const table_col weight_cols[] = {
    COL(weight_row, query), COL(weight_row, key), COL(weight_row, i), COL(weight_row, j),
    COL(weight_row, scale), COL(weight_row, score), COL(weight_row, weight),
    COL(weight_row, v_x), COL(weight_row, v_y), COL(weight_row, o_x), COL(weight_row, o_y)};

/* the figure's tables in dir: ID_vectors.csv (name,plane,x,y: q, k, v and the outputs o)
 * and ID_A.csv (one row per (query, key): scale, score, weight, the value's and the
 * output's coordinates, for the spokes) */
static int write_tables(const char *dir, const tqfk_config *c, const tqfk_result *r)
{
    vector_row vec[TQFK_NVEC + TQFK_NQ];
    for (int i = 0; i < TQFK_NVEC; i++) {
        const double *x = tqfk_vec_const(c, i);
        vec[i] = (vector_row){tqfk_vec_name(i), i < TQFK_NQ + TQFK_NK ? "qk" : "value", x[0],
                              x[1]};
    }
    static const char *const onames[TQFK_NQ] = {"o1", "o2"};
    for (int i = 0; i < TQFK_NQ; i++)
        vec[TQFK_NVEC + i] = (vector_row){onames[i], "value", r->O[i][0], r->O[i][1]};

    weight_row w[TQFK_NQ * TQFK_NK];
    for (int i = 0; i < TQFK_NQ; i++)
        for (int j = 0; j < TQFK_NK; j++)
            w[i * TQFK_NK + j] = (weight_row){
                tqfk_vec_name(i), tqfk_vec_name(TQFK_NQ + j), i + 1, j + 1, c->scale,
                r->S[i][j], r->A[i][j], c->v[j][0], c->v[j][1], r->O[i][0], r->O[i][1]};
    int st = TABLE_WRITE(dir, ID "_vectors.csv", vector_cols, vec, TQFK_NVEC + TQFK_NQ);
    return st ? st : TABLE_WRITE(dir, ID "_A.csv", weight_cols, w, TQFK_NQ * TQFK_NK);
}

/* the random states of the claim's check, outside the sweep (experiment_rng) */
enum { STREAM_STATES = 0x7F4B };

static int run(experiment *e)
{
    /* Q (2, 2), K (4, 2), V (4, 2) -> S = s Q K^T, A = row softmax(S) (2, 4), O = A V (2, 2) */
    const tqfk_config *cfg = &cli.cfg;
    tqfk_result r;
    gsl_rng *rng = NULL;
    int st = ATT_OK;
    if ((st = tqfk_config_check(cfg))) goto done;
    /* the random states are checked one at a time: --draws costs time, no memory, so it is
     * bounded in time (about 1 s per million states) */
    if (e->o.draws > TQFK_MAX_DRAWS
        && (st = att_fail(ATT_EUSAGE, "--draws %zu: at most %d random states (about %d minutes; "
                          "each is checked one at a time, so more only takes time)", e->o.draws,
                          TQFK_MAX_DRAWS, TQFK_MAX_DRAWS / 60000000)))
        goto done;
    if ((st = tqfk_compute(&r, cfg))) goto done;
    if ((st = write_tables(e->o.out_dir, cfg, &r))) goto done;
    if (!e->o.quiet) print_state(stdout, cfg, &r);
    experiment_meta(e, "scale: %.17g", cfg->scale);

    /* sum_j a_ij = 1 and o_i = sum_j a_ij v_j, each a sum of 4 terms of size
     * <= 1 (weights) or <= max|v| (the averages): tol = 4 n eps scale */
    tqfk_check ck;
    tqfk_check_result(&ck, cfg, &r);
    verdict_identity(e, "tqfkRowSumErr", 0.0,
                verdict_measure_exact(ck.row_sum_err, TQFK_NQ),
                verdict_rule_at_most(tol_eps(4.0, TQFK_NK, 1.0)),
                "max over queries of |sum_j a_ij - 1|");
    verdict_identity(e, "tqfkOutputAvgErr", 0.0,
                verdict_measure_exact(ck.average_err, TQFK_NQ * TQFK_DIM),
                verdict_rule_at_most(tol_eps(4.0, TQFK_NK, ck.value_scale)),
                "max |o_i - sum_j a_ij v_j| (o = A V by BLAS, sum by a loop)");
    /* the claim over random states: max over states of tqfk_average_units (tqfk.h) */
    rng = experiment_rng(e, STREAM_STATES, 0);
    if ((st = rng ? ATT_OK : ATT_EUSAGE)) goto done;
    double worst = 0.0;
    tqfk_config rc;
    tqfk_result rr;
    for (size_t n = 0; n < e->o.draws; n++) {
        tqfk_random_state(rng, &rc);
        if ((st = tqfk_compute(&rr, &rc))) goto done;
        double u = tqfk_average_units(&rc, &rr);
        worst = isnan(u) || isnan(worst) ? NAN : fmax(worst, u);
    }
    measure wm = verdict_measure_as(verdict_measure_exact(worst, e->o.draws), NAT_ROUNDING);
    verdict_claim(e, "tqfkAverageErr", 0.0, wm, verdict_rule_at_most(1.0),
              "each o_i is the weighted average sum_j a_ij v_j: largest |o_i - sum_j w_ij v_j| "
              "over %zu random states (w recomputed in long double), in units of the rounding "
              "bound 8 eps (4 |s| ||q_i|| max ||k_j|| + 8) max_j |v_jc|", e->o.draws);
    experiment_headline(e);
    /* the numbers the figure shows: how much q1 looks at k1, q2 at k2 */
    verdict_reported(e, "tqfkPictureWeight", NAN, verdict_measure_exact(r.A[0][0], 1),
                "weight a_11 that q1 gives k1 (scale %g)", cfg->scale);
    verdict_reported(e, "tqfkQtwoKtwoWeight", NAN, verdict_measure_exact(r.A[1][1], 1),
                "weight a_22 that q2 gives k2 (scale %g)", cfg->scale);
    experiment_summary(e,
                       "rows of A sum to 1 (largest error %.2g); each o_i is the weighted average "
                       "sum_j a_ij v_j (largest difference %.2g)",
                       ck.row_sum_err, ck.average_err);
    experiment_summary(e, "q1 gives k1 the weight %.4f, q2 gives k2 %.4f (scale %g)", r.A[0][0],
                       r.A[1][1], cfg->scale);
done:
    if (rng) gsl_rng_free(rng);
    return st;
}

int main(int argc, char **argv)
{
    tqfk_config_default(&cli.cfg);
    if (explorer_tui_wanted(argc, argv)) return explorer_tui_main(argc, argv, ID, CLAIM, &cli);
    static experiment_def def = {ID, CLAIM, OPT_MC, 20261129UL, 100000, NULL, run};
    def.extra = tqfk_options(&cli);
    return experiment_main(&def, argc, argv);
}
