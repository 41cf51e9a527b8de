/* shapecheck.c - the tables of the shapes experiment (shapecheck.h). */
#include "shapecheck.h"
#include "att.h"
#include "mat.h"
#include "table.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const table_col COLS[] = {
    COL(shapecheck_row, config), COL(shapecheck_row, kind), COL(shapecheck_row, B), COL(shapecheck_row, T_q),
    COL(shapecheck_row, T_k), COL(shapecheck_row, d), COL(shapecheck_row, d_k), COL(shapecheck_row, d_v),
    COL(shapecheck_row, matrix), COL(shapecheck_row, shape), COL(shapecheck_row, computed),
    COL(shapecheck_row, dim0), COL(shapecheck_row, dim1), COL(shapecheck_row, dim2), COL(shapecheck_row, got0),
    COL(shapecheck_row, got1), COL(shapecheck_row, got2), COL(shapecheck_row, agree)};

/* "(2, 5, 4)" for rank 3, "(8, 4)" for rank 2 */
static void dims_text(char *buf, size_t n, const size_t dim[3], int rank)
{
    if (rank == 2) snprintf(buf, n, "(%zu, %zu)", dim[0], dim[1]);
    else snprintf(buf, n, "(%zu, %zu, %zu)", dim[0], dim[1], dim[2]);
}

int shapecheck_add(shapecheck_table *t, const shapecheck_config *c, const char *kind, const shape *want,
                   const size_t got[3])
{
    if (t->n >= SHAPECHECK_MAX_ROWS)
        return att_fail(ATT_ERUNTIME, "shapes: more than %d rows", (int)SHAPECHECK_MAX_ROWS);
    shapecheck_row *r = &t->row[t->n++];
    *r = (shapecheck_row){.config = c->name, .kind = kind, .matrix = want->name, .B = c->B,
                          .T_q = c->T_q, .T_k = c->T_k, .d = c->d, .d_k = c->d_k, .d_v = c->d_v,
                          .dim0 = want->dim[0], .dim1 = want->dim[1], .dim2 = want->dim[2],
                          .got0 = got[0], .got1 = got[1], .got2 = got[2]};
    r->agree = !memcmp(want->dim, got, sizeof want->dim);
    dims_text(r->shape_s, sizeof r->shape_s, want->dim, want->rank);
    dims_text(r->computed_s, sizeof r->computed_s, got, want->rank);
    r->shape = r->shape_s;
    r->computed = r->computed_s;
    return ATT_OK;
}

size_t shapecheck_disagree(const shapecheck_table *t)
{
    size_t n = 0;
    for (size_t i = 0; i < t->n; i++) n += !t->row[i].agree;
    return n;
}

int shapecheck_write(const char *dir, const shapecheck_table *t)
{
    return TABLE_WRITE(dir, "shapes.csv", COLS, t->row, t->n);
}

void shapecheck_computed(size_t k, const head_state *st, const head_params *p, const gsl_matrix *Xq,
                         const gsl_matrix *Xkv, size_t nseq, size_t got[3])
{
    const gsl_matrix *M[SHAPES_COUNT] = {Xq, Xkv, p->W_Q, p->W_K, p->W_V, st->Q, st->K,
                                         st->V, st->S, st->A, st->O};
    int weight = k >= 2 && k <= 4;
    got[0] = weight ? M[k]->size1 : nseq;
    got[1] = weight ? M[k]->size2 : M[k]->size1;
    got[2] = weight ? 0 : M[k]->size2;
}

double shapecheck_doubles(const shapecheck_config *c)
{
    double B = (double)c->B, Tq = (double)c->T_q, Tk = (double)c->T_k, d = (double)c->d;
    double dk = (double)c->d_k, dv = (double)c->d_v;
    return B * (Tq + Tk) * d + d * (2 * dk + dv) + B * Tq * dv         /* X, W, O batched */
           + 2 * Tq * dk + 2 * Tk * dk + Tk * dv + 2 * Tq * Tk + Tq * dv;  /* head_state */
}

const char *shapecheck_grouped(char buf[32], size_t n)
{
    char raw[24];
    int len = snprintf(raw, sizeof raw, "%zu", n), j = 0;
    for (int i = 0; i < len; i++) {
        if (i > 0 && (len - i) % 3 == 0) buf[j++] = ',';
        buf[j++] = raw[i];
    }
    buf[j] = '\0';
    return buf;
}

/* One row of shapes_sizes.csv: a matrix of attention_shapes, or "params". */
typedef struct { const char *name; int rank; size_t dim0, dim1, dim2, elements; } size_row;
static const table_col SIZE_COLS[] = {
    COL(size_row, name), COL(size_row, rank), COL(size_row, dim0), COL(size_row, dim1),
    COL(size_row, dim2), COL(size_row, elements)};

