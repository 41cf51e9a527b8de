/* sweep.c - a grid, its Monte Carlo and its CSV tables (see sweep.h). */
#include "sweep.h"
#include "afile.h"
#include "mc.h"
#include "mem.h"
#include "rng.h"
#include "status.h"
#include "table.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const axis_names[AX_N] = {"T", "d", "d_k", "d_v", "x", "case"};

void sweep_grid_init(sweep_grid *g) { memset(g, 0, sizeof *g); }

void sweep_grid_head(sweep_grid *g, size_t T, size_t d, size_t dk, size_t dv)
{
    sweep_grid_init(g);
    const size_t v[4] = {T, d, dk, dv};
    for (int a = AX_T; a <= AX_DV; a++)
        if (v[a]) sweep_axis(g, (sweep_axis_id)a, 1, &v[a]);
}

void sweep_axis(sweep_grid *g, sweep_axis_id a, size_t n, const size_t *values)
{
    g->declared[a] = 1;
    g->n[a] = n < SWEEP_MAX_VALUES ? n : SWEEP_MAX_VALUES;
    for (size_t i = 0; i < g->n[a]; i++) g->v[a][i] = (double)values[i];
}

void sweep_axis_x(sweep_grid *g, const char *name, size_t n, const double *values)
{
    g->declared[AX_X] = 1;
    g->x_name = name;
    g->n[AX_X] = n < SWEEP_MAX_VALUES ? n : SWEEP_MAX_VALUES;
    for (size_t i = 0; i < g->n[AX_X]; i++) g->v[AX_X][i] = values[i];
}

void sweep_axis_cases(sweep_grid *g, const char *name, size_t n, const char *const *labels)
{
    g->declared[AX_CASE] = 1;
    g->case_name = name;
    g->case_labels = labels;
    g->n[AX_CASE] = n < SWEEP_MAX_VALUES ? n : SWEEP_MAX_VALUES;
    for (size_t i = 0; i < g->n[AX_CASE]; i++) g->v[AX_CASE][i] = (double)i;
}

size_t sweep_npoints(const sweep_grid *g)
{
    size_t n = 1;
    for (int a = 0; a < AX_N; a++) n *= g->declared[a] ? g->n[a] : 1;
    return n;
}

sweep_point sweep_grid_point(const sweep_grid *g, size_t p)
{
    double v[AX_N];
    for (int a = AX_N - 1; a >= 0; a--) {
        size_t n = g->declared[a] ? g->n[a] : 1;
        v[a] = g->declared[a] ? g->v[a][p % n] : 0.0;
        p /= n;
    }
    sweep_point pt = {.T = (size_t)v[AX_T], .d = (size_t)v[AX_D], .dk = (size_t)v[AX_DK],
                      .dv = (size_t)v[AX_DV], .x = v[AX_X], .kase = (size_t)v[AX_CASE]};
    pt.stream = sweep_stream(&pt);
    return pt;
}

gsl_rng *sweep_rng(const experiment *e, const sweep_point *pt)
{
    gsl_rng *rng = rng_new(e->o.rng_name, rng_stream_seed(e->o.seed, sweep_stream(pt), 0));
    return rng;
}

size_t sweep_max(const sweep_grid *g, sweep_axis_id a)
{
    double m = 0.0;
    for (size_t i = 0; i < g->n[a]; i++) m = fmax(m, g->v[a][i]);
    return (size_t)m;
}

/* stream = mix(... mix(mix(0, T), d) ..., case): splitmix64 chained over the
 * six parameters (rng_stream_seed), so it depends on them and nothing else */
uint64_t sweep_stream(const sweep_point *pt)
{
    uint64_t xbits;
    memcpy(&xbits, &pt->x, sizeof xbits);
    const uint64_t par[AX_N] = {pt->T, pt->d, pt->dk, pt->dv, xbits, pt->kase};
    uint64_t h = 0x5eed5eedULL;
    for (int a = 0; a < AX_N; a++) h = rng_stream_seed(h, (uint64_t)a, par[a]);
    return h;
}

