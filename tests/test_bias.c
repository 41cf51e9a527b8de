/* test_bias.c - the key bias's identities (lib/claims/bias.h) and the
 * tables the bias and worked-example experiments write.
 *
 * Properties over seeded random heads (prop.h: a failure prints the replay
 * command), tolerances that scale with the sizes and DBL_EPSILON:
 *   - without RoPE, removing b_K moves O by rounding only and ||dL/db_K|| stays
 *     under 8 T eps sum_i ||q_i|| ||g_i|| max_j ||v_j|| (sum_j dS_ij = 0 exactly);
 *   - with RoPE after the bias, the gradient and the change are real;
 *   - bias_fd_error: backprop agrees with central differences for every
 *     parameter group, and it finds a wrong gradient;
 *   - bias_fold_error: zero up to rounding for rows summing to 1, exactly
 *     (r_i - 1) b_V W_O otherwise, by hand;
 *   - bias_vhead_draw: b_V passes through to every output (bias_rows_from).
 * Tables: each experiment run small into a temporary folder; every CSV it
 * writes parses (one header, rows with as many fields, numbers that read back).
 */
#include <check.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
#include <gsl/gsl_blas.h>

#include "bias.h"
#include "csvline.h"
#include "head.h"
#include "mat.h"
#include "opts.h"
#include "prop.h"
#include "status.h"
#include "tol.h"

#define EPS DBL_EPSILON

/* ||dL/db_K|| bound without RoPE: bias_key_rounding (bias.h), the experiment's own */
static double grad_bound(const bias_head *h) { return bias_key_rounding(h).grad; }

START_TEST(prop_key_bias_no_gradient)
{
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    PROP_FOR(k, rng, "b_K: no gradient and no change without RoPE; real ones with RoPE") {
        size_t T = prop_size(rng, 2, 12), d = prop_size(rng, 1, 16), dk = 2 * prop_size(rng, 1, 4);
        size_t dv = prop_size(rng, 1, 6);
        bias_head h;
        head_grads g;
        PROP_ASSERT(bias_head_alloc(&h, T, d, dk, dv) == ATT_OK, "%s", att_last_error());
        PROP_ASSERT(head_grads_alloc(&g, T, T, d, dk, dv) == ATT_OK, "%s", att_last_error());
        for (int rope = 0; rope <= 1; rope++) {
            PROP_ASSERT(bias_head_draw(rng, &h, rope) == ATT_OK, "%s", att_last_error());
            head_params p = bias_head_params(&h, rope, 1);
            PROP_ASSERT(head_backward(&g, &h.with, &p, h.X, h.X, h.G) == ATT_OK, "%s",
                        att_last_error());
            double nq = gsl_blas_dnrm2(g.db_Q), nk = gsl_blas_dnrm2(g.db_K);
            double change = mat_diff_frob(h.with.O, h.without.O);
            if (!rope) {
                double bound = grad_bound(&h);
                PROP_ASSERT(nk <= bound, "T %zu d_k %zu: ||db_K|| = %g > bound %g", T, dk, nk,
                            bound);
                // the output: score rows shifted by rounding, the experiment's bound (bias.h)
                double tol = bias_key_rounding(&h).out;
                PROP_ASSERT(change <= tol, "T %zu d_k %zu: O moved by %g > %g", T, dk, change, tol);
            } else {
                // RoPE rotates b_K differently for every key: the bias is not removable
                PROP_ASSERT(nk > 1e3 * grad_bound(&h) && nk > 1e-8 * nq,
                            "RoPE T %zu d_k %zu: ||db_K|| = %g, ||db_Q|| = %g", T, dk, nk, nq);
                PROP_ASSERT(change > 1e-8 * mat_frob(h.without.O), "RoPE: O moved by only %g",
                            change);
            }
        }
        head_grads_free(&g);
        bias_head_free(&h);
    }
    gsl_rng_free(rng);
}
END_TEST

