/* verdict.c - verdict rows as data: rules, outcomes, the verdicts CSV. */
#include "verdict.h"
#include "afile.h"
#include "status.h"
#include "table.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const kind_names[KIND_N] = {"claim", "identity", "control", "reported"};
static const char *const outcome_names[OUT_N] = {"PASS", "FAIL", "INCONCLUSIVE", "REPORTED"};
static const char *const rule_names[RULE_N] = {"none", "at_most", "at_least", "between",
                                               "ci_within", "ci_above", "ci_below", "precision"};

const char *const verdict_csv_header =
    "id,kind,quantity,expected,measured,ci_low,ci_high,tolerance,draws,seed,"
    "verdict,rule,bound_lo,bound_hi,rule_text,macro,run_dependent,headline,nature";

const char *verdict_kind_name(verdict_kind k) { return k < KIND_N ? kind_names[k] : "?"; }
const char *verdict_outcome_name(verdict_outcome o) { return o < OUT_N ? outcome_names[o] : "?"; }
const char *verdict_rule_cmp_name(rule_cmp c) { return c < RULE_N ? rule_names[c] : "?"; }

static int find(const char *const *names, int n, const char *s)
{
    for (int i = 0; i < n; i++)
        if (strcmp(names[i], s) == 0) return i;
    return -1;
}
int verdict_kind_parse(const char *s) { return find(kind_names, KIND_N, s); }
int verdict_outcome_parse(const char *s) { return find(outcome_names, OUT_N, s); }
int verdict_rule_cmp_parse(const char *s) { return find(rule_names, RULE_N, s); }

/* ---- rules ----------------------------------------------------------- */

verdict_rule verdict_rule_none(void) { return (verdict_rule){RULE_NONE, NAN, NAN}; }
verdict_rule verdict_rule_at_most(double b) { return (verdict_rule){RULE_AT_MOST, NAN, b}; }
verdict_rule verdict_rule_at_least(double a) { return (verdict_rule){RULE_AT_LEAST, a, NAN}; }
verdict_rule verdict_rule_between(double a, double b) { return (verdict_rule){RULE_BETWEEN, a, b}; }
verdict_rule verdict_rule_ci_within(double a, double b)
{
    return (verdict_rule){RULE_CI_WITHIN, a, b};
}
verdict_rule verdict_rule_ci_above(double a) { return (verdict_rule){RULE_CI_ABOVE, a, NAN}; }
verdict_rule verdict_rule_ci_below(double b) { return (verdict_rule){RULE_CI_BELOW, NAN, b}; }
verdict_rule verdict_rule_precision(double half_width)
{
    return (verdict_rule){RULE_PRECISION, NAN, half_width};
}

static int is_ci_rule(rule_cmp c)
{
    return c == RULE_CI_WITHIN || c == RULE_CI_ABOVE || c == RULE_CI_BELOW || c == RULE_PRECISION;
}

measure verdict_measure_exact(double value, size_t cases)
{
    return (measure){value, NAN, NAN, cases, 0, NAT_AUTO};
}

measure verdict_measure_ci(double mean, double ci_low, double ci_high, size_t draws)
{
    return (measure){mean, ci_low, ci_high, draws, 0, NAT_AUTO};
}

measure verdict_measure_time(double median, double min, double max, size_t reps)
{
    return (measure){median, min, max, reps, 1, NAT_RUN};
}

measure verdict_measure_as(measure m, col_nature nature)
{
    m.nature = nature;
    return m;
}

/* The nature a row is compared by: declared, or derived once here: a time -> run; an
 * identity with an upper bound -> rounding (against bound_hi); a CI -> mc; else computed. */
static col_nature row_nature(verdict_kind kind, verdict_rule r, measure m)
{
    if (m.nature != NAT_AUTO) return m.nature;
    if (m.run_dependent) return NAT_RUN;
    // an identity's residual against its upper bound (a count of agreements: computed)
    if (kind == KIND_IDENTITY && !isnan(r.hi)) return NAT_ROUNDING;
    if (!isnan(m.ci_low) || !isnan(m.ci_high)) return NAT_MC;
    return NAT_COMPUTED;
}

measure verdict_measure_stat(const stat_acc *a)
{
    measure m = {a->mean, NAN, NAN, a->n, 0, NAT_AUTO};
    stat_ci95(a, &m.ci_low, &m.ci_high);
    return m;
}

