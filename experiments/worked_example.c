/* worked_example - the hand-made head on "the cat sat", checked by hand.
 *
 * Claim (worked_example): three tokens with four hand-made features
 * (determiner, noun, verb, animal) and weights written down directly
 * (d_k = d_v = 2, query factor 3) make a verb look for its noun and a noun
 * look for its determiner. A row with one score of 3 and two of 0 gives the
 * winner e^3/(e^3+2) = 0.909 and each of the others 1/(e^3+2) = 0.045, so
 * "sat" outputs (0.909, 0.045) (its subject is an animal), "cat" outputs
 * (0.045, 0.909) (it has a determiner), and "the", whose query is zero, gets
 * the plain average of the values, (1/3, 1/3). The query factor acts as a
 * temperature: c = 0 spreads the weight evenly, large c picks the winner.
 *
 * Measured: every matrix of the head (X, W_Q, W_K, W_V, Q, K, V, S, A, O)
 * computed by the library (head_forward), printed as labelled tables so a
 * reader can check them with a pencil; A and O against their closed forms
 * (lib/circuits.h) to 1e-12; the winner's weight for query factors
 * c = 0, 0.1, ..., 10 against e^c/(e^c+2).
 *
 * Writes into --out:
 *   worked_example.csv         every matrix, long form: matrix,row,col,row_label,col_label,value
 *   worked_example_A.csv       i,j,query,key,score,weight,closed_form (the heatmap)
 *   worked_example_O.csv       i,token,animal,det,closed_animal,closed_det
 *   worked_example_factor.csv  factor,winner,other,winner_closed,other_closed
 *   worked_example.meta, worked_example.verdicts.csv
 */
#include "circuits.h"
#include "head.h"
#include "mat.h"
#include "opts.h"
#include "output.h"
#include "status.h"

#include <math.h>
#include <stdio.h>

#define ID "worked_example"

enum { SWEEP_N = 101 };            /* c = 0, 0.1, ..., 10 */
static const double SWEEP_MAX = 10.0;
static const double TOL = 1e-12;   /* the catalogue's tolerance for A and O */

/* One labelled matrix of the example: its name, row and column labels. */
typedef struct {
    const char *name, *what;
    const gsl_matrix *M;
    const char *const *rows, *const *cols;
} labelled;

/* Print M (rows, cols) as an aligned table with its labels. */
static void print_labelled(const labelled *L)
{
    printf("\n%s (%zu x %zu): %s\n%8s", L->name, L->M->size1, L->M->size2, L->what, "");
    for (size_t j = 0; j < L->M->size2; j++) printf(" %9s", L->cols[j]);
    putchar('\n');
    for (size_t i = 0; i < L->M->size1; i++) {
        printf("%8s", L->rows[i]);
        for (size_t j = 0; j < L->M->size2; j++) printf(" %9.4f", gsl_matrix_get(L->M, i, j));
        putchar('\n');
    }
}

/* worked_example.csv: every matrix in long form */
static int write_matrices(const opts *o, const labelled *L, size_t n)
{
    afile af;
    int st = afile_open(&af, o->out_dir, ID ".csv");
    if (st) return st;
    fprintf(af.f, "matrix,row,col,row_label,col_label,value\n");
    for (size_t k = 0; k < n; k++)
        for (size_t i = 0; i < L[k].M->size1; i++)
            for (size_t j = 0; j < L[k].M->size2; j++) {
                fprintf(af.f, "%s,%zu,%zu,%s,%s,", L[k].name, i, j, L[k].rows[i], L[k].cols[j]);
                csv_num(af.f, gsl_matrix_get(L[k].M, i, j));
                fputc('\n', af.f);
            }
    return afile_commit(&af);
}

