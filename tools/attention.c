/* attention - one attention head on your own matrices.
 *
 * For lecturers who write their own worked examples and exercise solutions:
 * the matrices come from plain numeric CSV files (tools/lib/csvmat.h: one matrix
 * row per line, comma separated, '#' comments, no header), the head is the
 * library's (lib/head.h), and every matrix of the forward pass is written
 * back as CSV with "%.17g" (so it reads back exactly) or printed as a table.
 *
 * Shapes (tokens are rows):
 *   X (T, d)  self-attention: queries, keys and values all come from X
 *   X_q (T_q, d), X_kv (T_k, d)   cross-attention
 *   W_Q, W_K (d, d_k)   W_V (d, d_v)   b_Q, b_K (1, d_k)   b_V (1, d_v)
 *   Q (T_q, d_k) = X_q W_Q + b_Q     K (T_k, d_k) = X_kv W_K + b_K
 *   V (T_k, d_v) = X_kv W_V + b_V    (--rope: Q, K rotated after the bias)
 *   S (T_q, T_k) = scale Q K^T       A = row softmax(S)     O (T_q, d_v) = A V
 *   (--causal: s_ij = -inf for j > i, query i sees keys 1..i only)
 * --wqkv W_QKV (d, 2 d_k + d_v) replaces --wq --wk --wv: the section's
 * fused_self_attention, W_QKV = [W_Q | W_K | W_V] split along its columns
 * (lib/math/fused.h), d_k = d_v = cols / 3 unless --dk / --dv say otherwise;
 * --torch-layout reads the file as nn.Linear's weight (2 d_k + d_v, d) =
 * W_QKV^T. --batch B: the rows of X are B sequences of T = rows / B tokens,
 * stacked (NumPy's X.reshape(B * T, d)); every output is stacked the same way
 * (S and A: (B T_q, T_k)), each sequence attends within itself only.
 * With --grad G (T_q, d_v) = dL/dO for the loss L = sum(G .* O) it also
 * writes dL/dX (T, d) (cross-attention: dX_q (T_q, d) and dX_kv (T_k, d)),
 * dW_Q, dW_K (d, d_k), dW_V (d, d_v), db_Q, db_K (1, d_k) and db_V (1, d_v).
 *
 * Files written into --out DIR: Q.csv K.csv V.csv S.csv A.csv O.csv, with
 * --grad also dX.csv (or dXq.csv dXkv.csv) dW_Q.csv dW_K.csv dW_V.csv
 * db_Q.csv db_K.csv db_V.csv, then attention.meta (provenance) last. Each
 * file starts with one '#' line naming the matrix and its shape; each is
 * written atomically (lib/run/afile.h). Nothing is written unless every step
 * succeeded.
 *
 * Exit status: 0 done, 2 bad usage or input (the message names the option,
 * the file, the line and column, or the two matrices whose shapes do not
 * conform), 3 runtime error (I/O, memory, overflow to inf).
 */
#include "csvmat.h"
#include "fused.h"
#include "head.h"
#include "mat.h"
#include "mem.h"
#include "opts.h"
#include "afile.h"
#include "provenance.h"
#include "table.h"
#include "status.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ID "attention"

/* ---- options --------------------------------------------------------- */

static struct {
    const char *x, *xq, *xkv, *wq, *wk, *wv, *bq, *bk, *bv, *grad;
    const char *tokens, *key_tokens, *features, *wqkv;
    const char *scale_text;
    double scale, rope_base;
    int rope, print, causal, torch_layout;
    size_t dk, dv, batch;
} arg = { .scale = 1.0, .rope_base = 10000.0 };

static const opt_spec EXTRA[] = {
    {"x", OPT_STRING, &arg.x, "FILE", "X (T x d): self-attention input, one token per row"},
    {"xq", OPT_STRING, &arg.xq, "FILE", "X_q (T_q x d): cross-attention queries (with --xkv)"},
    {"xkv", OPT_STRING, &arg.xkv, "FILE", "X_kv (T_k x d): cross-attention keys and values"},
    {"wq", OPT_STRING, &arg.wq, "FILE", "W_Q (d x d_k), required unless --wqkv"},
    {"wk", OPT_STRING, &arg.wk, "FILE", "W_K (d x d_k), required unless --wqkv"},
    {"wv", OPT_STRING, &arg.wv, "FILE", "W_V (d x d_v), required unless --wqkv"},
    {"wqkv", OPT_STRING, &arg.wqkv, "FILE",
     "W_QKV = [W_Q | W_K | W_V] (d x (2 d_k + d_v)), one fused matrix"},
    {"dk", OPT_SIZE, &arg.dk, "N", "with --wqkv: d_k (default cols/3, or (cols - d_v)/2)"},
    {"dv", OPT_SIZE, &arg.dv, "N", "with --wqkv: d_v (default d_k, or cols - 2 d_k)"},
    {"torch-layout", OPT_FLAG, &arg.torch_layout, NULL,
     "with --wqkv: the file is nn.Linear's weight ((2 d_k + d_v) x d, = W_QKV^T)"},
    {"causal", OPT_FLAG, &arg.causal, NULL, "causal mask: query i sees keys j <= i only"},
    {"batch", OPT_SIZE, &arg.batch, "B",
     "X holds B sequences stacked: rows 1..T, T+1..2T, ... (default 1)"},
    {"bq", OPT_STRING, &arg.bq, "FILE", "b_Q: one row of d_k numbers (default none)"},
    {"bk", OPT_STRING, &arg.bk, "FILE", "b_K: one row of d_k numbers (default none)"},
    {"bv", OPT_STRING, &arg.bv, "FILE", "b_V: one row of d_v numbers (default none)"},
    {"scale", OPT_STRING, &arg.scale_text, "S",
     "S = scale Q K^T (default 1 as in the section; "
     "1/sqrt(d_k) is usual): a number or an "
     "expression such as '1/sqrt(2)'"},
    {"rope", OPT_FLAG, &arg.rope, NULL, "rotary position embedding on Q and K (d_k even)"},
    {"rope-base", OPT_DOUBLE, &arg.rope_base, "B",
     "RoPE base, theta_i = B^(-2i/d_k) (default 10000)"},
    {"grad", OPT_STRING, &arg.grad, "FILE", "G = dL/dO (T_q x d_v): also write the gradients"},
    {"print", OPT_FLAG, &arg.print, NULL, "print the matrices as aligned tables on stdout"},
    {"tokens", OPT_STRING, &arg.tokens, "LIST",
     "names of the rows of X (or X_q), a,b,c, for --print"},
    {"key-tokens", OPT_STRING, &arg.key_tokens, "LIST", "names of the rows of X_kv, for --print"},
    {"features", OPT_STRING, &arg.features, "LIST",
     "names of the d_v value columns (of V and O), for --print"},
    {NULL, OPT_FLAG, NULL, NULL, NULL}};