verdict_outcome verdict_decide(verdict_rule r, measure m)
{
    double v = m.value, cl = m.ci_low, ch = m.ci_high;
    int nan_ci = isnan(v) || isnan(cl) || isnan(ch);
    /* fewer than 2 draws have no confidence interval: a CI rule cannot
     * decide (more draws would), which is not a failure */
    if (is_ci_rule(r.cmp) && m.draws < 2) return OUT_INCONCLUSIVE;
    switch (r.cmp) {
    case RULE_NONE:
        return OUT_REPORTED;
    case RULE_AT_MOST:
        return v <= r.hi ? OUT_PASS : OUT_FAIL;          /* NaN compares false */
    case RULE_AT_LEAST:
        return v >= r.lo ? OUT_PASS : OUT_FAIL;
    case RULE_BETWEEN:
        return (v >= r.lo && v <= r.hi) ? OUT_PASS : OUT_FAIL;
    case RULE_CI_WITHIN:
        if (nan_ci) return OUT_FAIL;
        if (cl >= r.lo && ch <= r.hi) return OUT_PASS;
        if (ch < r.lo || cl > r.hi) return OUT_FAIL;
        return OUT_INCONCLUSIVE;
    case RULE_CI_ABOVE:
        if (nan_ci) return OUT_FAIL;
        if (cl >= r.lo) return OUT_PASS;
        return ch < r.lo ? OUT_FAIL : OUT_INCONCLUSIVE;
    case RULE_CI_BELOW:
        if (nan_ci) return OUT_FAIL;
        if (ch <= r.hi) return OUT_PASS;
        return cl > r.hi ? OUT_FAIL : OUT_INCONCLUSIVE;
    case RULE_PRECISION:
        return (!nan_ci && (ch - cl) / 2.0 <= r.hi) ? OUT_PASS : OUT_INCONCLUSIVE;
    case RULE_N:
        break;
    }
    return OUT_FAIL;
}

char *verdict_rule_text(verdict_rule r, char *buf, size_t n)
{
    switch (r.cmp) {
    case RULE_NONE:      snprintf(buf, n, "reported, no rule"); break;
    case RULE_AT_MOST:   snprintf(buf, n, "<= %.6g", r.hi); break;
    case RULE_AT_LEAST:  snprintf(buf, n, ">= %.6g", r.lo); break;
    case RULE_BETWEEN:   snprintf(buf, n, "in [%.6g, %.6g]", r.lo, r.hi); break;
    case RULE_CI_WITHIN: snprintf(buf, n, "95%% CI inside [%.6g, %.6g]", r.lo, r.hi); break;
    case RULE_CI_ABOVE:  snprintf(buf, n, "95%% CI above %.6g", r.lo); break;
    case RULE_CI_BELOW:  snprintf(buf, n, "95%% CI below %.6g", r.hi); break;
    case RULE_PRECISION: snprintf(buf, n, "95%% CI half-width <= %.6g", r.hi); break;
    default:             snprintf(buf, n, "?"); break;
    }
    return buf;
}

double verdict_draws_to_decide(verdict_rule r, measure m)
{
    double hw = (m.ci_high - m.ci_low) / 2.0, v = m.value, dist;
    if (!(hw > 0.0)) return 0.0;
    switch (r.cmp) {
    case RULE_CI_WITHIN: dist = fmin(fabs(v - r.lo), fabs(v - r.hi)); break;
    case RULE_CI_ABOVE:  dist = fabs(v - r.lo); break;
    case RULE_CI_BELOW:  dist = fabs(v - r.hi); break;
    case RULE_PRECISION: dist = r.hi; break;
    default: return 0.0;
    }
    if (!(dist > 0.0)) return 0.0;
    // half-width ~ 1/sqrt(n): n' = n (hw / dist)^2 brings it down to dist
    return ceil((double)m.draws * (hw / dist) * (hw / dist));
}

/* ---- the schema of a verdicts file ----------------------------------- */

/* The columns of verdict_csv_header and how make verify compares them:
 * measured, ci_low, ci_high by the row's own nature ("row": the CI is
 * ci_low, ci_high; a rounding row's bound is bound_hi); expected, tolerance and the
 * bounds computed; every other column exact. */
