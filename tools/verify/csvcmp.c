/* csvcmp.c - compare a rerun's CSV with the committed one, each number by its
 * nature.
 *
 *   csvcmp [--schema FILE] [--quiet] OLD NEW [OLD NEW ...]
 *
 * The nature of every column is read from OLD's schema (the sidecar
 * <OLD without .csv>.schema.csv that the table writer stored with it,
 * lib/run/table.h; --schema names another), never guessed from names or
 * values. How each nature compares old x with new y (numbers as written,
 * "%.17g"; empty = NaN):
 *   exact      the same text
 *   computed   |x - y| <= 1e-9 max(|x|, |y|)
 *   mc         |x - y| <= 0.1 (hi - lo) / 2, the CI of OLD's row (a Monte
 *              Carlo estimate moves by rounding only: a tenth of its own CI
 *              is far beyond rounding and far below a real change); with a
 *              bound B, a row where |x| <= B (the quantity is zero up to
 *              rounding there) is compared as rounding
 *   rounding   the same order of magnitude: max(a, b) <= 10 min(a, b) with
 *              a = max(|x|, B/100), b = max(|y|, B/100), B the row's bound
 *              (0 without one), and y <= B when x <= B; a row where |x| > B
 *              is compared as computed
 *   training   a mean over seeds: |x - y| <= (hi - lo) / 4, about one
 *              standard error; a per-seed value (lo = "group:a;b"): |x - y|
 *              <= the sd of the column over OLD's rows of the same group;
 *              with a bound, as mc
 *   run        not compared (times)
 *   row        the nature named by the row's own `nature` cell (verdict rows;
 *              a row of nature run, a time, is compared only by its id,
 *              kind, macro and nature: its numbers and text vary)
 * Without a schema every cell is compared exactly (a note says so). Lines
 * starting with '#' are skipped. Every cell that moved is named: file, line,
 * column, nature, old, new and what was allowed.
 * Exit 0 when everything agrees, 1 when something moved, 2 on bad usage or
 * input, 3 when out of memory. Several pairs are compared one after another (one process: a
 * test checking that each of some 60 CSVs parses spent 0.4 s starting csvcmp), --schema for
 * all of them; the status is the largest of theirs.
 */
#include "csvline.h"
#include "status.h"
#include "table.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAXF = 4096, LINE = 1 << 20, NAT_ROW = NAT_N };

static const double REL_COMPUTED = 1e-9, MC_FRACTION = 0.1, ROUND_FACTOR = 10.0,
                    ROUND_FLOOR = 1e-2, TRAIN_FRACTION = 0.25;

/* A file: its data lines split into fields (header first). */
typedef struct {
    const char *path;
    size_t n;
    int *lineno, *nf;
    char ***f;
} table;

static int is_number(const char *s, double *v)
{
    char *end;
    if (*s == '\0') { *v = NAN; return 1; }          /* an empty cell is NaN */
    *v = strtod(s, &end);
    return *end == '\0';
}

static void table_free(table *t)
{
    for (size_t i = 0; i < t->n; i++) {
        free(t->f[i][-1]);      /* the texts */
        free(t->f[i] - 1);      /* the field pointers */
    }
    free(t->f); free(t->lineno); free(t->nf);
    memset(t, 0, sizeof *t);
}

/* Read every non-comment line of path; 0, 2 (unreadable, malformed) or 3. */
static int table_read(table *t, const char *path)
{
    memset(t, 0, sizeof *t);
    t->path = path;
    FILE *fp = fopen(path, "r");
    if (!fp) { fprintf(stderr, "csvcmp: cannot read %s\n", path); return 2; }
    char *line = malloc(LINE), *buf = malloc(LINE), **tmp = malloc(MAXF * sizeof *tmp);
    size_t cap = 0;
    int st = line && buf && tmp ? 0 : 3, lineno = 0;
    while (!st && fgets(line, LINE, fp)) {
        lineno++;
        if (line[0] == '#') continue;
        int nf = csvline_split(line, tmp, MAXF, buf, LINE);
        if (nf < 0) {
            fprintf(stderr, "csvcmp: %s line %d: malformed CSV\n", path, lineno);
            st = 2;
            break;
        }
        if (t->n == cap) {
            cap = cap ? 2 * cap : 64;
            int *l2 = realloc(t->lineno, cap * sizeof *l2);
            if (l2) t->lineno = l2;
            int *n2 = realloc(t->nf, cap * sizeof *n2);
            if (n2) t->nf = n2;
            char ***f2 = realloc(t->f, cap * sizeof *f2);
            if (f2) t->f = f2;
            if (!l2 || !n2 || !f2) { st = 3; break; }
        }
        // one block: [text copy pointer][fields...], the copy holds the texts
        size_t used = 0;
        for (int k = 0; k < nf; k++) used += strlen(tmp[k]) + 1;
        char **fields = malloc((size_t)(nf + 1) * sizeof *fields);
        char *text = malloc(used + 1);
        if (!fields || !text) { free(fields); free(text); st = 3; break; }
        fields[0] = text;
        char *p = text;
        for (int k = 0; k < nf; k++) {
            size_t len = strlen(tmp[k]);
            memcpy(p, tmp[k], len + 1);
            fields[k + 1] = p;
            p += len + 1;
        }
        t->f[t->n] = fields + 1;
        t->nf[t->n] = nf;
        t->lineno[t->n] = lineno;
        t->n++;
    }
    fclose(fp);
    free(line); free(buf); free(tmp);
    if (st == 3) fprintf(stderr, "csvcmp: out of memory reading %s\n", path);
    return st;
}

