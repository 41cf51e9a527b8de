/* kbtables.c - key_bias' side tables (kbtables.h). */
#include "kbtables.h"
#include "bias.h"
#include "example.h"

#include <math.h>
#include <gsl/gsl_blas.h>

#define BASE_STATS(X) X(B_RATIO, "ratio", SW_MC)
SWEEP_STATS_AS(BASE_STATS, NBSTAT, base_names);

const double kbtables_bases[KBTABLES_NBASE] = {100.0, 1000.0, 10000.0, 100000.0};

void *kbtables_work(const sweep_grid *g, const void *ctx)
{
    (void)ctx;
    return bias_work_new(sweep_max(g, AX_T), sweep_max(g, AX_D), sweep_max(g, AX_DK), sweep_max(g, AX_DV));
}

/* the base sweep's draw (RoPE, base pt->x): ||dL/db_K|| / ||dL/db_Q|| */
static int draw_base(gsl_rng *rng, double *out, const sweep_point *pt, void *work, const void *ctx)
{
    (void)ctx;
    bias_work *w = work;
    int rc = bias_work_draw(rng, w, (int)pt->kase, pt->x);
    out[B_RATIO] = rc ? NAN : gsl_blas_dnrm2(w->g.db_K) / gsl_blas_dnrm2(w->g.db_Q);
    return rc;
}

static sweep_def base_def(void)
{
    sweep_def def = SWEEP_DEF_AS(draw_base, NBSTAT, base_names);
    def.work_alloc = kbtables_work, def.work_free = bias_work_free;
    def.csv = "key_bias_base.csv", def.draws = KBTABLES_DRAWS;
    return def;
}

int kbtables_base_run(experiment *e, const sweep_grid *g, sweep_result *r)
{
    sweep_grid gb = *g;
    gb.declared[AX_CASE] = 0;
    sweep_axis_x(&gb, "base", KBTABLES_NBASE, kbtables_bases);
    sweep_def def = base_def();
    return sweep_run(e, &gb, &def, r);
}

int kbtables_shift(const experiment *e, const sweep_point *pt, double *shift)
{
    sweep_grid g0;
    sweep_grid_head(&g0, pt->T, pt->d, pt->dk, pt->dv);
    sweep_def def = base_def();
    example x;
    double out0[NBSTAT];
    int st = example_draw(&x, e, &g0, &def, out0);
    if (!st) st = bias_key_shift_write(e->o.out_dir, "key_bias_shift.csv", &((bias_work *)x.work)->h, pt->T, shift);
    example_end(&x);
    return st;
}