int verdict_list_write_schema(const char *dir, const char *name)
{
    static const char *const row = ",measured,ci_low,ci_high,";
    static const char *const computed = ",expected,tolerance,bound_lo,bound_hi,";
    char sname[512], cols[512], key[64];
    table_schema_name(name, sname, sizeof sname);
    afile af;
    int st = afile_open(&af, dir, sname);
    if (st) return st;
    fputs("column,nature,lo,hi,bound\n", af.f);
    snprintf(cols, sizeof cols, "%s", verdict_csv_header);
    for (char *save = NULL, *c = strtok_r(cols, ",", &save); c; c = strtok_r(NULL, ",", &save)) {
        snprintf(key, sizeof key, ",%s,", c);
        if (strstr(row, key)) fprintf(af.f, "%s,row,ci_low,ci_high,bound_hi\n", c);
        else fprintf(af.f, "%s,%s,,,\n", c, strstr(computed, key) ? "computed" : "exact");
    }
    return afile_commit(&af);
}

/* ---- the list -------------------------------------------------------- */

void verdict_list_init(verdict_list *vl) { memset(vl, 0, sizeof *vl); }

void verdict_list_free(verdict_list *vl)
{
    for (size_t i = 0; i < vl->n; i++) {
        free(vl->v[i].quantity);
        free(vl->v[i].macro);
    }
    free(vl->v);
    memset(vl, 0, sizeof *vl);
}

static int add_row(verdict_list *vl, verdict_kind kind, const char *macro, double expected,
                   measure m, verdict_rule r, const char *q);

int verdict_add(verdict_list *vl, verdict_kind kind, const char *macro, double expected,
                measure m, verdict_rule r, const char *quantity_fmt, ...)
{
    char q[1024];
    va_list ap;
    va_start(ap, quantity_fmt);
    vsnprintf(q, sizeof q, quantity_fmt, ap);
    va_end(ap);
    int st = add_row(vl, kind, macro, expected, m, r, q);
    if (st != ATT_OK && vl->status == ATT_OK) {      /* sticky: the first error */
        vl->status = st;
        snprintf(vl->err, sizeof vl->err, "verdict '%.200s': %.290s", q, att_last_error());
    }
    return st;
}

