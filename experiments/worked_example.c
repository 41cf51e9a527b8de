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
#include "workedtab.h"

enum { SWEEP_N = 101 };            /* c = 0, 0.1, ..., 10 */
static const double SWEEP_MAX = 10.0;
static double factor = 3.0;        /* --factor */

/* Run the head with factor c into m->st; X (3, 4), W_Q, W_K, W_V (4, 2) are rebuilt. */
static int run_head(workedtab_mats *m, double c)
{
    int rc = worked_build(m->X, m->W_Q, m->W_K, m->W_V, c);
    if (rc) return rc;
    head_params p = head_params_make(m->W_Q, m->W_K, m->W_V);
    return head_forward(&m->st, &p, m->X, m->X);
}

/* The head at c = 0 .. 10 (the temperature sweep), then at --factor c with its
 * closed form and circuits; the tables (workedtab.h), *sweep_err = the sweep's
 * largest |weight - closed form|. */
static int measure_head(experiment *e, workedtab_mats *m, double c, double *sweep_err)
{
    workedtab_factor_row sweep[SWEEP_N];
    int rc = ATT_OK;
    // a(sat, cat) = w(c) = e^c/(e^c+2) and a(sat, the) = o(c) = 1/(e^c+2), c = 0 .. 10
    *sweep_err = 0.0;
    for (size_t k = 0; k < SWEEP_N && !rc; k++) {
        workedtab_factor_row *r = &sweep[k];
        r->factor = SWEEP_MAX * (double)k / (double)(SWEEP_N - 1);
        if ((rc = run_head(m, r->factor))) break;
        worked_weights(r->factor, &r->winner_closed, &r->other_closed);
        r->winner = gsl_matrix_get(m->st.A, WORKED_SAT, WORKED_CAT);
        r->other = gsl_matrix_get(m->st.A, WORKED_SAT, WORKED_THE);
        *sweep_err = fmax(*sweep_err, fmax(fabs(r->winner - r->winner_closed), fabs(r->other - r->other_closed)));
    }
    // the head at the requested factor, its closed form and its circuits:
    //   W_QK = W_Q W_K^T (query feature x key feature), W_OV = W_V W_O (4 x 4)
    if (rc || (rc = run_head(m, c)) || (rc = worked_closed(m->A_cf, m->O_cf, c))
        || (rc = worked_output_map(m->W_O)) || (rc = qkov_qk(m->W_QK, m->W_Q, m->W_K))
        || (rc = qkov_ov(m->W_OV, m->W_V, m->W_O)))
        return rc;
    return workedtab_write(e->o.out_dir, opts_verbose(&e->o), c, m, sweep, SWEEP_N);
}

