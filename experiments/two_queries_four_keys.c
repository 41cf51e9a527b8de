/* two_queries_four_keys - the section's interactive figure, as data, a figure
 * and a terminal explorer.
 *
 * Claim (two_queries_four_keys): two queries and four keys in one plane, four
 * values in another; the 2 x 4 attention matrix A = row softmax(s Q K^T)
 * gives each query a weighting of the keys, and each output o_i = sum_j a_ij v_j
 * is the weighted average of the values under that weighting.
 *
 * Measured, for the configuration on the command line (defaults: keys on the
 * axes, q1 close to k1, q2 halfway between k2 and k3, one value per quadrant):
 *   - max_i |sum_j a_ij - 1|                    (rows of A sum to 1)
 *   - max_i |o_i - sum_j a_ij v_j|, o = A V by BLAS, the sum by a plain loop
 * both against tolerances from mat_tol (4 terms per sum).
 *
 * Writes into --out:
 *   two_queries_four_keys_vectors.csv   name,plane,x,y   (q, k, v and o)
 *   two_queries_four_keys_A.csv         one row per (query, key): scale,
 *                                       score, weight, the value and output
 *                                       coordinates (for the figure's spokes)
 *   two_queries_four_keys.meta, two_queries_four_keys.verdicts.csv
 *
 * --interactive runs the ncurses explorer instead (nothing is written);
 * --keys STRING replays explorer keys without a terminal and prints the final
 * state (letters in lib/explorer.h).
 */
#include "explorer.h"
#include "tol.h"
#include "explorer_tui.h"
#include "opts.h"
#include "output.h"
#include "status.h"
#include "tqfk.h"

#include <signal.h>
#include <stdio.h>

#define ID "two_queries_four_keys"

static int write_csvs(const opts *o, const tqfk_config *c, const tqfk_result *r)
{
    afile af;
    int st = afile_open(&af, o->out_dir, ID "_vectors.csv");
    if (st) return st;
    fprintf(af.f, "name,plane,x,y\n");
    for (int i = 0; i < TQFK_NVEC; i++) {
        const double *x = tqfk_vec_const(c, i);
        fprintf(af.f, "%s,%s,", tqfk_vec_name(i), i < TQFK_NQ + TQFK_NK ? "qk" : "value");
        csv_num(af.f, x[0]); fputc(',', af.f); csv_num(af.f, x[1]); fputc('\n', af.f);
    }
    for (int i = 0; i < TQFK_NQ; i++) {
        fprintf(af.f, "o%d,value,", i + 1);
        csv_num(af.f, r->O[i][0]); fputc(',', af.f); csv_num(af.f, r->O[i][1]); fputc('\n', af.f);
    }
    if ((st = afile_commit(&af))) return st;

    if ((st = afile_open(&af, o->out_dir, ID "_A.csv"))) return st;
    fprintf(af.f, "query,key,i,j,scale,score,weight,v_x,v_y,o_x,o_y\n");
    for (int i = 0; i < TQFK_NQ; i++)
        for (int j = 0; j < TQFK_NK; j++) {
            const double row[] = {c->scale, r->S[i][j], r->A[i][j], c->v[j][0], c->v[j][1],
                                  r->O[i][0], r->O[i][1]};
            fprintf(af.f, "q%d,k%d,%d,%d", i + 1, j + 1, i + 1, j + 1);
            for (size_t m = 0; m < sizeof row / sizeof row[0]; m++) {
                fputc(',', af.f);
                csv_num(af.f, row[m]);
            }
            fputc('\n', af.f);
        }
    return afile_commit(&af);
}

static int run_figure(const opts *o, const tqfk_config *c)
{
    tqfk_result r;
    tqfk_check ck;
    int st = tqfk_compute(&r, c);
    if (st) return st;
    if ((st = write_csvs(o, c, &r)) || (st = output_meta(o, NULL))) return st;

    tqfk_check_result(&ck, c, &r);
    double tol_sum = tol_eps(4.0, TQFK_NK, 1.0), tol_avg = tol_eps(4.0, TQFK_NK, ck.value_scale);
    verdict_list vl;
    verdicts_init(&vl);
    st = verdict_exact(&vl, "tqfkRowSumErr", "max over queries of |sum_j a_ij - 1|",
                       0.0, ck.row_sum_err, tol_sum, ck.row_sum_err <= tol_sum,
                       "<= 16 eps");
    if (!st)
        st = verdict_exact(&vl, "tqfkOutputAvgErr",
                           "max |o_i - sum_j a_ij v_j| (o = A V by BLAS, sum by a loop)",
                           0.0, ck.average_err, tol_avg, ck.average_err <= tol_avg,
                           "<= 16 eps max|v|");
    if (!st) st = legacy_verdicts_write(&vl, o);
    if (!st) st = verdicts_status(&vl);
    verdicts_free(&vl);
    return st;
}

int main(int argc, char **argv)
{
    att_init();
    tqfk_config c;
    tqfk_config_default(&c);
    int interactive = 0;
    const char *keys = NULL;
    const opt_spec extra[] = {
        {"q1", OPT_VEC2, c.q[0], "x,y", "query 1 (default 1.5,0.5: close to k1)"},
        {"q2", OPT_VEC2, c.q[1], "x,y", "query 2 (default -1,1: between k2 and k3)"},
        {"k1", OPT_VEC2, c.k[0], "x,y", "key 1 (default 2,0)"},
        {"k2", OPT_VEC2, c.k[1], "x,y", "key 2 (default 0,2)"},
        {"k3", OPT_VEC2, c.k[2], "x,y", "key 3 (default -2,0)"},
        {"k4", OPT_VEC2, c.k[3], "x,y", "key 4 (default 0,-2)"},
        {"v1", OPT_VEC2, c.v[0], "x,y", "value 1 (default -3,2)"},
        {"v2", OPT_VEC2, c.v[1], "x,y", "value 2 (default 1,3)"},
        {"v3", OPT_VEC2, c.v[2], "x,y", "value 3 (default 3,-1)"},
        {"v4", OPT_VEC2, c.v[3], "x,y", "value 4 (default -1,-3)"},
        {"scale", OPT_DOUBLE, &c.scale, "S", "scores are S q.k (default 1, as in the section)"},
        {"interactive", OPT_FLAG, &interactive, NULL,
         "full-screen explorer (needs a terminal; writes nothing)"},
        {"keys", OPT_STRING, &keys, "KEYS",
         "replay explorer keys (t T h j k l + - ] [ r q) and print the final state"},
        {NULL, 0, NULL, NULL, NULL}
    };
    const opts_info info = {ID, "two queries, four keys and four values: weights and outputs",
                            0, 0, 1, extra};
    opts o;
    int st = opts_parse(&o, &info, argc, argv);
    if (st == ATT_OK) st = tqfk_config_check(&c);
    if (st == ATT_OK && interactive && keys)
        st = att_fail(ATT_EUSAGE, "--interactive and --keys exclude each other");
    if (st) return opts_exit(&o, st);

    if (!interactive && !keys) return opts_exit(&o, run_figure(&o, &c));

    explorer e;
    int sig = 0;
    if ((st = explorer_init(&e, &c))) return opts_exit(&o, st);
    st = keys ? explorer_replay(&e, keys) : explorer_tui_run(&e, &sig);
    if (st == ATT_OK && (keys || !o.quiet)) explorer_print(stdout, &e);
    if (sig) {                     /* the terminal is restored: die of it now */
        fflush(stdout);
        signal(sig, SIG_DFL);
        raise(sig);
    }
    return opts_exit(&o, st);
}
