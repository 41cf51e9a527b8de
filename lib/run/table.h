/* table.h - CSV tables written from one column list.
 *
 * A table is an array of row structs; its columns are listed once, and that
 * list writes the header and every row:
 *
 *     typedef struct { size_t T; double mean, lo, hi; } point;
 *     static const table_col cols[] = {
 *         COL(point, T), COL(point, mean), COL_AS(point, lo, "mean_lo"), ...};
 *     TABLE_WRITE(o->out_dir, "x.csv", cols, rows, nrows);
 *
 * Numbers are written with "%.17g" so that they read back exactly; NaN is
 * an empty cell. Every table is written with its schema (the nature of each
 * column: how make verify compares it; see col_nature below). Files are
 * written atomically (afile.h). Data CSVs never hold timestamps: one seed
 * gives byte-identical files.
 */
#ifndef ATT_TABLE_H
#define ATT_TABLE_H

#include <stddef.h>
#include <stdio.h>
#include "afile.h"

typedef enum { COL_DOUBLE, COL_SIZE, COL_INT, COL_STR } col_type;

/* The nature of a column: how `make verify` compares a rerun with the committed file
 * (tools/verify/csvcmp.c; each rule in doc/verify.md), stored with the table in a sidecar
 * <name>.schema.csv (header column,nature,lo,hi,bound; one row per column), written
 * atomically with it. lo, hi, bound name other columns of the same row (bound may also be
 * a number): exact (equal text), computed (relative 1e-9), mc (a Monte Carlo estimate with
 * its 95% CI [lo, hi]; with a bound, rounding in the rows where it is <= bound), rounding (the
 * same order of magnitude, at most the bound; computed in a row above its bound), training
 * (a trained model's result: within about a standard error; lo = "group:a;b" for a per-seed
 * value, the columns naming its configuration), run (times, memory: not compared).
 * NAT_AUTO (what COL and COL_AS give) is exact for size_t, int and string
 * fields and computed for double fields; the schema names the result. */
typedef enum { NAT_AUTO, NAT_EXACT, NAT_COMPUTED, NAT_MC, NAT_ROUNDING, NAT_TRAINING, NAT_RUN,
               NAT_N } col_nature;
const char *table_nature_name(col_nature n);     /* "exact", ...; "?" when out of range */
int table_nature_parse(const char *s);           /* -1 when unknown */

typedef struct {
    const char *name;   /* header cell */
    col_type type;
    size_t offset;      /* offsetof(row struct, field) */
    col_nature nature;  /* NAT_AUTO unless declared */
    const char *lo, *hi, *bound;    /* the columns the nature refers to, or NULL */
} table_col;

#define COL_TYPE_OF(type, field)                                                   \
    _Generic(((type *)0)->field, double: COL_DOUBLE, size_t: COL_SIZE, int: COL_INT, \
             const char *: COL_STR, char *: COL_STR)
/* The column of `field` of struct `type`, headed by the field's name. */
#define COL(type, field)                                                                           \
    {                                                                                              \
#field, COL_TYPE_OF(type, field), offsetof(type, field), NAT_AUTO, NULL, NULL, NULL        \
    }
/* The same, headed by `name`. */
#define COL_AS(type, field, name)                                                                  \
    {                                                                                              \
        name, COL_TYPE_OF(type, field), offsetof(type, field), NAT_AUTO, NULL, NULL, NULL          \
    }
/* Columns with a declared nature (headed by `name` in the _AS forms). */
#define COL_NAT_AS(type, field, name, nat, lo, hi, bound) \
    {name, COL_TYPE_OF(type, field), offsetof(type, field), nat, lo, hi, bound}
#define COL_MC(type, field, lo, hi) COL_NAT_AS(type, field, #field, NAT_MC, lo, hi, NULL)
#define COL_MC_AS(type, field, name, lo, hi) COL_NAT_AS(type, field, name, NAT_MC, lo, hi, NULL)
#define COL_ROUND(type, field, bound)                                                              \
    COL_NAT_AS(type, field, #field, NAT_ROUNDING, NULL, NULL, bound)

/* Write dir/<base>.schema.csv for the table dir/name (name ends in .csv):
 * one row per column, its nature and the columns it refers to. A
 * reference to a column the table does not have is ATT_ERUNTIME (a typo in
 * a declaration fails the run, not make verify). */
int table_write_schema(const char *dir, const char *name, const table_col *cols, size_t ncols);
/* The sidecar's name for a table name ("x.csv" -> "x.schema.csv"). */
void table_schema_name(const char *name, char *buf, size_t n);

/* Write dir/name: the header, then nrows rows of rowsize bytes each. */
int table_write(const char *dir, const char *name, const table_col *cols, size_t ncols,
                const void *rows, size_t nrows, size_t rowsize);
#define TABLE_WRITE(dir, name, cols, rows, nrows) \
    table_write(dir, name, cols, sizeof(cols) / sizeof((cols)[0]), rows, nrows, sizeof *(rows))

/* Rows one at a time, when they are computed as they are written. */
typedef struct {
    afile af;
    const table_col *cols;
    size_t ncols;
    char *dir, *name;   /* for the schema, written at commit */
} csv_table;
int table_open(csv_table *t, const char *dir, const char *name, const table_col *cols,
               size_t ncols);
#define TABLE_OPEN(t, dir, name, cols)                                                             \
    table_open(t, dir, name, cols, sizeof(cols) / sizeof((cols)[0]))
void table_row(csv_table *t, const void *row);
int table_commit(csv_table *t);     /* write errors surface here; writes the schema too */

/* One cell: a double as "%.17g" (NaN: empty), a string quoted when it holds
 * a comma, quote or newline. */
void table_cell_num(FILE *f, double x);
void table_cell_str(FILE *f, const char *s);

#endif