static int run(experiment *e)
{
    const double c = factor;
    workedtab_mats m;
    double sweep_err;
    int rc = workedtab_alloc(&m);
    if (!rc) rc = measure_head(e, &m, c, &sweep_err);
    if (rc) {
        workedtab_free(&m);
        return rc;
    }
    const gsl_matrix *A = m.st.A, *O = m.st.O;
    exp_meta(e, "factor: %.17g", c);

    // verdicts: the section's numbers (0.909, 0.045, 1/3) as rounded at c = 3;
    // A and O against the closed forms to rounding: softmax of scores of size
    // |c| loses about |c| eps relative, so tol = 8 T eps (1 + |c|)
    const int section = (c == 3.0);
    const double tol_c = tol_eps(8, WORKED_T, 1.0 + fabs(c)), tol_sweep = tol_eps(8, WORKED_T, 1.0 + SWEEP_MAX);
    const double third = 1.0 / 3.0;
    struct { const char *macro, *what; double section_value, measured; } cited[] = {
        {"workedWinnerWeight", "winner's weight a(sat, cat): sat finds its noun", 0.909,
         gsl_matrix_get(A, WORKED_SAT, WORKED_CAT)},
        {"workedOtherWeight", "weight of a non-winner, a(sat, the)", 0.045, gsl_matrix_get(A, WORKED_SAT, WORKED_THE)},
        {"workedSatOutput", "output of sat, is-animal coordinate (sat = (w, o))", 0.909,
         gsl_matrix_get(O, WORKED_SAT, 0)},
        {"workedCatOutput", "output of cat, is-determiner coordinate (cat = (o, w))", 0.909,
         gsl_matrix_get(O, WORKED_CAT, 1)},
    };
    for (size_t k = 0; k < sizeof cited / sizeof cited[0]; k++) {
        // the section's 3-digit value: half a unit of its last digit either side
        if (section)
            exp_claim(e, cited[k].macro, cited[k].section_value, verdict_measure_exact(cited[k].measured, 1),
                      verdict_rule_between(cited[k].section_value - 5e-4, cited[k].section_value + 5e-4),
                      "%s at c = 3, rounds to the section's value", cited[k].what);
        else
            exp_reported(e, cited[k].macro, NAN, verdict_measure_exact(cited[k].measured, 1),
                         "%s at c = %g (the section's values are for c = 3)", cited[k].what, c);
        if (k == 0) exp_headline(e);   // the winner's weight carries the claim
    }
    exp_identity(e, "workedTheOutput", 0.0,
                 verdict_measure_exact(fmax(fabs(gsl_matrix_get(O, WORKED_THE, 0) - third),
                                            fabs(gsl_matrix_get(O, WORKED_THE, 1) - third)), 2),
                 verdict_rule_at_most(tol_c), "output of the: zero query, so the plain average of the "
                 "values, (1/3, 1/3); max |o_the - 1/3| over both coordinates");
    exp_identity(e, "workedAErr", 0.0, verdict_measure_exact(mat_max_abs_diff(A, m.A_cf), WORKED_T * WORKED_T),
                 verdict_rule_at_most(tol_c), "max |A - closed form| over the 9 weights at c = %g "
                 "(tolerance 8 T eps (1 + |c|))", c);
    exp_identity(e, "workedOErr", 0.0, verdict_measure_exact(mat_max_abs_diff(O, m.O_cf), WORKED_T * WORKED_DV),
                 verdict_rule_at_most(tol_c), "max |O - closed form| over the 6 outputs at c = %g", c);
    exp_identity(e, "workedFactorErr", 0.0, verdict_measure_exact(sweep_err, SWEEP_N),
                 verdict_rule_at_most(tol_sweep), "max |weight - closed form| over c = 0, 0.1, ..., 10");
    // the plain summary: the numbers the section prints, with its values beside them
    double w, o;
    worked_weights(c, &w, &o);
    exp_summary(e, "a(sat, cat) = %.6f and a(cat, the) = %.6f, e^c/(e^c + 2) = %.6f at c = %g%s",
                gsl_matrix_get(A, WORKED_SAT, WORKED_CAT), gsl_matrix_get(A, WORKED_CAT, WORKED_THE),
                w, c, section ? " (the section: 0.909)" : "");
    exp_summary(e, "the others get %.6f, 1/(e^c + 2) = %.6f%s; \"the\" (a zero query) spreads "
                "%.4f, %.4f, %.4f", gsl_matrix_get(A, WORKED_SAT, WORKED_THE), o,
                section ? " (the section: 0.045)" : "", gsl_matrix_get(A, WORKED_THE, 0),
                gsl_matrix_get(A, WORKED_THE, 1), gsl_matrix_get(A, WORKED_THE, 2));
    exp_summary(e, "sat carries (%.3f, %.3f): its subject is an animal; cat (%.3f, %.3f): it has a "
                "determiner (value = (is an animal, is a determiner))",
                gsl_matrix_get(O, WORKED_SAT, 0), gsl_matrix_get(O, WORKED_SAT, 1),
                gsl_matrix_get(O, WORKED_CAT, 0), gsl_matrix_get(O, WORKED_CAT, 1));
    workedtab_free(&m);
    return ATT_OK;
}

int main(int argc, char **argv)
{
    static const opt_spec extra[] = {
        {"factor", OPT_DOUBLE, &factor, "C", "query factor, the sharpness of the lookup (default 3, as in the section)"},
        {NULL, 0, NULL, NULL, NULL}};
    static const experiment_def def = {"worked_example", "the hand-made head on \"the cat sat\": a verb looks for its noun",
                                       0, 0, 1, extra, run};
    return exp_main(&def, argc, argv);
}