/* --help: the options (opts.c), then print_more_help's text, which ends with
 * the exit status (attention has no verdicts: OPT_OWN_EXIT_HELP). */
static const opts_info INFO = {
    .id = ID,
    .summary = "one attention head on matrices read from CSV files",
    .common = OPT_NO_OUT_DEFAULT | OPT_OWN_EXIT_HELP,
    .extra = EXTRA,
};

static void print_more_help(void)
{
    printf(
"\n"
"Give --x (self-attention) or --xq and --xkv (cross-attention), and either\n"
"--wq, --wk, --wv or one fused --wqkv; give --out DIR, --print, or both\n"
"(without either nothing would happen, so that is an error).\n"
"\n"
"Input files: plain CSV, one matrix row per line, numbers separated by commas,\n"
"lines starting with # are comments, blank lines are skipped, no header. Numbers\n"
"are decimal (1, -2.5, 3e-4); nan, inf, hex, quotes and empty cells are refused.\n"
"Limits: %zu MiB per line, %zu MiB per file, and the whole run within\n"
"--max-memory (default 4G), checked before anything large is allocated.\n"
"\n"
"  Q = X_q W_Q + b_Q   K = X_kv W_K + b_K   V = X_kv W_V + b_V   (then RoPE on Q, K)\n"
"  S = scale Q K^T     (--causal: s_ij = -inf for j > i)\n"
"  A = row softmax(S)  O = A V\n"
"\n"
"--wqkv FILE: the section's fused_self_attention. FILE holds W_QKV (d x\n"
"(2 d_k + d_v)) = [W_Q | W_K | W_V]; QKV = X W_QKV is split along its columns:\n"
"Q the first d_k, K the next d_k, V the last d_v. Without --dk/--dv,\n"
"d_k = d_v = columns / 3. --torch-layout: FILE holds PyTorch's nn.Linear weight\n"
"((2 d_k + d_v) x d, out x in, the transpose of W_QKV), as head.qkv.weight is.\n"
"\n"
"--batch B: B sequences in one file, stacked (a 3-D (B, T, d) array written as\n"
"B T rows: NumPy's X.reshape(B * T, d)); sequence b is rows (b-1)T+1 .. bT.\n"
"Each sequence attends within itself; every output is stacked the same way:\n"
"Q, O (B T_q rows), K, V (B T_k rows), S, A (B T_q x T_k); --grad G is\n"
"(B T_q x d_v) and the weight gradients are sums over the B sequences.\n"
"\n"
"Written into DIR: Q.csv K.csv V.csv S.csv A.csv O.csv (\"%%.17g\": they read back\n"
"exactly), with --grad also dX.csv (cross-attention: dXq.csv dXkv.csv) dW_Q.csv\n"
"dW_K.csv dW_V.csv db_Q.csv db_K.csv db_V.csv, then attention.meta. Files of an\n"
"earlier run that this run does not produce are left alone. Every file is replaced\n"
"atomically: an error or an interruption leaves the earlier version intact.\n"
"\n"
"Extreme scores: the softmax subtracts the row maximum, so any finite score\n"
"(1e300 too) is fine. A score that overflows to +inf takes the row's weight\n"
"(shared equally between several +inf); -inf gets weight 0; a row of only\n"
"-inf or a NaN score is an error (exit 2). Q, K, V, O and the gradients must\n"
"stay finite (exit 3 otherwise); S.csv may then hold inf.\n"
"\n"
"Example, the section's worked example (\"the cat sat\"):\n"
"  bin/attention --x examples/worked/X.csv --wq examples/worked/W_Q.csv \\\n"
"      --wk examples/worked/W_K.csv --wv examples/worked/W_V.csv \\\n"
"      --tokens the,cat,sat --features animal,determiner --print\n"
"\n"
"exit status: 0 done, 2 bad usage or input, 3 runtime error (I/O, memory,\n"
"overflow to inf); never 1 (attention has no verdicts to FAIL)\n",
        CSVMAT_MAX_LINE >> 20, CSVMAT_MAX_BYTES >> 20);
}

/* ---- inputs ---------------------------------------------------------- */

/* *M = the matrix in file `path` given as option `opt`; what is left of the
 * memory budget (bytes) bounds the numbers it may hold. */
static int input_read(gsl_matrix **M, const char *opt, const char *path, size_t *budget)
{
    csvmat_limits lim = csvmat_limits_default();
    size_t cells = *budget / sizeof(double);
    if (cells < lim.max_cells) lim.max_cells = cells ? cells : 1;
    int st = csvmat_read(M, path, &lim);
    if (st) {
        char msg[1024];
        snprintf(msg, sizeof msg, "%s", att_last_error());
        return att_fail(st, "--%s %s", opt, msg);
    }
    size_t b = mat_bytes((*M)->size1, (*M)->size2);
    *budget = b < *budget ? *budget - b : 0;
    return ATT_OK;
}

/* A bias file holds one row of n numbers: b (n). */
static int bias_make(gsl_vector **b, const gsl_matrix *M, const char *opt, const char *path,
                     size_t n, const char *other, const gsl_matrix *W, const char *width)
{
    if (M->size1 != 1 || M->size2 != n)
        return att_fail(ATT_EUSAGE,
                        "shapes do not conform: the bias (--%s %s) is %zu x %zu and %s is "
                        "%zu x %zu: the bias must be one row of %s = %zu numbers",
                        opt, path, M->size1, M->size2, other, W->size1, W->size2, width, n);
    *b = mat_vec_new(n);
    if (*b == NULL) return ATT_ERUNTIME;
    for (size_t j = 0; j < n; j++) gsl_vector_set(*b, j, gsl_matrix_get(M, 0, j));
    return ATT_OK;
}

/* "shapes do not conform" naming two matrices (option, file, shape) and
 * the rule they break: A's columns against B's rows (b_rows) or columns.
 * When one side has exactly twice the columns the other needs, the file
 * may have decimal commas (0,5 read as the two cells 0 and 5): said so. */
static int shape_fail(const char *a, const char *oa, const char *fa, const gsl_matrix *A,
                      const char *b, const char *ob, const char *fb, const gsl_matrix *B,
                      int b_rows, const char *rule, size_t need)
{
    size_t ea = A->size2, eb = b_rows ? B->size1 : B->size2;
    const char *opt = NULL, *file = NULL;
    if (ea == 2 * eb) { opt = oa; file = fa; }
    else if (!b_rows && eb == 2 * ea) { opt = ob; file = fb; }
    char hint[600] = "";
    if (opt)
        snprintf(hint, sizeof hint, " (--%s %s has twice the columns: if its numbers have decimal "
                 "commas, each comma splits a number in two cells: write 0.5, not 0,5)", opt, file);
    return att_fail(ATT_EUSAGE, "shapes do not conform: %s (--%s %s) is %zu x %zu and %s (--%s %s) "
                    "is %zu x %zu: %s%zu%s", a, oa, fa, A->size1, A->size2, b, ob, fb,
                    B->size1, B->size2, rule, need, hint);
}

