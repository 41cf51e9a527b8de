/* workedtab.c - the worked example's matrices, printed and written (workedtab.h). */
#include "workedtab.h"
#include "mat.h"
#include "att.h"
#include "table.h"
#include "worked.h"

#include <stdio.h>

int workedtab_alloc(workedtab_mats *m)
{
    *m = (workedtab_mats){0};
    m->X = mat_new(WORKED_T, WORKED_D), m->W_Q = mat_new(WORKED_D, WORKED_DK);
    m->W_K = mat_new(WORKED_D, WORKED_DK), m->W_V = mat_new(WORKED_D, WORKED_DV);
    m->W_O = mat_new(WORKED_DV, WORKED_D), m->W_QK = mat_new(WORKED_D, WORKED_D);
    m->W_OV = mat_new(WORKED_D, WORKED_D);
    m->A_cf = mat_new(WORKED_T, WORKED_T), m->O_cf = mat_new(WORKED_T, WORKED_DV);
    int rc = ATT_OK;
    if (!m->X || !m->W_Q || !m->W_K || !m->W_V || !m->W_O || !m->W_QK || !m->W_OV || !m->A_cf || !m->O_cf
        || (rc = head_state_alloc(&m->st, WORKED_T, WORKED_T, WORKED_D, WORKED_DK, WORKED_DV))) {
        rc = rc ? rc : att_alloc_status();
        workedtab_free(m);
    }
    return rc;
}

void workedtab_free(workedtab_mats *m)
{
    head_state_free(&m->st);
    mat_free(m->X); mat_free(m->W_Q); mat_free(m->W_K); mat_free(m->W_V); mat_free(m->W_O);
    mat_free(m->W_QK); mat_free(m->W_OV); mat_free(m->A_cf); mat_free(m->O_cf);
    *m = (workedtab_mats){0};
}

/* One labelled matrix of the example: its name, what it is, row and column labels. */
typedef struct {
    const char *name, *what;
    const gsl_matrix *M;
    const char *const *rows, *const *cols;
} labelled;

typedef struct { const char *matrix; size_t row, col; const char *row_label, *col_label; double value; } entry_row;
typedef struct { size_t i, j; const char *query, *key; double score, weight, closed_form; } weight_row;
typedef struct { size_t i; const char *token; double animal, det, closed_animal, closed_det; } output_row;

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
    COL(workedtab_factor_row, factor), COL(workedtab_factor_row, winner), COL(workedtab_factor_row, other),
    COL(workedtab_factor_row, winner_closed), COL(workedtab_factor_row, other_closed)};

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
                entry_row r = {L[k].name, i, j, L[k].rows[i], L[k].cols[j], gsl_matrix_get(L[k].M, i, j)};
                table_row(&t, &r);
            }
    return table_commit(&t);
}

int workedtab_write(const char *dir, int verbose, double c, const workedtab_mats *m,
                    const workedtab_factor_row *sweep, size_t n)
{
    const head_state *st = &m->st;
    const labelled L[] = {
        {"X", "tokens x features", m->X, worked_tokens, worked_features},
        {"W_Q", "features x query columns (c = factor)", m->W_Q, worked_features, worked_qk_columns},
        {"W_K", "features x key columns", m->W_K, worked_features, worked_qk_columns},
        {"W_V", "features x value columns", m->W_V, worked_features, worked_v_columns},
        {"Q", "Q = X W_Q: what each token seeks", st->Q, worked_tokens, worked_qk_columns},
        {"K", "K = X W_K: what each token offers", st->K, worked_tokens, worked_qk_columns},
        {"V", "V = X W_V: what each token reports", st->V, worked_tokens, worked_v_columns},
        {"S", "S = Q K^T: queries (rows) x keys (columns)", st->S, worked_tokens, worked_tokens},
        {"A", "A = row softmax(S)", st->A, worked_tokens, worked_tokens},
        {"O", "O = A V", st->O, worked_tokens, worked_v_columns},
        {"A_closed", "A by hand: w = e^c/(e^c+2), o = 1/(e^c+2)", m->A_cf, worked_tokens, worked_tokens},
        {"O_closed", "O by hand", m->O_cf, worked_tokens, worked_v_columns},
    };
    const labelled C[] = {
        {"W_O", "value columns x features (chosen: writes each column back onto its feature)", m->W_O,
         worked_v_columns, worked_features},
        {"W_QK", "W_Q W_K^T: query feature (rows) x key feature (columns)", m->W_QK, worked_features, worked_features},
        {"W_OV", "W_V W_O: source feature (rows) x written feature (columns)", m->W_OV, worked_features, worked_features},
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
                gsl_matrix_get(st->S, i, j), gsl_matrix_get(st->A, i, j), gsl_matrix_get(m->A_cf, i, j)};
        orow[i] = (output_row){i, worked_tokens[i], gsl_matrix_get(st->O, i, 0), gsl_matrix_get(st->O, i, 1),
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