/* ---- the grid after the options ------------------------------------- */

/* The run's values of axis a: the option's list when given, else the grid's. */
static size_t run_values(const sweep_grid *g, const opts *o, sweep_axis_id a, double *v)
{
    const opts_list *l = a == AX_T ? &o->T_list : a == AX_D ? &o->d_list
                       : a == AX_DK ? &o->dk_list : a == AX_DV ? &o->dv_list : NULL;
    if (!g->declared[a]) { v[0] = 0.0; return 1; }
    if (l && l->n) {
        for (size_t i = 0; i < l->n; i++) v[i] = (double)l->v[i];
        return l->n;
    }
    memcpy(v, g->v[a], g->n[a] * sizeof *v);
    return g->n[a];
}

typedef struct {
    const sweep_def *def;
    const sweep_point *pt;
    const sweep_grid *grid;    /* the run's values, for work_alloc */
    size_t npoints;
} run_ctx;

/* draw i of point p: the experiment's draw, told its point and its index there */
static int draw_point(gsl_rng *rng, void *cv, void *work, size_t p, size_t i, double *out)
{
    const run_ctx *c = cv;
    sweep_point pt = c->pt[p];
    pt.draw = i;
    if (c->def->work_per_point) work = ((workset **)work)[1 + p];
    return c->def->draw(rng, out, &pt, work, c->def->ctx);
}

static uint64_t stream_at(const void *cv, size_t p) { return ((const run_ctx *)cv)->pt[p].stream; }
static size_t draws_at(const void *cv, size_t p) { return ((const run_ctx *)cv)->pt[p].draws; }

void *sweep_work_new(const sweep_grid *g, const sweep_def *def)
{
    if (def->work_alloc) return def->work_alloc(g, def->ctx);
    if (!def->work_mats && !def->work_vecs && !def->work_heads) return NULL;
    sweep_point mx = {.T = sweep_max(g, AX_T), .d = sweep_max(g, AX_D), .dk = sweep_max(g, AX_DK),
                      .dv = sweep_max(g, AX_DV)};
    return sweep_workset(&mx, def->work_mats, def->work_vecs, def->work_heads);
}

void sweep_work_free(const sweep_def *def, void *work)
{
    if (def->work_alloc) {
        if (def->work_free) def->work_free(work);
    } else {
        workset_free(work);
    }
}

/* a per-point work: [0] holds the count, [1 + p] point p's workset */
static void worksets_free(void *w)
{
    workset **all = w;
    for (size_t p = 0; all && p < (size_t)(uintptr_t)all[0]; p++) workset_free(all[1 + p]);
    free(all);
}

static void *work_alloc(void *cv)
{
    const run_ctx *c = cv;
    const sweep_def *d = c->def;
    if (d->work_alloc || !d->work_per_point) return sweep_work_new(c->grid, d);
    workset **all = calloc(1 + c->npoints, sizeof *all);
    for (size_t p = 0; all && p < c->npoints; p++) {
        all[0] = (workset *)(uintptr_t)p;
        if (!(all[1 + p] = sweep_workset(&c->pt[p], d->work_mats, d->work_vecs, d->work_heads))) {
            worksets_free(all);
            return NULL;
        }
    }
    if (all) all[0] = (workset *)(uintptr_t)c->npoints;
    else att_fail(ATT_ERUNTIME, "out of memory for the work buffers");
    return all;
}

/* ---- the tables ------------------------------------------------------ */

static void put_point(FILE *f, const sweep_grid *g, const sweep_point *pt)
{
    const size_t sz[4] = {pt->T, pt->d, pt->dk, pt->dv};
    for (int a = AX_T; a <= AX_DV; a++)
        if (g->declared[a]) fprintf(f, "%zu,", sz[a]);
    if (g->declared[AX_X]) { table_cell_num(f, pt->x); fputc(',', f); }
    if (g->declared[AX_CASE]) {
        if (g->case_labels) table_cell_str(f, g->case_labels[pt->kase]);
        else fprintf(f, "%zu", pt->kase);
        fputc(',', f);
    }
}