/* Row names from "a,b,c": exactly n non-empty names into a fresh array. */
static int tokens_split(char ***names, const char *list, size_t n, const char *opt,
                        const char *of, const char *file)
{
    size_t count = 1;
    for (const char *p = list; *p; p++) count += *p == ',';
    if (count != n)
        return att_fail(ATT_EUSAGE, "--%s gives %zu name%s, but %s (%s) has %zu row%s", opt, count,
                        count == 1 ? "" : "s", of, file, n, n == 1 ? "" : "s");
    char **v = calloc(n, sizeof *v);
    if (v == NULL) return att_fail(ATT_ERUNTIME, "out of memory");
    const char *p = list;
    for (size_t i = 0; i < n; i++) {
        size_t len = strcspn(p, ",");
        if (len == 0) {
            for (size_t k = 0; k < i; k++) free(v[k]);
            free(v);
            return att_fail(ATT_EUSAGE, "--%s: name %zu is empty", opt, i + 1);
        }
        v[i] = strndup(p, len);
        if (v[i] == NULL) {
            for (size_t k = 0; k < i; k++) free(v[k]);
            free(v);
            return att_fail(ATT_ERUNTIME, "out of memory");
        }
        p += len + (p[len] == ',');
    }
    *names = v;
    return ATT_OK;
}

static void tokens_free(char **v, size_t n)
{
    if (v == NULL) return;
    for (size_t i = 0; i < n; i++) free(v[i]);
    free(v);
}

/* ---- checks on the results ------------------------------------------- */

static int finite_check(const gsl_matrix *M, const char *name)
{
    for (size_t i = 0; i < M->size1; i++)
        for (size_t j = 0; j < M->size2; j++) {
            double x = gsl_matrix_get(M, i, j);
            if (!isfinite(x))
                return att_fail(ATT_ERUNTIME,
                                "%s (%zu x %zu) has the non-finite entry %g at row %zu, "
                                "column %zu: the inputs are too large for double precision",
                                name, M->size1, M->size2, x, i + 1, j + 1);
        }
    return ATT_OK;
}

static int finite_check_vec(const gsl_vector *v, const char *name)
{
    gsl_matrix_const_view m = gsl_matrix_const_view_vector(v, 1, v->size);
    return finite_check(&m.matrix, name);
}

/* Scores that overflowed to +-inf in S (B T_q rows, stacked); with the
 * causal mask the -inf it puts on keys j > i (i = the row within its
 * sequence of T_q) are by design and not counted. */
static size_t count_inf(const gsl_matrix *M, size_t T_q, int causal)
{
    size_t n = 0;
    for (size_t i = 0; i < M->size1; i++)
        for (size_t j = 0; j < M->size2; j++)
            n += isinf(gsl_matrix_get(M, i, j)) && !(causal && j > i % T_q);
    return n;
}

/* ---- output ---------------------------------------------------------- */

/* One output matrix: a file name, a heading, the matrix (or a vector). */
typedef struct {
    const char *file;         /* "Q.csv"                                    */
    const char *what;         /* "Q = X_q W_Q + b_Q"                        */
    const gsl_matrix *M;      /* (rows, cols)                               */
    char **rows, **cols;      /* labels for --print, or NULL for 1, 2, ...  */
} out_mat;

/* Print M as a table: a label column, then right-aligned "%.6g" columns. */
static void table_print(const out_mat *m)
{
    const gsl_matrix *M = m->M;
    printf("%s   (%zu x %zu)\n", m->what, M->size1, M->size2);
    char cell[64];
    size_t lw = 0;
    for (size_t i = 0; i < M->size1; i++) {
        size_t l = m->rows ? strlen(m->rows[i]) : (size_t)snprintf(cell, sizeof cell, "%zu", i + 1);
        if (l > lw) lw = l;
    }
    size_t *cw = calloc(M->size2, sizeof *cw);
    if (cw == NULL) return;
    for (size_t j = 0; j < M->size2; j++) {
        cw[j] = m->cols ? strlen(m->cols[j]) : (size_t)snprintf(cell, sizeof cell, "%zu", j + 1);
        for (size_t i = 0; i < M->size1; i++) {
            size_t l = (size_t)snprintf(cell, sizeof cell, "%.6g", gsl_matrix_get(M, i, j));
            if (l > cw[j]) cw[j] = l;
        }
    }
    printf("%*s", (int)lw, "");
    for (size_t j = 0; j < M->size2; j++) {
        if (m->cols) printf("  %*s", (int)cw[j], m->cols[j]);
        else printf("  %*zu", (int)cw[j], j + 1);
    }
    printf("\n");
    for (size_t i = 0; i < M->size1; i++) {
        if (m->rows) printf("%-*s", (int)lw, m->rows[i]);
        else printf("%-*zu", (int)lw, i + 1);
        for (size_t j = 0; j < M->size2; j++)
            printf("  %*.6g", (int)cw[j], gsl_matrix_get(M, i, j));
        printf("\n");
    }
    printf("\n");
    free(cw);
}

static size_t wrote_files;         /* files the run wrote (0: say nothing) */

static int file_write(const opts *o, const out_mat *m)
{
    afile af;
    int st = afile_open(&af, o->out_dir, m->file);
    if (st) return st;
    fprintf(af.f, "# %s (%zu x %zu)\n", m->what, m->M->size1, m->M->size2);
    if ((st = csvmat_write(af.f, m->M))) {
        afile_abort(&af);
        return att_fail(st, "write error on %s/%s", o->out_dir, m->file);
    }
    return afile_commit(&af);
}

/* ---- the run --------------------------------------------------------- */

typedef struct {
    gsl_matrix *Xq, *Xkv, *WQ, *WK, *WV, *Bq, *Bk, *Bv, *G;   /* Xkv == Xq: self */
    gsl_vector *bq, *bk, *bv;
    char **qnames, **knames, **fnames;
    size_t B, T_q, T_k;            /* B sequences of T_q queries, T_k keys each */
    head_state st;                 /* one sequence's forward pass               */
    head_grads g;                  /* one sequence's gradients                  */
    /* stacked over the B sequences: Q (B T_q, d_k), K (B T_k, d_k),
     * V (B T_k, d_v), S, A (B T_q, T_k), O (B T_q, d_v) */
    gsl_matrix *Q, *K, *V, *S, *A, *O;
    /* dXq (B T_q, d), dXkv (B T_k, d), dX (self: dXq + dXkv); the weight
     * and bias gradients summed over the sequences */
    gsl_matrix *dXq, *dXkv, *dX, *dWQ, *dWK, *dWV;
    gsl_vector *dbQ, *dbK, *dbV;
} run_data;

