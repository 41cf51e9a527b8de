/* prevtoken.c - the previous-token head built by hand (formulas in prevtoken.h). */
#include "prevtoken.h"
#include "att.h"
#include "table.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int check_shape(const gsl_matrix *M, size_t rows, size_t cols, const char *name)
{
    if (M == NULL || M->size1 != rows || M->size2 != cols)
        return att_fail(ATT_EUSAGE, "%s must be (%zu x %zu), got (%zu x %zu)", name, rows, cols,
                        M ? M->size1 : 0, M ? M->size2 : 0);
    return ATT_OK;
}

/* c = ln(w (T - 1) / (1 - w)) gives e^c / (e^c + T - 1) = w */
double prevtoken_circuit_factor(size_t T, double w)
{
    if (T < 2 || !(w > 0.0 && w < 1.0)) return NAN;
    return log(w * (double)(T - 1) / (1.0 - w));
}

/* W_Q, W_K (n_vocab + T, T), W_V (n_vocab + T, n_vocab). Rows 0 .. n_vocab-1
 * of every weight read the token one-hot, rows n_vocab .. n_vocab+T-1 the
 * position one-hot. */
int prevtoken_circuit_build(gsl_matrix *W_Q, gsl_matrix *W_K, gsl_matrix *W_V,
                            size_t n_vocab, size_t T, double c)
{
    if (n_vocab < 1 || T < 2)
        return att_fail(ATT_EUSAGE, "previous-token head: needs n_vocab >= 1 and T >= 2 "
                        "(got n_vocab = %zu, T = %zu)", n_vocab, T);
    if (!isfinite(c))
        return att_fail(ATT_EUSAGE, "previous-token head: the query factor %g must be finite", c);
    size_t d = n_vocab + T;
    int rc;
    if ((rc = check_shape(W_Q, d, T, "previous-token W_Q"))
        || (rc = check_shape(W_K, d, T, "previous-token W_K"))
        || (rc = check_shape(W_V, d, n_vocab, "previous-token W_V")))
        return rc;
    gsl_matrix_set_zero(W_Q);
    gsl_matrix_set_zero(W_K);
    gsl_matrix_set_zero(W_V);
    for (size_t t = 0; t < T; t++) {
        // key reads the position: k_t = e_t
        gsl_matrix_set(W_K, n_vocab + t, t, 1.0);
        // query of position t >= 1 asks for position t - 1: q_t = c e_{t-1}
        if (t >= 1) gsl_matrix_set(W_Q, n_vocab + t, t - 1, c);
    }
    // value reads the token: v_j = e_{token_j}
    for (size_t v = 0; v < n_vocab; v++) gsl_matrix_set(W_V, v, v, 1.0);
    return ATT_OK;
}

/* X (T, n_vocab + T): row t = [e_{tokens[t]} ; e_t] */
int prevtoken_circuit_inputs(gsl_matrix *X, const size_t *tokens,
                             size_t n_vocab, size_t T)
{
    int rc = check_shape(X, T, n_vocab + T, "previous-token X");
    if (rc) return rc;
    gsl_matrix_set_zero(X);
    for (size_t t = 0; t < T; t++) {
        if (tokens[t] >= n_vocab)
            return att_fail(ATT_EUSAGE, "previous-token X: token %zu at position %zu is not "
                            "below n_vocab = %zu", tokens[t], t, n_vocab);
        gsl_matrix_set(X, t, tokens[t], 1.0);
        gsl_matrix_set(X, t, n_vocab + t, 1.0);
    }
    return ATT_OK;
}


double prevtoken_factor(const prevtoken_ctx *c, size_t T)
{
    return isnan(c->factor) ? prevtoken_circuit_factor(T, c->target) : c->factor;
}

void prevtoken_work_free(void *wp)
{
    prevtoken_work *w = wp;
    for (size_t p = 0; w && p < w->n; p++) workset_free(w->p[p]);
    if (w) free(w->tokens), free(w->count);
    free(w);
}