static void put_point_header(FILE *f, const sweep_grid *g)
{
    for (int a = AX_T; a <= AX_DV; a++)
        if (g->declared[a]) fprintf(f, "%s,", axis_names[a]);
    if (g->declared[AX_X]) fprintf(f, "%s,", g->x_name ? g->x_name : "x");
    if (g->declared[AX_CASE]) fprintf(f, "%s,", g->case_name ? g->case_name : "case");
}

/* ---- the schema: how make verify compares each column (table.h) ---- */

typedef struct {
    table_col *c;
    char **names;
    size_t n, cap;
    int oom;
} schema;

static void schema_add(schema *sc, const char *name, col_nature nat, const char *lo,
                       const char *hi, const char *bound)
{
    if (sc->oom) return;
    if (sc->n == sc->cap) {
        size_t cap = sc->cap ? 2 * sc->cap : 64;
        table_col *c = realloc(sc->c, cap * sizeof *c);
        char **nm = c ? realloc(sc->names, cap * 3 * sizeof *nm) : NULL;
        if (!c || !nm) { if (c) sc->c = c; sc->oom = 1; return; }
        sc->c = c, sc->names = nm, sc->cap = cap;
    }
    char **keep = &sc->names[3 * sc->n];
    keep[0] = strdup(name), keep[1] = lo ? strdup(lo) : NULL, keep[2] = hi ? strdup(hi) : NULL;
    if (!keep[0] || (lo && !keep[1]) || (hi && !keep[2])) sc->oom = 1;
    sc->c[sc->n] = (table_col){keep[0], COL_DOUBLE, 0, nat, keep[1], keep[2], bound};
    sc->n++;
}

static void schema_free(schema *sc)
{
    for (size_t i = 0; i < 3 * sc->n; i++) free(sc->names[i]);
    free(sc->names);
    free(sc->c);
}

static void schema_point(schema *sc, const sweep_grid *g)
{
    for (int a = AX_T; a <= AX_DV; a++)
        if (g->declared[a]) schema_add(sc, axis_names[a], NAT_EXACT, NULL, NULL, NULL);
    if (g->declared[AX_X])
        schema_add(sc, g->x_name ? g->x_name : "x", NAT_COMPUTED, NULL, NULL, NULL);
    if (g->declared[AX_CASE])
        schema_add(sc, g->case_name ? g->case_name : "case", NAT_EXACT, NULL, NULL, NULL);
}

/* a statistic's six columns: mean, lo, hi by its nature; min, max; n exact */
static void schema_stat(schema *sc, const char *s, sweep_nature nat)
{
    static const char *const part[] = {"mean", "lo", "hi", "min", "max"};
    char name[5][160], lo[160], hi[160];
    snprintf(lo, sizeof lo, "%s_lo", s);
    snprintf(hi, sizeof hi, "%s_hi", s);
    for (int j = 0; j < 5; j++) {
        snprintf(name[j], sizeof name[j], "%s_%s", s, part[j]);
        int ci = nat.nature == NAT_MC || nat.nature == NAT_TRAINING;   /* natures with a CI */
        if (ci && j < 3) schema_add(sc, name[j], nat.nature, lo, hi, nat.bound);
        /* a trained result's min and max over seeds: training, within a quarter of the CI */
        else if (ci && nat.nature == NAT_TRAINING && !nat.bound)
            schema_add(sc, name[j], NAT_TRAINING, lo, hi, NULL);
        else if (ci)
            schema_add(sc, name[j], nat.bound ? NAT_ROUNDING : NAT_COMPUTED, NULL, NULL, nat.bound);
        else schema_add(sc, name[j], nat.nature, NULL, NULL, nat.bound);
    }
    snprintf(name[0], sizeof name[0], "%s_n", s);
    schema_add(sc, name[0], NAT_EXACT, NULL, NULL, NULL);
}

static sweep_nature nature_of(const sweep_def *def, size_t k)
{
    return def->stat_nature ? def->stat_nature(k) : SW_MC;
}