static void run_free(run_data *r)
{
    if (r->knames != r->qnames) tokens_free(r->knames, r->Xkv ? r->Xkv->size1 : 0);
    tokens_free(r->qnames, r->Xq ? r->Xq->size1 : 0);
    tokens_free(r->fnames, r->WV ? r->WV->size2 : 0);
    if (r->Xkv != r->Xq) mat_free(r->Xkv);
    mat_free(r->Xq);
    mat_free(r->WQ); mat_free(r->WK); mat_free(r->WV);
    mat_free(r->Bq); mat_free(r->Bk); mat_free(r->Bv); mat_free(r->G);
    mat_vec_free(r->bq); mat_vec_free(r->bk); mat_vec_free(r->bv);
    head_state_free(&r->st);
    if (r->g.dXq) head_grads_free(&r->g);
    mat_free(r->Q); mat_free(r->K); mat_free(r->V); mat_free(r->S); mat_free(r->A); mat_free(r->O);
    mat_free(r->dXq); mat_free(r->dXkv); mat_free(r->dX);
    mat_free(r->dWQ); mat_free(r->dWK); mat_free(r->dWV);
    mat_vec_free(r->dbQ); mat_vec_free(r->dbK); mat_vec_free(r->dbV);
}

/* ---- --scale: a number or a small arithmetic expression --------------- */

/* The grammar, evaluated in IEEE double from left to right as written (so
 * '1/sqrt(2)' is the double 1.0 / sqrt(2.0), what NumPy's 1/np.sqrt(2) is):
 *   expr    = term { ('+' | '-') term }
 *   term    = unary { ('*' | '/') unary }
 *   unary   = ('+' | '-') unary | primary
 *   primary = number | 'sqrt' '(' expr ')' | '(' expr ')'
 *   number  = digits ['.' [digits]] | '.' digits, then [('e' | 'E') ['+' | '-'] digits]
 * Blanks between tokens are skipped. Nothing else is accepted: no names but
 * sqrt, no hex, no nan or inf; a division by zero, the square root of a
 * negative number and a result that is not finite are refused. Nesting is
 * limited (EXPR_DEPTH) so that no input can exhaust the stack. */
enum { EXPR_DEPTH = 64 };
typedef struct { const char *s, *p, *err; int depth; } expr_cur;

static void expr_blank(expr_cur *c) { while (*c->p == ' ' || *c->p == '\t') c->p++; }
static int expr_digit(char ch) { return ch >= '0' && ch <= '9'; }
static double expr_sum(expr_cur *c);

static double expr_primary(expr_cur *c)
{
    expr_blank(c);
    const char *p = c->p;
    if (*p == '(' || strncmp(p, "sqrt", 4) == 0) {
        int is_sqrt = *p != '(';
        if (is_sqrt) { c->p += 4; expr_blank(c); }
        if (*c->p != '(') { c->err = "expected '(' after sqrt"; return 0; }
        if (++c->depth > EXPR_DEPTH) { c->err = "more than 64 nested parentheses"; return 0; }
        c->p++;
        double v = expr_sum(c);
        if (c->err) return 0;
        expr_blank(c);
        if (*c->p != ')') { c->err = "expected ')'"; return 0; }
        c->p++;
        c->depth--;
        if (is_sqrt && v < 0) {
            c->err = "the square root of a negative number";
            c->p = p;
            return 0;
        }
        return is_sqrt ? sqrt(v) : v;
    }
    // a decimal number: checked by hand, then read by strtod
    const char *q = p;
    int digits = 0;
    while (expr_digit(*q)) { q++; digits++; }
    if (*q == '.') { q++; while (expr_digit(*q)) { q++; digits++; } }
    if (digits == 0) { c->err = "expected a number, sqrt( or ("; return 0; }
    if (q - p == 1 && *p == '0' && (*q == 'x' || *q == 'X')) {
        c->err = "a hexadecimal number: write it in decimal"; c->p = q; return 0;
    }
    if (*q == 'e' || *q == 'E') {
        const char *e = q + 1 + (q[1] == '+' || q[1] == '-');
        if (!expr_digit(*e)) {
            c->err = "expected digits after the exponent's e";
            c->p = q;
            return 0;
        }
        while (expr_digit(*e)) e++;
        q = e;
    }
    char buf[128];
    size_t len = (size_t)(q - p);
    if (len >= sizeof buf) { c->err = "a number of more than 127 characters"; return 0; }
    memcpy(buf, p, len);
    buf[len] = '\0';
    c->p = q;
    return strtod(buf, NULL);
}

static double expr_unary(expr_cur *c)
{
    expr_blank(c);
    if (*c->p == '+' || *c->p == '-') {
        int neg = *c->p == '-';
        c->p++;
        if (++c->depth > EXPR_DEPTH) { c->err = "more than 64 signs in a row"; return 0; }
        double v = expr_unary(c);
        c->depth--;
        return neg ? -v : v;
    }
    return expr_primary(c);
}

static double expr_term(expr_cur *c)
{
    double v = expr_unary(c);
    for (;;) {
        if (c->err) return 0;
        expr_blank(c);
        char op = *c->p;
        if (op != '*' && op != '/') return v;
        const char *at = c->p++;
        double w = expr_unary(c);
        if (c->err) return 0;
        if (op == '/' && w == 0) { c->err = "a division by zero"; c->p = at; return 0; }
        v = op == '*' ? v * w : v / w;
    }
}

static double expr_sum(expr_cur *c)
{
    double v = expr_term(c);
    for (;;) {
        if (c->err) return 0;
        expr_blank(c);
        char op = *c->p;
        if (op != '+' && op != '-') return v;
        c->p++;
        double w = expr_term(c);
        if (c->err) return 0;
        v = op == '+' ? v + w : v - w;
    }
}

/* *out = the value of the expression s (the grammar above), or exit-2 usage
 * error naming the option, the text and the character where it went wrong. */
static int parse_scale(const char *s, double *out, const char *what)
{
    if (s == NULL || *s == '\0')
        return att_fail(ATT_EUSAGE, "%s: empty value, expected a number or an expression "
                        "such as 1/sqrt(2)", what);
    const char *h = s + (*s == '+' || *s == '-');     /* the options' rule (opts.c) */
    if (h[0] == '0' && (h[1] == 'x' || h[1] == 'X'))
        return att_fail(ATT_EUSAGE, "%s: '%.60s' is a hexadecimal number; write it in decimal",
                        what, s);
    expr_cur c = { s, s, NULL, 0 };
    double v = expr_sum(&c);
    if (!c.err) {
        expr_blank(&c);
        if (*c.p != '\0')
            c.err = *c.p == ',' ? "a comma (write the decimal point as '.')"
                                : "expected + - * / or the end";
    }
    if (c.err) {
        size_t col = (size_t)(c.p - s) + 1;
        if (*c.p == '\0')
            return att_fail(ATT_EUSAGE, "%s '%.60s': at its end, %s (a "
                            "number, or numbers with + - * / ( ) and sqrt(), e.g. 1/sqrt(2))",
                            what, s, c.err);
        return att_fail(ATT_EUSAGE, "%s '%.60s': at character %zu ('%c'), %s (a number, or "
                        "numbers with + - * / ( ) and sqrt(), e.g. 1/sqrt(2))", what, s, col,
                        *c.p, c.err);
    }
    if (!isfinite(v))
        return att_fail(ATT_EUSAGE, "%s '%.60s': the value is not finite", what, s);
    *out = v;
    return ATT_OK;
}

