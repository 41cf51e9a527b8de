/* table.c - CSV cells and tables written from one column list (see table.h). */
#include "table.h"
#include "afile.h"
#include "status.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* ---- CSV cells ------------------------------------------------------- */

void csv_num(FILE *f, double x)
{
    if (isnan(x)) return;
    if (isinf(x)) fputs(x > 0 ? "inf" : "-inf", f);
    else fprintf(f, "%.17g", x);
}

void csv_str(FILE *f, const char *s)
{
    if (strpbrk(s, ",\"\n\r") == NULL) { fputs(s, f); return; }
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"') fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

/* ---- tables from a column list --------------------------------------- */

static void put_cell(FILE *f, const table_col *c, const void *row)
{
    const char *p = (const char *)row + c->offset;
    switch (c->type) {
    case COL_DOUBLE: { double x; memcpy(&x, p, sizeof x); csv_num(f, x); break; }
    case COL_SIZE:   { size_t x; memcpy(&x, p, sizeof x); fprintf(f, "%zu", x); break; }
    case COL_INT:    { int x; memcpy(&x, p, sizeof x); fprintf(f, "%d", x); break; }
    case COL_STR:    { const char *x; memcpy(&x, p, sizeof x); csv_str(f, x ? x : ""); break; }
    }
}

int table_open(csv_table *t, const char *dir, const char *name, const table_col *cols, size_t ncols)
{
    t->cols = cols;
    t->ncols = ncols;
    int st = afile_open(&t->af, dir, name);
    if (st) return st;
    for (size_t k = 0; k < ncols; k++) {
        if (k) fputc(',', t->af.f);
        csv_str(t->af.f, cols[k].name);
    }
    fputc('\n', t->af.f);
    return ATT_OK;
}

void table_row(csv_table *t, const void *row)
{
    for (size_t k = 0; k < t->ncols; k++) {
        if (k) fputc(',', t->af.f);
        put_cell(t->af.f, &t->cols[k], row);
    }
    fputc('\n', t->af.f);
}

int table_commit(csv_table *t) { return afile_commit(&t->af); }
void table_abort(csv_table *t) { afile_abort(&t->af); }

int table_write(const char *dir, const char *name, const table_col *cols, size_t ncols,
                const void *rows, size_t nrows, size_t rowsize)
{
    csv_table t;
    int st = table_open(&t, dir, name, cols, ncols);
    if (st) return st;
    for (size_t i = 0; i < nrows; i++) table_row(&t, (const char *)rows + i * rowsize);
    return table_commit(&t);
}
