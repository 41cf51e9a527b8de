/* report.c - gather every experiment's verdict rows into the claims report.
 *
 *   report [--out DIR] [--check] ID ...
 * reads DIR/<ID>.verdicts.csv in the order given, each followed by
 * DIR/long/<ID>.verdicts.csv when that exists (make reproduce-long: the
 * long run's rows, macros ending in Long, join their experiment's). Every row is checked
 * before anything is written: its outcome and its rule's text are derived
 * again from its numbers and its rule (lib/run/verdict.h, the same functions
 * the experiments use); a row whose stored outcome or rule text disagrees,
 * a kind or rule that does not exist, or a malformed file is refused with
 * exit 3, naming the file and the row. With --check nothing is written.
 * Otherwise it writes
 *   DIR/claims.csv          every row, one header
 *   DIR/claims.md           counts by kind, the table, what the experiments
 *                           found (tools/report/notes/<ID>.md), the robustness table
 *   DIR/claims.tex          one LaTeX macro per cited number, with its CI,
 *                           draws, tolerance, seed; counts by kind
 *   DIR/claims_summary.md   one row per claim, for the README: the section's
 *                           claims, then the extensions (experiments/registry.tsv)
 * It only gathers and formats; it never invents a number.
 */
#include "afile.h"
#include "csvline.h"
#include "status.h"
#include "table.h"
#include "verdict.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { NCOL = 19, LINE_MAX_LEN = 8192, CELL = 1024 };
enum { C_ID, C_KIND, C_QUANT, C_EXP, C_MEAS, C_LO, C_HI, C_TOL, C_DRAWS, C_SEED, C_VERDICT,
       C_RULE, C_BLO, C_BHI, C_RTEXT, C_MACRO, C_RUNDEP, C_HEADLINE, C_NATURE };

typedef struct {
    char f[NCOL][CELL];
    verdict_kind kind;
    verdict_outcome outcome;
} row;

static double cell_num(const char *c) { return c[0] ? strtod(c, NULL) : NAN; }

/* ---- reading and checking ------------------------------------------------ */

static int refuse(const char *path, int lineno, const char *macro, const char *why)
{
    fprintf(stderr, "report: %s row %d%s%s%s: %s; refusing to report it (rerun the experiment, "
            "or find out who edited the file)\n", path, lineno, macro[0] ? " (\\" : "", macro,
            macro[0] ? ")" : "", why);
    return ATT_ERUNTIME;
}