sweep_nature sweep_nature_find(const char *const *names, size_t n, size_t k,
                               const sweep_exception *x, size_t nx)
{
    sweep_nature nat = SW_MC;
    for (size_t i = 0; i < nx; i++) {
        size_t j = 0;
        while (j < n && strcmp(names[j], x[i].stat) != 0) j++;
        if (j == n) {   /* a misspelt exception: the run fails rather than compare it as MC */
            att_fail(ATT_ERUNTIME, "SWEEP_VERIFY: '%s' is none of the list's statistics",
                     x[i].stat);
            return (sweep_nature){NAT_N, NULL};
        }
        if (j == k) nat = x[i].nature;
    }
    return nat;
}

static int write_schema(const experiment *e, const char *name, const schema *sc)
{
    if (sc->oom) return att_fail(ATT_ERUNTIME, "%s: out of memory for its schema", name);
    for (size_t i = 0; i < sc->n; i++)      /* a derived column named like a statistic's */
        for (size_t j = i + 1; j < sc->n; j++)
            if (strcmp(sc->c[i].name, sc->c[j].name) == 0)
                return att_fail(ATT_ERUNTIME, "%s: two columns are called '%s'", name,
                                sc->c[i].name);
    return table_write_schema(e->o.out_dir, name, sc->c, sc->n);
}

static int write_summary(const experiment *e, const sweep_grid *g, const sweep_def *def,
                         const sweep_result *r)
{
    char name[256];
    snprintf(name, sizeof name, "%s", def->csv ? def->csv : "");
    if (!def->csv) snprintf(name, sizeof name, "%s.csv", e->o.id);
    afile af;
    int st = afile_open(&af, e->o.out_dir, name);
    if (st) return st;
    FILE *f = af.f;
    static const char *const part[] = {"mean", "lo", "hi", "min", "max", "n"};
    put_point_header(f, g);
    fputs("draws", f);
    for (size_t k = 0; k < def->nstats; k++)
        for (size_t j = 0; j < 6; j++) fprintf(f, ",%s_%s", def->stat_names[k], part[j]);
    for (size_t k = 0; k < def->nderived; k++) {
        fputc(',', f);
        table_cell_str(f, def->derived[k].name);
    }
    fputc('\n', f);
    double *cols = def->nderived ? calloc(def->nderived, sizeof *cols) : NULL;
    if (def->nderived && cols == NULL) {
        afile_abort(&af);
        return att_fail(ATT_ERUNTIME, "out of memory");
    }
    for (size_t p = 0; p < r->npoints; p++) {
        put_point(f, g, &r->pt[p]);
        fprintf(f, "%zu", r->pt[p].draws);
        for (size_t k = 0; k < def->nstats; k++) {
            const stat_acc *a = sweep_acc(r, p, k);
            double lo, hi;
            stat_ci95(a, &lo, &hi);
            const double v[5] = {a->mean, lo, hi, a->min, a->max};
            for (size_t j = 0; j < 5; j++) { fputc(',', f); table_cell_num(f, v[j]); }
            fprintf(f, ",%zu", a->n);
        }
        if (def->nderived) def->derive(cols, &r->pt[p], sweep_acc(r, p, 0), def->ctx);
        for (size_t k = 0; k < def->nderived; k++) {
            fputc(',', f);
            table_cell_num(f, cols[def->derived[k].offset / sizeof(double)]);
        }
        fputc('\n', f);
    }
    free(cols);
    if ((st = afile_commit(&af))) return st;
    schema sc = {0};
    schema_point(&sc, g);
    schema_add(&sc, "draws", NAT_EXACT, NULL, NULL, NULL);
    for (size_t k = 0; k < def->nstats; k++)
        schema_stat(&sc, def->stat_names[k], nature_of(def, k));
    for (size_t k = 0; k < def->nderived; k++) {
        const table_col *c = &def->derived[k];
        schema_add(&sc, c->name, c->nature ? c->nature : NAT_COMPUTED, c->lo, c->hi, c->bound);
    }
    st = write_schema(e, name, &sc);
    schema_free(&sc);
    return st;
}