START_TEST(prop_fd_check_agrees_and_catches)
{
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    PROP_FOR(k, rng, "bias_fd_error: backprop = central differences; a wrong gradient is caught") {
        size_t T = prop_size(rng, 2, 6), d = prop_size(rng, 1, 6), dk = 2 * prop_size(rng, 1, 2);
        size_t dv = prop_size(rng, 1, 3);
        int rope = (int)(k % 2);
        bias_head h;
        head_grads g;
        head_state work;
        PROP_ASSERT(bias_head_alloc(&h, T, d, dk, dv) == ATT_OK, "alloc");
        PROP_ASSERT(head_grads_alloc(&g, T, T, d, dk, dv) == ATT_OK, "alloc");
        PROP_ASSERT(head_state_alloc(&work, T, T, d, dk, dv) == ATT_OK, "alloc");
        PROP_ASSERT(bias_head_draw(rng, &h, rope) == ATT_OK, "draw");
        head_params p = bias_head_params(&h, rope, 1);
        PROP_ASSERT(head_backward(&g, &h.with, &p, h.X, h.X, h.G) == ATT_OK, "backward");
        gsl_matrix_view bq = gsl_matrix_view_vector(h.b_Q, 1, dk),
                        gq = gsl_matrix_view_vector(g.db_Q, 1, dk);
        gsl_matrix *P[4] = {&bq.matrix, h.W_Q, h.W_K, h.W_V};
        const gsl_matrix *D[4] = {&gq.matrix, g.dW_Q, g.dW_K, g.dW_V};
        for (int m = 0; m < 4; m++) {
            double err;
            PROP_ASSERT(bias_fd_error(&err, &work, &p, h.X, h.X, h.G, P[m], D[m], 1e-5, 0.0) ==
                            ATT_OK,
                        "fd");
            // central differences: O(h^2) + O(eps / h) relative, far below 1e-6
            PROP_ASSERT(err <= 1e-6, "group %d rope %d: FD error %g", m, rope, err);
        }
        // the experiment's form: every group, relative to the draw's largest gradient
        double errs[BIAS_NPARAM];
        PROP_ASSERT(bias_head_fd_errors(errs, &work, &h, &g, rope, 1e-5) == ATT_OK, "fd errors");
        for (int m = 0; m < BIAS_NPARAM; m++)
            PROP_ASSERT(errs[m] <= 1e-6, "%s rope %d: FD error %g", bias_param_names[m], rope,
                        errs[m]);
        // a gradient with one entry doubled must be refused
        gsl_matrix *bad = mat_new(d, dk);
        gsl_matrix_memcpy(bad, g.dW_Q);
        size_t i = gsl_rng_uniform_int(rng, d), j = gsl_rng_uniform_int(rng, dk);
        gsl_matrix_set(bad, i, j, 2.0 * gsl_matrix_get(bad, i, j) + 1.0);
        double err;
        PROP_ASSERT(bias_fd_error(&err, &work, &p, h.X, h.X, h.G, h.W_Q, bad, 1e-5, 0.0) == ATT_OK,
                    "fd");
        PROP_ASSERT(err > 1e-6, "a wrong gradient passed: FD error %g", err);
        mat_free(bad);
        head_state_free(&work);
        head_grads_free(&g);
        bias_head_free(&h);
    }
    gsl_rng_free(rng);
}
END_TEST

