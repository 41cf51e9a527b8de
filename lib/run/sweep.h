/* sweep.h - a Monte Carlo sweep over a grid, written once for every experiment.
 *
 * An experiment names its per-draw statistics in ONE list (SWEEP_STATS), declares its grid
 * ONCE (the product of the axes T, d, d_k, d_v, its own x and its cases; --T, --d, --dk, --dv
 * replace an axis's values) and gives a draw function; sweep_run runs the Monte Carlo (mc.h:
 * blocks, threads, MPI) and writes <id>.csv with, per point, the point's columns, its draws,
 * then for every statistic <name>_mean, _lo, _hi (95% CI), _min, _max, _n, then any derived
 * columns; and, when asked, <id>_draws.csv with every draw. The random stream of a point is
 * sweep_stream(point), a function of its parameters alone, so a point run alone gives the
 * numbers it has in any sweep; block b of the point draws from rng_stream_seed(--seed, stream,
 * b). An example, the grid's rules, the streams and the three ways to get work buffers
 * (work_alloc, shape words, work_per_point): doc/engine.md, "A sweep".
 */
#ifndef ATT_SWEEP_H
#define ATT_SWEEP_H

#include <stddef.h>
#include <stdint.h>
#include <gsl/gsl_rng.h>
#include "experiment.h"
#include "statistics.h"
#include "table.h"
#include "verdict.h"
#include "workset.h"

/* How make verify compares a statistic's columns (the natures of table.h): SW_MC, every
 * statistic's default (<s>_mean, _lo, _hi within the committed CI, _min, _max computed, _n
 * exact); SW_ROUND (a rounding-level quantity: every column by order of magnitude); SW_TRAIN (a
 * trained model's result: within the standard error); SW_EXACT (a count or parameter: equal
 * text); SW_COMPUTED (relative 1e-9). The _MAX(x) forms: rounding-level in the rows where it
 * is <= x; SW_ROUND_COL("name"): at most column name. A bound is a number (a C literal or a
 * macro that expands to one: make verify reads its spelling) or a column's name. */
typedef struct {
    col_nature nature;
    const char *bound;
} sweep_nature;
/* x's spelling, after x is checked to be a number (sizeof of an arithmetic expression) */
#define SWEEP_NUM_(x) (sizeof((x) + 0.0) ? #x : #x)
#define SWEEP_NUM(x) SWEEP_NUM_(x)
#define SW_MC ((sweep_nature){NAT_MC, NULL})
#define SW_MC_ROUND_MAX(x) ((sweep_nature){NAT_MC, SWEEP_NUM(x)})
#define SW_ROUND ((sweep_nature){NAT_ROUNDING, NULL})
#define SW_ROUND_MAX(x) ((sweep_nature){NAT_ROUNDING, SWEEP_NUM(x)})
#define SW_ROUND_COL(name) ((sweep_nature){NAT_ROUNDING, "" name})
#define SW_TRAIN ((sweep_nature){NAT_TRAINING, NULL})
#define SW_TRAIN_ROUND_MAX(x) ((sweep_nature){NAT_TRAINING, SWEEP_NUM(x)})
#define SW_EXACT ((sweep_nature){NAT_EXACT, NULL})
#define SW_COMPUTED ((sweep_nature){NAT_COMPUTED, NULL})

/* The list of statistics: X(ENUM_NAME, "csv_name") per statistic, one line a student reads
 * beside the claim. SWEEP_STATS(LIST) makes the enum (ENUM_NAME..., NSTAT) and stat_names[];
 * SWEEP_STATS_AS(LIST, count, names) a second list in one file. */
#define SWEEP_STAT_ENUM_(id, name) id,
#define SWEEP_STAT_NAME_(id, name) name,
#define SWEEP_STATS(LIST) SWEEP_STATS_AS(LIST, NSTAT, stat_names)
#define SWEEP_STATS_AS(LIST, count, names)                                                    \
    enum { LIST(SWEEP_STAT_ENUM_) count };                                                    \
    static const char *const names[count] = {LIST(SWEEP_STAT_NAME_)};                         \
    static sweep_nature names##_nat(size_t k)