static int write_draws(const experiment *e, const sweep_grid *g, const sweep_def *def,
                       const sweep_result *r)
{
    afile af;
    int st = afile_open(&af, e->o.out_dir, def->draws_csv);
    if (st) return st;
    FILE *f = af.f;
    put_point_header(f, g);
    fputs("draw", f);
    for (size_t k = 0; k < def->nstats; k++) fprintf(f, ",%s", def->stat_names[k]);
    fputc('\n', f);
    const double *v = r->values;
    for (size_t p = 0; p < r->npoints; p++)
        for (size_t i = 0; i < r->pt[p].draws; i++, v += def->nstats) {
            put_point(f, g, &r->pt[p]);
            fprintf(f, "%zu", i);
            for (size_t k = 0; k < def->nstats; k++) { fputc(',', f); table_cell_num(f, v[k]); }
            fputc('\n', f);
        }
    if ((st = afile_commit(&af))) return st;
    /* one draw's value is deterministic: computed, or rounding-level */
    schema sc = {0};
    schema_point(&sc, g);
    schema_add(&sc, "draw", NAT_EXACT, NULL, NULL, NULL);
    /* a trained model's value, one per seed: within the seed-to-seed sd of its point */
    char group[256] = "group:";
    for (int a = AX_T; a < AX_N; a++)
        if (g->declared[a]) {
            const char *nm = a == AX_X && g->x_name         ? g->x_name
                             : a == AX_CASE && g->case_name ? g->case_name
                                                            : axis_names[a];
            size_t len = strlen(group);
            snprintf(group + len, sizeof group - len, "%s%s", len > 6 ? ";" : "", nm);
        }
    for (size_t k = 0; k < def->nstats; k++) {
        sweep_nature n = nature_of(def, k);
        int ci = n.nature == NAT_MC || n.nature == NAT_TRAINING,
            round = n.nature == NAT_ROUNDING || (ci && n.bound);
        if (n.nature == NAT_TRAINING && !n.bound)
            schema_add(&sc, def->stat_names[k], NAT_TRAINING, group, NULL, NULL);
        else
            schema_add(&sc, def->stat_names[k],
                       round ? NAT_ROUNDING
                       : ci  ? NAT_COMPUTED
                             : n.nature,
                       NULL, NULL, n.bound);
    }
    st = write_schema(e, def->draws_csv, &sc);
    schema_free(&sc);
    return st;
}

/* ---- sizes that cannot overflow ---------------------------------------- */

/* The products the sizes of point pt feed, checked before any buffer is sized (opts_need: exit 2
 * naming --T, --d, --dk, --dv): every matrix of a head on its axes (X T x d, S T x T, Q and K
 * T x d_k, V T x d_v, W_Q d x d_k, W_V d x d_v) and every matrix of the shape words (def.work_mats,
 * "T.T": T*T*8 bytes). */
static int point_sizes(const experiment *e, const sweep_def *def, const sweep_point *pt)
{
    static const char *const nm[4] = {"T", "d", "dk", "dv"};
    const size_t v[4] = {pt->T, pt->d, pt->dk, pt->dv};
    static const int pairs[][2] = {{0, 0}, {0, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 3}};
    for (size_t k = 0; k < sizeof pairs / sizeof pairs[0]; k++) {
        int a = pairs[k][0], b = pairs[k][1];
        if (!v[a] || !v[b]) continue;
        char f[8];
        snprintf(f, sizeof f, "%s*%s", nm[a], nm[b]);
        if (opts_need(&e->o, NULL, sizeof(double), f, v[a], v[b])) return ATT_EUSAGE;
    }
    /* the shape words "T.d d.dk 4.d": numbers join the element size */
    for (const char *w = def->work_mats ? def->work_mats : ""; *w;) {
        if (*w == ' ') { w++; continue; }
        size_t len = strcspn(w, " "), elem = sizeof(double), fv[2], nf = 0;
        char f[16] = "";
        for (size_t i = 0; i < len && nf < 2;) {
            size_t n = strcspn(w + i, ". ");
            if (n > len - i) n = len - i;
            size_t x = 0;
            int named = 0;
            for (int a = 0; a < 4; a++)
                if (strlen(nm[a]) == n && !strncmp(w + i, nm[a], n)) x = v[a], named = 1;
            if (named) {
                size_t fl = strlen(f);
                snprintf(f + fl, sizeof f - fl, "%s%.*s", nf ? "*" : "", (int)n, w + i);
                fv[nf++] = x;
            } else {
                for (size_t j = 0; j < n; j++) x = 10 * x + (size_t)(w[i + j] - '0');
                if (__builtin_mul_overflow(elem, x, &elem)) elem = SIZE_MAX;
            }
            i += n + (i + n < len);
        }
        if (nf && opts_need_v(&e->o, NULL, elem, f, fv, nf)) return ATT_EUSAGE;
        w += len;
    }
    return ATT_OK;
}