/* The option combinations that make a run. */
static int args_check(const opts *o)
{
    int cross = arg.xq || arg.xkv, separate = arg.wq || arg.wk || arg.wv;
    if (arg.scale_text && parse_scale(arg.scale_text, &arg.scale, "--scale")) return ATT_EUSAGE;
    if (arg.x && cross)
        return att_fail(ATT_EUSAGE, "give either --x (self-attention) or --xq and --xkv "
                        "(cross-attention), not both");
    if (!arg.x && !cross)
        return att_fail(ATT_EUSAGE, "no input: give --x X.csv (self-attention) or --xq and --xkv "
                        "(cross-attention); see --help");
    if (cross && !(arg.xq && arg.xkv))
        return att_fail(ATT_EUSAGE, "cross-attention needs both --xq and --xkv (%s is missing)",
                        arg.xq ? "--xkv" : "--xq");
    if (arg.wqkv && separate)
        return att_fail(ATT_EUSAGE,
                        "give either --wqkv (one fused W_QKV) or --wq, --wk and --wv, "
                        "not both (%s given with --wqkv)",
                        arg.wq   ? "--wq"
                        : arg.wk ? "--wk"
                                 : "--wv");
    if (!arg.wqkv && (!arg.wq || !arg.wk || !arg.wv))
        return att_fail(ATT_EUSAGE,
                        "the weights are required: --wq, --wk and --wv (%s is missing), "
                        "or one fused --wqkv",
                        !arg.wq   ? "--wq"
                        : !arg.wk ? "--wk"
                                  : "--wv");
    if (!arg.wqkv && (arg.dk || arg.dv || arg.torch_layout))
        return att_fail(ATT_EUSAGE, "%s splits a fused weight: it needs --wqkv",
                        arg.dk ? "--dk" : arg.dv ? "--dv" : "--torch-layout");
    if (!o->out_dir && !arg.print)
        return att_fail(ATT_EUSAGE, "nothing to do: give --out DIR to write CSV files, "
                        "--print for tables, or both");
    if (arg.key_tokens && !cross)
        return att_fail(ATT_EUSAGE, "--key-tokens names the rows of --xkv (cross-attention); "
                        "with --x, --tokens names both");
    if (!(arg.rope_base > 0.0))
        return att_fail(ATT_EUSAGE, "--rope-base %g: must be > 0", arg.rope_base);
    return ATT_OK;
}

/* d_k and d_v of a fused weight with n = 2 d_k + d_v columns, from --dk,
 * --dv or (neither) d_k = d_v = n / 3. */
static int fused_widths(size_t n, size_t *d_k, size_t *d_v)
{
    if (arg.dk && arg.dv) {
        if (arg.dk > (SIZE_MAX - arg.dv) / 2 || 2 * arg.dk + arg.dv != n)
            return att_fail(ATT_EUSAGE,
                            "--dk %zu --dv %zu: W_QKV (--wqkv %s) has %zu columns, but "
                            "2 d_k + d_v = %zu x 2 + %zu",
                            arg.dk, arg.dv, arg.wqkv, n, arg.dk, arg.dv);
        *d_k = arg.dk, *d_v = arg.dv;
    } else if (arg.dk) {
        if (arg.dk >= n || 2 * arg.dk >= n)
            return att_fail(ATT_EUSAGE,
                            "--dk %zu: W_QKV (--wqkv %s) has %zu columns, which leaves "
                            "no column for V (2 d_k + d_v = %zu needs d_v >= 1)",
                            arg.dk, arg.wqkv, n, n);
        *d_k = arg.dk, *d_v = n - 2 * arg.dk;
    } else if (arg.dv) {
        if (arg.dv + 2 > n || (n - arg.dv) % 2 != 0)
            return att_fail(ATT_EUSAGE,
                            "--dv %zu: W_QKV (--wqkv %s) has %zu columns; 2 d_k = %zu - d_v "
                            "must be even and >= 2",
                            arg.dv, arg.wqkv, n, n);
        *d_k = (n - arg.dv) / 2, *d_v = arg.dv;
    } else {
        if (n % 3 != 0)
            return att_fail(ATT_EUSAGE,
                            "W_QKV (--wqkv %s) has %zu columns, not 3 d_k: give --dk and "
                            "--dv for a fused weight with d_v != d_k (2 d_k + d_v = %zu)",
                            arg.wqkv, n, n);
        *d_k = *d_v = n / 3;
    }
    return ATT_OK;
}

/* --wqkv: W_QKV (d, 2 d_k + d_v) = [W_Q | W_K | W_V], or with --torch-layout
 * its transpose ((2 d_k + d_v), d) as nn.Linear stores it; split into the
 * three column blocks (X W_QKV split = X W_Q | X W_K | X W_V, fused.h). */
static int wqkv_load(run_data *r, const char *nx, const char *ox, const char *fx, size_t *budget)
{
    gsl_matrix *M = NULL, *W = NULL;
    size_t d = r->Xq->size2, d_k = 0, d_v = 0;
    int st = input_read(&M, "wqkv", arg.wqkv, budget);
    if (st) return st;
    if (arg.torch_layout) {
        if (M->size2 != d)
            st = att_fail(
                ATT_EUSAGE,
                "shapes do not conform: with --torch-layout, W (--wqkv %s) is read "
                "as nn.Linear's weight ((2 d_k + d_v) x d); it is %zu x %zu and %s (--%s %s) is "
                "%zu x %zu, so it needs d = %zu columns%s",
                arg.wqkv, M->size1, M->size2, nx, ox, fx, r->Xq->size1, d, d,
                M->size1 == d ? " (it has d rows: it looks like the "
                                "section's W_QKV (d x (2 d_k + d_v)); drop --torch-layout)"
                              : "");
        else if ((W = mat_new(M->size2, M->size1)) == NULL) st = att_alloc_status();
        else gsl_matrix_transpose_memcpy(W, M);          /* W_QKV = (nn.Linear weight)^T */
        mat_free(M);
    } else {
        if (M->size1 != d)
            st = att_fail(ATT_EUSAGE,
                          "shapes do not conform: W_QKV (--wqkv %s) is %zu x %zu and %s (--%s %s) "
                          "is %zu x %zu: W_QKV needs one row per column of X, d = %zu%s",
                          arg.wqkv, M->size1, M->size2, nx, ox, fx, r->Xq->size1, d, d,
                          M->size2 == d
                              ? " (it has d columns: it looks like PyTorch's nn.Linear weight "
                                "((2 d_k + d_v) x d, head.qkv.weight); add --torch-layout)"
                              : "");
        W = M;
    }
    if (st == ATT_OK) st = fused_widths(W->size2, &d_k, &d_v);
    // W_QKV = [W_Q | W_K | W_V]: Q = X W_QKV[:, 0:d_k], K = X W_QKV[:, d_k:2 d_k],
    // V = X W_QKV[:, 2 d_k:], the section's split of the one product
    if (st == ATT_OK && (!(r->WQ = mat_new(d, d_k)) || !(r->WK = mat_new(d, d_k)) ||
                         !(r->WV = mat_new(d, d_v))))
        st = att_alloc_status();
    if (st == ATT_OK) st = fused_unpack(r->WQ, r->WK, r->WV, W);
    mat_free(W);
    return st;
}