/* What each matrix of the table is, in the section's words. */
static const char *const ROLE[SHAPES_COUNT] = {
    "the queries come from here", "the keys and values come from here",
    "no T: one matrix serves any length", "the same width d_k as W_Q", "d_v is free",
    "Q = X_q W_Q", "K = X_kv W_K", "V = X_kv W_V", "S = Q K^T (scores)",
    "A = row softmax(S)", "O = A V: one row per query, d_v wide; T_k is gone"};

int shapecheck_sizes_table(const char *dir, int quiet, const shapecheck_config *c)
{
    shape sh[SHAPES_COUNT];
    int rc = attention_shapes(sh, c->B, c->T_q, c->T_k, c->d, c->d_k, c->d_v);
    if (rc) return rc;
    // d (2 d_k + d_v): W_Q, W_K (d, d_k) and W_V (d, d_v), biases excluded
    size_t params = shapes_head_projection_params(c->d, c->d_k, c->d_v);
    if (params == 0)
        return att_fail(ATT_EUSAGE, "--d %zu --dk %zu --dv %zu: the parameter count overflows", c->d, c->d_k, c->d_v);
    size_row r[SHAPES_COUNT + 1];
    for (size_t k = 0; k < SHAPES_COUNT; k++) {
        const size_t *m = sh[k].dim;
        // elements = m0 m1 (m2), exact: a count beyond 2^64 is refused, never written as 0
        size_t el = 0;
        if (__builtin_mul_overflow(m[0], m[1], &el) || (sh[k].rank == 3 && __builtin_mul_overflow(el, m[2], &el))) {
            char dims[80];
            dims_text(dims, sizeof dims, m, sh[k].rank);
            return att_fail(ATT_EUSAGE, "--B %zu --Tq %zu --Tk %zu --d %zu --dk %zu --dv %zu: %s %s has more "
                            "than 2^64 elements (the sizes table counts them exactly)", c->B, c->T_q, c->T_k,
                            c->d, c->d_k, c->d_v, sh[k].name, dims);
        }
        r[k] = (size_row){sh[k].name, sh[k].rank, m[0], m[1], m[2], el};
    }
    r[SHAPES_COUNT] = (size_row){"params", 0, params, 0, 0, params};
    if ((rc = TABLE_WRITE(dir, "shapes_sizes.csv", SIZE_COLS, r, SHAPES_COUNT + 1))) return rc;
    if (quiet) return ATT_OK;
    printf("attention_shapes(B=%zu, T_q=%zu, T_k=%zu, d=%zu, d_k=%zu, d_v=%zu)%s\n", c->B, c->T_q,
           c->T_k, c->d, c->d_k, c->d_v, c->T_q == c->T_k ? "   self-attention: T_q = T_k" : "   cross-attention: T_q != T_k");
    for (size_t k = 0; k < SHAPES_COUNT; k++) {
        char dims[64];
        dims_text(dims, sizeof dims, sh[k].dim, sh[k].rank);
        printf("  %-5s %-22s %s\n", sh[k].name, dims, ROLE[k]);
    }
    char g[32];
    printf("projection weights: d (2 d_k + d_v) = %zu x (2 x %zu + %zu) = %s (biases excluded)\n\n",
           c->d, c->d_k, c->d_v, shapecheck_grouped(g, params));
    return ATT_OK;
}

/* --B --Tq --Tk --d --dk --dv: the sizes of the table (0 = not given) */
static size_t opt_B, opt_Tq, opt_Tk, opt_d, opt_dk, opt_dv;
static const opt_spec EXTRA[] = {
    {"B", OPT_SIZE, &opt_B, "N", "batch: B sequences (default 1)"},
    {"Tq", OPT_SIZE, &opt_Tq, "N", "queries per sequence, T_q (default T_k, or 1024)"},
    {"Tk", OPT_SIZE, &opt_Tk, "N", "keys and values per sequence, T_k (default T_q, or 1024)"},
    {"d", OPT_SIZE, &opt_d, "N", "model width d (default 768, GPT-2)"},
    {"dk", OPT_SIZE, &opt_dk, "N", "query and key width d_k (default d_v, or 64)"},
    {"dv", OPT_SIZE, &opt_dv, "N", "value width d_v (default d_k, or 64)"},
    {NULL, OPT_FLAG, NULL, NULL, NULL}};

const opt_spec *shapecheck_options(void) { return EXTRA; }

shapecheck_config shapecheck_user(int *given)
{
    size_t T_q = opt_Tq ? opt_Tq : opt_Tk ? opt_Tk : SHAPECHECK_GPT2_T;
    size_t T_k = opt_Tk ? opt_Tk : T_q;
    size_t d_k = opt_dk ? opt_dk : opt_dv ? opt_dv : SHAPECHECK_GPT2_DK;
    shapecheck_config c = {"your sizes", opt_B ? opt_B : 1, T_q, T_k, opt_d ? opt_d : SHAPECHECK_GPT2_D, d_k,
                           opt_dv ? opt_dv : d_k, T_q == T_k};
    *given = opt_B || opt_Tq || opt_Tk || opt_d || opt_dk || opt_dv;
    return c;
}