/* How make verify compares a list's statistics, declared near the end of the experiment:
 * each is Monte Carlo (SW_MC) but the exceptions, {"csv_name", nature}:
 *     SWEEP_VERIFY(stat_names, {"err", SW_ROUND_COL("tol")}, {"count", SW_EXACT})
 * SWEEP_VERIFY_MC(names): no exceptions; SWEEP_VERIFY_ALL(names, nature): every one alike.
 * An exception that names no statistic of the list
 * makes the run fail (sweep_nature_find). */
typedef struct {
    const char *stat;
    sweep_nature nature;
} sweep_exception;
#define SWEEP_VERIFY(names, ...)                                                              \
    static sweep_nature names##_nat(size_t k)                                                 \
    {                                                                                         \
        const sweep_exception x[] = {__VA_ARGS__};                                            \
        return sweep_nature_find(names, sizeof names / sizeof names[0], k, x,                 \
                                 sizeof x / sizeof x[0]);                                     \
    }
#define SWEEP_VERIFY_ALL(names, nat)                                                         \
    static sweep_nature names##_nat(size_t k)                                                 \
    {                                                                                         \
        (void)k;                                                                              \
        return nat;                                                                           \
    }
#define SWEEP_VERIFY_MC(names) SWEEP_VERIFY_ALL(names, SW_MC)
/* Statistic k of names[0 .. n-1]: its exception's nature, else SW_MC; an exception naming
 * none of the statistics gives NAT_N (sweep_run then fails, naming it). */
sweep_nature sweep_nature_find(const char *const *names, size_t n, size_t k,
                               const sweep_exception *x, size_t nx);

typedef enum { AX_T, AX_D, AX_DK, AX_DV, AX_X, AX_CASE, AX_N } sweep_axis_id;

enum { SWEEP_MAX_VALUES = 64, SWEEP_MAX_POINTS = 4096 };

/* One point of the grid, as a draw sees it. */
typedef struct {
    size_t T, d, dk, dv;   /* 0 where the grid has no such axis */
    double x;              /* the experiment's own parameter (AX_X), or 0 */
    size_t kase;           /* the case (AX_CASE), 0 .. ncases - 1, or 0 */
    size_t draws;          /* the draws at this point */
    size_t index;          /* its position in this run's grid */
    uint64_t stream;       /* its random stream (sweep_run: sweep_stream(point)) */
    size_t draw;           /* in a draw: this draw's index at the point, 0 .. draws - 1 */
} sweep_point;

typedef struct {
    int declared[AX_N];
    size_t n[AX_N];
    double v[AX_N][SWEEP_MAX_VALUES];
    const char *x_name;                       /* column name of AX_X        */
    const char *case_name;                    /* column name of AX_CASE     */
    const char *const *case_labels;           /* a label per case, or NULL  */
} sweep_grid;

void sweep_grid_init(sweep_grid *g);
/* The same, with a head's sizes as one-value axes T, d, d_k, d_v (0: that
 * axis is not declared); --T, --d, --dk, --dv replace them. */
void sweep_grid_head(sweep_grid *g, size_t T, size_t d, size_t dk, size_t dv);
/* Declare axis a (AX_T .. AX_DV) with n values (the full grid). */
void sweep_axis(sweep_grid *g, sweep_axis_id a, size_t n, const size_t *values);
/* Declare the experiment's own axis: column `name`, n values. */
void sweep_axis_x(sweep_grid *g, const char *name, size_t n, const double *values);
/* Declare n cases, column `name`, written as labels[k] (or k when NULL). */
void sweep_axis_cases(sweep_grid *g, const char *name, size_t n, const char *const *labels);
/* The p-th point of the grid's product of axes (as sweep_run orders them:
 * T, d, d_k, d_v, x, case, the last fastest), p < sweep_npoints(g); its
 * draws are 0. For work buffers sized point by point (previous_token_head),
 * or a run's points on other streams (random_projections' pilot). */
