/* two_queries_four_keys - each output is a weighted average of the values.
 *
 * Claim (two_queries_four_keys): two queries and four keys in one plane, four
 * values in another; the 2 x 4 attention matrix A = row softmax(s Q K^T)
 * gives each query a weighting of the keys (every row sums to 1), and each
 * output o_i = sum_j a_ij v_j is the weighted average of the values under
 * that weighting: it lies inside their convex hull.
 *
 * Measured, for the configuration on the command line (defaults: keys on the
 * axes, q1 leaning towards k1, q2 halfway between k2 and k3, one value per quadrant):
 *   - max_i |sum_j a_ij - 1|                    (rows of A sum to 1)
 *   - max_i |o_i - sum_j a_ij v_j|, o = A V by BLAS, the sum by a plain loop
 * both identities against tol_eps (4 terms per sum); the weights q1 gives k1
 * and q2 gives k2 are reported (the numbers the figure shows).
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
#include "experiment.h"
#include "explorer.h"
#include "explorer_tui.h"
#include "status.h"
#include "table.h"
#include "tol.h"
#include "tqfk.h"

#include <locale.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#define ID "two_queries_four_keys"

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

static tqfk_config cfg;         /* the options write into it (opt_spec dest) */
static int interactive;
static const char *keys;

static const opt_spec extra[] = {
    {"q1", OPT_VEC2, cfg.q[0], "x,y", "query 1 (default 1,0.5: leans towards k1)"},
    {"q2", OPT_VEC2, cfg.q[1], "x,y", "query 2 (default -1,1: between k2 and k3)"},
    {"k1", OPT_VEC2, cfg.k[0], "x,y", "key 1 (default 2,0)"},
    {"k2", OPT_VEC2, cfg.k[1], "x,y", "key 2 (default 0,2)"},
    {"k3", OPT_VEC2, cfg.k[2], "x,y", "key 3 (default -2,0)"},
    {"k4", OPT_VEC2, cfg.k[3], "x,y", "key 4 (default 0,-2)"},
    {"v1", OPT_VEC2, cfg.v[0], "x,y", "value 1 (default -3,2)"},
    {"v2", OPT_VEC2, cfg.v[1], "x,y", "value 2 (default 1,3)"},
    {"v3", OPT_VEC2, cfg.v[2], "x,y", "value 3 (default 3,-1)"},
    {"v4", OPT_VEC2, cfg.v[3], "x,y", "value 4 (default -1,-3)"},
    {"scale", OPT_DOUBLE, &cfg.scale, "S", "scores are S q.k (default 1, as in the section)"},
    {"interactive", OPT_FLAG, &interactive, NULL,
     "full-screen explorer (needs a terminal; writes nothing, creates no folder)"},
    {"keys", OPT_STRING, &keys, "KEYS",
     "replay explorer keys (t T h j k l + - ] [ r q), print the final state; writes nothing"},
    {NULL, 0, NULL, NULL, NULL}};

/* The page's numbers for this state: scores s_ij, weights a_ij (2 x 4) and
 * the outputs o_i, as tables on stdout (unless --quiet). */
static void state_print(const tqfk_result *r)
{
    static const char *const title[2] = {"scores S = s Q K^T", "weights A = row softmax(S)"};
    printf("two queries, four keys, scale s = %g\n", cfg.scale);
    for (int t = 0; t < 2; t++) {
        printf("%-28s %8s %8s %8s %8s%s\n", title[t], "k1", "k2", "k3", "k4", t ? "  row sum" : "");
        for (int i = 0; i < TQFK_NQ; i++) {
            char label[64];
            double sum = 0.0;
            snprintf(label, sizeof label, "q%d = (%g, %g)", i + 1, cfg.q[i][0], cfg.q[i][1]);
            printf("  %-26s", label);
            for (int j = 0; j < TQFK_NK; j++) {
                double x = t ? r->A[i][j] : r->S[i][j];
                sum += x;
                printf(" %8.4f", x);
            }
            if (t) printf(" %8.4f", sum);
            printf("\n");
        }
    }
    printf("%-28s %8s %8s\n", "outputs o_i = sum_j a_ij v_j", "x", "y");
    for (int i = 0; i < TQFK_NQ; i++) printf("  o%-25d %8.4f %8.4f\n", i + 1, r->O[i][0], r->O[i][1]);
    printf("\n");
}

