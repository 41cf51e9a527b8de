/* rpsweep.c - random_projections' three sweeps (see rpsweep.h). */
#include "rpsweep.h"
#include "rptables.h"
#include "selfweight.h"
#include "att.h"

#include <math.h>

void rpsweep_init(sweep_grid g[RPSWEEP_N], rpsweep_ctx c[2], const opts *o, double scale, int control)
{
    static const size_t MAIN_T[] = {2, 3, 4, 8, 16, 32, 64, 128, 256}, WIDTH_D[] = {4, 8, 16, 32, 64, 128, 256},
                        SIDE_D[] = {16, 64}, ONE_T[] = {RPSWEEP_SIDE_T}, ONE_DK[] = {RPSWEEP_SIDE_DK}, MAIN_D[] = {64},
                        MAIN_DK[] = {16};
    const double C[] = {sqrt(0.25), sqrt(0.5), 1.0, sqrt(2.0), 2.0, sqrt(8.0)}, ONE[] = {1.0};
    c[0] = (rpsweep_ctx){control, o->draws, o->T_list.n ? o->T_list.v[o->T_list.n - 1] : MAIN_T[8]};
    c[1] = (rpsweep_ctx){1, o->draws / 2 ? o->draws / 2 : 1, 0};
    for (int k = 0; k < RPSWEEP_N; k++) sweep_grid_init(&g[k]);
    sweep_axis(&g[0], AX_T, 9, MAIN_T), sweep_axis(&g[0], AX_D, 1, MAIN_D), sweep_axis(&g[0], AX_DK, 1, MAIN_DK);
    sweep_axis_x(&g[0], "scale", 1, &scale);
    sweep_axis(&g[1], AX_T, 1, ONE_T), sweep_axis(&g[1], AX_D, 7, WIDTH_D), sweep_axis(&g[1], AX_DK, 1, ONE_DK);
    sweep_axis_x(&g[1], "scale", 1, ONE);
    sweep_axis(&g[2], AX_T, 1, ONE_T), sweep_axis(&g[2], AX_D, 2, SIDE_D), sweep_axis(&g[2], AX_DK, 1, ONE_DK);
    sweep_axis_x(&g[2], "scale", 6, C);
}

/* scratch for the grid's largest point */
static void *work_alloc(const sweep_grid *g, const void *ctx)
{
    selfweight_config max = {sweep_max(g, AX_T), sweep_max(g, AX_D), sweep_max(g, AX_DK), 0.0,
                             ((const rpsweep_ctx *)ctx)->control};
    return selfweight_scratch_new(&max);
}
static size_t draws_of(const sweep_point *pt, const void *ctx) { return (void)pt, ((const rpsweep_ctx *)ctx)->draws; }

static const table_col sd_col[] = {SWEEP_DERIVED(0, "score_sd", NAT_COMPUTED, NULL, NULL, NULL)};
/* score sd c^2 sqrt(d_k) */
static void derive(double *col, const sweep_point *pt, const stat_acc *a, const void *ctx)
{
    (void)a, (void)ctx, col[0] = pt->x * pt->x * sqrt((double)pt->dk);
}

void rpsweep_def(sweep_def *def, size_t k, const rpsweep_ctx c[2])
{
    static const char *const csv[RPSWEEP_N] = {"random_projections.csv", "random_projections_width.csv",
                                               "random_projections_scale.csv"};
    def->work_alloc = work_alloc, def->work_free = selfweight_scratch_delete, def->draws_of = draws_of;
    def->ctx = &c[k ? 1 : 0], def->csv = csv[k];
    def->nderived = 1, def->derived = sd_col, def->derive = derive;
}

double rpsweep_target_at(const sweep_point *pt, size_t k, double hw, const void *ctx)
{
    return k == 0 || pt->T == ((const rpsweep_ctx *)ctx)->last_T ? hw : 0.0;
}

int rpsweep_side_tables(experiment *e, const sweep_result *m, double scale, double precision)
{
    const opts *o = &e->o;
    size_t d = m->pt[0].d, dk = m->pt[0].dk, heat_T = m->pt[0].T < RPT_HEAT_MAX ? m->pt[0].T : RPT_HEAT_MAX;
    int st = rptables_heatmap(e, o->T ? heat_T : 12, d, dk);
    if (st) return st;
    exp_meta(e, "main sweep: d = %zu, d_k = %zu, W ~ N(0, %g^2/d); draws per T: the draws column (--draws %zu when "
             "given, else for 95%% CI half-widths %g of T E[a_ii] and 0.004 of E[s_ii^2] / (d_k c^4) from a %d-draw "
             "pilot, at most %zu)", d, dk, scale, o->draws, 0.9 * precision, RPSWEEP_PILOT, 4 * o->draws);
    exp_meta(e, "d: %zu\nd_k: %zu\nscale: %g\nheatmap_T: %zu", d, dk, scale, o->T ? heat_T : 12);
    return ATT_OK;
}