/* --batch B: the rows of X (n of them) are B sequences of n / B rows. */
static int batch_rows(size_t *T, size_t n, const char *name, const char *opt, const char *file)
{
    if (n % arg.batch != 0)
        return att_fail(ATT_EUSAGE,
                        "--batch %zu: %s (--%s %s) has %zu rows, not a multiple of B = %zu "
                        "(B sequences of T rows each, stacked)",
                        arg.batch, name, opt, file, n, arg.batch);
    *T = n / arg.batch;
    return ATT_OK;
}

/* Read every input and check that the shapes conform. */
static int inputs_load(run_data *r, const opts *o)
{
    size_t budget = o->max_memory;
    int st;
    const char *fq = arg.x ? arg.x : arg.xq, *fkv = arg.x ? arg.x : arg.xkv;
    const char *nq = arg.x ? "X" : "X_q", *nkv = arg.x ? "X" : "X_kv";
    const char *oq = arg.x ? "x" : "xq", *okv = arg.x ? "x" : "xkv";
    if ((st = input_read(&r->Xq, oq, fq, &budget))) return st;
    if (arg.x) r->Xkv = r->Xq;
    else if ((st = input_read(&r->Xkv, "xkv", fkv, &budget))) return st;
    if (r->Xkv->size2 != r->Xq->size2)
        return shape_fail("X_q", "xq", fq, r->Xq, "X_kv", "xkv", fkv, r->Xkv, 0,
                          "queries and keys need the same width, d = ", r->Xq->size2);
    r->B = arg.batch ? arg.batch : 1;
    if (!arg.batch) arg.batch = 1;
    if ((st = batch_rows(&r->T_q, r->Xq->size1, nq, oq, fq)) ||
        (st = batch_rows(&r->T_k, r->Xkv->size1, nkv, okv, fkv)))
        return st;

    // the weights: three files, or one fused W_QKV split in three
    const char *fwq = arg.wqkv ? arg.wqkv : arg.wq;
    const char *owq = arg.wqkv ? "wqkv" : "wq";
    if (arg.wqkv) {
        if ((st = wqkv_load(r, nq, oq, fq, &budget))) return st;
    } else {
        if ((st = input_read(&r->WQ, "wq", arg.wq, &budget))) return st;
        if ((st = input_read(&r->WK, "wk", arg.wk, &budget))) return st;
        if ((st = input_read(&r->WV, "wv", arg.wv, &budget))) return st;
        // d: the width of X_q, X_kv and the rows of every W; d_k: W_Q and W_K
        if (r->WQ->size1 != r->Xq->size2)
            return shape_fail(nq, oq, fq, r->Xq, "W_Q", "wq", arg.wq, r->WQ, 1,
                              "W_Q needs one row per column of X, d = ", r->Xq->size2);
        if (r->WK->size1 != r->Xkv->size2)
            return shape_fail(nkv, okv, fkv, r->Xkv, "W_K", "wk", arg.wk, r->WK, 1,
                              "W_K needs one row per column of X, d = ", r->Xkv->size2);
        if (r->WV->size1 != r->Xkv->size2)
            return shape_fail(nkv, okv, fkv, r->Xkv, "W_V", "wv", arg.wv, r->WV, 1,
                              "W_V needs one row per column of X, d = ", r->Xkv->size2);
        if (r->WK->size2 != r->WQ->size2)
            return shape_fail(
                "W_Q", "wq", arg.wq, r->WQ, "W_K", "wk", arg.wk, r->WK, 0,
                "queries and keys need the same number of columns, d_k = ", r->WQ->size2);
    }
    if (arg.rope && r->WQ->size2 % 2 != 0)
        return att_fail(ATT_EUSAGE,
                        "--rope rotates pairs of coordinates: d_k must be even, but W_Q "
                        "(--%s %s) has d_k = %zu columns",
                        owq, fwq, r->WQ->size2);

    size_t d_k = r->WQ->size2, d_v = r->WV->size2;
    if (arg.bq && ((st = input_read(&r->Bq, "bq", arg.bq, &budget)) ||
                   (st = bias_make(&r->bq, r->Bq, "bq", arg.bq, d_k, "W_Q", r->WQ, "d_k"))))
        return st;
    if (arg.bk && ((st = input_read(&r->Bk, "bk", arg.bk, &budget)) ||
                   (st = bias_make(&r->bk, r->Bk, "bk", arg.bk, d_k, "W_K", r->WK, "d_k"))))
        return st;
    if (arg.bv && ((st = input_read(&r->Bv, "bv", arg.bv, &budget)) ||
                   (st = bias_make(&r->bv, r->Bv, "bv", arg.bv, d_v, "W_V", r->WV, "d_v"))))
        return st;
    if (arg.grad) {
        if ((st = input_read(&r->G, "grad", arg.grad, &budget))) return st;
        if (r->G->size1 != r->Xq->size1 || r->G->size2 != d_v)
            return att_fail(
                ATT_EUSAGE,
                "shapes do not conform: G (--grad %s) is %zu x %zu and O = A V is "
                "%zu x %zu (%s rows of %s, d_v columns of W_V): G = dL/dO must have O's shape",
                arg.grad, r->G->size1, r->G->size2, r->Xq->size1, d_v, r->B > 1 ? "B T_q" : "T_q",
                nq);
    }
    if (arg.tokens &&
        (st = tokens_split(&r->qnames, arg.tokens, r->Xq->size1, "tokens", nq, fq)))
        return st;
    if (arg.key_tokens &&
        (st = tokens_split(&r->knames, arg.key_tokens, r->Xkv->size1, "key-tokens", nkv, fkv)))
        return st;
    if (arg.features &&
        (st = tokens_split(&r->fnames, arg.features, d_v, "features",
                           "V (the d_v value columns of W_V)", arg.wqkv ? arg.wqkv : arg.wv)))
        return st;
    if (arg.x) r->knames = r->qnames;
    return ATT_OK;
}

