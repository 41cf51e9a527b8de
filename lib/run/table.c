/* table.c - CSV cells and tables written from one column list (see table.h). */
#include "table.h"
#include "afile.h"
#include "status.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- natures: how make verify compares a column ---------------------- */

static const char *const nature_names[NAT_N] = {"auto", "exact", "computed", "mc", "rounding",
                                                "training", "run"};

const char *table_nature_name(col_nature n) { return n < NAT_N ? nature_names[n] : "?"; }

int table_nature_parse(const char *s)
{
    for (int i = 1; i < NAT_N; i++)
        if (strcmp(nature_names[i], s) == 0) return i;
    return -1;
}

/* the declared nature, or for NAT_AUTO the one the type gives */
static col_nature table_nature_of(const table_col *c)
{
    if (c->nature != NAT_AUTO) return c->nature;
    return c->type == COL_DOUBLE ? NAT_COMPUTED : NAT_EXACT;
}

void table_schema_name(const char *name, char *buf, size_t n)
{
    size_t len = strlen(name);
    if (len >= 4 && strcmp(name + len - 4, ".csv") == 0) len -= 4;
    snprintf(buf, n, "%.*s.schema.csv", (int)len, name);
}

/* 1 when `ref` is a column of the table (or, for a bound, a number) */
static int ref_ok(const char *ref, const table_col *cols, size_t ncols, int number_ok)
{
    if (ref == NULL) return 1;
    if (number_ok) {
        char *end;
        strtod(ref, &end);
        if (*ref && *end == '\0') return 1;
    }
    if (strncmp(ref, "group:", 6) == 0) {
        // group:a;b;c names columns
        char buf[256];
        snprintf(buf, sizeof buf, "%s", ref + 6);
        for (char *save = NULL, *tok = strtok_r(buf, ";", &save); tok;
             tok = strtok_r(NULL, ";", &save))
            if (!ref_ok(tok, cols, ncols, 0)) return 0;
        return 1;
    }
    for (size_t k = 0; k < ncols; k++)
        if (strcmp(cols[k].name, ref) == 0) return 1;
    return 0;
}

static int schema_check(const char *name, const table_col *cols, size_t ncols)
{
    for (size_t k = 0; k < ncols; k++) {
        const table_col *c = &cols[k];
        if (!ref_ok(c->lo, cols, ncols, 0) || !ref_ok(c->hi, cols, ncols, 0) ||
            !ref_ok(c->bound, cols, ncols, 1))
            return att_fail(ATT_ERUNTIME,
                            "%s: column %s (%s) refers to a column the table does not have "
                            "(lo %s, hi %s, bound %s)",
                            name, c->name, table_nature_name(table_nature_of(c)),
                            c->lo ? c->lo : "-", c->hi ? c->hi : "-", c->bound ? c->bound : "-");
        col_nature n = table_nature_of(c);
        if ((n == NAT_MC && (!c->lo || !c->hi)) || (n == NAT_TRAINING && !c->lo))
            return att_fail(ATT_ERUNTIME, "%s: column %s (%s) needs the columns of its CI", name,
                            c->name, table_nature_name(n));
    }
    return ATT_OK;
}

int table_write_schema(const char *dir, const char *name, const table_col *cols, size_t ncols)
{
    int st = schema_check(name, cols, ncols);
    if (st) return st;
    char sname[512];
    table_schema_name(name, sname, sizeof sname);
    afile af;
    if ((st = afile_open(&af, dir, sname))) return st;
    fputs("column,nature,lo,hi,bound\n", af.f);
    for (size_t k = 0; k < ncols; k++) {
        const table_col *c = &cols[k];
        const char *ref[3] = {c->lo, c->hi, c->bound};
        table_cell_str(af.f, c->name);
        fprintf(af.f, ",%s", table_nature_name(table_nature_of(c)));
        for (int j = 0; j < 3; j++) {
            fputc(',', af.f);
            table_cell_str(af.f, ref[j] ? ref[j] : "");
        }
        fputc('\n', af.f);
    }
    return afile_commit(&af);
}

/* ---- CSV cells ------------------------------------------------------- */

void table_cell_num(FILE *f, double x)
{
    if (isnan(x)) return;
    if (isinf(x)) fputs(x > 0 ? "inf" : "-inf", f);
    else fprintf(f, "%.17g", x);
}

void table_cell_str(FILE *f, const char *s)
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
    case COL_DOUBLE: { double x; memcpy(&x, p, sizeof x); table_cell_num(f, x); break; }
    case COL_SIZE:   { size_t x; memcpy(&x, p, sizeof x); fprintf(f, "%zu", x); break; }
    case COL_INT:    { int x; memcpy(&x, p, sizeof x); fprintf(f, "%d", x); break; }
    case COL_STR: {
        const char *x;
        memcpy(&x, p, sizeof x);
        table_cell_str(f, x ? x : "");
        break;
    }
    }
}

int table_open(csv_table *t, const char *dir, const char *name, const table_col *cols, size_t ncols)
{
    t->cols = cols;
    t->ncols = ncols;
    t->dir = t->name = NULL;
    int st = schema_check(name, cols, ncols);
    if (st) return st;
    t->dir = strdup(dir);
    t->name = strdup(name);
    if (!t->dir || !t->name) {
        free(t->dir); free(t->name); t->dir = t->name = NULL;
        return att_fail(ATT_ERUNTIME, "%s: out of memory", name);
    }
    st = afile_open(&t->af, dir, name);
    if (st) { free(t->dir); free(t->name); t->dir = t->name = NULL; return st; }
    for (size_t k = 0; k < ncols; k++) {
        if (k) fputc(',', t->af.f);
        table_cell_str(t->af.f, cols[k].name);
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

int table_commit(csv_table *t)
{
    int st = afile_commit(&t->af);
    if (!st) st = table_write_schema(t->dir, t->name, t->cols, t->ncols);
    free(t->dir); free(t->name); t->dir = t->name = NULL;
    return st;
}

int table_write(const char *dir, const char *name, const table_col *cols, size_t ncols,
                const void *rows, size_t nrows, size_t rowsize)
{
    csv_table t;
    int st = table_open(&t, dir, name, cols, ncols);
    if (st) return st;
    for (size_t i = 0; i < nrows; i++) table_row(&t, (const char *)rows + i * rowsize);
    return table_commit(&t);
}