static int run(experiment *e)
{
    /* Q (2, 2), K (4, 2), V (4, 2) -> S, A (2, 4), O (2, 2) */
    tqfk_result r;
    int st = tqfk_config_check(&cfg);
    if (st == ATT_OK) st = tqfk_compute(&r, &cfg);
    if (st) return st;
    if (!e->o.quiet) state_print(&r);

    vector_row vec[TQFK_NVEC + TQFK_NQ];
    for (int i = 0; i < TQFK_NVEC; i++) {
        const double *x = tqfk_vec_const(&cfg, i);
        vec[i] = (vector_row){tqfk_vec_name(i), i < TQFK_NQ + TQFK_NK ? "qk" : "value", x[0], x[1]};
    }
    static const char *const onames[TQFK_NQ] = {"o1", "o2"};
    for (int i = 0; i < TQFK_NQ; i++)
        vec[TQFK_NVEC + i] = (vector_row){onames[i], "value", r.O[i][0], r.O[i][1]};

    weight_row w[TQFK_NQ * TQFK_NK];
    for (int i = 0; i < TQFK_NQ; i++)
        for (int j = 0; j < TQFK_NK; j++)
            w[i * TQFK_NK + j] = (weight_row){
                tqfk_vec_name(i), tqfk_vec_name(TQFK_NQ + j), i + 1, j + 1, cfg.scale,
                r.S[i][j], r.A[i][j], cfg.v[j][0], cfg.v[j][1], r.O[i][0], r.O[i][1]};

    if ((st = TABLE_WRITE(e->o.out_dir, ID "_vectors.csv", vector_cols, vec, TQFK_NVEC + TQFK_NQ)) ||
        (st = TABLE_WRITE(e->o.out_dir, ID "_A.csv", weight_cols, w, TQFK_NQ * TQFK_NK)))
        return st;
    exp_meta(e, "scale: %.17g", cfg.scale);

    /* sum_j a_ij = 1 and o_i = sum_j a_ij v_j, each a sum of 4 terms of size
     * <= 1 (weights) or <= max|v| (the averages): tol = 4 n eps scale */
    tqfk_check ck;
    tqfk_check_result(&ck, &cfg, &r);
    exp_identity(e, "tqfkRowSumErr", 0.0,
                measure_exact(ck.row_sum_err, TQFK_NQ), rule_at_most(tol_eps(4.0, TQFK_NK, 1.0)),
                "max over queries of |sum_j a_ij - 1|");
    exp_identity(e, "tqfkOutputAvgErr", 0.0,
                measure_exact(ck.average_err, TQFK_NQ * TQFK_DIM),
                rule_at_most(tol_eps(4.0, TQFK_NK, ck.value_scale)),
                "max |o_i - sum_j a_ij v_j| (o = A V by BLAS, sum by a loop)");
    /* the numbers the figure shows: how much q1 looks at k1, q2 at k2 */
    exp_reported(e, "tqfkQoneKoneWeight", NAN, measure_exact(r.A[0][0], 1),
                "weight a_11 that q1 gives k1 (scale %g)", cfg.scale);
    exp_headline(e);   // the lookup itself: how much q1 looks at k1
    exp_reported(e, "tqfkQtwoKtwoWeight", NAN, measure_exact(r.A[1][1], 1),
                "weight a_22 that q2 gives k2 (scale %g)", cfg.scale);
    exp_summary(e, "rows of A sum to 1 (largest error %.2g); each o_i is the weighted average "
                "sum_j a_ij v_j (largest difference %.2g)", ck.row_sum_err, ck.average_err);
    exp_summary(e, "q1 gives k1 the weight %.4f, q2 gives k2 %.4f (scale %g)", r.A[0][0], r.A[1][1],
                cfg.scale);
    return ATT_OK;
}

/* --interactive / --keys: the explorer; no folder, no file, no verdicts. */
static int explore(int argc, char **argv)
{
    const opts_info info = {ID, "each output is a weighted average of the values",
                            OPT_NO_OUT_DEFAULT, 0, 1, extra};
    opts o;
    int st = opts_parse(&o, &info, argc, argv);
    if (st == ATT_OK && o.out_dir)
        st = att_fail(ATT_EUSAGE, "--out: --interactive and --keys write nothing");
    if (st == ATT_OK) st = tqfk_config_check(&cfg);
    if (st == ATT_OK && interactive && keys)
        st = att_fail(ATT_EUSAGE, "--interactive and --keys exclude each other");
    if (st) return opts_exit(&o, st);

    setlocale(LC_ALL, "");         /* the terminal's locale (ncursesw needs it) */
    explorer ex;
    int sig = 0;
    if ((st = explorer_init(&ex, &cfg))) return opts_exit(&o, st);
    st = keys ? explorer_replay(&ex, keys) : explorer_tui_run(&ex, &sig);
    /* explorer_print writes its numbers in the C locale whatever the
     * terminal's, so the options line pastes back */
    if (st == ATT_OK && (keys || !o.quiet)) explorer_print(stdout, &ex);
    if (sig) {                     /* the terminal is restored: die of it now */
        fflush(stdout);
        signal(sig, SIG_DFL);
        raise(sig);
    }
    return opts_exit(&o, st);
}

int main(int argc, char **argv)
{
    tqfk_config_default(&cfg);
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--interactive") || !strcmp(argv[i], "--keys") ||
            !strncmp(argv[i], "--keys=", 7)) {
            att_init();
            return explore(argc, argv);
        }
    static const experiment_def def = {ID, "each output is a weighted average of the values",
                                       0, 0, 1, extra, run};
    return experiment_main(&def, argc, argv);
}