START_TEST(test_fold_error_by_hand)
{
    /* A = [1/4 3/4] (row sums to 1) and [1 1] (sums to 2); V0 = [1; 3] (T_k = 2,
     * d_v = 1), b_V = 2, W_O = [1], b_O = 0, b_fold = b_V W_O = 2:
     *   softmax row: Y_u = 1/4 3 + 3/4 5 = 4.5, Y_f = 1/4 + 9/4 + 2 = 4.5, error 0
     *   row [1 1]:   Y_u = 3 + 5 = 8,         Y_f = 1 + 3 + 2 = 6, error (2 - 1) 2 = 2 */
    gsl_matrix *A = mat_new(1, 2), *V0 = mat_new(2, 1), *V1 = mat_new(2, 1), *W_O = mat_new(1, 1);
    gsl_matrix *O1 = mat_new(1, 1), *O0 = mat_new(1, 1);
    gsl_vector *b_O = mat_vec_new(1), *b_fold = mat_vec_new(1);
    gsl_matrix_set(A, 0, 0, 0.25); gsl_matrix_set(A, 0, 1, 0.75);
    gsl_matrix_set(V0, 0, 0, 1); gsl_matrix_set(V0, 1, 0, 3);
    gsl_matrix_set(V1, 0, 0, 3); gsl_matrix_set(V1, 1, 0, 5);
    gsl_matrix_set(W_O, 0, 0, 1);
    gsl_vector_set(b_fold, 0, 2);
    double err = -1;
    ck_assert_int_eq(bias_fold_error(&err, O1, O0, A, V1, V0, W_O, b_O, b_fold), ATT_OK);
    ck_assert_double_eq(err, 0.0);
    ck_assert_double_eq(gsl_matrix_get(O1, 0, 0), 4.5);
    ck_assert_double_eq(bias_row_sum_defect(A), 0.0);
    gsl_matrix_set_all(A, 1.0);
    ck_assert_int_eq(bias_fold_error(&err, NULL, NULL, A, V1, V0, W_O, b_O, b_fold), ATT_OK);
    ck_assert_double_eq(err, 2.0);
    ck_assert_double_eq(bias_row_sum_defect(A), 1.0);
    mat_free(A); mat_free(V0); mat_free(V1); mat_free(W_O); mat_free(O1); mat_free(O0);
    mat_vec_free(b_O); mat_vec_free(b_fold);
}
END_TEST

START_TEST(test_head_draw_is_seeded)
{
    /* one seed, one head: the experiment's draws can be replayed */
    gsl_rng *r1 = gsl_rng_alloc(gsl_rng_mt19937), *r2 = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r1, 7); gsl_rng_set(r2, 7);
    bias_head a, b;
    ck_assert_int_eq(bias_head_alloc(&a, 4, 5, 2, 3), ATT_OK);
    ck_assert_int_eq(bias_head_alloc(&b, 4, 5, 2, 3), ATT_OK);
    ck_assert_int_eq(bias_head_draw(r1, &a, 1), ATT_OK);
    ck_assert_int_eq(bias_head_draw(r2, &b, 1), ATT_OK);
    ck_assert_double_eq(mat_max_abs_diff(a.with.O, b.with.O), 0.0);
    ck_assert_double_eq(mat_max_abs_diff(a.without.O, b.without.O), 0.0);
    bias_head_free(&a); bias_head_free(&b);
    bias_head_free(&a);                     /* freeing twice is harmless */
    gsl_rng_free(r1); gsl_rng_free(r2);
}
END_TEST

/* ---- the tables ---------------------------------------------------------------- */

static const char *bin_dir(void)
{
    const char *b = getenv("ATT_BIN_DIR");
    return b && *b ? b : "bin";
}

/* Every row of dir/name has the header's field count, and every field of a
 * numeric column (all but `text`, comma-separated names) parses as a number. */
static void check_csv(const char *dir, const char *name, const char *header, size_t min_rows,
                      const char *text)
{
    char path[512], line[8192], buf[8192];
    char *fields[128];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "r");
    ck_assert_msg(f != NULL, "%s was not written", path);
    ck_assert_msg(fgets(line, sizeof line, f) != NULL, "%s is empty", path);
    line[strcspn(line, "\n")] = '\0';
    ck_assert_msg(strcmp(line, header) == 0, "%s: header\n  %s\nexpected\n  %s", name, line,
                  header);
    char hbuf[8192];
    char *heads[128];
    int nh = csvline_split(header, heads, 128, hbuf, sizeof hbuf);
    size_t rows = 0;
    while (fgets(line, sizeof line, f)) {
        int n = csvline_split(line, fields, 128, buf, sizeof buf);
        ck_assert_msg(n == nh, "%s row %zu: %d fields, header has %d", name, rows + 1, n, nh);
        for (int k = 0; k < n; k++) {
            char pat[128];
            snprintf(pat, sizeof pat, ",%s,", heads[k]);
            char list[512];
            snprintf(list, sizeof list, ",%s,", text);
            if (strstr(list, pat)) continue;
            double x;
            ck_assert_msg(opts_parse_double(fields[k], &x, heads[k]) == ATT_OK,
                          "%s row %zu column %s: '%s' is not a number", name, rows + 1, heads[k],
                          fields[k]);
        }
        rows++;
    }
    fclose(f);
    ck_assert_msg(rows >= min_rows, "%s: %zu rows, expected at least %zu", name, rows, min_rows);
}

