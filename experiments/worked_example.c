/* worked_example - "A worked example you can check by hand"
 *
 * The hand-made head on "the cat sat": a verb looks for its noun.
 *
 * Claim (worked_example): three tokens with four hand-made features
 * (determiner, noun, verb, animal) and weights written down directly
 * (d_k = d_v = 2, query factor c = 3) make a verb look for its noun and a noun
 * look for its determiner. A row with one score c and two scores 0 gives the
 * winner w = e^c/(e^c+2) = 0.909 and each other o = 1/(e^c+2) = 0.045, so
 * "sat" outputs (w, o) (its subject is an animal), "cat" outputs (o, w) (it
 * has a determiner), and "the", whose query is zero, the plain average of the
 * values, (1/3, 1/3). The factor c acts as a temperature.
 *
 * Measured: every matrix of the head (X, W_Q, W_K, W_V, Q, K, V, S, A, O)
 * computed by the library (head_forward), printed as labelled tables for a
 * pencil check; A and O against their closed forms (lib/claims/worked.h); the
 * winner's weight for c = 0, 0.1, ..., 10 against e^c/(e^c+2); the circuits
 * W_QK = W_Q W_K^T and W_OV = W_V W_O over the features, with the W_O that
 * writes (is-animal, is-determiner) back onto the animal and determiner
 * features (worked_output_map: the section gives no W_O).
 *
 * Writes into --out:
 *   worked_example.csv           every matrix, long form: matrix,row,col,row_label,col_label,value
 *   worked_example_A.csv         i,j,query,key,score,weight,closed_form (the heatmap)
 *   worked_example_O.csv         i,token,animal,det,closed_animal,closed_det
 *   worked_example_factor.csv    factor,winner,other,winner_closed,other_closed
 *   worked_example_circuits.csv  W_O, W_QK, W_OV in long form (as worked_example.csv)
 *   worked_example.meta, worked_example.verdicts.csv
 */
#include "prelude.h"
#include "qkov.h"
#include "worked.h"

enum { SWEEP_N = 101 };            /* c = 0, 0.1, ..., 10 */
static const double SWEEP_MAX = 10.0;
static double factor = 3.0;        /* --factor */

/* X (3, 4), W_Q, W_K, W_V (4, 2), W_O (2, 4), W_QK, W_OV (4, 4), the closed
 * forms A_cf (3, 3), O_cf (3, 2), and one head state (T 3, d 4, d_k = d_v = 2). */
typedef struct {
    gsl_matrix *X, *W_Q, *W_K, *W_V, *W_O, *W_QK, *W_OV, *A_cf, *O_cf;
    head_state st;
} mats;

static void mats_free(mats *m);

/* all or nothing; the allocation's error */
static int mats_alloc(mats *m)
{
    *m = (mats){0};
    m->X = mat_new(WORKED_T, WORKED_D);
    m->W_Q = mat_new(WORKED_D, WORKED_DK);
    m->W_K = mat_new(WORKED_D, WORKED_DK);
    m->W_V = mat_new(WORKED_D, WORKED_DV);
    m->W_O = mat_new(WORKED_DV, WORKED_D);
    m->W_QK = mat_new(WORKED_D, WORKED_D);
    m->W_OV = mat_new(WORKED_D, WORKED_D);
    m->A_cf = mat_new(WORKED_T, WORKED_T);
    m->O_cf = mat_new(WORKED_T, WORKED_DV);
    int ok = m->X && m->W_Q && m->W_K && m->W_V && m->W_O && m->W_QK && m->W_OV && m->A_cf
             && m->O_cf;
    int st = ATT_OK;
    if ((st = ok ? ATT_OK : att_alloc_status())) goto done;
    if ((st = head_state_alloc(&m->st, WORKED_T, WORKED_T, WORKED_D, WORKED_DK, WORKED_DV)))
        goto done;
done:
    if (st) mats_free(m);   /* all or nothing */
    return st;
}

static void mats_free(mats *m)
{
    head_state_free(&m->st);
    mat_free(m->X); mat_free(m->W_Q); mat_free(m->W_K); mat_free(m->W_V); mat_free(m->W_O);
    mat_free(m->W_QK); mat_free(m->W_OV); mat_free(m->A_cf); mat_free(m->O_cf);
    *m = (mats){0};
}

/* One row of the temperature sweep: a(sat, cat), a(sat, the) and their closed forms at c. */
typedef struct { double factor, winner, other, winner_closed, other_closed; } factor_row;


/* One labelled matrix of the example: its name, what it is, row and column labels. */
typedef struct {
    const char *name, *what;
    const gsl_matrix *M;
    const char *const *rows, *const *cols;
} labelled;

