/* shapes - the shape of every matrix in one head, checked against the arrays
 * the library really computes; GPT-2's parameter counts.
 *
 * Claim (shapes): for a batch of B sequences with T_q queries and T_k keys
 * and values, Q is (B, T_q, d_k), K (B, T_k, d_k), V (B, T_k, d_v), S and A
 * (B, T_q, T_k), O (B, T_q, d_v); queries and keys share the width d_k, the
 * value width d_v is free, T_k disappears from the output, and the weights
 * W_Q, W_K (d, d_k), W_V (d, d_v) have no T in them. One head at GPT-2 sizes
 * (d = 768, d_k = d_v = 64) has 3 * 768 * 64 = 147,456 projection weights,
 * and 12 heads have 1,769,472.
 *
 * Measured, for self- and cross-attention configurations (B, T_q, T_k, d,
 * d_k, d_v), including GPT-2's head at T = 1024:
 *   - attention_shapes() (lib/shapes.h, the section's function) against the
 *     matrices head_forward() allocates and fills, one sequence at a time
 *     (the batch axis counts the sequences run), and, for self-attention,
 *     the output of head_forward_batched() (B*T rows = (B, T, d_v));
 *   - the weight shapes attention_shapes() gives for T = 1 .. 100,000 (they
 *     must not change), and that the same weight matrices run at two T;
 *   - head_projection_params(768, 64, 64) and the element count of the
 *     weight matrices actually allocated at GPT-2 sizes; 12 heads.
 *
 * Writes into --out:
 *   shapes.csv   config,kind,B,T_q,T_k,d,d_k,d_v,matrix,shape,computed,
 *                dim0,dim1,dim2,got0,got1,got2,agree   (one row per matrix)
 *   shapes.meta, shapes.verdicts.csv
 */
#include "head.h"
#include "mat.h"
#include "opts.h"
#include "output.h"
#include "rng.h"
#include "shapes.h"
#include "status.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ID "shapes"

typedef struct {
    const char *name;
    size_t B, T_q, T_k, d, d_k, d_v;
    int self;            /* self-attention: T_q = T_k and X_q = X_kv */
} config;

static const config CONFIGS[] = {
    { "self small", 2, 5, 5, 8, 4, 3, 1 },
    { "self d_v > d_k", 3, 7, 7, 16, 4, 12, 1 },
    { "cross T_q < T_k", 2, 5, 9, 8, 4, 6, 0 },
    { "cross one query", 4, 1, 12, 10, 2, 5, 0 },
    { "cross T_q > T_k", 1, 10, 3, 6, 6, 2, 0 },
    { "GPT-2 head", 2, 1024, 1024, 768, 64, 64, 1 },
};
enum { NCONFIG = sizeof CONFIGS / sizeof CONFIGS[0] };

/* GPT-2: d = 768, d_k = d_v = 64, 12 heads per layer */
enum { GPT2_D = 768, GPT2_DK = 64, GPT2_HEADS = 12 };

/* The rows of the table: what attention_shapes says, what was computed. */
typedef struct {
    const config *c;
    const char *kind;       /* "head_forward" or "head_forward_batched" */
    shape want;
    size_t got[3];
    int agree;
} row;

typedef struct {
    row *r;
    size_t n, cap;
} table;

static int table_add(table *t, const config *c, const char *kind, const shape *want,
                     size_t g0, size_t g1, size_t g2)
{
    if (t->n == t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 64;
        row *nr = realloc(t->r, cap * sizeof *nr);
        if (nr == NULL) return att_fail(ATT_ERUNTIME, "out of memory");
        t->r = nr;
        t->cap = cap;
    }
    row *r = &t->r[t->n++];
    r->c = c;
    r->kind = kind;
    r->want = *want;
    r->got[0] = g0; r->got[1] = g1; r->got[2] = g2;
    r->agree = want->dim[0] == g0 && want->dim[1] == g1 && want->dim[2] == g2;
    return ATT_OK;
}

/* The computed shape of matrix `name`: weights are (rows, cols); an
 * activation computed per sequence is (sequences run, rows, cols). */