/* The draws' memory when --draws sets them: the Monte Carlo plan's partial statistics (one
 * set of statistics per block of MC_BLOCK draws) and the per-draw table, counted before mc_run
 * so that a refusal names --draws (exit 2). */
static int draws_sizes(const experiment *e, const sweep_def *def, const sweep_point *pt,
                       size_t total)
{
    size_t nd = 0, nb = 0;
    int over = 0;
    for (size_t p = 0; p < total; p++) {
        over |= __builtin_add_overflow(nd, pt[p].draws, &nd);
        over |=
            __builtin_add_overflow(nb, pt[p].draws / MC_BLOCK + (pt[p].draws % MC_BLOCK != 0), &nb);
    }
    size_t per_block = 0;
    over |= __builtin_mul_overflow(def->nstats, sizeof(stat_acc), &per_block);
    int st = opts_need_for(&e->o, "--draws", e->o.draws,
                           "the Monte Carlo partial statistics, one set per "
                           "block of 256 draws",
                           nb, over, per_block);
    if (!st && (def->draws_csv || def->keep_draws))
        st = opts_need_for(&e->o, "--draws", e->o.draws, "the per-draw table", nd, over,
                           def->nstats * sizeof(double));
    return st;
}

int sweep_draws_fit(const experiment *e, const sweep_def *def, size_t draws)
{
    if (!e->o.draws_given) return ATT_OK;
    const sweep_point pt = {.draws = draws};
    return draws_sizes(e, def, &pt, 1);
}

/* ---- the run --------------------------------------------------------- */

/* The Monte Carlo's configuration: the run's generator, seed and --quiet. */
static mc_config run_mc(const experiment *e)
{
    return (mc_config){.rng_name = e->o.rng_name, .seed = e->o.seed, .label = e->o.id,
                       .quiet = e->o.quiet};
}

int sweep_run(experiment *e, const sweep_grid *g, const sweep_def *def, sweep_result *r)
{
    memset(r, 0, sizeof *r);
    double vals[AX_N][(size_t)OPTS_MAX_LIST > (size_t)SWEEP_MAX_VALUES ? (size_t)OPTS_MAX_LIST
                                                                       : (size_t)SWEEP_MAX_VALUES];
    size_t n[AX_N], total = 1;
    for (int a = 0; a < AX_N; a++) {
        n[a] = run_values(g, &e->o, (sweep_axis_id)a, vals[a]);
        if (n[a] == 0)
            return att_fail(ATT_EUSAGE, "%s: the grid has no %s value", e->o.id, axis_names[a]);
        total *= n[a];
        if (total > SWEEP_MAX_POINTS)
            return att_fail(ATT_EUSAGE, "%s: more than %d grid points", e->o.id, SWEEP_MAX_POINTS);
    }
    /* the grid with the run's values (what work_alloc's sweep_max sees) */
    sweep_grid run_grid = *g;
    for (int a = 0; a < AX_N; a++) {
        run_grid.n[a] = n[a] < SWEEP_MAX_VALUES ? n[a] : SWEEP_MAX_VALUES;
        memcpy(run_grid.v[a], vals[a], run_grid.n[a] * sizeof(double));
    }
    sweep_point *pts = calloc(total, sizeof *pts);
    if (!pts) return att_fail(ATT_ERUNTIME, "out of memory for the grid");
    /* the product of the axes, the last one fastest: T, d, d_k, d_v, x, case */
    for (size_t p = 0; p < total; p++) pts[p] = sweep_grid_point(&run_grid, p);
    int st = sweep_run_points(e, &run_grid, pts, total, def, r);
    free(pts);
    return st;
}