static int col_index(const table *t, const char *name)
{
    if (t->n == 0 || name == NULL || *name == '\0') return -1;
    for (int c = 0; c < t->nf[0]; c++)
        if (strcmp(t->f[0][c], name) == 0) return c;
    return -1;
}

/* How one column is compared: its nature and the columns it refers to. */
typedef struct {
    int nature;                 /* col_nature, or NAT_ROW */
    int lo, hi, bound;          /* column indices, -1 for none */
    double bound_value;         /* a numeric bound (NaN for none) */
    int group[8], ngroup;       /* training per seed: the group's columns */
} col_rule;

/* The schema file: one rule per column of OLD. 0, or 2 naming what is wrong. */
static int schema_read(const char *path, const table *old, col_rule *rules)
{
    table s;
    int st = table_read(&s, path);
    if (st) return st;
    int ci = col_index(&s, "column"), ni = col_index(&s, "nature"), li = col_index(&s, "lo"),
        hi = col_index(&s, "hi"), bi = col_index(&s, "bound");
    if (ci < 0 || ni < 0 || li < 0 || hi < 0 || bi < 0) {
        fprintf(stderr, "csvcmp: %s: not a schema (header column,nature,lo,hi,bound)\n", path);
        table_free(&s);
        return 2;
    }
    int ncols = old->n ? old->nf[0] : 0;
    for (int c = 0; c < ncols; c++) rules[c] = (col_rule){-1, -1, -1, -1, NAN, {0}, 0};
    for (size_t r = 1; r < s.n && !st; r++) {
        if (s.nf[r] != s.nf[0]) {
            fprintf(stderr, "csvcmp: %s line %d: %d fields\n", path, s.lineno[r], s.nf[r]);
            st = 2;
            break;
        }
        const char *name = s.f[r][ci], *nat = s.f[r][ni];
        int c = col_index(old, name);
        if (c < 0) {
            fprintf(stderr, "csvcmp: %s names column %s, which %s does not have\n", path, name,
                    old->path);
            st = 2;
            break;
        }
        col_rule *cr = &rules[c];
        cr->nature = strcmp(nat, "row") == 0 ? NAT_ROW : table_nature_parse(nat);
        if (cr->nature < 0) {
            fprintf(stderr, "csvcmp: %s line %d: unknown nature '%s'\n", path, s.lineno[r], nat);
            st = 2;
            break;
        }
        const char *lo = s.f[r][li], *hic = s.f[r][hi], *b = s.f[r][bi];
        if (strncmp(lo, "group:", 6) == 0) {
            char buf[512];
            snprintf(buf, sizeof buf, "%s", lo + 6);
            for (char *save = NULL, *tok = strtok_r(buf, ";", &save); tok && !st;
                 tok = strtok_r(NULL, ";", &save)) {
                int g = col_index(old, tok);
                if (g < 0 || cr->ngroup == 8) {
                    fprintf(stderr, "csvcmp: %s: group column %s of %s not in %s\n", path, tok,
                            name, old->path);
                    st = 2;
                } else
                    cr->group[cr->ngroup++] = g;
            }
        } else if (*lo) {
            if ((cr->lo = col_index(old, lo)) < 0) {
                fprintf(stderr, "csvcmp: %s: column %s refers to %s, not in %s\n", path, name, lo,
                        old->path);
                st = 2;
            }
        }
        if (*hic && (cr->hi = col_index(old, hic)) < 0) {
            fprintf(stderr, "csvcmp: %s: column %s refers to %s, not in %s\n", path, name, hic,
                    old->path);
            st = 2;
        }
        if (*b) {
            char *end;
            double v = strtod(b, &end);
            if (*end == '\0') cr->bound_value = v;
            else if ((cr->bound = col_index(old, b)) < 0) {
                fprintf(stderr, "csvcmp: %s: column %s refers to %s, not in %s\n", path, name, b,
                        old->path);
                st = 2;
            }
        }
    }
    for (int c = 0; c < ncols && !st; c++)
        if (rules[c].nature < 0) {
            fprintf(stderr, "csvcmp: %s has no nature for column %s of %s\n", path, old->f[0][c],
                    old->path);
            st = 2;
        }
    table_free(&s);
    return st;
}