static void computed_shape(const char *name, const head_state *st, const head_params *p,
                           const gsl_matrix *Xq, const gsl_matrix *Xkv, size_t nseq,
                           size_t got[3])
{
    const gsl_matrix *M = NULL;
    int weight = 0;
    if (!strcmp(name, "X_q")) M = Xq;
    else if (!strcmp(name, "X_kv")) M = Xkv;
    else if (!strcmp(name, "W_Q")) { M = p->W_Q; weight = 1; }
    else if (!strcmp(name, "W_K")) { M = p->W_K; weight = 1; }
    else if (!strcmp(name, "W_V")) { M = p->W_V; weight = 1; }
    else if (!strcmp(name, "Q")) M = st->Q;
    else if (!strcmp(name, "K")) M = st->K;
    else if (!strcmp(name, "V")) M = st->V;
    else if (!strcmp(name, "S")) M = st->S;
    else if (!strcmp(name, "A")) M = st->A;
    else if (!strcmp(name, "O")) M = st->O;
    if (M == NULL) { got[0] = got[1] = got[2] = 0; return; }
    if (weight) { got[0] = M->size1; got[1] = M->size2; got[2] = 0; }
    else { got[0] = nseq; got[1] = M->size1; got[2] = M->size2; }
}

/* Run configuration c: B sequences through head_forward (and, for
 * self-attention, all of them through head_forward_batched), and add one
 * table row per matrix. */
static int run_config(table *t, const config *c, gsl_rng *rng)
{
    shape sh[SHAPES_COUNT];
    int rc = attention_shapes(sh, c->B, c->T_q, c->T_k, c->d, c->d_k, c->d_v);
    if (rc) return rc;
    // Xq (B*T_q, d) and Xkv (B*T_k, d): B sequences stacked; weights ~ N(0, 1/d)
    gsl_matrix *Xq = mat_new(c->B * c->T_q, c->d);
    gsl_matrix *Xkv = c->self ? Xq : mat_new(c->B * c->T_k, c->d);
    gsl_matrix *W_Q = mat_new(c->d, c->d_k), *W_K = mat_new(c->d, c->d_k);
    gsl_matrix *W_V = mat_new(c->d, c->d_v), *Ob = mat_new(c->B * c->T_q, c->d_v);
    head_state st = { 0 };
    if (!Xq || !Xkv || !W_Q || !W_K || !W_V || !Ob) { rc = ATT_ERUNTIME; goto done; }
    mat_randn(Xq, rng, 1.0);
    if (!c->self) mat_randn(Xkv, rng, 1.0);
    double sw = 1.0 / sqrt((double)c->d);
    mat_randn(W_Q, rng, sw);
    mat_randn(W_K, rng, sw);
    mat_randn(W_V, rng, sw);
    head_params p = head_params_make(W_Q, W_K, W_V);

    // one sequence at a time: the state holds (T_q, d_k), (T_k, d_k), ...
    if ((rc = head_state_alloc(&st, c->T_q, c->T_k, c->d, c->d_k, c->d_v))) goto done;
    size_t nseq = 0;
    for (size_t b = 0; b < c->B; b++) {
        gsl_matrix_const_view xq = gsl_matrix_const_submatrix(Xq, b * c->T_q, 0, c->T_q, c->d);
        gsl_matrix_const_view xkv = gsl_matrix_const_submatrix(Xkv, b * c->T_k, 0, c->T_k, c->d);
        if ((rc = head_forward(&st, &p, &xq.matrix, &xkv.matrix))) goto done;
        nseq++;
    }
    // the inputs of one sequence, as head_forward read them
    gsl_matrix_const_view xq = gsl_matrix_const_submatrix(Xq, 0, 0, c->T_q, c->d);
    gsl_matrix_const_view xkv = gsl_matrix_const_submatrix(Xkv, 0, 0, c->T_k, c->d);
    for (size_t k = 0; k < SHAPES_COUNT; k++) {
        size_t got[3];
        computed_shape(sh[k].name, &st, &p, &xq.matrix, &xkv.matrix, nseq, got);
        if ((rc = table_add(t, c, "head_forward", &sh[k], got[0], got[1], got[2]))) goto done;
    }
    // batched self-attention: O is (B*T, d_v), read as (B, T, d_v)
    if (c->self) {
        if ((rc = head_forward_batched(Ob, &p, Xq, c->B, c->T_q))) goto done;
        size_t T = c->T_q, rows = Ob->size1;
        const shape *O = &sh[SHAPES_COUNT - 1];
        if ((rc = table_add(t, c, "head_forward_batched", O, rows % T == 0 ? rows / T : 0,
                            T, Ob->size2)))
            goto done;
    }

done:
    head_state_free(&st);
    if (Xkv != Xq) mat_free(Xkv);
    mat_free(Xq); mat_free(W_Q); mat_free(W_K); mat_free(W_V); mat_free(Ob);
    return rc;
}

