/* shapes - "Shapes, written out"
 *
 * Claim: every matrix of one head has the shape the section gives it. For B
 * sequences with T_q queries and T_k keys and values, Q is (B, T_q, d_k),
 * K (B, T_k, d_k), V (B, T_k, d_v), S and A (B, T_q, T_k), O (B, T_q, d_v):
 * queries and keys share the width d_k, d_v is free, T_k disappears from the
 * output, and W_Q, W_K (d, d_k), W_V (d, d_v) hold no T. One GPT-2 head
 * (d = 768, d_k = d_v = 64) has 3 * 768 * 64 = 147,456 projection weights;
 * 12 heads have 1,769,472.
 * Measured: attention_shapes() (lib/math/shapes.h) against the matrices
 * head_forward() and head_forward_batched() really allocate, for self- and
 * cross-attention configurations up to GPT-2's head at T = 1024 (and your
 * --B --Tq --Tk --d --dk --dv when they fit in 256 MiB); the weight shapes
 * for T = 1 .. 100,000; the same weights run at T = 5 and T = 64; GPT-2's
 * counts, by the formula and by the matrices allocated.
 * Writes: shapes.csv (every matrix checked), shapes_sizes.csv (the table for
 * your sizes; default GPT-2's head), shapes.meta (the figure's sizes).
 */
#include "prelude.h"
#include "shapes.h"

#include <string.h>

/* GPT-2's head: the default sizes of the table, and the counts the section gives */
enum { GPT2_D = 768, GPT2_DK = 64, GPT2_T = 1024, GPT2_HEADS = 12 };

typedef struct {
    const char *name;
    size_t B, T_q, T_k, d, d_k, d_v;
    int self;            /* self-attention: T_q = T_k and X_q = X_kv */
} config;

/* One row per matrix: the shape attention_shapes gives, the one computed. */
typedef struct {
    const char *config, *kind, *matrix, *shape, *computed;
    size_t B, T_q, T_k, d, d_k, d_v, dim0, dim1, dim2, got0, got1, got2;
    int agree;
    char shape_s[48], computed_s[48];
} check_row;

enum { MAX_ROWS = 8 * (SHAPES_COUNT + 1) };
typedef struct {
    check_row row[MAX_ROWS];
    size_t n;
} check_table;

static const table_col COLS[] = {
    COL(check_row, config), COL(check_row, kind), COL(check_row, B), COL(check_row, T_q),
    COL(check_row, T_k), COL(check_row, d), COL(check_row, d_k), COL(check_row, d_v),
    COL(check_row, matrix), COL(check_row, shape), COL(check_row, computed),
    COL(check_row, dim0), COL(check_row, dim1), COL(check_row, dim2), COL(check_row, got0),
    COL(check_row, got1), COL(check_row, got2), COL(check_row, agree)};

/* "(2, 5, 4)" for rank 3, "(8, 4)" for rank 2 */
static void dims_text(char *buf, size_t n, const size_t dim[3], int rank)
{
    if (rank == 2) snprintf(buf, n, "(%zu, %zu)", dim[0], dim[1]);
    else snprintf(buf, n, "(%zu, %zu, %zu)", dim[0], dim[1], dim[2]);
}

/* Add the row of matrix `want` of configuration c, as `kind` computed it
 * (got: its dimensions, 0 past its rank). ATT_ERUNTIME when the table is full. */