/* Configuration c: Xq (B T_q, d), Xkv (B T_k, d) (B sequences stacked),
 * W_Q, W_K (d, d_k), W_V (d, d_v) ~ N(0, 1/d); every sequence through
 * head_forward (state (T_q, d_k), (T_k, d_k), ...), and for self-attention
 * all of them through head_forward_batched (O (B T, d_v) read as (B, T, d_v)). */
int shapecheck_run(gsl_rng *rng, shapecheck_table *table, const shapecheck_config *c)
{
    shape sh[SHAPES_COUNT];
    int rc = attention_shapes(sh, c->B, c->T_q, c->T_k, c->d, c->d_k, c->d_v);
    if (rc) return rc;
    gsl_matrix *Xq = mat_new(c->B * c->T_q, c->d);
    gsl_matrix *Xkv = c->self ? Xq : mat_new(c->B * c->T_k, c->d);
    gsl_matrix *W_Q = mat_new(c->d, c->d_k), *W_K = mat_new(c->d, c->d_k);
    gsl_matrix *W_V = mat_new(c->d, c->d_v), *Ob = mat_new(c->B * c->T_q, c->d_v);
    head_state st = {0};
    if (!Xq || !Xkv || !W_Q || !W_K || !W_V || !Ob) { rc = att_alloc_status(); goto done; }
    mat_randn(rng, Xq, 1.0);
    if (!c->self) mat_randn(rng, Xkv, 1.0);
    double sw = 1.0 / sqrt((double)c->d);
    mat_randn(rng, W_Q, sw);
    mat_randn(rng, W_K, sw);
    mat_randn(rng, W_V, sw);
    head_params p = head_params_make(W_Q, W_K, W_V);
    // (a refusal by --max-memory is recorded as ATT_EUSAGE: att_last_code)
    if (head_state_alloc(&st, c->T_q, c->T_k, c->d, c->d_k, c->d_v)) { rc = att_alloc_status(); goto done; }
    size_t nseq = 0;
    for (size_t b = 0; b < c->B && !rc; b++, nseq++) {
        gsl_matrix_const_view xq = gsl_matrix_const_submatrix(Xq, b * c->T_q, 0, c->T_q, c->d);
        gsl_matrix_const_view xkv = gsl_matrix_const_submatrix(Xkv, b * c->T_k, 0, c->T_k, c->d);
        rc = head_forward(&st, &p, &xq.matrix, &xkv.matrix);
    }
    if (rc) goto done;
    gsl_matrix_const_view xq = gsl_matrix_const_submatrix(Xq, 0, 0, c->T_q, c->d);
    gsl_matrix_const_view xkv = gsl_matrix_const_submatrix(Xkv, 0, 0, c->T_k, c->d);
    for (size_t k = 0; k < SHAPES_COUNT; k++) {
        size_t got[3];
        shapecheck_computed(k, &st, &p, &xq.matrix, &xkv.matrix, nseq, got);
        if (!rc) rc = shapecheck_add(table, c, "head_forward", &sh[k], got);
    }
    if (!rc && c->self && !(rc = head_forward_batched(Ob, &p, Xq, c->B, c->T_q))) {
        size_t T = c->T_q, got[3] = {Ob->size1 % T == 0 ? Ob->size1 / T : 0, T, Ob->size2};
        rc = shapecheck_add(table, c, "head_forward_batched", &sh[SHAPES_COUNT - 1], got);
    }
done:
    head_state_free(&st);
    if (Xkv != Xq) mat_free(Xkv);
    mat_free(Xq); mat_free(W_Q); mat_free(W_K); mat_free(W_V); mat_free(Ob);
    return rc;
}

/* The same W_Q, W_K, W_V (32, 8) run on X (5, 32) and X (64, 32): the number
 * of the two runs that failed. */
int shapecheck_same_weights_two_T(gsl_rng *rng, size_t *failed)
{
    size_t d = 32, d_k = 8, d_v = 8;
    gsl_matrix *W_Q = mat_new(d, d_k), *W_K = mat_new(d, d_k), *W_V = mat_new(d, d_v);
    gsl_matrix *X5 = mat_new(5, d), *X64 = mat_new(64, d), *O5 = mat_new(5, d_v), *O64 = mat_new(64, d_v);
    int rc = (W_Q && W_K && W_V && X5 && X64 && O5 && O64) ? ATT_OK : att_alloc_status();
    if (!rc) {
        mat_randn(rng, W_Q, 0.2); mat_randn(rng, W_K, 0.2); mat_randn(rng, W_V, 0.2);
        mat_randn(rng, X5, 1.0); mat_randn(rng, X64, 1.0);
        head_params p = head_params_make(W_Q, W_K, W_V);
        *failed = (head_output(O5, &p, X5, X5) != ATT_OK) + (head_output(O64, &p, X64, X64) != ATT_OK);
    }
    mat_free(W_Q); mat_free(W_K); mat_free(W_V);
    mat_free(X5); mat_free(X64); mat_free(O5); mat_free(O64);
    return rc;
}