static double cell(const table *t, size_t r, int c)
{
    double v;
    if (c < 0 || c >= t->nf[r] || !is_number(t->f[r][c], &v)) return NAN;
    return v;
}

/* sd of column c over OLD's rows whose group columns equal row r's */
static double group_sd(const table *t, size_t r, int c, const col_rule *cr)
{
    double s = 0, s2 = 0;
    size_t n = 0;
    for (size_t i = 1; i < t->n; i++) {
        int same = 1;
        for (int g = 0; g < cr->ngroup && same; g++)
            same = cr->group[g] < t->nf[i] &&
                   strcmp(t->f[i][cr->group[g]], t->f[r][cr->group[g]]) == 0;
        double v = cell(t, i, c);
        if (!same || isnan(v)) continue;
        s += v; s2 += v * v; n++;
    }
    if (n < 2) return 0.0;
    double var = (s2 - s * s / (double)n) / (double)(n - 1);
    return var > 0 ? sqrt(var) : 0.0;
}

/* Compare one cell; 1 when it moved, with what was allowed in `why`. */
static int moved(const table *old, size_t r, int c, const char *xs, const char *ys, int nature,
                 int from_row, const col_rule *cr, char *why, size_t nwhy)
{
    double x, y;
    if (nature == NAT_RUN) return 0;
    if (strcmp(xs, ys) == 0) return 0;
    if (nature == NAT_EXACT || !is_number(xs, &x) || !is_number(ys, &y)) {
        snprintf(why, nwhy, "exact");
        return 1;
    }
    if (isnan(x) || isnan(y)) {
        snprintf(why, nwhy, "%s: one is empty", table_nature_name(nature));
        return !(isnan(x) && isnan(y));
    }
    double d = fabs(x - y), tol;
    // below its bound a value is zero up to rounding (in this row): compared as rounding;
    // above it, a rounding column is a computed value (an identity that failed, or a row
    // where the quantity is not zero)
    double B = cr && cr->bound >= 0 ? cell(old, r, cr->bound) : cr ? cr->bound_value : NAN;
    // a verdict row's bound (bound_hi) is a rounding bound only for a rounding row
    if (from_row && nature != NAT_ROUNDING) B = NAN;
    if (nature == NAT_ROUNDING && B > 0 && fabs(x) > B) nature = NAT_COMPUTED;
    if ((nature == NAT_MC || nature == NAT_TRAINING) && B > 0 && fabs(x) <= B)
        nature = NAT_ROUNDING;
    switch (nature) {
    case NAT_MC: {
        double lo = cell(old, r, cr->lo), hi = cell(old, r, cr->hi);
        if (isnan(lo) || isnan(hi)) {
            tol = REL_COMPUTED * fmax(fabs(x), fabs(y));
            snprintf(why, nwhy, "mc without a CI: computed, %.3g", tol);
            break;
        }
        tol = MC_FRACTION * (hi - lo) / 2.0;
        snprintf(why, nwhy, "mc: 0.1 x CI half-width = %.3g", tol);
        break;
    }
    case NAT_TRAINING:
        if (cr->ngroup) {
            tol = group_sd(old, r, c, cr);
            snprintf(why, nwhy, "training: seed-to-seed sd = %.3g", tol);
        } else {
            double lo = cell(old, r, cr->lo), hi = cell(old, r, cr->hi);
            tol = isnan(lo) || isnan(hi) ? 0.0 : TRAIN_FRACTION * (hi - lo);
            snprintf(why, nwhy, "training: standard error ~ CI width / 4 = %.3g", tol);
        }
        break;
    case NAT_ROUNDING: {
        if (isnan(B)) B = 0.0;
        if (B > 0 && fabs(y) > B && !(fabs(x) > B)) {
            snprintf(why, nwhy, "rounding: now above its bound %.3g", B);
            return 1;
        }
        double f = ROUND_FLOOR * B, a = fmax(fabs(x), f), b = fmax(fabs(y), f);
        snprintf(why, nwhy, "rounding: within a factor %g (floor %.3g = bound / 100)", ROUND_FACTOR,
                 f);
        if (a == b) return 0;
        return !(fmin(a, b) > 0 && fmax(a, b) <= ROUND_FACTOR * fmin(a, b));
    }
    default:    /* computed */
        tol = REL_COMPUTED * fmax(fabs(x), fabs(y));
        snprintf(why, nwhy, "computed: relative 1e-9");
        break;
    }
    return !(d <= tol);
}

