/* experiment.c - the skeleton every experiment runs in (see experiment.h). */
#include "experiment.h"
#include "par.h"
#include "mem.h"
#include "provenance.h"
#include "registry.h"
#include "rng.h"
#include "status.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void experiment_meta(experiment *e, const char *fmt, ...)
{
    size_t room = sizeof e->meta - e->meta_len;
    if (room <= 1) return;
    if (e->meta_len) { e->meta[e->meta_len++] = '\n'; room--; }
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(e->meta + e->meta_len, room, fmt, ap);
    va_end(ap);
    if (n > 0) e->meta_len += (size_t)n < room ? (size_t)n : room - 1;
}

static void add_kind(experiment *e, verdict_kind k, const char *macro, double expected, measure m,
                     verdict_rule r, const char *fmt, va_list ap)
{
    char q[1024];
    vsnprintf(q, sizeof q, fmt, ap);
    verdict_add(&e->v, k, macro, expected, m, r, "%s", q);    /* sticky on error */
}

#define KIND_HELPER(name, kind)                                                             \
    void name(experiment *e, const char *macro, double expected, measure m, verdict_rule r,  \
              const char *fmt, ...)                                                         \
    {                                                                                       \
        va_list ap;                                                                         \
        va_start(ap, fmt);                                                                  \
        add_kind(e, kind, macro, expected, m, r, fmt, ap);                                  \
        va_end(ap);                                                                         \
    }
KIND_HELPER(verdict_claim, KIND_CLAIM)
KIND_HELPER(verdict_identity, KIND_IDENTITY)
KIND_HELPER(verdict_control, KIND_CONTROL)

void verdict_reported(experiment *e, const char *macro, double expected, measure m, const char *fmt,
                      ...)
{
    va_list ap;
    va_start(ap, fmt);
    add_kind(e, KIND_REPORTED, macro, expected, m, verdict_rule_none(), fmt, ap);
    va_end(ap);
}

void experiment_headline(experiment *e) { verdict_headline(&e->v); }

static void summary_add(experiment *e, const char *line)
{
    size_t room = sizeof e->summary - e->summary_len, n = strlen(line);
    if (n + 2 > room) return;
    memcpy(e->summary + e->summary_len, line, n);
    e->summary_len += n;
    e->summary[e->summary_len++] = '\n';
    e->summary[e->summary_len] = '\0';
}

void experiment_summary(experiment *e, const char *fmt, ...)
{
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    summary_add(e, line);
}

/* "<label> <value> (<section>), 95% CI [lo, hi], N draws" */
static void measure_line(char *buf, size_t n, const char *label, measure m, const char *section)
{
    int k = snprintf(buf, n, "%s %.4g", label, m.value);
    if (k > 0 && (size_t)k < n && section && section[0])
        k += snprintf(buf + k, n - (size_t)k, " (%s)", section);
    if (k > 0 && (size_t)k < n && !isnan(m.ci_low) && !isnan(m.ci_high) && !m.run_dependent)
        k += snprintf(buf + k, n - (size_t)k, ", 95%% CI [%.4g, %.4g], %zu draws", m.ci_low,
                      m.ci_high, m.draws);
    else if (k > 0 && (size_t)k < n && m.run_dependent)
        k += snprintf(buf + k, n - (size_t)k, " (median; min %.4g, max %.4g over %zu runs)",
                      m.ci_low, m.ci_high, m.draws);
    else if (k > 0 && (size_t)k < n && m.draws)
        snprintf(buf + k, n - (size_t)k, ", over %zu cases", m.draws);
}

void experiment_summary_measure(experiment *e, const char *label, measure m,
                                const char *section_fmt, ...)
{
    char section[256] = "", line[512];
    if (section_fmt) {
        va_list ap;
        va_start(ap, section_fmt);
        vsnprintf(section, sizeof section, section_fmt, ap);
        va_end(ap);
    }
    measure_line(line, sizeof line, label, m, section);
    summary_add(e, line);
}