/* Split a line into r and check it against its own rule. */
static int check_row(const char *path, int lineno, const char *id, const char *line, row *r)
{
    static char buf[LINE_MAX_LEN];
    char *fields[NCOL + 1], why[6 * CELL];
    int n = csvline_split(line, fields, NCOL + 1, buf, sizeof buf);
    if (n != NCOL) {
        snprintf(why, sizeof why, "expected %d fields, found %d", NCOL, n);
        return refuse(path, lineno, "", why);
    }
    for (int c = 0; c < NCOL; c++) snprintf(r->f[c], CELL, "%s", fields[c]);
    const char *macro = r->f[C_MACRO];
    if (strcmp(r->f[C_ID], id) != 0) {
        snprintf(why, sizeof why, "its id is '%s', not '%s'", r->f[C_ID], id);
        return refuse(path, lineno, macro, why);
    }
    int kind = verdict_kind_parse(r->f[C_KIND]), cmp = verdict_rule_cmp_parse(r->f[C_RULE]);
    int outcome = verdict_outcome_parse(r->f[C_VERDICT]);
    if (kind < 0 || cmp < 0 || outcome < 0) {
        snprintf(why, sizeof why, "unknown kind '%s', rule '%s' or outcome '%s'", r->f[C_KIND],
                 r->f[C_RULE], r->f[C_VERDICT]);
        return refuse(path, lineno, macro, why);
    }
    if (table_nature_parse(r->f[C_NATURE]) < 0) {
        snprintf(why, sizeof why, "unknown nature '%s' (how make verify compares it)",
                 r->f[C_NATURE]);
        return refuse(path, lineno, macro, why);
    }
    if ((kind == KIND_REPORTED) != (cmp == RULE_NONE)) {
        snprintf(why, sizeof why, "kind %s with rule %s", r->f[C_KIND], r->f[C_RULE]);
        return refuse(path, lineno, macro, why);
    }
    verdict_rule rule = {(rule_cmp)cmp, cell_num(r->f[C_BLO]), cell_num(r->f[C_BHI])};
    measure m = {cell_num(r->f[C_MEAS]), cell_num(r->f[C_LO]), cell_num(r->f[C_HI]),
                 (size_t)strtoull(r->f[C_DRAWS], NULL, 10), atoi(r->f[C_RUNDEP]),
                 (col_nature)table_nature_parse(r->f[C_NATURE])};
    verdict_outcome want = verdict_decide(rule, m);
    char text[256];
    verdict_rule_text(rule, text, sizeof text);
    if (want != (verdict_outcome)outcome) {
        snprintf(why, sizeof why, "stored outcome %s, but its numbers (measured %s, CI [%s, %s]) "
                 "and its rule (%s) give %s", r->f[C_VERDICT], r->f[C_MEAS], r->f[C_LO],
                 r->f[C_HI], text, verdict_outcome_name(want));
        return refuse(path, lineno, macro, why);
    }
    if (strcmp(text, r->f[C_RTEXT]) != 0) {
        snprintf(why, sizeof why, "its rule text '%s' is not its rule (%s)", r->f[C_RTEXT], text);
        return refuse(path, lineno, macro, why);
    }
    if (cmp == RULE_AT_MOST && strcmp(r->f[C_TOL], r->f[C_BHI]) != 0)
        return refuse(path, lineno, macro, "its tolerance is not its rule's bound");
    for (const char *p = macro; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z')))
            return refuse(path, lineno, macro, "a macro name must be letters only");
    r->kind = (verdict_kind)kind;
    r->outcome = (verdict_outcome)outcome;
    return ATT_OK;
}

static int read_rows(const char *dir, const char *id, int optional, row **rows, size_t *nrows,
                     size_t *cap)
{
    char path[4096], line[LINE_MAX_LEN];
    snprintf(path, sizeof path, "%s/%s.verdicts.csv", dir, id);
    FILE *f = fopen(path, "r");
    if (!f && optional) return ATT_OK;
    if (!f) {
        fprintf(stderr, "report: cannot read %s (run bin/%s first)\n", path, id);
        return ATT_ERUNTIME;
    }
    int st = ATT_OK, lineno = 1;
    if (!fgets(line, sizeof line, f) ||
        strncmp(line, verdict_csv_header, strlen(verdict_csv_header)) != 0 ||
        (line[strlen(verdict_csv_header)] != '\n' && line[strlen(verdict_csv_header)] != '\0')) {
        fprintf(stderr, "report: %s: the header is not\n  %s\n", path, verdict_csv_header);
        st = ATT_ERUNTIME;
    }
    while (st == ATT_OK && fgets(line, sizeof line, f)) {
        lineno++;
        if (*nrows == *cap) {
            row *nr = realloc(*rows, 2 * *cap * sizeof **rows);
            if (!nr) { fprintf(stderr, "report: out of memory\n"); st = ATT_ERUNTIME; break; }
            *rows = nr;
            *cap *= 2;
        }
        if ((st = check_row(path, lineno, id, line, &(*rows)[*nrows])) == ATT_OK) (*nrows)++;
    }
    fclose(f);
    return st;
}

/* ---- numbers with their significant digits -------------------------------- */

/* A count (an integer below 1e15) printed whole, digits grouped by three from
 * 1,000 on (the one grouping rule of every number the report prints). */
static int fmt_count(char *buf, size_t n, double x, int tex)
{
    if (!(x == floor(x) && fabs(x) < 1e15)) return 0;
    char d[32];
    snprintf(d, sizeof d, "%.0f", fabs(x));
    size_t len = strlen(d), k = 0;
    if (x < 0) buf[k++] = '-';
    for (size_t i = 0; i < len && k + 5 < n; i++) {
        if (len > 3 && i > 0 && (len - i) % 3 == 0)
            k += (size_t)snprintf(buf + k, n - k, "%s", tex ? "{,}" : ",");
        buf[k++] = d[i];
    }
    buf[k] = '\0';
    return 1;
}

/* Group the integer part of a number already printed in fixed notation
 * ("14818.4" -> "14,818.4", "-2064" -> "-2,064"), in place; the same rule as
 * fmt_count: groups of three from 1,000 on. */
static void group_fixed(char *buf, size_t n, int tex)
{
    const char *sep = tex ? "{,}" : ",";
    char in[128];
    snprintf(in, sizeof in, "%s", buf);
    const char *p = in;
    size_t k = 0, digits = 0;
    if (*p == '-') p++;
    while (p[digits] >= '0' && p[digits] <= '9') digits++;
    if (digits < 4 || strchr(in, 'e')) return;
    if (in[0] == '-') buf[k++] = '-';
    for (size_t i = 0; i < digits && k + 5 < n; i++) {
        if (i > 0 && (digits - i) % 3 == 0) k += (size_t)snprintf(buf + k, n - k, "%s", sep);
        buf[k++] = p[i];
    }
    snprintf(buf + k, n - k, "%s", p + digits);
}

/* x with `sig` significant digits, trailing zeros kept: 1.350, 2.50e-09 */
static void fmt_sig(char *buf, size_t n, double x, int sig, int tex)
{
    if (isnan(x)) { snprintf(buf, n, "%s", tex ? "--" : ""); return; }
    if (isinf(x)) {
        snprintf(buf, n, "%s",
                 x > 0 ? (tex ? "\\ensuremath{\\infty}" : "inf")
                       : (tex ? "\\ensuremath{-\\infty}" : "-inf"));
        return;
    }
    if (sig < 1) sig = 1;
    if (sig > 17) sig = 17;
    double ax = fabs(x);
    if (x == 0.0) { snprintf(buf, n, "0"); return; }
    int e = (int)floor(log10(ax));
    if (e >= -3 && e < 6) {
        int dec = sig - 1 - e;
        snprintf(buf, n, "%.*f", dec > 0 ? dec : 0, x);
        group_fixed(buf, n, tex);
        return;
    }
    char tmp[64];
    snprintf(tmp, sizeof tmp, "%.*e", sig - 1, x);
    char *pe = strchr(tmp, 'e');
    int ex = atoi(pe + 1);
    *pe = '\0';
    if (tex) snprintf(buf, n, "\\ensuremath{%s\\times10^{%d}}", tmp, ex);
    else snprintf(buf, n, "%se%d", tmp, ex);
}

/* A value alone: a count whole, otherwise 4 significant digits. */
static void fmt_value(char *buf, size_t n, double x, int tex)
{
    if (!fmt_count(buf, n, x, tex)) fmt_sig(buf, n, x, 4, tex);
}

/* A value with its CI: the half-width gets 2 significant digits, and the value
 * and both ends are printed to the same decimal place: 1.3536 [1.3501, 1.3571]. */
static void fmt_with_ci(char *v, char *lo, char *hi, size_t n, double x, double l, double h,
                        int tex)
{
    double hw = (h - l) / 2.0, ax = fmax(fabs(x), fmax(fabs(l), fabs(h)));
    if (!(hw > 0.0) || !(ax > 0.0)) {
        fmt_value(v, n, x, tex); fmt_value(lo, n, l, tex); fmt_value(hi, n, h, tex);
        return;
    }
    int sig = (int)floor(log10(ax)) - (int)floor(log10(hw)) + 2;
    if (sig < 2) sig = 2;
    int e = (int)floor(log10(ax));
    // fixed notation: one decimal place for all three; scientific: same mantissa digits
    if (e >= -3 && e < 6) {
        int dec = sig - 1 - e;
        if (dec < 0) dec = 0;
        snprintf(v, n, "%.*f", dec, x);
        snprintf(lo, n, "%.*f", dec, l);
        snprintf(hi, n, "%.*f", dec, h);
        group_fixed(v, n, tex); group_fixed(lo, n, tex); group_fixed(hi, n, tex);
    } else {
        fmt_sig(v, n, x, sig, tex); fmt_sig(lo, n, l, sig, tex); fmt_sig(hi, n, h, sig, tex);
    }
}

/* Markdown cell text: '|' escaped */
static void md_text(FILE *f, const char *s)
{
    for (; *s; s++) { if (*s == '|') fputc('\\', f); fputc(*s, f); }
}

/* LaTeX comment text: no newlines */
static void tex_comment(FILE *f, const char *s)
{
    for (; *s; s++) fputc(*s == '\n' ? ' ' : *s, f);
}

/* LaTeX text (a rule's words): special characters escaped, <= and >= as the
 * mathematical signs: "95% CI inside [0.98, 1.02]" -> "95\% CI inside ..." */
static void tex_text(FILE *f, const char *s)
{
    for (const char *s0 = s; *s; s++) {
        // an integer part of 4 or more digits is grouped, as every number is
        if (*s >= '0' && *s <= '9' &&
            (s == s0 || !((s[-1] >= '0' && s[-1] <= '9') || s[-1] == '.'))) {
            // a number in C's exponent form, as %g writes it, in a reader's form:
            // 1e-10 -> 10^{-10}, 8.52651e-14 -> 8.52651 x 10^{-14}
            char *end;
            (void)strtod(s, &end);
            const char *ex = s + strspn(s, "0123456789.");
            if ((*ex == 'e' || *ex == 'E') && end > ex + 1 && !(*end >= 'a' && *end <= 'z')) {
                int exp10 = atoi(ex + 1);
                if (ex - s == 1 && *s == '1') fprintf(f, "\\ensuremath{10^{%d}}", exp10);
                else fprintf(f, "\\ensuremath{%.*s\\times 10^{%d}}", (int)(ex - s), s, exp10);
                s = end - 1;
                continue;
            }
            size_t n = strspn(s, "0123456789");
            if (n >= 4 && s[n] != 'e' && s[n] != 'E') {
                for (size_t i = 0; i < n; i++) {
                    if (i > 0 && (n - i) % 3 == 0) fputs("{,}", f);
                    fputc(s[i], f);
                }
                s += n - 1;
                continue;
            }
        }
        if ((s[0] == '<' || s[0] == '>') && s[1] == '=') {
            fputs(s[0] == '<' ? "\\ensuremath{\\le}" : "\\ensuremath{\\ge}", f);
            s++;
        } else if (*s == '<' || *s == '>')
            fprintf(f, "\\ensuremath{%c}", *s);
        else if (strchr("%$#&_{}", *s)) fprintf(f, "\\%c", *s);
        else if (*s == '~' || *s == '^' || *s == '\\') fprintf(f, "\\char%d{}", (unsigned char)*s);
        else if (*s == '\n') fputc(' ', f);
        else fputc(*s, f);
    }
}

/* ---- per-claim status -------------------------------------------------- */

typedef struct {
    size_t n[KIND_N][OUT_N];
} tally;

static void count(tally *t, const row *r) { t->n[r->kind][r->outcome]++; }

static size_t total(const tally *t, verdict_kind k)
{
    size_t s = 0;
    for (int o = 0; o < OUT_N; o++) s += t->n[k][o];
    return s;
}

/* "reproduced" when every claim check, identity and control PASSes;
 * "not reproduced" when some FAIL; "undecided" when some are INCONCLUSIVE */
static const char *claim_status(const tally *t)
{
    size_t fail = 0, inc = 0;
    for (int k = 0; k < KIND_N; k++) {
        fail += t->n[k][OUT_FAIL];
        inc += t->n[k][OUT_INCONCLUSIVE];
    }
    return fail ? "not reproduced" : inc ? "undecided" : "reproduced";
}

/* the row a claim is cited by: the one marked headline, else its first claim
 * row with a macro, else its first row with a macro, else its first row */
static const row *headline(const row *rows, size_t a, size_t b)
{
    for (size_t i = a; i < b; i++) if (!strcmp(rows[i].f[C_HEADLINE], "1")) return &rows[i];
    for (size_t i = a; i < b; i++)
        if (rows[i].kind == KIND_CLAIM && rows[i].f[C_MACRO][0]) return &rows[i];
    for (size_t i = a; i < b; i++) if (rows[i].f[C_MACRO][0]) return &rows[i];
    return &rows[a];
}

/* An interval from its printed ends; an end the data cannot bound (NaN: for
 * example a crossing beyond the grid) is printed as infinity, so an interval
 * never has a missing end: [3.593, inf). Both ends missing: empty text. */
static void fmt_interval(char *buf, size_t n, const char *lo, const char *hi, double l, double h,
                         int tex)
{
    const char *inf = tex ? "\\ensuremath{\\infty}" : "inf",
               *minf = tex ? "\\ensuremath{-\\infty}" : "-inf";
    if (isnan(l) && isnan(h)) buf[0] = '\0';
    else if (isnan(h)) snprintf(buf, n, "[%s, %s)", lo, inf);
    else if (isnan(l)) snprintf(buf, n, "(%s, %s]", minf, hi);
    else snprintf(buf, n, "[%s, %s]", lo, hi);
}

/* measured, with its CI or tolerance or spread, as text */
enum { NUMTXT = 160, BANDTXT = 2 * NUMTXT + 96 };
static void fmt_band(char meas[NUMTXT], char band[BANDTXT], const row *r, int tex)
{
    double x = cell_num(r->f[C_MEAS]), l = cell_num(r->f[C_LO]), h = cell_num(r->f[C_HI]);
    char lo[NUMTXT], hi[NUMTXT];
    band[0] = '\0';
    if (!isnan(l) || !isnan(h)) {
        fmt_with_ci(meas, lo, hi, NUMTXT, x, l, h, tex);
        if (atoi(r->f[C_RUNDEP]))
            snprintf(band, BANDTXT, "min %s, max %s (%.24s runs)", lo, hi, r->f[C_DRAWS]);
        else fmt_interval(band, BANDTXT, lo, hi, l, h, tex);
    } else {
        fmt_value(meas, NUMTXT, x, tex);
        if (r->f[C_TOL][0]) {
            fmt_value(lo, NUMTXT, cell_num(r->f[C_TOL]), tex);
            snprintf(band, BANDTXT, "tol %s", lo);
        }
    }
}

/* ---- the claims registry (experiments/registry.tsv) --------------------- */

/* One line per claim, tab-separated: id, origin (section | extension),
 * subheading, claim, figures, headline, code, note; '#' lines, then a
 * header line. Missing file: no entries (every claim shown as the section's). */
enum { REG_MAX = 64, REG_LINE = 4096 };
typedef struct { char id[64], origin[16], claim[1024], code[512], note[512]; } reg_entry;
typedef struct { reg_entry e[REG_MAX]; size_t n; } registry;

static void reg_field(char *dst, size_t n, const char *src, size_t len)
{
    if (len >= n) len = n - 1;
    memcpy(dst, src, len);
    dst[len] = '\0';
    if (!strcmp(dst, "-")) dst[0] = '\0';
}

static void registry_read(registry *r, const char *path)
{
    r->n = 0;
    FILE *f = fopen(path, "r");
    if (!f) return;
    char line[REG_LINE];
    int header = 1;
    while (fgets(line, sizeof line, f) && r->n < REG_MAX) {
        if (line[0] == '#' || line[0] == '\n') continue;
        if (header) { header = 0; continue; }
        line[strcspn(line, "\r\n")] = '\0';
        const char *fld[8];
        size_t len[8], k = 0;
        const char *p = line;
        while (k < 8) {
            const char *t = strchr(p, '\t');
            fld[k] = p;
            len[k] = t ? (size_t)(t - p) : strlen(p);
            k++;
            if (!t) break;
            p = t + 1;
        }
        if (k < 8) continue;
        reg_entry *e = &r->e[r->n++];
        reg_field(e->id, sizeof e->id, fld[0], len[0]);
        reg_field(e->origin, sizeof e->origin, fld[1], len[1]);
        reg_field(e->claim, sizeof e->claim, fld[3], len[3]);
        reg_field(e->code, sizeof e->code, fld[6], len[6]);
        reg_field(e->note, sizeof e->note, fld[7], len[7]);
    }
    fclose(f);
}

static const reg_entry *registry_find(const registry *r, const char *id)
{
    for (size_t i = 0; i < r->n; i++) if (!strcmp(r->e[i].id, id)) return &r->e[i];
    return NULL;
}

/* The row of a note "extension: ... \Macro ...": the verdict row with that
 * macro, or NULL. */
static const row *note_row(const char *note, const row *rows, size_t a, size_t b)
{
    const char *m = strchr(note, '\\');
    if (!m) return NULL;
    char name[CELL];
    size_t k = 0;
    for (m++; k + 1 < sizeof name && ((*m >= 'a' && *m <= 'z') || (*m >= 'A' && *m <= 'Z')); m++)
        name[k++] = *m;
    name[k] = '\0';
    for (size_t i = a; i < b; i++) if (!strcmp(rows[i].f[C_MACRO], name)) return &rows[i];
    return NULL;
}

/* One README row: | [`id`](experiments/id.c)suffix | in short | headline quantity |
 * measured [CI] | status | [`function`](file) | (code = the registry's file:function) */
static void summary_row(FILE *f, const char *id, const char *in_short, const char *code,
                        const row *rows, size_t a, size_t b, const char *suffix)
{
    tally t = {{{0}}};
    for (size_t i = a; i < b; i++) count(&t, &rows[i]);
    const row *h = suffix[0] ? note_row(in_short, rows, a, b) : headline(rows, a, b);
    fprintf(f, "| [`%s`](experiments/%s.c)%s | ", id, id, suffix);
    /* a note's text without the macro it names (", \\Name" or " \\Name") */
    char text[CELL];
    size_t k = 0;
    for (const char *p = in_short; *p && k + 1 < sizeof text; p++) {
        if (p[0] == '\\' && suffix[0]) {
            while (k > 0 && (text[k - 1] == ' ' || text[k - 1] == ',')) k--;
            for (p++; (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z'); p++) {}
            p--;
            continue;
        }
        text[k++] = *p;
    }
    text[k] = '\0';
    md_text(f, text);
    fputs(" | ", f);
    if (h) {
        char meas[NUMTXT], band[BANDTXT];
        fmt_band(meas, band, h, 0);
        md_text(f, h->f[C_QUANT]);
        fprintf(f, " | %s%s%s%s%s | ", meas, band[0] ? " " : "", band[0] == 't' ? "(" : "", band,
                band[0] == 't' ? ")" : "");
    } else {
        fputs("see [results/claims.md](results/claims.md) | | ", f);
    }
    fprintf(f, "%s | ", claim_status(&t));
    const char *colon = strchr(code, ':');
    if (colon) fprintf(f, "[`%s`](%.*s)", colon + 1, (int)(colon - code), code);
    else md_text(f, code);
    fputs(" |\n", f);
}

/* ---- writing ------------------------------------------------------------ */

/* x at lecture precision: a count whole, anything else (an estimate) at 3 significant
 * digits (1.0237 -> 1.02; 6.13e-14 in scientific form), and never more digits than
 * its CI supports: with a CI half-width hw, sig = e(x) - e(hw) + 1, at least 2
 * (0.649 [0.512, 0.786] -> 0.65; 3,056 [2,798, 3,337] -> 3,100; 14,818 [207, 36,489]
 * -> 15,000). hw = NaN: no CI. */
static void fmt_lecture(char *buf, size_t n, double x, int estimate, double hw)
{
    if (isnan(x) || isinf(x) || x == 0.0) { fmt_sig(buf, n, x, 3, 1); return; }
    // a whole number without a CI (a count) stays whole; an estimate that
    // happens to be 1 is 1.00
    if (!estimate && fmt_count(buf, n, x, 1)) return;
    int e = (int)floor(log10(fabs(x))), sig = 3;
    if (hw > 0.0 && isfinite(hw)) {
        int s = e - (int)floor(log10(hw)) + 1;
        sig = s < 2 ? 2 : s > 3 ? 3 : s;
    }
    if (e >= sig && e < 6) {   // a whole number, rounded and grouped: 3,100
        double u = pow(10.0, e - sig + 1);
        snprintf(buf, n, "%.0f", round(x / u) * u);
        group_fixed(buf, n, 1);
        return;
    }
    fmt_sig(buf, n, x, sig, 1);
}

/* Decimals of a fraction x in [0, 1] printed as a percent: 3 significant
 * digits, and at least 1 significant digit of its distance from 0% or 100%
 * (0.9995 -> 99.95%, not 100%); -1 when that needs more than 4 decimals
 * (a number at rounding level, not a fraction to quote). */
static int pct_decimals(double x)
{
    double p = 100.0 * x, m = fmin(p, 100.0 - p);
    if (!(x >= 0.0 && x <= 1.0)) return -1;
    if (m == 0.0) return 0;
    int d3 = 2 - (int)floor(log10(p)), dm = -(int)floor(log10(m));
    int dec = d3 > dm ? d3 : dm;
    if (dec < 0) dec = 0;
    return dec > 4 ? -1 : dec;
}

/* What a row's draws column counts, for the name of its count macro. A row
 * does not carry it as data, so it is read from the quantity's own words:
 * "N <unit>" (or "N random <unit>", "median of N") with N the row's draws.
 * Anything else counts draws. */
static const char *count_unit(const row *r)
{
    static const char *units[][2] = {
        {"draws", "Draws"}, {"seeds", "Seeds"}, {"cases", "Cases"}, {"heads", "Heads"},
        {"lengths", "Lengths"}, {"sequences", "Sequences"}, {"rows", "Rows"},
        {"repetitions", "Repetitions"}, {"runs", "Runs"}, {"predictions", "Predictions"},
        {"widths", "Widths"}, {"configurations", "Configurations"}};
    const char *d = r->f[C_DRAWS], *q = r->f[C_QUANT];
    char pat[2100];   // a draws field (< 1024) and a unit word
    for (size_t u = 0; u < sizeof units / sizeof units[0]; u++) {
        snprintf(pat, sizeof pat, "%s %s", d, units[u][0]);
        const char *hit = strstr(q, pat);
        if (!hit) {
            snprintf(pat, sizeof pat, "%s random %s", d, units[u][0]);
            hit = strstr(q, pat);
        }
        // the number must start a word: "over 600 draws", not "1600 draws"
        if (hit && (hit == q || !(hit[-1] >= '0' && hit[-1] <= '9') )) return units[u][1];
    }
    snprintf(pat, sizeof pat, "median of %s", d);
    if (strstr(q, pat)) return "Repetitions";
    return "Draws";
}

/* One row's macros; every one ends in \xspace, so "\naiveWidth on" keeps its
 * space and "\naiveWidth." does not get one:
 *   \X          the value (its CI's digits)     \XCI     its 95% CI, [lo, hi]
 *   \XLec       the value at 3 significant digits (a lecture's precision)
 *   \XPct       a fraction in [0, 1] as a percent, \XPctCI its CI in percent
 *   \XDraws     the count behind it, named after what it counts: \XSeeds,
 *               \XCases, \XHeads, \XLengths, \XSequences, \XRepetitions, ...
 *   \XTol       an identity's tolerance           \XSeed   the seed
 *   \XHalfWidth a precision rule's measure: the 95% CI's half-width
 *   \XSpread    a time's min--max over repetitions
 *   \XRule      the row's rule in words ("95\% CI inside [0.98, 1.02]"),
 *   \XOutcome   what it gave (PASS, FAIL, INCONCLUSIVE, REPORTED) */
static void write_tex_macros(FILE *f, const row *r)
{
    const char *m = r->f[C_MACRO];
    char meas[NUMTXT], band[BANDTXT], lo[NUMTXT], hi[NUMTXT];
    double x = cell_num(r->f[C_MEAS]), l = cell_num(r->f[C_LO]), h = cell_num(r->f[C_HI]);
    int rundep = atoi(r->f[C_RUNDEP]);
    fmt_band(meas, band, r, 1);
    fprintf(f, "\\newcommand{\\%s}{%s\\xspace}%% %s (%s, %s): ", m, meas, r->f[C_ID], r->f[C_KIND],
            r->f[C_VERDICT]);
    tex_comment(f, r->f[C_QUANT]);
    fputc('\n', f);
    if (!isnan(l) || !isnan(h)) {
        fmt_with_ci(meas, lo, hi, sizeof lo, x, l, h, 1);
        if (rundep) fprintf(f, "\\newcommand{\\%sSpread}{%s--%s\\xspace}\n", m, lo, hi);
        else {
            fmt_interval(band, sizeof band, lo, hi, l, h, 1);
            fprintf(f, "\\newcommand{\\%sCI}{%s\\xspace}\n", m, band);
        }
    }
    fmt_lecture(meas, sizeof meas, x, !isnan(l) || !isnan(h), (h - l) / 2.0);
    fprintf(f, "\\newcommand{\\%sLec}{%s\\xspace}\n", m, meas);
    int dec = pct_decimals(x);
    if (dec >= 0 && !rundep) {
        int ci = pct_decimals(l) >= 0 && pct_decimals(h) >= 0;
        // with a CI, the value and both ends get the decimals of 1 significant digit
        // of its half-width (64.9 [51.2, 78.6] -> 65% [51%, 79%]; 99.879 [99.85, 99.90]
        // -> 99.88% [99.85%, 99.90%]); without one, pct_decimals
        double hw = 50.0 * (h - l);
        if (ci && hw > 0.0) {
            dec = -(int)floor(log10(hw));
            dec = dec < 0 ? 0 : dec > 4 ? 4 : dec;
        }
        fprintf(f, "\\newcommand{\\%sPct}{%.*f\\%%\\xspace}\n", m, dec, 100.0 * x);
        if (ci)
            fprintf(f, "\\newcommand{\\%sPctCI}{[%.*f\\%%, %.*f\\%%]\\xspace}\n", m, dec, 100.0 * l,
                    dec, 100.0 * h);
    }
    if (strcmp(r->f[C_DRAWS], "0") != 0) {
        char d[64];
        fmt_count(d, sizeof d, cell_num(r->f[C_DRAWS]), 1);
        fprintf(f, "\\newcommand{\\%s%s}{%s\\xspace}\n", m, count_unit(r), d);
    }
    if (r->f[C_TOL][0]) {
        fmt_value(lo, sizeof lo, cell_num(r->f[C_TOL]), 1);
        fprintf(f, "\\newcommand{\\%sTol}{%s\\xspace}\n", m, lo);
    }
    // a precision rule tests the CI's half-width (h - l) / 2, not the value: cite it by name
    if (verdict_rule_cmp_parse(r->f[C_RULE]) == RULE_PRECISION && !isnan(l) && !isnan(h)) {
        fmt_value(lo, sizeof lo, (h - l) / 2.0, 1);
        fprintf(f, "\\newcommand{\\%sHalfWidth}{%s\\xspace}\n", m, lo);
    }
    fprintf(f, "\\newcommand{\\%sSeed}{%s\\xspace}\n", m, r->f[C_SEED]);
    // the rule as it is stored, and what it gave: "95\% CI inside [0.98, 1.02]", PASS
    fprintf(f, "\\newcommand{\\%sRule}{", m);
    tex_text(f, r->f[C_RTEXT]);
    fprintf(f, "\\xspace}\n\\newcommand{\\%sOutcome}{%s\\xspace}\n", m, r->f[C_VERDICT]);
}

static void copy_file(FILE *out, const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) return;
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0) fwrite(buf, 1, n, out);
    fclose(f);
}

int main(int argc, char **argv)
{
    att_init();
    const char *dir = "results";
    int first = 1, check_only = 0;
    while (first < argc && argv[first][0] == '-') {
        if (!strcmp(argv[first], "--out") && first + 1 < argc) {
            dir = argv[first + 1];
            first += 2;
        } else if (!strcmp(argv[first], "--check")) {
            check_only = 1;
            first++;
        } else {
            first = argc;
        }
    }
    if (first >= argc) {
        fprintf(stderr, "usage: report [--out DIR] [--check] ID ...\n");
        return 2;
    }
    /* a killed run's half-released files are finished or undone before they are read */
    if (afile_recover(dir) != ATT_OK) { att_print_error("report"); return 3; }

    size_t nrows = 0, cap = 64;
    row *rows = malloc(cap * sizeof *rows);
    if (!rows) { fprintf(stderr, "report: out of memory\n"); return 3; }
    size_t *start = calloc((size_t)argc + 1, sizeof *start);
    if (!start) { free(rows); fprintf(stderr, "report: out of memory\n"); return 3; }
    for (int a = first; a < argc; a++) {
        start[a] = nrows;
        char long_dir[4096];
        snprintf(long_dir, sizeof long_dir, "%s/long", dir);
        if (read_rows(dir, argv[a], 0, &rows, &nrows, &cap) ||
            read_rows(long_dir, argv[a], 1, &rows, &nrows, &cap)) {
            free(rows); free(start); return 3;
        }
    }
    start[argc] = nrows;
    /* macro names must be unique */
    for (size_t i = 0; i < nrows; i++)
        for (size_t j = i + 1; j < nrows && rows[i].f[C_MACRO][0]; j++)
            if (!strcmp(rows[i].f[C_MACRO], rows[j].f[C_MACRO])) {
                fprintf(stderr, "report: macro \\%s is defined twice (%s and %s)\n",
                        rows[i].f[C_MACRO], rows[i].f[C_ID], rows[j].f[C_ID]);
                free(rows); free(start); return 3;
            }
    tally all = {{{0}}};
    size_t nclaims = (size_t)(argc - first), nreproduced = 0;
    for (size_t i = 0; i < nrows; i++) count(&all, &rows[i]);
    for (int a = first; a < argc; a++) {
        tally t = {{{0}}};
        for (size_t i = start[a]; i < start[a + 1]; i++) count(&t, &rows[i]);
        nreproduced += !strcmp(claim_status(&t), "reproduced");
    }
    if (check_only) {
        printf("report: %zu rows of %zu experiments agree with their rules\n", nrows, nclaims);
        free(rows); free(start);
        return 0;
    }

    afile csv, md, tex, sum;
    afile_hold();                          /* the four files and the schema together, or none */
    if (afile_open(&csv, dir, "claims.csv") || afile_open(&md, dir, "claims.md") ||
        afile_open(&tex, dir, "claims.tex") || afile_open(&sum, dir, "claims_summary.md")) {
        att_print_error("report"); afile_release(0); free(rows); free(start); return 3;
    }
    /* claims.csv: the rows as they are */
    fprintf(csv.f, "%s\n", verdict_csv_header);
    for (size_t i = 0; i < nrows; i++)
        for (int c = 0; c < NCOL; c++) {
            table_cell_str(csv.f, rows[i].f[c]);
            fputc(c + 1 < NCOL ? ',' : '\n', csv.f);
        }

    /* claims.md: the counts by kind, then the table */
    char counts[1024];
    snprintf(counts, sizeof counts,
             "**%zu of %zu claims reproduced.** They rest on %zu claim checks (%zu PASS, %zu FAIL, "
             "%zu INCONCLUSIVE), %zu identities that hold by construction up to rounding "
             "(%zu PASS), %zu controls (%zu PASS) and %zu reported measurements without a rule.",
             nreproduced, nclaims, total(&all, KIND_CLAIM), all.n[KIND_CLAIM][OUT_PASS],
             all.n[KIND_CLAIM][OUT_FAIL], all.n[KIND_CLAIM][OUT_INCONCLUSIVE],
             total(&all, KIND_IDENTITY), all.n[KIND_IDENTITY][OUT_PASS],
             total(&all, KIND_CONTROL), all.n[KIND_CONTROL][OUT_PASS], total(&all, KIND_REPORTED));
    fprintf(md.f, "# Claims of section 4.2, as reproduced\n\n%s\n\n"
            "Generated by `make reproduce` from the verdict rows of each experiment "
            "(`results/<ID>.verdicts.csv`). Kinds: a *claim* check could come out false; an "
            "*identity* holds by construction and is checked to rounding; a *control* shows the "
            "check can tell; a *reported* number has no rule. Every Monte Carlo number has its "
            "draws, seed and 95%% confidence interval, every identity its tolerance, every time "
            "its spread over repetitions. Cite a number through its LaTeX macro "
            "(`\\input{results/claims.tex}`); `\\X` is the value, `\\XCI` its 95%% CI, "
            "`\\XDraws`, `\\XTol`, `\\XSeed` and `\\XSpread` (times) where they apply.\n\n"
            "| claim | kind | quantity | measured | 95%% CI, tolerance or spread | draws | rule | "
            "outcome | macro |\n|---|---|---|---|---|---|---|---|---|\n", counts);
    fprintf(tex.f,
            "%% claims.tex - generated by make reproduce; one macro per cited number.\n"
            "%% \\input it in the preamble (it loads xspace: every macro keeps the space\n"
            "%% after it in a sentence, \"\\naiveWidth on\", and none before punctuation).\n"
            "%% \\X the value, \\XCI its 95%% CI (an end the data cannot bound is \\infty),\n"
            "%% \\XLec the value at 3 significant digits, \\XPct and \\XPctCI a fraction as\n"
            "%% a percent, \\XTol the tolerance of an identity, \\XSeed the seed, \\XSpread\n"
            "%% the min--max of a time, \\XRule the rule in words, \\XOutcome its outcome,\n"
            "%% and the count named after what it counts:\n"
            "%% \\XDraws, \\XSeeds, \\XCases, \\XHeads, \\XLengths, \\XSequences, \\XRows,\n"
            "%% \\XRepetitions, \\XRuns, \\XPredictions, \\XWidths, \\XConfigurations.\n"
            "%% Numbers of 1,000 or more are grouped by three with commas, everywhere.\n"
            "\\RequirePackage{xspace}\n"
            "\\newcommand{\\claimsTexFormat}{2}%% 2: \\XLec, \\XPct, \\XRule, named counts, "
            "\\xspace\n");
    fprintf(
        tex.f,
        "\\newcommand{\\claimsReproduced}{%zu\\xspace}\n\\newcommand{\\claimsTotal}{%zu\\xspace}\n"
        "\\newcommand{\\claimChecks}{%zu\\xspace}\n\\newcommand{\\claimChecksPass}{%zu\\xspace}\n"
        "\\newcommand{\\identityChecks}{%zu\\xspace}\n\\newcommand{\\controlChecks}{%zu\\xspace}\n"
        "\\newcommand{\\reportedNumbers}{%zu\\xspace}\n",
        nreproduced, nclaims, total(&all, KIND_CLAIM), all.n[KIND_CLAIM][OUT_PASS],
        total(&all, KIND_IDENTITY), total(&all, KIND_CONTROL), total(&all, KIND_REPORTED));
    for (size_t i = 0; i < nrows; i++) {
        const row *r = &rows[i];
        char meas[NUMTXT], band[BANDTXT];
        fmt_band(meas, band, r, 0);
        fprintf(md.f, "| `%s` | %s | ", r->f[C_ID], r->f[C_KIND]);
        md_text(md.f, r->f[C_QUANT]);
        fprintf(md.f, " | %s | %s | %s | ", meas, band,
                strcmp(r->f[C_DRAWS], "0") ? r->f[C_DRAWS] : "");
        md_text(md.f, r->f[C_RTEXT]);
        fprintf(md.f, " | **%s** | %s%s%s |\n", r->f[C_VERDICT], r->f[C_MACRO][0] ? "`\\" : "",
                r->f[C_MACRO], r->f[C_MACRO][0] ? "`" : "");
        if (r->f[C_MACRO][0]) write_tex_macros(tex.f, r);
    }
    /* what each claim's experiment found, in words (tools/report/notes/<ID>.md) */
    fprintf(md.f, "\n## What the experiments found\n\nEach explanation below is a quantitative "
                  "prediction checked by a verdict row (named by its macro), or is called a "
                  "conjecture.\n");
    for (int a = first; a < argc; a++) {
        char path[4096];
        snprintf(path, sizeof path, "tools/report/notes/%s.md", argv[a]);
        fprintf(md.f, "\n### `%s`\n\n", argv[a]);
        FILE *f = fopen(path, "r");
        if (f) { fclose(f); copy_file(md.f, path); }
        else fprintf(md.f, "(no explanation written yet)\n");
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/robustness.md", dir);
    fputc('\n', md.f);
    copy_file(md.f, path);

    /* one row per claim for the README: the section's claims first, then the
     * suite's extensions (experiments/registry.tsv says which is which) */
    registry reg;
    registry_read(&reg, "experiments/registry.tsv");
    fprintf(sum.f, "%s\n", counts);
    /* the order: the registry's (the section's), then IDs it does not know */
    int *order = malloc((size_t)argc * sizeof *order), norder = 0;
    if (!order) {
        fprintf(stderr, "report: out of memory\n");
        afile_release(0); free(rows); free(start); return 3;
    }
    for (size_t k = 0; k < reg.n; k++)
        for (int a = first; a < argc; a++)
            if (!strcmp(argv[a], reg.e[k].id)) {
                order[norder++] = a;
                break;
            }
    for (int a = first; a < argc; a++) if (!registry_find(&reg, argv[a])) order[norder++] = a;
    for (int pass = 0; pass < 2; pass++) {
        int shown = 0;
        for (int o = 0; o < norder; o++) {
            int a = order[o];
            if (start[a] == start[a + 1]) continue;
            const reg_entry *e = registry_find(&reg, argv[a]);
            int ext = e && !strcmp(e->origin, "extension");
            if (ext != pass) continue;
            if (!shown++)
                fprintf(sum.f,
                        "\n%s\n\n| claim | in short | headline: what is measured | measured | "
                        "status | mathematics |\n|---|---|---|---|---|---|\n",
                        pass ? "**Extensions**: questions the suite adds beyond the section."
                             : "**The section's claims.**");
            summary_row(sum.f, argv[a], e ? e->claim : "", e ? e->code : "", rows, start[a],
                        start[a + 1], "");
        }
        /* parts of a section's claim that are extensions (the registry's note) */
        for (int o = 0; pass == 1 && o < norder; o++) {
            int a = order[o];
            const reg_entry *e = registry_find(&reg, argv[a]);
            if (!e || strcmp(e->origin, "section") || strncmp(e->note, "extension:", 10)) continue;
            if (start[a] == start[a + 1]) continue;
            if (!shown++)
                fprintf(sum.f, "\n**Extensions**: questions the suite adds beyond the section.\n\n"
                        "| claim | in short | headline: what is measured | measured | status | "
                        "mathematics |\n|---|---|---|---|---|---|\n");
            const char *what = e->note + 10;
            while (*what == ' ') what++;
            summary_row(sum.f, argv[a], what, e->code, rows, start[a], start[a + 1], " (part)");
        }
    }
    free(order);
    free(rows);
    free(start);
    if (afile_commit(&sum) || afile_commit(&csv) || verdict_list_write_schema(dir, "claims.csv")
        || afile_commit(&md) || afile_commit(&tex)) {
        afile_release(0);
        att_print_error("report");
        return 3;
    }
    if (afile_release(1) != ATT_OK) {
        att_print_error("report");
        return 3;
    }
    printf("report: %zu of %zu claims reproduced (%zu claim checks, %zu identities, %zu controls, "
           "%zu reported) -> %s/claims.{csv,md,tex}\n",
           nreproduced, nclaims, total(&all, KIND_CLAIM), total(&all, KIND_IDENTITY),
           total(&all, KIND_CONTROL), total(&all, KIND_REPORTED), dir);
    return 0;
}