size_t sweep_npoints(const sweep_grid *g);
sweep_point sweep_grid_point(const sweep_grid *g, size_t p);
/* The largest value of an axis over the grid (for sizing work buffers). */
size_t sweep_max(const sweep_grid *g, sweep_axis_id a);

/* The random stream of a point: a function of its parameters only. */
uint64_t sweep_stream(const sweep_point *pt);

/* One draw, the only draw signature: out[k] for every statistic k of draw pt->draw at point
 * pt, from rng (the generator of the draw's block, already seeded by the engine), work (the
 * thread's buffers) and ctx (read-only: under MPI a draw's other results are lost). ATT_OK or
 * an error status (the run stops and reports the first, in point and draw order). */
typedef int (*sweep_draw_fn)(gsl_rng *rng, double *out, const sweep_point *pt, void *work,
                             const void *ctx);

typedef struct {
    sweep_draw_fn draw;
    size_t nstats;
    const char *const *stat_names;
    sweep_nature (*stat_nature)(size_t k);   /* from the list (SWEEP_DEF) */
    void *(*work_alloc)(const sweep_grid *g, const void *ctx);  /* NULL: no work */
    void (*work_free)(void *work);
    const void *ctx;                  /* read-only during the run           */
    size_t (*draws_of)(const sweep_point *pt, const void *ctx); /* NULL: draws */
    size_t draws;                     /* every point's draws; 0: --draws    */
    /* or, without work_alloc: a workset (workset.h) declared by shape words
     * (sweep_workset), sized for the run's largest point, or exactly for
     * each point when work_per_point (the draw then gets its point's) */
    const char *work_mats, *work_vecs, *work_heads;
    int work_per_point;
    const char *csv;                  /* NULL: "<id>.csv"; "" writes none   */
    const char *draws_csv;            /* NULL: no per-draw CSV; else name   */
    int keep_draws;                   /* r.values holds every draw also
                                         without draws_csv                  */
    /* derived columns after the statistics: cols[k] for column derived[k]
     * (SWEEP_DERIVED: its name and nature), filled by f(point, accs) */
    size_t nderived;
    const table_col *derived;
    void (*derive)(double *cols, const sweep_point *pt, const stat_acc *acc, const void *ctx);
} sweep_def;
#define SWEEP_DEF(draw_fn) SWEEP_DEF_AS(draw_fn, NSTAT, stat_names)
#define SWEEP_DEF_AS(draw_fn, count, names)                                                        \
    ((sweep_def){                                                                                  \
        .draw = (draw_fn), .nstats = (count), .stat_names = (names), .stat_nature = names##_nat})
/* Derived column k: its CSV name and nature, lo/hi/bound as in table.h. */
#define SWEEP_DERIVED(k, name, nat, lo, hi, bound)                                                 \
    {                                                                                              \
        name, COL_DOUBLE, (k) * sizeof(double), nat, lo, hi, bound                                 \
    }

typedef struct {
    size_t npoints, nstats;
    sweep_point *pt;       /* npoints                          */
    stat_acc *acc;         /* npoints * nstats, point by point */
    /* every draw (def.draws_csv or def.keep_draws), point after point: draw i of point p
     * is values[(first_p + i) nstats .. + nstats - 1], first_p = the draws of points < p */
    double *values;
} sweep_result;

/* Build the grid (after the --T/--d/--dk/--dv lists of e->o), run every
 * point, write the CSVs. ATT_EUSAGE when the grid is empty or too large;
 * the Monte Carlo's or the writer's error otherwise. */
int sweep_run(experiment *e, const sweep_grid *g, const sweep_def *def, sweep_result *r);
/* The same for a list of points pts[0 .. n-1] (not a product; no option replaces them), each
 * run on the stream it carries, pts[p].stream; their draws as in sweep_run (draws_of, draws,
 * --draws). g declares the tables' columns and sizes the work (sweep_max); r->pt is a
 * copy of pts. */
int sweep_run_points(experiment *e, const sweep_grid *g, const sweep_point *pts, size_t n,
                     const sweep_def *def, sweep_result *r);

/* The memory that `draws` draws of one point of def need when --draws set them (the check
 * sweep_run makes before its Monte Carlo), for a caller with an expensive set-up before its
 * sweep_run: the same refusal naming --draws (ATT_EUSAGE), made first. ATT_OK without --draws. */
int sweep_draws_fit(const experiment *e, const sweep_def *def, size_t draws);
void sweep_result_free(sweep_result *r);

/* Point p's statistic k: its accumulator, and its mean with the 95% CI. */
const stat_acc *sweep_acc(const sweep_result *r, size_t p, size_t k);
measure sweep_measure(const sweep_result *r, size_t p, size_t k);
/* The first point whose T, d, d_k, d_v and x are want's where want's are not 0 (0 matches
 * any), or npoints: sweep_find(&r, &(sweep_point){.dk = 2, .x = 1600}). */
size_t sweep_find(const sweep_result *r, const sweep_point *want);

/* Statistic k merged over every point of the run (the worst case over a
 * sweep: its min, max and n over all draws). */
stat_acc sweep_merged(const sweep_result *r, size_t k);
/* The same over the points whose own parameter x (AX_X) is above x0 (n = 0,
 * min = INFINITY when there are none). */
stat_acc sweep_merged_x_above(const sweep_result *r, size_t k, double x0);
/* Every statistic merged over the run: acc[k] for k < r->nstats. */
void sweep_merge_all(const sweep_result *r, stat_acc *acc);

/* A measure as three derived columns <name>, <name>_lo, <name>_hi (the
 * Monte Carlo nature, its CI in the other two), from derived column k;
 * sweep_put_ci fills them: col[0..2] = value, ci_low, ci_high. */
#define SWEEP_DERIVED_CI(k, name)                                                 \
    SWEEP_DERIVED(k, name, NAT_MC, name "_lo", name "_hi", NULL),                 \
    SWEEP_DERIVED((k) + 1, name "_lo", NAT_MC, name "_lo", name "_hi", NULL),     \
    SWEEP_DERIVED((k) + 2, name "_hi", NAT_MC, name "_lo", name "_hi", NULL)
void sweep_put_ci(double *col, measure m);

/* The generator of point pt's first block, as the Monte Carlo seeds it: the
 * next draw from it is the point's draw 0 (e.g. a figure's example draw,
 * computed again outside the run). NULL + error on failure; gsl_rng_free. */
gsl_rng *sweep_rng(const experiment *e, const sweep_point *pt);

/* A workset (workset.h) for point pt's sizes, from shape words: mats
 * "T.d d.dk ..." (rows.columns), vecs "d dk ..." (lengths), heads
 * "T.T.d.dk.dv ..." (T_q.T_k.d.d_k.d_v); a size is T, d, dk, dv or a
 * number. NULL (error recorded) on a bad word or no memory. */
workset *sweep_workset(const sweep_point *pt, const char *mats, const char *vecs,
                       const char *heads);
/* The work of def for grid g as one thread of the run gets it, outside the
 * run (a figure's example, example.h): def->work_alloc(g, ctx), or def's
 * shape words sized for g's largest point (one workset also when
 * work_per_point). NULL (error recorded) on failure; free it with
 * sweep_work_free(def, work). */
void *sweep_work_new(const sweep_grid *g, const sweep_def *def);
void sweep_work_free(const sweep_def *def, void *work);

/* An array of n doubles counted against --max-memory: a work alloc/free pair. */
double *sweep_doubles_new(size_t n);
void sweep_doubles_free(void *p);

#endif
