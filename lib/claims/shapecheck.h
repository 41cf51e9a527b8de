/* shapecheck.h - the tables of the shapes experiment.
 *
 * The shapes table (shapes.csv): one row per matrix of a configuration, the
 * shape attention_shapes() gives (lib/math/shapes.h) beside the one a head
 * really computed, and whether they agree. The sizes table
 * (shapes_sizes.csv, and printed): the section's attention_shapes table for
 * one set of sizes, every matrix's shape and role, and the projection
 * weight count d (2 d_k + d_v).
 */
#ifndef ATT_SHAPECHECK_H
#define ATT_SHAPECHECK_H

#include <stddef.h>
#include <gsl/gsl_matrix.h>
#include <gsl/gsl_rng.h>
#include "head.h"
#include "opts.h"
#include "shapes.h"

typedef struct {
    const char *name;
    size_t B, T_q, T_k, d, d_k, d_v;
    int self;            /* self-attention: T_q = T_k and X_q = X_kv */
} shapecheck_config;

/* One row per matrix: the shape attention_shapes gives, the one computed. */
typedef struct {
    const char *config, *kind, *matrix, *shape, *computed;
    size_t B, T_q, T_k, d, d_k, d_v, dim0, dim1, dim2, got0, got1, got2;
    int agree;
    char shape_s[48], computed_s[48];
} shapecheck_row;

enum { SHAPECHECK_MAX_ROWS = 8 * (SHAPES_COUNT + 1) };
typedef struct {
    shapecheck_row row[SHAPECHECK_MAX_ROWS];
    size_t n;
} shapecheck_table;

/* Add the row of matrix `want` of configuration c, as `kind` computed it
 * (got: its dimensions, 0 past its rank). ATT_ERUNTIME when the table is full. */
int shapecheck_add(shapecheck_table *t, const shapecheck_config *c, const char *kind, const shape *want,
                   const size_t got[3]);
/* The rows whose computed shape differs from attention_shapes'. */
size_t shapecheck_disagree(const shapecheck_table *t);
/* dir/shapes.csv */
int shapecheck_write(const char *dir, const shapecheck_table *t);

/* The computed shape of matrix k (attention_shapes' order X_q, X_kv, W_Q,
 * W_K, W_V, Q, K, V, S, A, O) after a head ran on nseq sequences: a weight
 * (rows, cols, 0), an activation (nseq, rows, cols) of one sequence's state. */
void shapecheck_computed(size_t k, const head_state *st, const head_params *p, const gsl_matrix *Xq,
                         const gsl_matrix *Xkv, size_t nseq, size_t got[3]);

/* The doubles a configuration's check allocates: X_q, X_kv, the weights,
 * the batched output and one head state (in double: no overflow). */
double shapecheck_doubles(const shapecheck_config *c);

/* The section's attention_shapes table for c: dir/shapes_sizes.csv
 * (name,rank,dim0,dim1,dim2,elements, then "params") and, unless quiet, the
 * table on stdout. ATT_EUSAGE when the weight count overflows. */
int shapecheck_sizes_table(const char *dir, int quiet, const shapecheck_config *c);

/* The options --B --Tq --Tk --d --dk --dv (NULL-terminated), and the
 * sizes they give with the defaults filled in: GPT-2's head (B 1, T 1024,
 * d 768, d_k = d_v = 64), --Tq alone means T_k = T_q, --dk alone d_v = d_k;
 * *given: whether any was given. */
enum { SHAPECHECK_GPT2_D = 768, SHAPECHECK_GPT2_DK = 64, SHAPECHECK_GPT2_T = 1024 };
const opt_spec *shapecheck_options(void);
shapecheck_config shapecheck_user(int *given);

/* n with thousands separators, "147,456", into buf[32]. */
const char *shapecheck_grouped(char buf[32], size_t n);

/* Configuration c: Xq (B T_q, d), Xkv (B T_k, d) (B sequences stacked),
 * W_Q, W_K (d, d_k), W_V (d, d_v) ~ N(0, 1/d), all from rng; every sequence
 * through head_forward and, for self-attention, all of them through
 * head_forward_batched: a row per matrix into t (shapecheck_add). */
int shapecheck_run(gsl_rng *rng, shapecheck_table *t, const shapecheck_config *c);

/* The same W_Q, W_K, W_V (32, 8) ~ N(0, 0.04) run on X (5, 32) and X (64, 32)
 * (from rng): *failed = how many of the two runs failed. */
int shapecheck_same_weights_two_T(gsl_rng *rng, size_t *failed);

#endif
