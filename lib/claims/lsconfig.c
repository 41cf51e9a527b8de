/* lsconfig.c - long_sequences' configurations and their runs (see lsconfig.h). */
#include "lsconfig.h"
#include "att.h"
#include "mem.h"
#include "stat.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

const lsconfig LSCONFIGS[LSCONFIG_N] = {{"section", 64, 16, 1.0, "", 1, LONG_DRAWS_SECTION},
                                        {"soft", 64, 16, 0.70710678118654752, "Soft", 4, 0},
                                        {"narrow", 64, 4, 1.0, "Narrow", 1, LONG_DRAWS_NARROW},
                                        {"wide", 256, 16, 0.70710678118654752, "Wide", 1, 0}};

const table_col lsconfig_cols[12] = {
    COL(lsconfig_row, config), COL(lsconfig_row, d), COL(lsconfig_row, d_k), COL(lsconfig_row, scale),
    COL(lsconfig_row, T), COL(lsconfig_row, draws), COL_MC(lsconfig_row, T_self, "T_self_lo", "T_self_hi"),
    COL_MC(lsconfig_row, T_self_lo, "T_self_lo", "T_self_hi"), COL_MC(lsconfig_row, T_self_hi, "T_self_lo", "T_self_hi"),
    COL_MC(lsconfig_row, plain, "plain_lo", "plain_hi"), COL_MC(lsconfig_row, plain_lo, "plain_lo", "plain_hi"),
    COL_MC(lsconfig_row, plain_hi, "plain_lo", "plain_hi")};

static const char *names;   /* --config */
static int long_run;        /* --long */
const opt_spec lsconfig_options[4] = {
    {"config", OPT_STRING, &names, "NAMES", "configurations, comma-separated: section (d 64, d_k 16, c 1), "
     "soft (c^2 1/2), narrow (d_k 4, c 1), wide (d 256, c^2 1/2); default all"},
    {"long", OPT_FLAG, &long_run, NULL, "the long run: section and narrow with the draws chosen for +-10% "
     "(17,000,000 and 411,000; --draws N sets both), macros ...Long (make reproduce-long)"},
    {"draws", OPT_SIZE, NULL, NULL, "N = 20000 per configuration, 4 N = 80000 for soft (its CI within\n"
     "                     +-10%); --long: the counts named there"},
    {NULL, 0, NULL, NULL, NULL}};

int lsconfig_long(void) { return long_run; }

int lsconfig_select(size_t draws, size_t d, size_t dk, unsigned *want)
{
    if (draws < 16) return exp_usage("--draws %zu: the control-variate regression needs at least 16", draws);
    *want = 0;
    for (size_t i = 0; i < LSCONFIG_N; i++) if (!long_run || LSCONFIGS[i].long_draws) *want |= 1u << i;
    if (names) {
        *want = 0;
        for (const char *p = names; ; p++) {
            size_t len = strcspn(p, ","), i = 0;
            while (i < LSCONFIG_N && (strlen(LSCONFIGS[i].name) != len || strncmp(p, LSCONFIGS[i].name, len))) i++;
            if (i == LSCONFIG_N) return exp_usage("--config %s: unknown configuration '%.*s' (the names: section, soft, "
                                                  "narrow, wide, comma-separated)", names, (int)len, p);
            if (long_run && !LSCONFIGS[i].long_draws)
                return exp_usage("--config %s: '%s' is not in the long run (--long runs section, narrow)",
                                 names, LSCONFIGS[i].name);
            *want |= 1u << i;
            p += len;
            if (!*p) break;
        }
    }
    for (size_t i = 0; i < LSCONFIG_N; i++)
        if ((d && LSCONFIGS[i].d != d) || (dk && LSCONFIGS[i].d_k != dk)) *want &= ~(1u << i);
    if (!*want) return exp_usage("--config/--d/--dk: no configuration matches (section: d 64, d_k 16, c 1; "
                                 "soft: 64, 16, c^2 1/2; narrow: 64, 4, c 1; wide: 256, 16, c^2 1/2)");
    return ATT_OK;
}

const char *lsconfig_macro(char *buf, size_t n, const char *base, const lsconfig *cf)
{
    snprintf(buf, n, "%s%s%s", base, cf->macro, long_run ? "Long" : "");
    return buf;
}

int lsconfig_mc_run(experiment *e, size_t config, const lsconfig *cf, size_t nstat, mc_draw_fn draw,
                    mc_alloc_fn alloc, mc_free_fn free_fn, void *ctx, lsconfig_mc *r)
{
    exp_meta(e, "config%zu: %s, d = %zu, d_k = %zu, c = %.17g%s", config, cf->name, cf->d, cf->d_k, cf->c,
             long_run ? " (long run)" : "");
    size_t n = !long_run ? e->o.draws * cf->mult : e->o.draws_given ? e->o.draws : cf->long_draws;
    if (!e->o.quiet)   /* progress, one line per configuration (the draw counter shows only on a terminal) */
        fprintf(stderr, "long_sequences: %s (d = %zu, d_k = %zu, c = %.4g): %zu draws\n", cf->name, cf->d, cf->d_k, cf->c, n);
    *r = (lsconfig_mc){n, nstat, mem_calloc(n * nstat, sizeof *r->val, "per-draw values (a row per draw: --draws)"),
                       mem_calloc(nstat, sizeof *r->acc, "statistics")};
    if (!r->val || !r->acc) return att_alloc_status();
    mc_config m = exp_mc(e, "long_sequences");
    m.nstats = nstat; m.draws = n; m.draw = draw; m.alloc = alloc; m.free = free_fn; m.ctx = ctx;
    m.stream = (uint64_t)cf->d * 1000003u + cf->d_k * 1009u + (uint64_t)llround(cf->c * 1e6);
    m.values = r->val;
    return mc_run(&m, r->acc);
}

void lsconfig_mc_free(lsconfig_mc *r)
{
    mem_free(r->val, r->n * r->nstat, sizeof *r->val);
    mem_free(r->acc, r->nstat, sizeof *r->acc);
    r->val = NULL, r->acc = NULL;
}

void lsconfig_rows(size_t config, const lsconfig *cf, size_t n, size_t nt, const double *Ts, const double *yh,
                   const double *V, const stat_acc *acc, lsconfig_row *rows, double *l)
{
    for (size_t t = 0; t < nt; t++) {
        double se = sqrt(V[t * nt + t]), plo, phi;
        stat_ci95(&acc[t], &plo, &phi);
        l[t] = log(Ts[t]);
        rows[t] = (lsconfig_row){config, cf->d, cf->d_k, (size_t)Ts[t], n, cf->c, yh[t], yh[t] - STAT_Z95 * se,
                                 yh[t] + STAT_Z95 * se, acc[t].mean, plo, phi};
    }
}