/* Row labels "b:t" (sequence b, position t) for a batch printed without
 * names; NULL (1, 2, ...) for one sequence. */
static char **batch_labels(size_t B, size_t T)
{
    if (B < 2) return NULL;
    char **v = calloc(B * T, sizeof *v);
    for (size_t i = 0; v && i < B * T; i++) {
        char buf[48];
        snprintf(buf, sizeof buf, "%zu:%zu", i / T + 1, i % T + 1);
        if ((v[i] = strdup(buf)) == NULL) { tokens_free(v, B * T); return NULL; }
    }
    return v;
}

static int outputs_emit(const opts *o, run_data *r)
{
    int cross = r->Xkv != r->Xq;
    out_mat m[16];
    size_t n = 0;
    char **gq = r->qnames ? NULL : batch_labels(r->B, r->T_q);
    char **gk = r->knames ? NULL : cross ? batch_labels(r->B, r->T_k) : gq;
    char **q = r->qnames ? r->qnames : gq, **k = r->knames ? r->knames : gk, **f = r->fnames;
    char **kc = r->B > 1 ? NULL : k;          /* S, A columns: one sequence's keys */
    // headings: the formula of each matrix as this run computed it
    const char *xq = cross ? "X_q" : "X", *xkv = cross ? "X_kv" : "X";
    char qwhat[96], kwhat[96], vwhat[96], swhat[160], bwhat[64] = "";
    if (r->B > 1) snprintf(bwhat, sizeof bwhat, ", %zu sequences stacked", r->B);
    snprintf(qwhat, sizeof qwhat, "Q = %s%s W_Q%s%s%s", arg.rope ? "rope(" : "", xq,
             r->bq ? " + b_Q" : "", arg.rope ? ")" : "", bwhat);
    snprintf(kwhat, sizeof kwhat, "K = %s%s W_K%s%s%s", arg.rope ? "rope(" : "", xkv,
             r->bk ? " + b_K" : "", arg.rope ? ")" : "", bwhat);
    snprintf(vwhat, sizeof vwhat, "V = %s W_V%s%s", xkv, r->bv ? " + b_V" : "", bwhat);
    char sc[32] = "";
    if (arg.scale != 1.0) snprintf(sc, sizeof sc, "%.6g ", arg.scale);
    snprintf(swhat, sizeof swhat, "S = %sQ K^T%s (rows: queries, columns: keys%s)", sc,
             arg.causal ? ", causal: -inf for j > i" : "", bwhat);
    m[n++] = (out_mat){ "Q.csv", qwhat, r->Q, q, NULL };
    m[n++] = (out_mat){ "K.csv", kwhat, r->K, k, NULL };
    m[n++] = (out_mat){ "V.csv", vwhat, r->V, k, f };
    m[n++] = (out_mat){ "S.csv", swhat, r->S, q, kc };
    m[n++] = (out_mat){ "A.csv", "A = row softmax(S)", r->A, q, kc };
    m[n++] = (out_mat){ "O.csv", "O = A V", r->O, q, f };

    gsl_matrix_view db[3];
    if (arg.grad) {
        if (cross) {
            m[n++] = (out_mat){ "dXq.csv", "dX_q = dL/dX_q", r->dXq, q, NULL };
            m[n++] = (out_mat){ "dXkv.csv", "dX_kv = dL/dX_kv", r->dXkv, k, NULL };
        } else {
            m[n++] = (out_mat){ "dX.csv", "dX = dL/dX (both paths: queries, keys and values)",
                                r->dX, q, NULL };
        }
        m[n++] = (out_mat){ "dW_Q.csv", "dW_Q = dL/dW_Q", r->dWQ, NULL, NULL };
        m[n++] = (out_mat){ "dW_K.csv", "dW_K = dL/dW_K", r->dWK, NULL, NULL };
        m[n++] = (out_mat){ "dW_V.csv", "dW_V = dL/dW_V", r->dWV, NULL, f };
        db[0] = gsl_matrix_view_vector(r->dbQ, 1, r->dbQ->size);
        db[1] = gsl_matrix_view_vector(r->dbK, 1, r->dbK->size);
        db[2] = gsl_matrix_view_vector(r->dbV, 1, r->dbV->size);
        m[n++] = (out_mat){ "db_Q.csv", "db_Q = dL/db_Q", &db[0].matrix, NULL, NULL };
        m[n++] = (out_mat){"db_K.csv",
                           arg.rope ? "db_K = dL/db_K"
                                    : "db_K = dL/db_K (zero without RoPE, up to rounding)",
                           &db[1].matrix, NULL, NULL};
        m[n++] = (out_mat){ "db_V.csv", "db_V = dL/db_V", &db[2].matrix, NULL, f };
    }

    if (arg.print)
        for (size_t i = 0; i < n; i++) table_print(&m[i]);
    int st = ATT_OK;
    if (o->out_dir != NULL) {
        for (size_t i = 0; i < n && !st; i++) st = file_write(o, &m[i]);
        char extra[4096];
        int len = snprintf(extra, sizeof extra,
                           "mode: %s\nscale: %.17g\nrope: %s\ncausal: %s\n"
                           "batch: %zu\nweights: %s\nfiles:",
                           cross ? "cross-attention" : "self-attention", arg.scale,
                           arg.rope ? "on" : "off", arg.causal ? "on" : "off", r->B,
                           !arg.wqkv          ? "W_Q, W_K, W_V"
                           : arg.torch_layout ? "W_QKV^T (nn.Linear layout)"
                                              : "W_QKV (fused)");
        for (size_t i = 0; i < n && len > 0 && (size_t)len < sizeof extra; i++)
            len += snprintf(extra + len, sizeof extra - (size_t)len, " %s", m[i].file);
        if (!st) st = provenance_write_meta(o, extra);
        /* said in main, once the release put them there (opts_exit) */
        if (!st && opts_verbose(o) && !arg.print) wrote_files = n;
    }
    if (gk != gq) tokens_free(gk, r->B * r->T_k);
    tokens_free(gq, r->B * r->T_q);
    return st;
}