static int add_row(verdict_list *vl, verdict_kind kind, const char *macro, double expected,
                   measure m, verdict_rule r, const char *q)
{
    if (macro == NULL) macro = "";
    for (const char *p = macro; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z')))
            return att_fail(ATT_ERUNTIME, "macro name '%s' must be letters only", macro);
    if ((kind == KIND_REPORTED) != (r.cmp == RULE_NONE))
        return att_fail(ATT_ERUNTIME, "verdict %s: kind %s with rule %s (a reported row has no "
                        "rule, every other kind has one)", macro, verdict_kind_name(kind),
                        verdict_rule_cmp_name(r.cmp));
    if (m.nature >= NAT_N)
        return att_fail(ATT_ERUNTIME, "verdict %s: unknown nature %d", macro, (int)m.nature);
    if ((m.nature == NAT_MC || m.nature == NAT_TRAINING) && (isnan(m.ci_low) || isnan(m.ci_high)) &&
        !isnan(m.value) && m.draws >= 2)
        return att_fail(ATT_ERUNTIME, "verdict %s: a %s value needs its confidence interval", macro,
                        table_nature_name(m.nature));
    if (m.run_dependent && kind != KIND_REPORTED)
        return att_fail(ATT_ERUNTIME, "verdict %s: a time varies from run to run; it is "
                        "reported, never a rule's input", macro);
    if (is_ci_rule(r.cmp) && (isnan(m.ci_low) || isnan(m.ci_high)) && !isnan(m.value) &&
        m.draws >= 2)
        return att_fail(ATT_ERUNTIME, "verdict %s: rule %s needs a confidence interval", macro,
                        verdict_rule_cmp_name(r.cmp));
    if (vl->n == vl->cap) {
        size_t cap = vl->cap ? 2 * vl->cap : 16;
        verdict *nv = realloc(vl->v, cap * sizeof *nv);
        if (nv == NULL) return att_fail(ATT_ERUNTIME, "out of memory");
        vl->v = nv;
        vl->cap = cap;
    }
    verdict *d = &vl->v[vl->n];
    m.nature = row_nature(kind, r, m);
    *d = (verdict){kind, strdup(q), strdup(macro), r, expected, m, verdict_decide(r, m), 0};
    if (!d->quantity || !d->macro) {
        free(d->quantity);
        free(d->macro);
        return att_fail(ATT_ERUNTIME, "out of memory");
    }
    vl->n++;
    return ATT_OK;
}

void verdict_headline(verdict_list *vl)
{
    for (size_t i = 0; i < vl->n; i++) vl->v[i].headline = i + 1 == vl->n;
}

size_t verdict_list_count(const verdict_list *vl, verdict_outcome o)
{
    size_t n = 0;
    for (size_t i = 0; i < vl->n; i++) n += vl->v[i].outcome == o;
    return n;
}

int verdict_list_status(const verdict_list *vl)
{
    return verdict_list_count(vl, OUT_FAIL) ? ATT_FAIL : ATT_OK;
}

static void print_row(const verdict *v)
{
    char rt[128];
    printf("%-12s %-8s %-52s %.6g", verdict_outcome_name(v->outcome), verdict_kind_name(v->kind),
           v->quantity, v->m.value);
    if (v->m.run_dependent)
        printf("  (min %.6g, max %.6g over %zu repetitions)", v->m.ci_low, v->m.ci_high,
               v->m.draws);
    else if (!isnan(v->m.ci_low))
        printf("  95%% CI [%.6g, %.6g], %zu draws", v->m.ci_low, v->m.ci_high, v->m.draws);
    printf("  [%s]\n", verdict_rule_text(v->rule, rt, sizeof rt));
}

int verdict_list_write(const verdict_list *vl, const char *dir, const char *id,
                       unsigned long seed, int print)
{
    char name[256], rt[128];
    snprintf(name, sizeof name, "%s.verdicts.csv", id);
    afile af;
    int st = afile_open(&af, dir, name);
    if (st) return st;
    FILE *f = af.f;
    fprintf(f, "%s\n", verdict_csv_header);
    for (size_t i = 0; i < vl->n; i++) {
        const verdict *v = &vl->v[i];
        table_cell_str(f, id);                             fputc(',', f);
        fputs(verdict_kind_name(v->kind), f);       fputc(',', f);
        table_cell_str(f, v->quantity);                    fputc(',', f);
        table_cell_num(f, v->expected);                    fputc(',', f);
        table_cell_num(f, v->m.value);                     fputc(',', f);
        table_cell_num(f, v->m.ci_low);                    fputc(',', f);
        table_cell_num(f, v->m.ci_high);                   fputc(',', f);
        table_cell_num(f, v->rule.cmp == RULE_AT_MOST ? v->rule.hi : NAN); fputc(',', f);
        fprintf(f, "%zu,%lu,%s,%s,", v->m.draws, seed, verdict_outcome_name(v->outcome),
                verdict_rule_cmp_name(v->rule.cmp));
        table_cell_num(f, v->rule.lo);                     fputc(',', f);
        table_cell_num(f, v->rule.hi);                     fputc(',', f);
        table_cell_str(f, verdict_rule_text(v->rule, rt, sizeof rt)); fputc(',', f);
        table_cell_str(f, v->macro);
        fprintf(f, ",%d,%d,%s\n", v->m.run_dependent, v->headline, table_nature_name(v->m.nature));
        if (print & VERDICTS_ROWS) print_row(v);
    }
    if ((st = afile_commit(&af))) return st;
    if ((st = verdict_list_write_schema(dir, name))) return st;
    for (size_t i = 0; i < vl->n && (print & VERDICTS_NOTES); i++) {
        const verdict *v = &vl->v[i];
        if (v->outcome != OUT_INCONCLUSIVE) continue;
        double n = verdict_draws_to_decide(v->rule, v->m);
        if (v->m.draws < 2)
            fprintf(stderr, "%s: INCONCLUSIVE: %s: %zu draw%s give%s no confidence interval for "
                    "'%s' (--draws 2 or more)\n", id, v->quantity, v->m.draws,
                    v->m.draws == 1 ? "" : "s", v->m.draws == 1 ? "s" : "",
                    verdict_rule_text(v->rule, rt, sizeof rt));
        else if (n > 0.0)
            fprintf(stderr, "%s: INCONCLUSIVE: %s: the CI cannot decide '%s' with %zu draws; "
                    "about %.2g draws would (--draws)\n", id, v->quantity,
                    verdict_rule_text(v->rule, rt, sizeof rt), v->m.draws, n);
        else
            fprintf(stderr, "%s: INCONCLUSIVE: %s: the value sits on a bound of '%s'; no "
                    "number of draws decides it\n", id, v->quantity,
                    verdict_rule_text(v->rule, rt, sizeof rt));
    }
    return ATT_OK;
}