START_TEST(test_tables_parse)
{
    char dir[] = "/tmp/att_bias_XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    static const char *const runs[] = {"key_bias --draws 20 --T 4 --d 6 --dk 2 --dv 2",
                                       "query_bias --draws 30", "value_bias --draws 30",
                                       "worked_example --factor 2.5"};
    for (size_t r = 0; r < sizeof runs / sizeof runs[0]; r++) {
        char cmd[1024];
        snprintf(cmd, sizeof cmd, "OMP_NUM_THREADS=1 %s/%s --out %s --quiet >/dev/null 2>&1",
                 bin_dir(), runs[r], dir);
        int st = system(cmd);
        ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s exited %d", runs[r],
                      WEXITSTATUS(st));
    }
    // sweep.h's layouts: the point's columns, draws, then six columns per statistic
    static const char *const kb_stats[] = {"out",    "tol",    "ratio",  "grad_rel", "dbq",
                                           "dbk",    "fd",     "fd_b_Q", "fd_b_K",   "fd_b_V",
                                           "fd_W_Q", "fd_W_K", "fd_W_V"};
    char kb_head[2048] = "T,d,d_k,d_v,rope,draws", kb_draws[1024] = "T,d,d_k,d_v,rope,draw";
    for (size_t k = 0; k < sizeof kb_stats / sizeof *kb_stats; k++) {
        static const char *const six[] = {"mean", "lo", "hi", "min", "max", "n"};
        for (int m = 0; m < 6; m++)
            snprintf(kb_head + strlen(kb_head), sizeof kb_head - strlen(kb_head), ",%s_%s",
                     kb_stats[k], six[m]);
        snprintf(kb_draws + strlen(kb_draws), sizeof kb_draws - strlen(kb_draws), ",%s",
                 kb_stats[k]);
    }
    check_csv(dir, "key_bias.csv", kb_head, 2, "");
    check_csv(dir, "key_bias_draws.csv", kb_draws, 40, "");
    check_csv(dir, "key_bias_base.csv",
              "T,d,d_k,d_v,base,draws,ratio_mean,ratio_lo,ratio_hi,ratio_min,ratio_max,ratio_n", 4,
              "");
    check_csv(dir, "key_bias_shift.csv", "j,score_without,score_with,weight_without,weight_with", 4,
              "");
    static const char *const qb_stats[] = {"T_q",         "T_k",      "d",          "d_k",
                                           "self",        "b_sigma",  "row_spread", "shift_err",
                                           "zero_wq_err", "change_A", "pref_tv"};
    char qb_head[2048] = "draws", qb_draws[1024] = "draw";
    for (size_t k = 0; k < sizeof qb_stats / sizeof *qb_stats; k++) {
        static const char *const six[] = {"mean", "lo", "hi", "min", "max", "n"};
        for (int m = 0; m < 6; m++)
            snprintf(qb_head + strlen(qb_head), sizeof qb_head - strlen(qb_head), ",%s_%s",
                     qb_stats[k], six[m]);
        snprintf(qb_draws + strlen(qb_draws), sizeof qb_draws - strlen(qb_draws), ",%s",
                 qb_stats[k]);
    }
    check_csv(dir, "query_bias.csv", qb_head, 1, "");
    check_csv(dir, "query_bias_draws.csv", qb_draws, 30, "");
    check_csv(dir, "query_bias_pref.csv", "u,draws,tv_mean,tv_lo,tv_hi,tv_min,tv_max,tv_n", 5, "");
    check_csv(dir, "query_bias_example.csv", "i,j,query,key,score_shift,weight_zero_query", 36,
              "query,key");
    check_csv(dir, "value_bias_draws.csv",
              "draw,T_q,T_k,d,d_k,d_v,self,b_sigma,pass_units,fold_units,"
              "fold_err_vs_bias,control_err_vs_bias,control_max_row_sum_defect,control_pred_units",
              30, "");
    check_csv(dir, "value_bias_example.csv", "i,token,softmax_shift,row_sum", 5, "token");
    check_csv(dir, "worked_example_circuits.csv", "matrix,row,col,row_label,col_label,value", 40,
              "matrix,row_label,col_label");
    check_csv(dir, "worked_example_A.csv", "i,j,query,key,score,weight,closed_form", 9,
              "query,key");
    check_csv(dir, "worked_example_O.csv", "i,token,animal,det,closed_animal,closed_det", 3,
              "token");
    check_csv(dir, "worked_example_factor.csv", "factor,winner,other,winner_closed,other_closed",
              101, "");
    // the .meta lines the figures read
    char cmd[1024];
    snprintf(cmd, sizeof cmd,
             "grep -q '^shift_example: ' %s/key_bias.meta && grep -q '^factor: 2.5$' "
             "%s/worked_example.meta && grep -q '^example_pref_tv: ' %s/query_bias.meta",
             dir, dir, dir);
    ck_assert_msg(system(cmd) == 0, "a .meta line the figures read is missing");
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    ck_assert_int_eq(system(cmd), 0);
}
END_TEST