typedef struct {
    const char *matrix;
    size_t row, col;
    const char *row_label, *col_label;
    double value;
} entry_row;
typedef struct {
    size_t i, j;
    const char *query, *key;
    double score, weight, closed_form;
} weight_row;
typedef struct {
    size_t i;
    const char *token;
    double animal, det, closed_animal, closed_det;
} output_row;

static const table_col entry_cols[] = {
    COL(entry_row, matrix), COL(entry_row, row), COL(entry_row, col), COL(entry_row, row_label),
    COL(entry_row, col_label), COL(entry_row, value)};
static const table_col weight_cols[] = {
    COL(weight_row, i), COL(weight_row, j), COL(weight_row, query), COL(weight_row, key),
    COL(weight_row, score), COL(weight_row, weight), COL(weight_row, closed_form)};
static const table_col output_cols[] = {
    COL(output_row, i), COL(output_row, token), COL(output_row, animal), COL(output_row, det),
    COL(output_row, closed_animal), COL(output_row, closed_det)};
static const table_col factor_cols[] = {
    COL(factor_row, factor), COL(factor_row, winner), COL(factor_row, other),
    COL(factor_row, winner_closed), COL(factor_row, other_closed)};

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

/* The labelled matrices L[0 .. n-1], every entry a row, into `name`. */
static int write_entries(const char *dir, const char *name, const labelled *L, size_t n)
{
    csv_table t;
    int rc = TABLE_OPEN(&t, dir, name, entry_cols);
    if (rc) return rc;
    for (size_t k = 0; k < n; k++)
        for (size_t i = 0; i < L[k].M->size1; i++)
            for (size_t j = 0; j < L[k].M->size2; j++) {
                entry_row r = {L[k].name, i, j, L[k].rows[i], L[k].cols[j],
                               gsl_matrix_get(L[k].M, i, j)};
                table_row(&t, &r);
            }
    return table_commit(&t);
}

/* Print (when verbose, factor c in the title) and write every table of the
 * example from m (the head run at c, its closed forms and circuits) and the
 * sweep's n rows, into dir. */
static int write_tables(const char *dir, int verbose, double c, const mats *m,
                        const factor_row *sweep, size_t n)
{
    const head_state *st = &m->st;
    const labelled L[] = {
        {"X", "tokens x features", m->X, worked_tokens, worked_features},
        {"W_Q", "features x query columns (c = factor)", m->W_Q, worked_features,
         worked_qk_columns},
        {"W_K", "features x key columns", m->W_K, worked_features, worked_qk_columns},
        {"W_V", "features x value columns", m->W_V, worked_features, worked_v_columns},
        {"Q", "Q = X W_Q: what each token seeks", st->Q, worked_tokens, worked_qk_columns},
        {"K", "K = X W_K: what each token offers", st->K, worked_tokens, worked_qk_columns},
        {"V", "V = X W_V: what each token reports", st->V, worked_tokens, worked_v_columns},
        {"S", "S = Q K^T: queries (rows) x keys (columns)", st->S, worked_tokens, worked_tokens},
        {"A", "A = row softmax(S)", st->A, worked_tokens, worked_tokens},
        {"O", "O = A V", st->O, worked_tokens, worked_v_columns},
        {"A_closed", "A by hand: w = e^c/(e^c+2), o = 1/(e^c+2)", m->A_cf, worked_tokens,
         worked_tokens},
        {"O_closed", "O by hand", m->O_cf, worked_tokens, worked_v_columns},
    };
    const labelled C[] = {
        {"W_O", "value columns x features (chosen: writes each column back onto its feature)",
         m->W_O, worked_v_columns, worked_features},
        {"W_QK", "W_Q W_K^T: query feature (rows) x key feature (columns)", m->W_QK,
         worked_features, worked_features},
        {"W_OV", "W_V W_O: source feature (rows) x written feature (columns)", m->W_OV,
         worked_features, worked_features},
    };
    if (verbose) {
        printf("worked example \"the cat sat\", query factor c = %g\n", c);
        for (size_t k = 0; k < sizeof L / sizeof L[0]; k++) print_labelled(&L[k]);
        for (size_t k = 0; k < sizeof C / sizeof C[0]; k++) print_labelled(&C[k]);
        putchar('\n');
    }

    weight_row wr[WORKED_T * WORKED_T];
    output_row orow[WORKED_T];
    for (size_t i = 0; i < WORKED_T; i++) {
        for (size_t j = 0; j < WORKED_T; j++)
            wr[i * WORKED_T + j] = (weight_row){i, j, worked_tokens[i], worked_tokens[j],
                                                gsl_matrix_get(st->S, i, j),
                                                gsl_matrix_get(st->A, i, j),
                                                gsl_matrix_get(m->A_cf, i, j)};
        orow[i] = (output_row){i, worked_tokens[i],
                               gsl_matrix_get(st->O, i, 0), gsl_matrix_get(st->O, i, 1),
                               gsl_matrix_get(m->O_cf, i, 0), gsl_matrix_get(m->O_cf, i, 1)};
    }
    int rc;
    if ((rc = write_entries(dir, "worked_example.csv", L, sizeof L / sizeof L[0]))
        || (rc = TABLE_WRITE(dir, "worked_example_A.csv", weight_cols, wr, WORKED_T * WORKED_T))
        || (rc = TABLE_WRITE(dir, "worked_example_O.csv", output_cols, orow, WORKED_T))
        || (rc = TABLE_WRITE(dir, "worked_example_factor.csv", factor_cols, sweep, n)))
        return rc;
    return write_entries(dir, "worked_example_circuits.csv", C, sizeof C / sizeof C[0]);
}