/* The plain summary: the claim, its lines (or the headline row), the tally. */
static void print_summary(const experiment *e, const experiment_def *def)
{
    const registry_entry *r = registry_find(def->id);
    if (r)
        printf("%s: %s\n  (%s \"%s\")\n", def->id, r->claim,
               strcmp(r->origin, "extension")
                   ? "section 4.2,"
                   : "an extension of the suite's own, from section 4.2,",
               r->subheading);
    else
        printf("%s: %s\n", def->id, def->claim);
    if (e->summary_len) {
        for (const char *p = e->summary; *p;) {
            const char *nl = strchr(p, '\n');
            printf("  %.*s\n", (int)(nl - p), p);
            p = nl + 1;
        }
    } else {
        const verdict *h = NULL;
        for (size_t i = 0; i < e->v.n && !h; i++) if (e->v.v[i].headline) h = &e->v.v[i];
        for (size_t i = 0; i < e->v.n && !h; i++) if (e->v.v[i].kind == KIND_CLAIM) h = &e->v.v[i];
        if (h) {
            char line[1536], sec[64] = "";
            if (!isnan(h->expected)) snprintf(sec, sizeof sec, "expected %.4g", h->expected);
            measure_line(line, sizeof line, h->quantity, h->m, sec);
            printf("  %s\n", line);
        }
    }
    printf("  verdicts: %zu PASS, %zu FAIL, %zu INCONCLUSIVE, %zu REPORTED (every row: --verbose, "
           "or %s/%s.verdicts.csv)\n",
           verdict_list_count(&e->v, OUT_PASS), verdict_list_count(&e->v, OUT_FAIL),
           verdict_list_count(&e->v, OUT_INCONCLUSIVE), verdict_list_count(&e->v, OUT_REPORTED),
           e->o.out_dir, e->o.id);
    /* the rows that did not pass, by name, with their numbers and rule (at most 4) */
    size_t shown = 0, left = 0;
    for (size_t i = 0; i < e->v.n; i++) {
        const verdict *v = &e->v.v[i];
        if (v->outcome != OUT_FAIL && v->outcome != OUT_INCONCLUSIVE) continue;
        if (shown == 4) { left++; continue; }
        char rule[160], ci[96] = "";
        verdict_rule_text(v->rule, rule, sizeof rule);
        if (!isnan(v->m.ci_low) && !isnan(v->m.ci_high) && !v->m.run_dependent)
            snprintf(ci, sizeof ci, " [%.4g, %.4g]", v->m.ci_low, v->m.ci_high);
        printf("  %s (%s): %s: %.4g%s, rule: %s\n", verdict_outcome_name(v->outcome),
               verdict_kind_name(v->kind), v->quantity, v->m.value, ci, rule);
        shown++;
    }
    if (left) printf("  ... and %zu more (--verbose)\n", left);
}

gsl_rng *experiment_rng(const experiment *e, uint64_t stream, uint64_t block)
{
    return rng_new(e->o.rng_name, rng_stream_seed(e->o.seed, stream, block));
}

void experiment_rng_set(const experiment *e, gsl_rng *r, uint64_t stream, uint64_t block)
{
    gsl_rng_set(r, rng_stream_seed(e->o.seed, stream, block));
}

int usage_error(const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return att_fail(ATT_EUSAGE, "%s", msg);
}

int experiment_main(const experiment_def *def, int argc, char **argv)
{
    /* Under MPI (par.h) every rank runs all of this; the Monte Carlo engine
     * shares the draws out, and rank 0 alone writes and prints (opts_parse
     * and opts_exit frame the run: par_run_begin, par_run_end). */
    int st = par_init(&argc, &argv);
    att_init();
    static experiment e;         /* static: meta is large, and main runs once */
    memset(&e, 0, sizeof e);
    verdict_list_init(&e.v);
    const registry_entry *reg = registry_find(def->id);   /* the claim's words, once */
    const opts_info info = {def->id, reg ? reg->claim : def->claim, def->common | OPT_VERBOSE_FLAG,
                            def->seed, def->draws, def->extra};
    if (st == ATT_OK) st = opts_parse(&e.o, &info, argc, argv);
    if (st == ATT_OK) {
        mem_set_budget(e.o.max_memory, "--max-memory");
        /* test-only (par.h): one rank fails before its first Monte Carlo run */
        if (par_test_env("ATT_MPI_TEST_DIVERGE_RANK") == par_rank())
            st = att_fail(ATT_ERUNTIME, "a failure before the Monte Carlo (test-only: "
                          "ATT_MPI_TEST_DIVERGE_RANK)");
        else
            st = def->run(&e);
    }
    st = par_agree(st, PAR_SITE_RUN);    /* no verdict row is printed if any rank failed */
    if (st == ATT_OK && par_size() > 1) experiment_meta(&e, "mpi_ranks: %d", par_size());
    if (st == ATT_OK) st = provenance_write_meta(&e.o, e.meta_len ? e.meta : NULL);
    /* a failed verdict call (sticky): exit 3, and no verdict file */
    if (st == ATT_OK && e.v.status != ATT_OK) st = att_fail(e.v.status, "%s", e.v.err);
    int loud = !e.o.quiet && par_is_root();
    if (st == ATT_OK)
        st = verdict_list_write(&e.v, e.o.out_dir, e.o.id, e.o.seed,
                                (loud && e.o.verbose ? VERDICTS_ROWS : 0) |
                                    (loud ? VERDICTS_NOTES : 0));
    if (st == ATT_OK && loud) print_summary(&e, def);
    if (st == ATT_OK) st = verdict_list_status(&e.v);
    verdict_list_free(&e.v);
    return opts_exit(&e.o, st);
}