/* bias_vhead_draw (value_bias's head): O(b_V) - O(0) = 1 b_V^T for every row up
 * to rounding, 8 T_k eps (max|V| + max|b_V|), measured by bias_rows_from, which
 * also sees a planted defect of one entry exactly; sizes beyond the buffers are
 * refused. */
START_TEST(prop_value_head_passes_bias)
{
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    bias_vhead *h = bias_vhead_new(12, 10, 6, 5);
    ck_assert_ptr_nonnull(h);
    PROP_FOR(k, rng, "value head: b_V passes through to every output") {
        int self = (int)prop_size(rng, 0, 1);
        size_t T_q = prop_size(rng, 1, 12), T_k = self ? T_q : prop_size(rng, 1, 12);
        size_t d = prop_size(rng, 1, 10), dk = prop_size(rng, 1, 6), dv = prop_size(rng, 1, 5);
        PROP_ASSERT(bias_vhead_draw(rng, h, T_q, T_k, d, dk, dv, self, 2.0, 3.0) == ATT_OK, "%s",
                    att_last_error());
        gsl_matrix *D = mat_dup(h->s1.O);
        PROP_ASSERT(D != NULL, "no memory");
        gsl_matrix_sub(D, h->s0.O);
        double scale = mat_max_abs(h->s0.V) + mat_vec_max_abs(&h->b_V.vector);
        double err = bias_rows_from(D, &h->b_V.vector), tol = tol_eps(8, T_k, scale);
        PROP_ASSERT(err <= tol, "T_q %zu T_k %zu d_v %zu: max|O(b_V) - O(0) - 1 b_V^T| = %g > %g",
                    T_q, T_k, dv, err, tol);
        gsl_matrix_set(D, T_q - 1, dv - 1, gsl_vector_get(&h->b_V.vector, dv - 1) + 0.5);
        PROP_ASSERT(fabs(bias_rows_from(D, &h->b_V.vector) - 0.5) <= tol, "planted 0.5 seen as %g",
                    bias_rows_from(D, &h->b_V.vector));
        mat_free(D);
    }
    ck_assert_int_eq(bias_vhead_draw(rng, h, 13, 13, 10, 6, 5, 1, 1.0, 1.0), ATT_EUSAGE);
    ck_assert_int_eq(bias_vhead_draw(rng, h, 4, 5, 10, 6, 5, 1, 1.0, 1.0),
                     ATT_EUSAGE); /* self, T_q != T_k */
    bias_vhead_free(h);
    gsl_rng_free(rng);
}
END_TEST

PROP_MAIN("test_bias",
          {"unit", 0, {test_fold_error_by_hand, test_head_draw_is_seeded}},
          {"properties", 120, {prop_key_bias_no_gradient, prop_fd_check_agrees_and_catches,
                               prop_value_head_passes_bias}},
          {"tables", 120, {test_tables_parse}})