void *prevtoken_work_alloc(const sweep_grid *g, const void *ctx)
{
    size_t np = sweep_npoints(g);
    prevtoken_work *w = calloc(1, sizeof *w + np * sizeof w->p[0]);
    if (w && (!(w->tokens = calloc(sweep_max(g, AX_T) + 1, sizeof *w->tokens))
              || !(w->count = calloc(sweep_max(g, AX_X) + 1, sizeof *w->count)))) {
        prevtoken_work_free(w);
        return NULL;
    }
    for (size_t p = 0; w && p < np; p++) {
        sweep_point pt = sweep_grid_point(g, p);
        size_t T = pt.T, V = (size_t)pt.x, d = V + T;
        const size_t shape[PT_NMAT][2] = {[PT_X] = {T, d}, [PT_WQ] = {d, T}, [PT_WK] = {d, T}, [PT_WV] = {d, V}};
        const size_t head[1][5] = {{T, T, d, T, V}};
        w->n = p + 1;
        if (!(w->p[p] = workset_new(PT_NMAT, shape, 0, NULL, 1, head))
            || prevtoken_circuit_build(w->p[p]->m[PT_WQ], w->p[p]->m[PT_WK], w->p[p]->m[PT_WV], V, T,
                                       prevtoken_factor(ctx, T))) {
            prevtoken_work_free(w);
            return NULL;
        }
    }
    return w;
}

size_t prevtoken_row_argmax(const gsl_matrix *M, size_t i)
{
    size_t best = 0;
    for (size_t j = 1; j < M->size2; j++)
        if (gsl_matrix_get(M, i, j) > gsl_matrix_get(M, i, best)) best = j;
    return best;
}

/* "A", "B", ... for token v; "-" for none */
static const char *letter(size_t v)
{
    static const char *const L[] = {"A", "B", "C", "D", "E", "F", "G", "H", "-"};
    return L[v < 8 ? v : 8];
}
typedef struct { size_t i, j; const char *token_i, *token_j; double weight; } weight_row;
static const table_col A_COLS[] = {COL(weight_row, i), COL(weight_row, j), COL(weight_row, token_i),
                                   COL(weight_row, token_j), COL(weight_row, weight)};
typedef struct { size_t t, token; const char *label, *prev_label; size_t output_argmax;
                 const char *output_label; double weight_prev; } token_row;
static const table_col TOK_COLS[] = {
    COL(token_row, t), COL(token_row, token), COL(token_row, label), COL(token_row, prev_label),
    COL(token_row, output_argmax), COL(token_row, output_label), COL(token_row, weight_prev)};

int prevtoken_write_example(const char *dir, const char *prefix, const gsl_matrix *A, const gsl_matrix *O,
                            const size_t *tok, size_t T)
{
    weight_row *a = calloc(T * T, sizeof *a);
    token_row *tk = calloc(T, sizeof *tk);
    char name[2][256];
    snprintf(name[0], sizeof name[0], "%s_A.csv", prefix);
    snprintf(name[1], sizeof name[1], "%s_tokens.csv", prefix);
    int rc = a && tk ? ATT_OK : att_alloc_status();
    for (size_t i = 0; i < T && !rc; i++) {
        size_t am = prevtoken_row_argmax(O, i);
        for (size_t j = 0; j < T; j++)
            a[i * T + j] = (weight_row){i, j, letter(tok[i]), letter(tok[j]), gsl_matrix_get(A, i, j)};
        tk[i] = (token_row){i, tok[i], letter(tok[i]), i ? letter(tok[i - 1]) : "-", am, i ? letter(am) : "-",
                            i ? gsl_matrix_get(A, i, i - 1) : NAN};
    }
    if (!rc) rc = table_write(dir, name[0], A_COLS, sizeof A_COLS / sizeof A_COLS[0], a, T * T, sizeof *a);
    if (!rc) rc = table_write(dir, name[1], TOK_COLS, sizeof TOK_COLS / sizeof TOK_COLS[0], tk, T, sizeof *tk);
    free(a), free(tk);
    return rc;
}