/* worked_example_A.csv and worked_example_O.csv: the computed and closed forms */
static int write_A_O(const opts *o, const head_state *st, const gsl_matrix *A_cf,
                     const gsl_matrix *O_cf)
{
    afile af;
    int rc = afile_open(&af, o->out_dir, ID "_A.csv");
    if (rc) return rc;
    fprintf(af.f, "i,j,query,key,score,weight,closed_form\n");
    for (size_t i = 0; i < WORKED_T; i++)
        for (size_t j = 0; j < WORKED_T; j++) {
            fprintf(af.f, "%zu,%zu,%s,%s,", i, j, worked_tokens[i], worked_tokens[j]);
            csv_num(af.f, gsl_matrix_get(st->S, i, j)); fputc(',', af.f);
            csv_num(af.f, gsl_matrix_get(st->A, i, j)); fputc(',', af.f);
            csv_num(af.f, gsl_matrix_get(A_cf, i, j)); fputc('\n', af.f);
        }
    if ((rc = afile_commit(&af))) return rc;

    if ((rc = afile_open(&af, o->out_dir, ID "_O.csv"))) return rc;
    fprintf(af.f, "i,token,animal,det,closed_animal,closed_det\n");
    for (size_t i = 0; i < WORKED_T; i++) {
        fprintf(af.f, "%zu,%s", i, worked_tokens[i]);
        for (size_t j = 0; j < WORKED_DV; j++) { fputc(',', af.f); csv_num(af.f, gsl_matrix_get(st->O, i, j)); }
        for (size_t j = 0; j < WORKED_DV; j++) { fputc(',', af.f); csv_num(af.f, gsl_matrix_get(O_cf, i, j)); }
        fputc('\n', af.f);
    }
    return afile_commit(&af);
}

/* Run the head with factor c into st (X and the weights are rebuilt). */
static int run_head(head_state *st, gsl_matrix *X, gsl_matrix *W_Q, gsl_matrix *W_K,
                    gsl_matrix *W_V, double c)
{
    int rc = circuit_worked_build(X, W_Q, W_K, W_V, c);
    if (rc) return rc;
    head_params p = head_params_make(W_Q, W_K, W_V);
    return head_forward(st, &p, X, X);
}

/* The winner's weight for c = 0 .. 10: computed vs e^c/(e^c+2). Writes the
 * CSV and returns the largest error of winner and other weights in *err. */
static int factor_sweep(const opts *o, head_state *st, gsl_matrix *X, gsl_matrix *W_Q,
                        gsl_matrix *W_K, gsl_matrix *W_V, double *err)
{
    afile af;
    int rc = afile_open(&af, o->out_dir, ID "_factor.csv");
    if (rc) return rc;
    fprintf(af.f, "factor,winner,other,winner_closed,other_closed\n");
    *err = 0.0;
    for (size_t k = 0; k < SWEEP_N && !rc; k++) {
        double c = SWEEP_MAX * (double)k / (double)(SWEEP_N - 1), w, oth;
        if ((rc = run_head(st, X, W_Q, W_K, W_V, c))) break;
        circuit_worked_weights(c, &w, &oth);
        // the winner of "sat" is "cat", one of its others is "the"
        double a_w = gsl_matrix_get(st->A, WORKED_SAT, WORKED_CAT);
        double a_o = gsl_matrix_get(st->A, WORKED_SAT, WORKED_THE);
        *err = fmax(*err, fmax(fabs(a_w - w), fabs(a_o - oth)));
        const double row[] = { c, a_w, a_o, w, oth };
        for (size_t m = 0; m < 5; m++) {
            if (m) fputc(',', af.f);
            csv_num(af.f, row[m]);
        }
        fputc('\n', af.f);
    }
    if (rc) { afile_abort(&af); return rc; }
    return afile_commit(&af);
}

/* max |M_ij - want| over the listed (i, j) entries */
static double max_err_at(const gsl_matrix *M, const size_t (*ij)[2], size_t n, double want)
{
    double e = 0.0;
    for (size_t k = 0; k < n; k++) e = fmax(e, fabs(gsl_matrix_get(M, ij[k][0], ij[k][1]) - want));
    return e;
}