/* OLD pa against NEW pb, with schema (NULL: pa's sidecar, if any): the exit status */
static int compare(const char *schema, int quiet, const char *pa, const char *pb)
{
    table a, b;
    int st = table_read(&a, pa);
    if (st) return st;
    if ((st = table_read(&b, pb))) { table_free(&a); return st; }

    int ncols = a.n ? a.nf[0] : 0;
    col_rule *rules = calloc(ncols ? (size_t)ncols : 1, sizeof *rules);
    if (!rules) { fprintf(stderr, "csvcmp: out of memory\n"); return 3; }
    char sbuf[4096];
    if (!schema) {
        size_t len = strlen(pa);
        if (len >= 4 && !strcmp(pa + len - 4, ".csv")) len -= 4;
        snprintf(sbuf, sizeof sbuf, "%.*s.schema.csv", (int)len, pa);
        FILE *probe = fopen(sbuf, "r");
        if (probe) { fclose(probe); schema = sbuf; }
    }
    if (schema) st = schema_read(schema, &a, rules);
    else {
        for (int c = 0; c < ncols; c++) rules[c] = (col_rule){NAT_EXACT, -1, -1, -1, NAN, {0}, 0};
        // a schema itself, or a file written without one: every cell exactly
        size_t len = strlen(pa);
        if (!quiet && !(len >= 11 && !strcmp(pa + len - 11, ".schema.csv")))
            printf("csvcmp: %s has no schema: every cell compared exactly\n", pa);
    }
    if (st) { table_free(&a); table_free(&b); free(rules); return st; }
    int nat_col = col_index(&a, "nature");

    int nmoved = 0;
    char why[256];
    if (a.n != b.n) { printf("%s: %zu rows, now %zu\n", pa, a.n, b.n); nmoved++; }
    for (size_t r = 0; r < a.n && r < b.n; r++) {
        if (a.nf[r] != b.nf[r]) {
            printf("%s line %d: %d fields, now %d\n", pa, a.lineno[r], a.nf[r], b.nf[r]);
            nmoved++;
            continue;
        }
        int row_nature = NAT_EXACT;
        if (r > 0 && nat_col >= 0 && nat_col < a.nf[r]) {
            row_nature = table_nature_parse(a.f[r][nat_col]);
            if (row_nature < 0) row_nature = NAT_EXACT;
        }
        for (int c = 0; c < a.nf[r]; c++) {
            // a row of nature run (a time) is compared only by what names it
            if (row_nature == NAT_RUN && strcmp(a.f[0][c], "id") && strcmp(a.f[0][c], "kind")
                && strcmp(a.f[0][c], "macro") && strcmp(a.f[0][c], "nature")) continue;
            int nature = r == 0 || c >= ncols ? NAT_EXACT : rules[c].nature,
                from_row = nature == NAT_ROW;
            if (from_row) nature = row_nature;
            if (moved(&a, r, c, a.f[r][c], b.f[r][c], nature, from_row,
                      c < ncols ? &rules[c] : NULL, why, sizeof why)) {
                printf("%s line %d, column %s: %s -> %s (%s)\n", pa, a.lineno[r],
                       c < ncols ? a.f[0][c] : "?", a.f[r][c][0] ? a.f[r][c] : "''",
                       b.f[r][c][0] ? b.f[r][c] : "''", why);
                nmoved++;
            }
        }
    }
    table_free(&a);
    table_free(&b);
    free(rules);
    return nmoved ? 1 : 0;
}

int main(int argc, char **argv)
{
    att_init();
    const char *schema = NULL;
    int quiet = 0, i = 1;
    for (; i < argc && argv[i][0] == '-' && argv[i][1] == '-'; i++) {
        if (!strcmp(argv[i], "--schema") && i + 1 < argc) { schema = argv[++i]; continue; }
        if (!strcmp(argv[i], "--quiet")) { quiet = 1; continue; }
        fprintf(stderr, "csvcmp: bad option %s\n", argv[i]);
        return 2;
    }
    if (argc - i < 2 || (argc - i) % 2) {
        fprintf(stderr, "usage: csvcmp [--schema FILE] [--quiet] OLD NEW [OLD NEW ...]\n");
        return 2;
    }
    int worst = 0;
    for (; i + 1 < argc; i += 2) {
        int st = compare(schema, quiet, argv[i], argv[i + 1]);
        if (st > worst) worst = st;
    }
    return worst;
}