int sweep_run_points(experiment *e, const sweep_grid *g, const sweep_point *pts, size_t total,
                     const sweep_def *def, sweep_result *r)
{
    memset(r, 0, sizeof *r);
    for (size_t k = 0; k < def->nstats; k++)
        if (nature_of(def, k).nature == NAT_N) return ATT_ERUNTIME;   /* sweep_nature_find */
    if (total == 0 || total > SWEEP_MAX_POINTS)
        return att_fail(ATT_EUSAGE, "%s: %zu points (1 .. %d)", e->o.id, total, SWEEP_MAX_POINTS);
    r->npoints = total;
    r->nstats = def->nstats;
    r->pt = calloc(total, sizeof *r->pt);
    r->acc = calloc(total * def->nstats, sizeof *r->acc);
    if (!r->pt || !r->acc) {
        sweep_result_free(r);
        return att_fail(ATT_ERUNTIME, "out of memory for the grid");
    }
    for (size_t p = 0; p < total; p++) {
        sweep_point *pt = &r->pt[p];
        *pt = pts[p];
        pt->index = p;
        pt->draw = 0;
        pt->draws = def->draws_of ? def->draws_of(pt, def->ctx)
                    : def->draws  ? def->draws
                                  : e->o.draws;
    }
    int sst = ATT_OK;
    for (size_t p = 0; p < total && !sst; p++) sst = point_sizes(e, def, &r->pt[p]);
    if (!sst && e->o.draws_given) sst = draws_sizes(e, def, r->pt, total);
    if (sst) { sweep_result_free(r); return sst; }
    run_ctx c = {def, r->pt, g, total};
    mc_config cfg = run_mc(e);
    cfg.nstats = def->nstats;
    cfg.points = total;
    cfg.draw = draw_point;
    cfg.point_stream = stream_at;
    cfg.point_draws = draws_at;
    cfg.alloc =
        def->work_alloc || def->work_mats || def->work_vecs || def->work_heads ? work_alloc : NULL;
    cfg.free = def->work_alloc       ? def->work_free
               : def->work_per_point ? worksets_free
                                     : workset_free;
    cfg.ctx = &c;
    if (def->draws_csv || def->keep_draws) {
        size_t nd = mc_total_draws(&cfg);
        r->values = mem_calloc(nd, def->nstats * sizeof(double), "the per-draw table");
        if (r->values == NULL) {
            sweep_result_free(r);
            return att_last_code() ? att_last_code() : ATT_ERUNTIME;
        }
        cfg.values = r->values;
    }
    int st = mc_run(&cfg, r->acc);
    if (!st && !(def->csv && def->csv[0] == '\0')) st = write_summary(e, g, def, r);
    if (!st && def->draws_csv) st = write_draws(e, g, def, r);
    if (st) sweep_result_free(r);
    return st;
}

void sweep_result_free(sweep_result *r)
{
    if (r->values) {
        size_t nd = 0;
        for (size_t p = 0; p < r->npoints; p++) nd += r->pt[p].draws;
        mem_free(r->values, nd, r->nstats * sizeof(double));
    }
    free(r->pt);
    free(r->acc);
    memset(r, 0, sizeof *r);
}

const stat_acc *sweep_acc(const sweep_result *r, size_t p, size_t k)
{
    return &r->acc[p * r->nstats + k];
}

measure sweep_measure(const sweep_result *r, size_t p, size_t k)
{
    return verdict_measure_stat(sweep_acc(r, p, k));
}