/* "(2, 5, 4)" or "(8, 4)" */
static void dims_format(char *buf, size_t n, const size_t dim[3], int rank)
{
    if (rank == 2) snprintf(buf, n, "(%zu, %zu)", dim[0], dim[1]);
    else snprintf(buf, n, "(%zu, %zu, %zu)", dim[0], dim[1], dim[2]);
}

static int write_table(const opts *o, const table *t)
{
    afile af;
    int rc = afile_open(&af, o->out_dir, ID ".csv");
    if (rc) return rc;
    fprintf(af.f, "config,kind,B,T_q,T_k,d,d_k,d_v,matrix,shape,computed,"
                  "dim0,dim1,dim2,got0,got1,got2,agree\n");
    const config *last = NULL;
    for (size_t i = 0; i < t->n; i++) {
        const row *r = &t->r[i];
        const config *c = r->c;
        char want[64], got[64];
        dims_format(want, sizeof want, r->want.dim, r->want.rank);
        dims_format(got, sizeof got, r->got, r->want.rank);
        csv_str(af.f, c->name);
        fprintf(af.f, ",%s,%zu,%zu,%zu,%zu,%zu,%zu,%s,", r->kind, c->B, c->T_q, c->T_k,
                c->d, c->d_k, c->d_v, r->want.name);
        csv_str(af.f, want); fputc(',', af.f);
        csv_str(af.f, got);
        fprintf(af.f, ",%zu,%zu,%zu,%zu,%zu,%zu,%d\n", r->want.dim[0], r->want.dim[1],
                r->want.dim[2], r->got[0], r->got[1], r->got[2], r->agree);
        if (opts_verbose(o)) {
            if (c != last)
                printf("\n%s: B = %zu, T_q = %zu, T_k = %zu, d = %zu, d_k = %zu, d_v = %zu "
                       "(%s-attention)\n  %-6s %-22s %-22s %-20s %s\n", c->name, c->B, c->T_q,
                       c->T_k, c->d, c->d_k, c->d_v, c->self ? "self" : "cross", "matrix",
                       "attention_shapes", "computed", "by", "");
            last = c;
            printf("  %-6s %-22s %-22s %-20s %s\n", r->want.name, want, got, r->kind,
                   r->agree ? "ok" : "DISAGREE");
        }
    }
    if (opts_verbose(o)) putchar('\n');
    return afile_commit(&af);
}

/* Weight shapes from attention_shapes for T = 1 .. 100,000 at GPT-2 sizes:
 * returns the number of T at which a weight shape differs from T = 1. */
static int weights_without_T(size_t *differ, size_t *nT)
{
    static const size_t Ts[] = { 1, 5, 1024, 100000 };
    shape ref[SHAPES_COUNT], sh[SHAPES_COUNT];
    int rc = attention_shapes(ref, 1, Ts[0], Ts[0], GPT2_D, GPT2_DK, GPT2_DK);
    *differ = 0;
    *nT = sizeof Ts / sizeof Ts[0];
    for (size_t i = 1; i < *nT && !rc; i++) {
        if ((rc = attention_shapes(sh, 1, Ts[i], Ts[i], GPT2_D, GPT2_DK, GPT2_DK))) break;
        int same = 1;
        for (size_t k = 0; k < SHAPES_COUNT; k++)
            if (!strncmp(sh[k].name, "W_", 2))
                same &= sh[k].rank == ref[k].rank && !memcmp(sh[k].dim, ref[k].dim, sizeof sh[k].dim);
        if (!same) (*differ)++;
    }
    return rc;
}

/* The same three weight matrices run at T = 5 and T = 64: both must succeed. */
static int same_weights_two_T(gsl_rng *rng, int *ok)
{
    size_t d = 32, d_k = 8, d_v = 8;
    gsl_matrix *W_Q = mat_new(d, d_k), *W_K = mat_new(d, d_k), *W_V = mat_new(d, d_v);
    gsl_matrix *X5 = mat_new(5, d), *X64 = mat_new(64, d), *O5 = mat_new(5, d_v), *O64 = mat_new(64, d_v);
    int rc = ATT_OK;
    *ok = 0;
    if (!W_Q || !W_K || !W_V || !X5 || !X64 || !O5 || !O64) { rc = ATT_ERUNTIME; goto done; }
    mat_randn(W_Q, rng, 0.2); mat_randn(W_K, rng, 0.2); mat_randn(W_V, rng, 0.2);
    mat_randn(X5, rng, 1.0); mat_randn(X64, rng, 1.0);
    head_params p = head_params_make(W_Q, W_K, W_V);
    int r5 = head_output(O5, &p, X5, X5), r64 = head_output(O64, &p, X64, X64);
    *ok = r5 == ATT_OK && r64 == ATT_OK;
done:
    mat_free(W_Q); mat_free(W_K); mat_free(W_V);
    mat_free(X5); mat_free(X64); mat_free(O5); mat_free(O64);
    return rc;
}