/* The stacked outputs and, with --grad, the stacked/summed gradients. */
static int stacked_alloc(run_data *r, size_t d, size_t d_k, size_t d_v)
{
    size_t BTq = r->B * r->T_q, BTk = r->B * r->T_k;
    r->Q = mat_new(BTq, d_k); r->K = mat_new(BTk, d_k); r->V = mat_new(BTk, d_v);
    r->S = mat_new(BTq, r->T_k); r->A = mat_new(BTq, r->T_k); r->O = mat_new(BTq, d_v);
    if (!r->Q || !r->K || !r->V || !r->S || !r->A || !r->O) return att_alloc_status();
    if (!arg.grad) return ATT_OK;
    r->dXq = mat_new(BTq, d); r->dXkv = mat_new(BTk, d);
    r->dWQ = mat_new(d, d_k); r->dWK = mat_new(d, d_k); r->dWV = mat_new(d, d_v);
    r->dbQ = mat_vec_new(d_k); r->dbK = mat_vec_new(d_k); r->dbV = mat_vec_new(d_v);
    if (!r->dXq || !r->dXkv || !r->dWQ || !r->dWK || !r->dWV || !r->dbQ || !r->dbK || !r->dbV)
        return att_alloc_status();
    gsl_matrix_set_zero(r->dWQ); gsl_matrix_set_zero(r->dWK); gsl_matrix_set_zero(r->dWV);
    gsl_vector_set_zero(r->dbQ); gsl_vector_set_zero(r->dbK); gsl_vector_set_zero(r->dbV);
    return ATT_OK;
}

/* Rows [row, row + M->size1) of the stacked D = M. */
static void rows_put(gsl_matrix *D, size_t row, const gsl_matrix *M)
{
    gsl_matrix_view v = gsl_matrix_submatrix(D, row, 0, M->size1, M->size2);
    gsl_matrix_memcpy(&v.matrix, M);
}

/* Sequence b: the forward pass (and backward with --grad), its results
 * copied into the stacked outputs, its weight gradients added to the sums. */
static int sequence_run(run_data *r, const head_params *p, size_t b)
{
    size_t d = r->Xq->size2, T_q = r->T_q, T_k = r->T_k;
    gsl_matrix_const_view xq = gsl_matrix_const_submatrix(r->Xq, b * T_q, 0, T_q, d);
    gsl_matrix_const_view xkv = gsl_matrix_const_submatrix(r->Xkv, b * T_k, 0, T_k, d);
    // forward: Q, K, V, S = scale Q K^T (causal: mask), A = softmax(S), O = A V
    int st = head_forward(&r->st, p, &xq.matrix, &xkv.matrix);
    // Q, K, V come first in the pass: an overflow there is the root cause of
    // any later failure (a NaN score, say), so it is the one reported
    int fst;
    if ((fst = finite_check(r->st.Q, "Q")) || (fst = finite_check(r->st.K, "K")) ||
        (fst = finite_check(r->st.V, "V")))
        st = fst;
    if (st == ATT_OK) st = finite_check(r->st.O, "O");
    if (st) return st;
    rows_put(r->Q, b * T_q, r->st.Q); rows_put(r->K, b * T_k, r->st.K);
    rows_put(r->V, b * T_k, r->st.V); rows_put(r->S, b * T_q, r->st.S);
    rows_put(r->A, b * T_q, r->st.A); rows_put(r->O, b * T_q, r->st.O);
    if (!arg.grad) return ATT_OK;

    // backward from G_b = dL/dO_b (rows of sequence b); dW, db summed over b
    gsl_matrix_const_view g = gsl_matrix_const_submatrix(r->G, b * T_q, 0, T_q, r->G->size2);
    if ((st = head_backward(&r->g, &r->st, p, &xq.matrix, &xkv.matrix, &g.matrix))) return st;
    rows_put(r->dXq, b * T_q, r->g.dXq);
    rows_put(r->dXkv, b * T_k, r->g.dXkv);
    gsl_matrix_add(r->dWQ, r->g.dW_Q); gsl_matrix_add(r->dWK, r->g.dW_K);
    gsl_matrix_add(r->dWV, r->g.dW_V);
    gsl_vector_add(r->dbQ, r->g.db_Q); gsl_vector_add(r->dbK, r->g.db_K);
    gsl_vector_add(r->dbV, r->g.db_V);
    return ATT_OK;
}

static int run(const opts *o)
{
    run_data r = { 0 };
    int st = args_check(o);
    if (st == ATT_OK) st = inputs_load(&r, o);
    if (st) { run_free(&r); return st; }

    // every allocation below counts against --max-memory (mem.h): a run too
    // large stops at its first matrix that does not fit, before any file
    size_t d = r.Xq->size2, d_k = r.WQ->size2, d_v = r.WV->size2;

    head_params p = head_params_make(r.WQ, r.WK, r.WV);
    p.b_Q = r.bq; p.b_K = r.bk; p.b_V = r.bv;
    p.scale = arg.scale;
    p.rope = arg.rope;
    p.rope_base = arg.rope_base;
    p.causal = arg.causal;

    if ((st = head_state_alloc(&r.st, r.T_q, r.T_k, d, d_k, d_v)) ||
        (arg.grad && (st = head_grads_alloc(&r.g, r.T_q, r.T_k, d, d_k, d_v))) ||
        (st = stacked_alloc(&r, d, d_k, d_v))) {
        run_free(&r);
        return st;
    }
    // each of the B sequences attends within itself
    for (size_t b = 0; b < r.B && !st; b++) st = sequence_run(&r, &p, b);
    if (st) { run_free(&r); return st; }
    size_t ninf = count_inf(r.S, r.T_q, arg.causal);
    if (ninf && opts_verbose(o))
        fprintf(stderr, "attention: note: %zu score%s overflowed to +-inf; A follows the softmax "
                "policy (+inf shares the row's weight, -inf gets 0)\n", ninf, ninf == 1 ? "" : "s");

    // self-attention: dX = dX_q + dX_kv (X feeds both paths)
    if (arg.grad) {
        if (r.Xkv == r.Xq) {
            if ((r.dX = mat_dup(r.dXq)) == NULL) { run_free(&r); return att_alloc_status(); }
            gsl_matrix_add(r.dX, r.dXkv);
        }
        if ((st = finite_check(r.dX ? r.dX : r.dXq, r.dX ? "dX" : "dX_q")) ||
            (st = finite_check(r.dXkv, "dX_kv")) || (st = finite_check(r.dWQ, "dW_Q")) ||
            (st = finite_check(r.dWK, "dW_K")) || (st = finite_check(r.dWV, "dW_V")) ||
            (st = finite_check_vec(r.dbQ, "db_Q")) || (st = finite_check_vec(r.dbK, "db_K")) ||
            (st = finite_check_vec(r.dbV, "db_V"))) {
            run_free(&r);
            return st;
        }
    }
    st = outputs_emit(o, &r);
    run_free(&r);
    return st;
}

int main(int argc, char **argv)
{
    att_init();
    opts o;
    int st = opts_parse(&o, &INFO, argc, argv);
    if (st == ATT_HELP) print_more_help();
    // every matrix of the run is counted against --max-memory (mem.h)
    if (st == ATT_OK) mem_set_budget(o.max_memory, "--max-memory");
    if (st == ATT_OK) st = run(&o);
    st = opts_exit(&o, st);         /* the release: every file in place, or none */
    if (st == ATT_OK && wrote_files)
        printf("attention: wrote %zu files and attention.meta into %s\n", wrote_files, o.out_dir);
    return st;
}