static int run(const opts *o, double c)
{
    gsl_matrix *X = mat_new(WORKED_T, WORKED_D), *W_Q = mat_new(WORKED_D, WORKED_DK);
    gsl_matrix *W_K = mat_new(WORKED_D, WORKED_DK), *W_V = mat_new(WORKED_D, WORKED_DV);
    gsl_matrix *A_cf = mat_new(WORKED_T, WORKED_T), *O_cf = mat_new(WORKED_T, WORKED_DV);
    head_state st = { 0 };
    verdict_list vl;
    verdicts_init(&vl);
    int rc = ATT_OK;
    if (!X || !W_Q || !W_K || !W_V || !A_cf || !O_cf) { rc = ATT_ERUNTIME; goto done; }
    if ((rc = head_state_alloc(&st, WORKED_T, WORKED_T, WORKED_D, WORKED_DK, WORKED_DV))) goto done;

    // the factor sweep first; then the head at the requested factor, kept in st
    double sweep_err = 0.0;
    if ((rc = factor_sweep(o, &st, X, W_Q, W_K, W_V, &sweep_err))) goto done;
    if ((rc = run_head(&st, X, W_Q, W_K, W_V, c))) goto done;
    if ((rc = circuit_worked_closed(A_cf, O_cf, c))) goto done;

    const labelled L[] = {
        { "X", "tokens x features", X, worked_tokens, worked_features },
        { "W_Q", "features x query columns (c = factor)", W_Q, worked_features, worked_qk_columns },
        { "W_K", "features x key columns", W_K, worked_features, worked_qk_columns },
        { "W_V", "features x value columns", W_V, worked_features, worked_v_columns },
        { "Q", "Q = X W_Q: what each token seeks", st.Q, worked_tokens, worked_qk_columns },
        { "K", "K = X W_K: what each token offers", st.K, worked_tokens, worked_qk_columns },
        { "V", "V = X W_V: what each token reports", st.V, worked_tokens, worked_v_columns },
        { "S", "S = Q K^T: queries (rows) x keys (columns)", st.S, worked_tokens, worked_tokens },
        { "A", "A = row softmax(S)", st.A, worked_tokens, worked_tokens },
        { "O", "O = A V", st.O, worked_tokens, worked_v_columns },
        { "A_closed", "A by hand: w = e^c/(e^c+2), o = 1/(e^c+2)", A_cf, worked_tokens, worked_tokens },
        { "O_closed", "O by hand", O_cf, worked_tokens, worked_v_columns },
    };
    const size_t nL = sizeof L / sizeof L[0];
    if (opts_verbose(o)) {
        double w, oth;
        circuit_worked_weights(c, &w, &oth);
        printf("worked example \"the cat sat\", query factor c = %g\n", c);
        printf("winner e^c/(e^c+2) = %.12f, other 1/(e^c+2) = %.12f\n", w, oth);
        for (size_t k = 0; k < nL; k++) print_labelled(&L[k]);
        putchar('\n');
    }
    if ((rc = write_matrices(o, L, nL)) || (rc = write_A_O(o, &st, A_cf, O_cf))) goto done;
    if ((rc = output_meta(o, NULL))) goto done;

    // verdicts: the section's rounded numbers apply to its factor c = 3 only
    int sect = (c == 3.0);
    double w, oth;
    circuit_worked_weights(c, &w, &oth);
    const size_t win[2][2] = { { WORKED_CAT, WORKED_THE }, { WORKED_SAT, WORKED_CAT } };
    const size_t los[4][2] = { { WORKED_CAT, WORKED_CAT }, { WORKED_CAT, WORKED_SAT },
                               { WORKED_SAT, WORKED_THE }, { WORKED_SAT, WORKED_SAT } };
    const size_t the_o[2][2] = { { WORKED_THE, 0 }, { WORKED_THE, 1 } };
    double e_win = max_err_at(st.A, win, 2, w), e_los = max_err_at(st.A, los, 4, oth);
    double e_the = max_err_at(st.O, the_o, 2, 1.0 / 3.0);
    double e_sat = fmax(fabs(gsl_matrix_get(st.O, WORKED_SAT, 0) - w),
                        fabs(gsl_matrix_get(st.O, WORKED_SAT, 1) - oth));
    double e_cat = fmax(fabs(gsl_matrix_get(st.O, WORKED_CAT, 0) - oth),
                        fabs(gsl_matrix_get(st.O, WORKED_CAT, 1) - w));
    double e_A = mat_max_abs_diff(st.A, A_cf), e_O = mat_max_abs_diff(st.O, O_cf);
    double m_win = gsl_matrix_get(st.A, WORKED_SAT, WORKED_CAT);
    double m_los = gsl_matrix_get(st.A, WORKED_SAT, WORKED_THE);
    double m_sat = gsl_matrix_get(st.O, WORKED_SAT, 0), m_cat = gsl_matrix_get(st.O, WORKED_CAT, 1);
    // "rounds to the section's value": within half a unit of its last digit
    int r_win = !sect || fabs(m_win - 0.909) < 5e-4, r_los = !sect || fabs(m_los - 0.045) < 5e-4;
    int r_sat = !sect || fabs(m_sat - 0.909) < 5e-4, r_cat = !sect || fabs(m_cat - 0.909) < 5e-4;
    if ((rc = verdict_exact(&vl, "workedWinnerWeight",
                            "winner's weight a(sat, cat) (and a(cat, the)) vs e^c/(e^c+2)",
                            sect ? 0.909 : NAN, m_win, TOL, e_win <= TOL && r_win,
                            "= e^c/(e^c+2) within 1e-12; rounds to 0.909 at c = 3"))
        || (rc = verdict_exact(&vl, "workedOtherWeight",
                               "weight of a non-winner a(sat, the) (and the 3 others) vs 1/(e^c+2)",
                               sect ? 0.045 : NAN, m_los, TOL, e_los <= TOL && r_los,
                               "= 1/(e^c+2) within 1e-12; rounds to 0.045 at c = 3"))
        || (rc = verdict_exact(&vl, "workedSatOutput", "output of sat, animal coordinate (sat = (w, o))",
                               sect ? 0.909 : NAN, m_sat, TOL, e_sat <= TOL && r_sat,
                               "o_sat = (w, o) within 1e-12; rounds to 0.909 at c = 3"))
        || (rc = verdict_exact(&vl, "workedCatOutput", "output of cat, determiner coordinate (cat = (o, w))",
                               sect ? 0.909 : NAN, m_cat, TOL, e_cat <= TOL && r_cat,
                               "o_cat = (o, w) within 1e-12; rounds to 0.909 at c = 3"))
        || (rc = verdict_exact(&vl, "workedTheOutput",
                               "output of the (zero query: plain average of the values), each coordinate",
                               1.0 / 3.0, gsl_matrix_get(st.O, WORKED_THE, 0), TOL, e_the <= TOL,
                               "o_the = (1/3, 1/3) within 1e-12"))
        || (rc = verdict_exact(&vl, "workedAErr", "max |A - closed form| over all 9 weights",
                               0.0, e_A, TOL, e_A <= TOL, "<= 1e-12"))
        || (rc = verdict_exact(&vl, "workedOErr", "max |O - closed form| over all 6 outputs",
                               0.0, e_O, TOL, e_O <= TOL, "<= 1e-12"))
        || (rc = verdict_exact(&vl, "workedFactorErr",
                               "max |weight - closed form| over factors c = 0, 0.1, ..., 10",
                               0.0, sweep_err, TOL, sweep_err <= TOL, "<= 1e-12")))
        goto done;
    if ((rc = legacy_verdicts_write(&vl, o))) goto done;
    rc = verdicts_status(&vl);

done:
    verdicts_free(&vl);
    head_state_free(&st);
    mat_free(X); mat_free(W_Q); mat_free(W_K); mat_free(W_V); mat_free(A_cf); mat_free(O_cf);
    return rc;
}

int main(int argc, char **argv)
{
    att_init();
    double c = 3.0;
    const opt_spec extra[] = {
        { "factor", OPT_DOUBLE, &c, "C", "query factor, the sharpness of the lookup (default 3, as in the section)" },
        { NULL, 0, NULL, NULL, NULL }
    };
    const opts_info info = { ID, "the hand-made head on \"the cat sat\": every matrix, checked by hand",
                             0, 0, 1, extra };
    opts o;
    int st = opts_parse(&o, &info, argc, argv);
    if (st) return opts_exit(&o, st);
    return opts_exit(&o, run(&o, c));
}
