/* workedtab.h - the worked example's matrices, printed and written.
 *
 * The buffers of the "the cat sat" head (worked.h) in one struct, and its
 * tables: every matrix in long form (worked_example.csv), the weights and
 * outputs beside their closed forms (worked_example_A.csv, _O.csv), the
 * temperature sweep (worked_example_factor.csv) and the circuits W_O, W_QK,
 * W_OV (worked_example_circuits.csv); with --verbose, every matrix printed
 * as a labelled table for a pencil check.
 */
#ifndef ATT_WORKEDTAB_H
#define ATT_WORKEDTAB_H

#include <stddef.h>
#include <gsl/gsl_matrix.h>
#include "head.h"

/* X (3, 4), W_Q, W_K, W_V (4, 2), W_O (2, 4), W_QK, W_OV (4, 4), the closed
 * forms A_cf (3, 3), O_cf (3, 2), and one head state (T 3, d 4, d_k = d_v = 2). */
typedef struct {
    gsl_matrix *X, *W_Q, *W_K, *W_V, *W_O, *W_QK, *W_OV, *A_cf, *O_cf;
    head_state st;
} workedtab_mats;
int workedtab_alloc(workedtab_mats *m);   /* all or nothing; the allocation's error */
void workedtab_free(workedtab_mats *m);

/* One row of the temperature sweep: a(sat, cat), a(sat, the) and their closed forms at c. */
typedef struct { double factor, winner, other, winner_closed, other_closed; } workedtab_factor_row;

/* Print (when verbose, factor c in the title) and write every table of the
 * example from m (the head run at c, its closed forms and circuits) and the
 * sweep's n rows, into dir. */
int workedtab_write(const char *dir, int verbose, double c, const workedtab_mats *m,
                    const workedtab_factor_row *sweep, size_t n);

#endif