/* Run the head with factor c into m->st; X (3, 4), W_Q, W_K, W_V (4, 2) are rebuilt. */
static int run_head(mats *m, double c)
{
    int rc = worked_build(m->X, m->W_Q, m->W_K, m->W_V, c);
    if (rc) return rc;
    head_params p = head_params_make(m->W_Q, m->W_K, m->W_V);
    return head_forward(&m->st, &p, m->X, m->X);
}

/* The head at c = 0 .. 10 (the temperature sweep), then at --factor c with its
 * closed form and circuits; the tables (write_tables), *sweep_err = the sweep's
 * largest |weight - closed form|. */
static int measure_head(experiment *e, mats *m, double c, double *sweep_err)
{
    factor_row sweep[SWEEP_N];
    int st = ATT_OK;
    // a(sat, cat) = w(c) = e^c/(e^c+2) and a(sat, the) = o(c) = 1/(e^c+2), c = 0 .. 10
    *sweep_err = 0.0;
    for (size_t k = 0; k < SWEEP_N; k++) {
        factor_row *r = &sweep[k];
        r->factor = SWEEP_MAX * (double)k / (double)(SWEEP_N - 1);
        if ((st = run_head(m, r->factor))) return st;
        worked_weights(r->factor, &r->winner_closed, &r->other_closed);
        r->winner = gsl_matrix_get(m->st.A, WORKED_SAT, WORKED_CAT);
        r->other = gsl_matrix_get(m->st.A, WORKED_SAT, WORKED_THE);
        double err = fmax(fabs(r->winner - r->winner_closed), fabs(r->other - r->other_closed));
        *sweep_err = fmax(*sweep_err, err);
    }
    // the head at the requested factor, its closed form and its circuits:
    //   W_QK = W_Q W_K^T (query feature x key feature), W_OV = W_V W_O (4 x 4)
    if ((st = run_head(m, c))) return st;
    if ((st = worked_closed(m->A_cf, m->O_cf, c))) return st;
    if ((st = worked_output_map(m->W_O))) return st;
    if ((st = qkov_qk(m->W_QK, m->W_Q, m->W_K))) return st;
    if ((st = qkov_ov(m->W_OV, m->W_V, m->W_O))) return st;
    return write_tables(e->o.out_dir, opts_verbose(&e->o), c, m, sweep, SWEEP_N);
}