static int run(const opts *o)
{
    table t = { 0 };
    verdict_list vl;
    verdicts_init(&vl);
    gsl_rng *rng = rng_new("mt19937", o->seed);
    int rc = rng ? ATT_OK : ATT_ERUNTIME;
    for (size_t i = 0; i < NCONFIG && !rc; i++) rc = run_config(&t, &CONFIGS[i], rng);
    if (rc) goto done;
    if ((rc = write_table(o, &t)) || (rc = output_meta(o, NULL))) goto done;

    size_t disagree = 0;
    for (size_t i = 0; i < t.n; i++) disagree += !t.r[i].agree;
    size_t differ = 0, nT = 0;
    int two_T = 0;
    if ((rc = weights_without_T(&differ, &nT)) || (rc = same_weights_two_T(rng, &two_T))) goto done;

    // GPT-2: the formula, and the element count of weights actually allocated
    size_t count = head_projection_params(GPT2_D, GPT2_DK, GPT2_DK);
    gsl_matrix *W_Q = mat_new(GPT2_D, GPT2_DK), *W_K = mat_new(GPT2_D, GPT2_DK);
    gsl_matrix *W_V = mat_new(GPT2_D, GPT2_DK);
    size_t allocated = 0;
    if (W_Q && W_K && W_V)
        allocated = W_Q->size1 * W_Q->size2 + W_K->size1 * W_K->size2 + W_V->size1 * W_V->size2;
    mat_free(W_Q); mat_free(W_K); mat_free(W_V);
    if (allocated == 0) { rc = ATT_ERUNTIME; goto done; }
    size_t layer = GPT2_HEADS * count;
    if (opts_verbose(o))
        printf("GPT-2 head (d = 768, d_k = d_v = 64): head_projection_params = %zu, "
               "allocated W_Q + W_K + W_V = %zu; 12 heads = %zu\n\n", count, allocated, layer);

    char q[160];
    snprintf(q, sizeof q, "matrices whose computed shape differs from attention_shapes "
             "(%zu checked, %d configurations)", t.n, NCONFIG);
    if ((rc = verdict_exact(&vl, "shapesDisagree", q, 0, (double)disagree, 0, disagree == 0,
                            "= 0: every shape agrees")))
        goto done;
    snprintf(q, sizeof q, "values of T (1 .. 100,000, %zu) at which a weight shape changes, "
             "and the same weights run at T = 5 and 64", nT);
    if ((rc = verdict_exact(&vl, "shapesWeightsNoT", q, 0, (double)differ, 0,
                            differ == 0 && two_T, "= 0 and both runs succeed")))
        goto done;
    if ((rc = verdict_exact(&vl, "shapesGPTTwoHead",
                            "projection weights of one GPT-2 head, 3 x 768 x 64 (formula and allocated)",
                            147456, (double)count, 0, count == 147456 && allocated == 147456,
                            "= 147,456 exactly")))
        goto done;
    if ((rc = verdict_exact(&vl, "shapesGPTTwoLayer", "projection weights of 12 GPT-2 heads",
                            1769472, (double)layer, 0, layer == 1769472, "= 1,769,472 exactly")))
        goto done;
    if ((rc = legacy_verdicts_write(&vl, o))) goto done;
    rc = verdicts_status(&vl);

done:
    if (rng) gsl_rng_free(rng);
    free(t.r);
    verdicts_free(&vl);
    return rc;
}

int main(int argc, char **argv)
{
    att_init();
    const opts_info info = { ID, "every matrix's shape in one head, against what the library computes",
                             OPT_SEED, 42, 1, NULL };
    opts o;
    int st = opts_parse(&o, &info, argc, argv);
    if (st) return opts_exit(&o, st);
    return opts_exit(&o, run(&o));
}
