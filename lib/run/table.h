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
 * an empty cell. Files are written atomically (afile.h). Data CSVs never hold
 * timestamps: one seed gives byte-identical files.
 */
#ifndef ATT_TABLE_H
#define ATT_TABLE_H

#include <stddef.h>
#include <stdio.h>
#include "afile.h"

typedef enum { COL_DOUBLE, COL_SIZE, COL_INT, COL_STR } col_type;

typedef struct {
    const char *name;   /* header cell */
    col_type type;
    size_t offset;      /* offsetof(row struct, field) */
} table_col;

#define COL_TYPE_OF(type, field)                                                   \
    _Generic(((type *)0)->field, double: COL_DOUBLE, size_t: COL_SIZE, int: COL_INT, \
             const char *: COL_STR, char *: COL_STR)
/* The column of `field` of struct `type`, headed by the field's name. */
#define COL(type, field) {#field, COL_TYPE_OF(type, field), offsetof(type, field)}
/* The same, headed by `name`. */
#define COL_AS(type, field, name) {name, COL_TYPE_OF(type, field), offsetof(type, field)}

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
} csv_table;
int table_open(csv_table *t, const char *dir, const char *name, const table_col *cols, size_t ncols);
#define TABLE_OPEN(t, dir, name, cols) table_open(t, dir, name, cols, sizeof(cols) / sizeof((cols)[0]))
void table_row(csv_table *t, const void *row);
int table_commit(csv_table *t);     /* write errors surface here */
void table_abort(csv_table *t);

/* One cell: a double as "%.17g" (NaN: empty), a string quoted when it holds
 * a comma, quote or newline. */
void csv_num(FILE *f, double x);
void csv_str(FILE *f, const char *s);

#endif