static int run(experiment *e)
{
    const double c = factor;
    mats m = {0};
    double sweep_err;
    int st = ATT_OK;
    if ((st = mats_alloc(&m))) goto done;
    if ((st = measure_head(e, &m, c, &sweep_err))) goto done;
    const gsl_matrix *A = m.st.A, *O = m.st.O;
    experiment_meta(e, "factor: %.17g", c);

    // verdicts: the section's numbers (0.909, 0.045, 1/3) as rounded at c = 3;
    // A and O against the closed forms to rounding: softmax of scores of size
    // |c| loses about |c| eps relative, so tol = 8 T eps (1 + |c|)
    const int section = (c == 3.0);
    const double tol_c = tol_eps(8, WORKED_T, 1.0 + fabs(c));
    const double tol_sweep = tol_eps(8, WORKED_T, 1.0 + SWEEP_MAX);
    const double third = 1.0 / 3.0;
    struct { const char *macro, *what; double section_value, measured; } cited[] = {
        {"workedWinnerWeight", "winner's weight a(sat, cat): sat finds its noun", 0.909,
         gsl_matrix_get(A, WORKED_SAT, WORKED_CAT)},
        {"workedOtherWeight", "weight of a non-winner, a(sat, the)", 0.045,
         gsl_matrix_get(A, WORKED_SAT, WORKED_THE)},
        {"workedSatOutput", "output of sat, is-animal coordinate (sat = (w, o))", 0.909,
         gsl_matrix_get(O, WORKED_SAT, 0)},
        {"workedCatOutput", "output of cat, is-determiner coordinate (cat = (o, w))", 0.909,
         gsl_matrix_get(O, WORKED_CAT, 1)},
    };
    for (size_t k = 0; k < sizeof cited / sizeof cited[0]; k++) {
        measure got = verdict_measure_exact(cited[k].measured, 1);
        double v = cited[k].section_value;
        // the section's 3-digit value: half a unit of its last digit either side
        if (section)
            verdict_claim(e, cited[k].macro, v, got, verdict_rule_between(v - 5e-4, v + 5e-4),
                      "%s at c = 3, rounds to the section's value", cited[k].what);
        else
            verdict_reported(e, cited[k].macro, NAN, got,
                         "%s at c = %g (the section's values are for c = 3)", cited[k].what, c);
        if (k == 0) experiment_headline(e);   // the winner's weight carries the claim
    }
    verdict_identity(e, "workedTheOutput", 0.0,
                 verdict_measure_exact(fmax(fabs(gsl_matrix_get(O, WORKED_THE, 0) - third),
                                            fabs(gsl_matrix_get(O, WORKED_THE, 1) - third)), 2),
                 verdict_rule_at_most(tol_c), "output of the: zero query, so the plain average of "
                 "the values, (1/3, 1/3); max |o_the - 1/3| over both coordinates");
    verdict_identity(e, "workedAErr", 0.0,
                 verdict_measure_exact(mat_max_abs_diff(A, m.A_cf), WORKED_T * WORKED_T),
                 verdict_rule_at_most(tol_c), "max |A - closed form| over the 9 weights at c = %g "
                 "(tolerance 8 T eps (1 + |c|))", c);
    verdict_identity(e, "workedOErr", 0.0,
                 verdict_measure_exact(mat_max_abs_diff(O, m.O_cf), WORKED_T * WORKED_DV),
                 verdict_rule_at_most(tol_c),
                 "max |O - closed form| over the 6 outputs at c = %g", c);
    verdict_identity(e, "workedFactorErr", 0.0, verdict_measure_exact(sweep_err, SWEEP_N),
                 verdict_rule_at_most(tol_sweep),
                 "max |weight - closed form| over c = 0, 0.1, ..., 10");
    // the plain summary: the numbers the section prints, with its values beside them
    double w, o;
    worked_weights(c, &w, &o);
    experiment_summary(
        e, "a(sat, cat) = %.6f and a(cat, the) = %.6f, e^c/(e^c + 2) = %.6f at c = %g%s",
        gsl_matrix_get(A, WORKED_SAT, WORKED_CAT), gsl_matrix_get(A, WORKED_CAT, WORKED_THE), w, c,
        section ? " (the section: 0.909)" : "");
    experiment_summary(e,
                       "the others get %.6f, 1/(e^c + 2) = %.6f%s; \"the\" (a zero query) spreads "
                       "%.4f, %.4f, %.4f",
                       gsl_matrix_get(A, WORKED_SAT, WORKED_THE), o,
                       section ? " (the section: 0.045)" : "", gsl_matrix_get(A, WORKED_THE, 0),
                       gsl_matrix_get(A, WORKED_THE, 1), gsl_matrix_get(A, WORKED_THE, 2));
    experiment_summary(
        e,
        "sat carries (%.3f, %.3f): its subject is an animal; cat (%.3f, %.3f): it has a "
        "determiner (value = (is an animal, is a determiner))",
        gsl_matrix_get(O, WORKED_SAT, 0), gsl_matrix_get(O, WORKED_SAT, 1),
        gsl_matrix_get(O, WORKED_CAT, 0), gsl_matrix_get(O, WORKED_CAT, 1));
done:
    mats_free(&m);
    return st;
}

int main(int argc, char **argv)
{
    static const opt_spec extra[] = {
        {"factor", OPT_DOUBLE, &factor, "C",
         "query factor, the sharpness of the lookup (default 3, as in the section)"},
        {NULL, 0, NULL, NULL, NULL}};
    static const experiment_def def = {
        "worked_example", "the hand-made head on \"the cat sat\": a verb looks for its noun",
        0, 0, 1, extra, run};
    return experiment_main(&def, argc, argv);
}