static int check_add(check_table *t, const config *c, const char *kind, const shape *want,
                     const size_t got[3])
{
    if (t->n >= MAX_ROWS)
        return att_fail(ATT_ERUNTIME, "shapes: more than %d rows", (int)MAX_ROWS);
    check_row *r = &t->row[t->n++];
    *r = (check_row){.config = c->name, .kind = kind, .matrix = want->name, .B = c->B,
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

/* The rows whose computed shape differs from attention_shapes'. */
static size_t count_disagree(const check_table *t)
{
    size_t n = 0;
    for (size_t i = 0; i < t->n; i++) n += !t->row[i].agree;
    return n;
}

static int check_write(const char *dir, const check_table *t)
{
    return TABLE_WRITE(dir, "shapes.csv", COLS, t->row, t->n);
}

/* The computed shape of matrix k (attention_shapes' order X_q, X_kv, W_Q,
 * W_K, W_V, Q, K, V, S, A, O) after a head ran on nseq sequences: a weight
 * (rows, cols, 0), an activation (nseq, rows, cols) of one sequence's state. */
static void computed_shape(size_t k, const head_state *st, const head_params *p,
                           const gsl_matrix *Xq, const gsl_matrix *Xkv, size_t nseq, size_t got[3])
{
    const gsl_matrix *M[SHAPES_COUNT] = {Xq, Xkv, p->W_Q, p->W_K, p->W_V, st->Q, st->K,
                                         st->V, st->S, st->A, st->O};
    int weight = k >= 2 && k <= 4;
    got[0] = weight ? M[k]->size1 : nseq;
    got[1] = weight ? M[k]->size2 : M[k]->size1;
    got[2] = weight ? 0 : M[k]->size2;
}

/* The doubles a configuration's check allocates: X_q, X_kv, the weights,
 * the batched output and one head state (in double: no overflow). */
static double config_doubles(const config *c)
{
    double B = (double)c->B, Tq = (double)c->T_q, Tk = (double)c->T_k, d = (double)c->d;
    double dk = (double)c->d_k, dv = (double)c->d_v;
    return B * (Tq + Tk) * d + d * (2 * dk + dv) + B * Tq * dv         /* X, W, O batched */
           + 2 * Tq * dk + 2 * Tk * dk + Tk * dv + 2 * Tq * Tk + Tq * dv;  /* head_state */
}

/* n with thousands separators, "147,456", into buf[32]. */
static const char *grouped(char buf[32], size_t n)
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

/* The section's attention_shapes table for c: dir/shapes_sizes.csv
 * (name,rank,dim0,dim1,dim2,elements, then "params") and, unless quiet, the
 * table on stdout. ATT_EUSAGE when the weight count overflows. */
static int sizes_table(const char *dir, int quiet, const config *c)
{
    shape sh[SHAPES_COUNT];
    int rc = attention_shapes(sh, c->B, c->T_q, c->T_k, c->d, c->d_k, c->d_v);
    if (rc) return rc;
    // d (2 d_k + d_v): W_Q, W_K (d, d_k) and W_V (d, d_v), biases excluded
    size_t params = shapes_head_projection_params(c->d, c->d_k, c->d_v);
    if (params == 0)
        return att_fail(ATT_EUSAGE, "--d %zu --dk %zu --dv %zu: the parameter count overflows",
                        c->d, c->d_k, c->d_v);
    size_row r[SHAPES_COUNT + 1];
    for (size_t k = 0; k < SHAPES_COUNT; k++) {
        const size_t *m = sh[k].dim;
        // elements = m0 m1 (m2), exact: a count beyond 2^64 is refused, never written as 0
        size_t el = 0;
        if (__builtin_mul_overflow(m[0], m[1], &el)
            || (sh[k].rank == 3 && __builtin_mul_overflow(el, m[2], &el))) {
            char dims[80];
            dims_text(dims, sizeof dims, m, sh[k].rank);
            return att_fail(ATT_EUSAGE, "--B %zu --Tq %zu --Tk %zu --d %zu --dk %zu --dv %zu: "
                            "%s %s has more than 2^64 elements (the sizes table counts them "
                            "exactly)",
                            c->B, c->T_q, c->T_k, c->d, c->d_k, c->d_v, sh[k].name, dims);
        }
        r[k] = (size_row){sh[k].name, sh[k].rank, m[0], m[1], m[2], el};
    }
    r[SHAPES_COUNT] = (size_row){"params", 0, params, 0, 0, params};
    if ((rc = TABLE_WRITE(dir, "shapes_sizes.csv", SIZE_COLS, r, SHAPES_COUNT + 1))) return rc;
    if (quiet) return ATT_OK;
    printf("attention_shapes(B=%zu, T_q=%zu, T_k=%zu, d=%zu, d_k=%zu, d_v=%zu)%s\n", c->B, c->T_q,
           c->T_k, c->d, c->d_k, c->d_v,
           c->T_q == c->T_k ? "   self-attention: T_q = T_k" : "   cross-attention: T_q != T_k");
    for (size_t k = 0; k < SHAPES_COUNT; k++) {
        char dims[64];
        dims_text(dims, sizeof dims, sh[k].dim, sh[k].rank);
        printf("  %-5s %-22s %s\n", sh[k].name, dims, ROLE[k]);
    }
    char g[32];
    printf("projection weights: d (2 d_k + d_v) = %zu x (2 x %zu + %zu) = %s (biases excluded)\n\n",
           c->d, c->d_k, c->d_v, grouped(g, params));
    return ATT_OK;
}

/* --B --Tq --Tk --d --dk --dv: the sizes of the table (0 = not given) */
static size_t opt_B, opt_Tq, opt_Tk, opt_d, opt_dk, opt_dv;
static int sizes_only;   /* --sizes-only */
static const opt_spec EXTRA[] = {
    {"B", OPT_SIZE, &opt_B, "N", "batch: B sequences (default 1)"},
    {"Tq", OPT_SIZE, &opt_Tq, "N", "queries per sequence, T_q (default T_k, or 1024)"},
    {"Tk", OPT_SIZE, &opt_Tk, "N", "keys and values per sequence, T_k (default T_q, or 1024)"},
    {"d", OPT_SIZE, &opt_d, "N", "model width d (default 768, GPT-2)"},
    {"dk", OPT_SIZE, &opt_dk, "N", "query and key width d_k (default d_v, or 64)"},
    {"dv", OPT_SIZE, &opt_dv, "N", "value width d_v (default d_k, or 64)"},
    {"sizes-only", OPT_FLAG, &sizes_only, NULL,
     "the sizes table alone (shapes_sizes.csv, a grader's reference):\n"
     "                     no head is run, no verdict row (0.03 s, not 0.2 s)"},
    {NULL, OPT_FLAG, NULL, NULL, NULL}};

/* The sizes --B --Tq --Tk --d --dk --dv give, with the defaults filled in:
 * GPT-2's head (B 1, T 1024, d 768, d_k = d_v = 64), --Tq alone means
 * T_k = T_q, --dk alone d_v = d_k; *given: whether any was given. */
static config user_config(int *given)
{
    size_t T_q = opt_Tq ? opt_Tq : opt_Tk ? opt_Tk : GPT2_T;
    size_t T_k = opt_Tk ? opt_Tk : T_q;
    size_t d_k = opt_dk ? opt_dk : opt_dv ? opt_dv : GPT2_DK;
    config c = {"your sizes", opt_B ? opt_B : 1, T_q, T_k, opt_d ? opt_d : GPT2_D, d_k,
                opt_dv ? opt_dv : d_k, T_q == T_k};
    *given = opt_B || opt_Tq || opt_Tk || opt_d || opt_dk || opt_dv;
    return c;
}

/* Configuration c: Xq (B T_q, d), Xkv (B T_k, d) (B sequences stacked),
 * W_Q, W_K (d, d_k), W_V (d, d_v) ~ N(0, 1/d); every sequence through
 * head_forward (state (T_q, d_k), (T_k, d_k), ...), and for self-attention
 * all of them through head_forward_batched (O (B T, d_v) read as (B, T, d_v)). */
static int check_config(gsl_rng *rng, check_table *table, const config *c)
{
    shape sh[SHAPES_COUNT];
    int st = ATT_OK;
    if ((st = attention_shapes(sh, c->B, c->T_q, c->T_k, c->d, c->d_k, c->d_v))) return st;
    gsl_matrix *Xq = mat_new(c->B * c->T_q, c->d);
    gsl_matrix *Xkv = c->self ? Xq : mat_new(c->B * c->T_k, c->d);
    gsl_matrix *W_Q = mat_new(c->d, c->d_k), *W_K = mat_new(c->d, c->d_k);
    gsl_matrix *W_V = mat_new(c->d, c->d_v), *Ob = mat_new(c->B * c->T_q, c->d_v);
    head_state hs = {0};
    if ((st = Xq && Xkv && W_Q && W_K && W_V && Ob ? ATT_OK : att_alloc_status())) goto done;
    mat_randn(rng, Xq, 1.0);
    if (!c->self) mat_randn(rng, Xkv, 1.0);
    double sw = 1.0 / sqrt((double)c->d);
    mat_randn(rng, W_Q, sw);
    mat_randn(rng, W_K, sw);
    mat_randn(rng, W_V, sw);
    head_params p = head_params_make(W_Q, W_K, W_V);
    // (a refusal by --max-memory is recorded as ATT_EUSAGE: att_last_code)
    if ((st = head_state_alloc(&hs, c->T_q, c->T_k, c->d, c->d_k, c->d_v))) goto done;
    size_t nseq = 0;
    for (size_t b = 0; b < c->B; b++, nseq++) {
        gsl_matrix_const_view xq = gsl_matrix_const_submatrix(Xq, b * c->T_q, 0, c->T_q, c->d);
        gsl_matrix_const_view xkv = gsl_matrix_const_submatrix(Xkv, b * c->T_k, 0, c->T_k, c->d);
        if ((st = head_forward(&hs, &p, &xq.matrix, &xkv.matrix))) goto done;
    }
    gsl_matrix_const_view xq = gsl_matrix_const_submatrix(Xq, 0, 0, c->T_q, c->d);
    gsl_matrix_const_view xkv = gsl_matrix_const_submatrix(Xkv, 0, 0, c->T_k, c->d);
    for (size_t k = 0; k < SHAPES_COUNT; k++) {
        size_t got[3];
        computed_shape(k, &hs, &p, &xq.matrix, &xkv.matrix, nseq, got);
        if ((st = check_add(table, c, "head_forward", &sh[k], got))) goto done;
    }
    if (c->self) {
        if ((st = head_forward_batched(Ob, &p, Xq, c->B, c->T_q))) goto done;
        size_t T = c->T_q, got[3] = {Ob->size1 % T == 0 ? Ob->size1 / T : 0, T, Ob->size2};
        if ((st = check_add(table, c, "head_forward_batched", &sh[SHAPES_COUNT - 1], got)))
            goto done;
    }
done:
    head_state_free(&hs);
    if (Xkv != Xq) mat_free(Xkv);
    mat_free(Xq); mat_free(W_Q); mat_free(W_K); mat_free(W_V); mat_free(Ob);
    return st;
}

/* The same W_Q, W_K, W_V (32, 8) run on X (5, 32) and X (64, 32): the number
 * of the two runs that failed. */
static int same_weights_two_T(gsl_rng *rng, size_t *failed)
{
    size_t d = 32, d_k = 8, d_v = 8;
    gsl_matrix *W_Q = mat_new(d, d_k), *W_K = mat_new(d, d_k), *W_V = mat_new(d, d_v);
    gsl_matrix *X5 = mat_new(5, d), *X64 = mat_new(64, d);
    gsl_matrix *O5 = mat_new(5, d_v), *O64 = mat_new(64, d_v);
    int st = ATT_OK;
    if ((st = W_Q && W_K && W_V && X5 && X64 && O5 && O64 ? ATT_OK : att_alloc_status()))
        goto done;
    mat_randn(rng, W_Q, 0.2); mat_randn(rng, W_K, 0.2); mat_randn(rng, W_V, 0.2);
    mat_randn(rng, X5, 1.0); mat_randn(rng, X64, 1.0);
    head_params p = head_params_make(W_Q, W_K, W_V);
    *failed = (head_output(O5, &p, X5, X5) != ATT_OK) + (head_output(O64, &p, X64, X64) != ATT_OK);
done:
    mat_free(W_Q); mat_free(W_K); mat_free(W_V);
    mat_free(X5); mat_free(X64); mat_free(O5); mat_free(O64);
    return st;
}


static const config CONFIGS[] = {
    {"self small", 2, 5, 5, 8, 4, 3, 1},
    {"self d_v > d_k", 3, 7, 7, 16, 4, 12, 1},
    {"cross T_q < T_k", 2, 5, 9, 8, 4, 6, 0},
    {"cross one query", 4, 1, 12, 10, 2, 5, 0},
    {"cross T_q > T_k", 1, 10, 3, 6, 6, 2, 0},
    {"GPT-2 head", 2, 1024, 1024, 768, 64, 64, 1},
};
enum { NCONFIG = sizeof CONFIGS / sizeof CONFIGS[0] };

static check_table table;   /* shapes.csv: every matrix checked */


/* The values of T (1, 5, 1024, 100,000 at GPT-2 sizes) at which a weight
 * shape from attention_shapes differs from its T = 1 shape. */
static int weights_change_with_T(size_t *differ, size_t *nT)
{
    static const size_t Ts[] = {1, 5, 1024, 100000};
    shape ref[SHAPES_COUNT], sh[SHAPES_COUNT];
    int st = ATT_OK;
    *differ = 0;
    *nT = sizeof Ts / sizeof Ts[0];
    if ((st = attention_shapes(ref, 1, 1, 1, GPT2_D, GPT2_DK, GPT2_DK))) return st;
    for (size_t i = 1; i < *nT; i++) {
        if ((st = attention_shapes(sh, 1, Ts[i], Ts[i], GPT2_D, GPT2_DK, GPT2_DK))) return st;
        int same = 1;
        for (size_t k = 2; k <= 4; k++)      /* W_Q, W_K, W_V */
            same &= !memcmp(sh[k].dim, ref[k].dim, sizeof sh[k].dim);
        *differ += !same;
    }
    return ATT_OK;
}

static int run(experiment *e)
{
    int given;
    config mine = user_config(&given);
    gsl_rng *rng = NULL;
    int st = ATT_OK;
    if ((st = sizes_table(e->o.out_dir, e->o.quiet, &mine)) || sizes_only) goto done;
    // your sizes through head_forward too, when they fit in 256 MiB
    int checked_mine = given && config_doubles(&mine) * sizeof(double) <= 256.0 * 1024 * 1024;
    if (given && !checked_mine && !e->o.quiet)
        printf("(your sizes need more than 256 MiB: not run through head_forward)\n\n");
    // GPT-2: the formula 3 d d_k, and the elements of the weights allocated (then freed)
    size_t count = shapes_head_projection_params(GPT2_D, GPT2_DK, GPT2_DK), allocated = 0;
    // W_Q, W_K (d, d_k) and W_V (d, d_v), d_v = d_k = 64 in GPT-2
    gsl_matrix *W[3] = {mat_new(GPT2_D, GPT2_DK), mat_new(GPT2_D, GPT2_DK),
                        mat_new(GPT2_D, GPT2_DK)};
    int got_W = W[0] && W[1] && W[2];
    for (int k = 0; k < 3; k++) allocated += W[k] ? W[k]->size1 * W[k]->size2 : 0;
    for (int k = 0; k < 3; k++) mat_free(W[k]);
    if ((st = got_W ? ATT_OK : att_alloc_status())) goto done;
    // every configuration through head_forward, on one generator
    rng = rng_new("mt19937", e->o.seed);
    if ((st = rng ? ATT_OK : att_alloc_status())) goto done;
    for (size_t i = 0; i < NCONFIG; i++)
        if ((st = check_config(rng, &table, &CONFIGS[i]))) goto done;
    if (checked_mine && (st = check_config(rng, &table, &mine))) goto done;
    size_t differ = 0, nT = 0, failed = 2;
    if ((st = weights_change_with_T(&differ, &nT))) goto done;
    if ((st = same_weights_two_T(rng, &failed))) goto done;
    if ((st = check_write(e->o.out_dir, &table))) goto done;

    // what the figure draws: the first self-attention configuration's sizes
    const config *f = &CONFIGS[0];
    experiment_meta(e, "T: %zu\nd: %zu\nd_k: %zu\nd_v: %zu\nB: %zu", f->T_q, f->d, f->d_k, f->d_v,
                    f->B);
    experiment_meta(e, "gpt2_d: %d\ngpt2_dk: %d\ngpt2_heads: %d", GPT2_D, GPT2_DK, GPT2_HEADS);

    size_t disagree = count_disagree(&table), nrows = table.n;
    size_t layer = GPT2_HEADS * count;
    verdict_claim(e, "shapesDisagree", 0, verdict_measure_exact((double)disagree, nrows),
              verdict_rule_at_most(0), "matrices whose computed shape differs from "
              "attention_shapes (%zu checked, %d configurations)", nrows,
              (int)NCONFIG + checked_mine);
    experiment_headline(e);
    verdict_claim(e, "shapesWeightsNoT", 0, verdict_measure_exact((double)differ, nT),
              verdict_rule_at_most(0),
              "values of T (1 .. 100,000, %zu) at which a weight shape changes", nT);
    verdict_claim(e, "shapesSameWeightsTwoT", 0, verdict_measure_exact((double)failed, 2),
              verdict_rule_at_most(0), "runs of the same weights at T = 5 and T = 64 that failed");
    verdict_claim(e, "shapesGPTTwoHead", 147456, verdict_measure_exact((double)count, 1),
              verdict_rule_between(147456, 147456),
              "projection weights of one GPT-2 head, 3 x 768 x 64 (formula)");
    verdict_identity(
        e, "shapesGPTTwoAllocated", 147456, verdict_measure_exact((double)allocated, 1),
        verdict_rule_between(147456, 147456), "elements of W_Q, W_K, W_V allocated at GPT-2 sizes");
    verdict_claim(e, "shapesGPTTwoLayer", 1769472, verdict_measure_exact((double)layer, 1),
              verdict_rule_between(1769472, 1769472), "projection weights of 12 GPT-2 heads");
    char g1[32], g2[32];
    experiment_summary(e, "one GPT-2 head has %s projection weights (the section: 3 x 768 x 64 = "
                "147,456), 12 heads %s", grouped(g1, count), grouped(g2, layer));
    experiment_summary(
        e,
        "%zu of %zu matrices have the shape attention_shapes gives (%d configurations); "
        "a weight shape changes at %zu of %zu values of T",
        nrows - disagree, nrows, (int)NCONFIG + checked_mine, differ, nT);
done:
    if (rng) gsl_rng_free(rng);
    return st;
}

int main(int argc, char **argv)
{
    static const experiment_def def = {"shapes", "every matrix's shape in one head, against what "
                                       "the library computes", OPT_SEED, 42, 1, EXTRA, run};
    return experiment_main(&def, argc, argv);
}
