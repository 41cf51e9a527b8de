/* prevlearn.c - the learned_previous_token sweep's plumbing (prevlearn.h). */
#include "prevlearn.h"
#include "rng.h"
#include "att.h"
#include "table.h"
#include "tiedhead.h"

#include <stdlib.h>

void prevlearn_work_free(void *p)
{
    prevlearn_work *w = p;
    if (w && w->train) gsl_rng_free(w->train);
    if (w && w->eval) gsl_rng_free(w->eval);
    free(w);
}

void *prevlearn_work_alloc(const sweep_grid *g, const void *c)
{
    (void)g;
    const char *name = ((const prevlearn_ctx *)c)->rng_name;
    prevlearn_work *w = calloc(1, sizeof *w);
    if (w && (w->train = rng_new(name, 1)) && (w->eval = rng_new(name, 1))) return w;
    prevlearn_work_free(w);
    return NULL;
}

typedef struct { size_t query, key; double separate, tied; } map_row;
static const table_col map_cols[] = {COL(map_row, query), COL(map_row, key), COL(map_row, separate), COL(map_row, tied)};

int prevlearn_map_write(const char *dir, const char *name, const gsl_matrix *A_sep, const gsl_matrix *A_tied)
{
    size_t T = A_sep->size1;
    map_row *rows = calloc(T * T, sizeof *rows);
    if (!rows) return att_fail(ATT_ERUNTIME, "%s: out of memory", name);
    for (size_t i = 0; i < T * T; i++)
        rows[i] = (map_row){i / T, i % T, gsl_matrix_get(A_sep, i / T, i % T), gsl_matrix_get(A_tied, i / T, i % T)};
    int rc = TABLE_WRITE(dir, name, map_cols, rows, T * T);
    free(rows);
    return rc;
}

int prevlearn_exact_tied(const experiment *e, size_t n_vocab, size_t T, size_t w, size_t heldout, prev_eval *ev,
                         prev_eval *nomask)
{
    prev_config c = prevtrain_config_default(n_vocab, T, w, 1);
    c.heldout = heldout;
    prev_model m;
    int rc = prevtrain_model_alloc(&m, &c);
    if (rc) return rc;
    const sweep_point pt = {.dk = w, .kase = 1};     /* its held-out stream */
    gsl_rng *g = sweep_rng(e, &pt);
    rc = g ? tiedhead_exact(&m, 12.0) : att_alloc_status();
    if (!rc) rc = prevtrain_evaluate(g, &m, ev, NULL);
    m.p.causal = 0;   /* the same weights without the mask */
    if (!rc) rc = prevtrain_evaluate(g, &m, nomask, NULL);
    if (g) gsl_rng_free(g);
    prevtrain_model_free(&m);
    return rc;
}