size_t sweep_find(const sweep_result *r, const sweep_point *want)
{
    const sweep_point *w = want;
    for (size_t p = 0; p < r->npoints; p++) {
        const sweep_point *q = &r->pt[p];
        if ((!w->T || q->T == w->T) && (!w->d || q->d == w->d) && (!w->dk || q->dk == w->dk) &&
            (!w->dv || q->dv == w->dv) && (w->x == 0.0 || q->x == w->x))
            return p;
    }
    return r->npoints;
}

/* ---- a work buffer of doubles ---------------------------------------- */

typedef struct {
    size_t n;
    double x[];
} doubles;

double *sweep_doubles_new(size_t n)
{
    doubles *w = mem_calloc(1, sizeof *w + n * sizeof(double), "a work vector");
    if (w == NULL) return NULL;
    w->n = n;
    return w->x;
}

void sweep_doubles_free(void *p)
{
    if (p == NULL) return;
    doubles *w = (doubles *)((char *)p - offsetof(doubles, x));
    mem_free(w, 1, sizeof *w + w->n * sizeof(double));
}

stat_acc sweep_merged(const sweep_result *r, size_t k)
{
    return sweep_merged_x_above(r, k, -INFINITY);
}

stat_acc sweep_merged_x_above(const sweep_result *r, size_t k, double x0)
{
    stat_acc a;
    stat_init(&a);
    for (size_t p = 0; p < r->npoints; p++)
        if (r->pt[p].x > x0) stat_merge(&a, sweep_acc(r, p, k));
    return a;
}

void sweep_merge_all(const sweep_result *r, stat_acc *acc)
{
    for (size_t k = 0; k < r->nstats; k++) acc[k] = sweep_merged(r, k);
}

void sweep_put_ci(double *col, measure m)
{
    col[0] = m.value, col[1] = m.ci_low, col[2] = m.ci_high;
}

/* a size word: T, d, dk, dv or a number; 0 when unknown */
static size_t size_word(const sweep_point *pt, const char *w, size_t n)
{
    if (n == 1 && w[0] == 'T') return pt->T;
    if (n == 1 && w[0] == 'd') return pt->d;
    if (n == 2 && w[0] == 'd' && w[1] == 'k') return pt->dk;
    if (n == 2 && w[0] == 'd' && w[1] == 'v') return pt->dv;
    size_t v = 0;
    for (size_t i = 0; i < n; i++) {
        if (w[i] < '0' || w[i] > '9') return 0;
        v = 10 * v + (size_t)(w[i] - '0');
    }
    return v;
}

/* the shapes of `spec`, words of `per` sizes joined by '.', into out; the count, or -1 */
static int shape_words(const sweep_point *pt, const char *spec, size_t per, size_t *out, size_t max)
{
    size_t k = 0;
    for (const char *s = spec ? spec : ""; *s;) {
        if (*s == ' ') { s++; continue; }
        if (k >= max) return -1;
        for (size_t i = 0; i < per; i++) {
            size_t n = strcspn(s, ". ");
            if (!(out[k * per + i] = size_word(pt, s, n))) return -1;
            s += n;
            if (i + 1 < per && *s++ != '.') return -1;
        }
        k++;
    }
    return (int)k;
}

workset *sweep_workset(const sweep_point *pt, const char *mats, const char *vecs, const char *heads)
{
    size_t shape[WORKSET_MATS][2], len[WORKSET_VECS], head[WORKSET_HEADS][5];
    int nm = shape_words(pt, mats, 2, &shape[0][0], WORKSET_MATS);
    int nv = shape_words(pt, vecs, 1, len, WORKSET_VECS);
    int nh = shape_words(pt, heads, 5, &head[0][0], WORKSET_HEADS);
    if (nm < 0 || nv < 0 || nh < 0) {
        att_fail(ATT_ERUNTIME, "sweep_workset: a bad shape word in \"%s\" / \"%s\" / \"%s\"",
                 mats ? mats : "", vecs ? vecs : "", heads ? heads : "");
        return NULL;
    }
    return workset_new((size_t)nm, (const size_t(*)[2])shape, (size_t)nv, len, (size_t)nh,
                       (const size_t(*)[5])head);
}

