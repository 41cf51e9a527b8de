/* profile.c - vectors of each point's example draw as one table (profile.h). */
#include "profile.h"
#include "example.h"
#include "mem.h"
#include "status.h"
#include "table.h"

#include <stdlib.h>

enum { PROFILE_MAX_COLS = 2 * SWEEP_MAX_VALUES, PROFILE_NAME = 32 };

/* the point alone: a grid of one point with its parameters (its stream, its sizes) */
static sweep_grid point_grid(const sweep_point *pt)
{
    sweep_grid g;
    sweep_grid_init(&g);
    const double v[AX_N] = {(double)pt->T,  (double)pt->d, (double)pt->dk,
                            (double)pt->dv, pt->x,         (double)pt->kase};
    for (int a = 0; a < AX_N; a++)
        if (v[a] != 0.0) g.declared[a] = 1, g.n[a] = 1, g.v[a][0] = v[a];
    return g;
}

int profile_write(experiment *e, const char *name, const sweep_result *r, const sweep_def *def,
                  size_t nvec, const size_t *vec, profile_name_fn names, col_nature nat,
                  const char *bound)
{
    size_t P = r->npoints, ncol = nvec * P, w = 1 + ncol, n = 0;
    if (ncol > PROFILE_MAX_COLS)
        return att_fail(ATT_ERUNTIME, "%s: %zu columns (at most %d)", name, ncol, PROFILE_MAX_COLS);
    double *tab = NULL, *out = calloc(def->nstats ? def->nstats : 1, sizeof *out);
    int st = out ? ATT_OK : att_alloc_status();
    for (size_t p = 0; p < P && !st; p++) {
        sweep_grid g = point_grid(&r->pt[p]);
        example x;
        st = example_draw(&x, e, &g, def, out);
        const workset *ws = x.work;
        for (size_t k = 0; k < nvec && !st; k++) {
            size_t len = ws->v[vec[k]]->size;
            if (n == 0 && len > 0) {
                n = len;
                if (!(tab = mem_calloc(n * w, sizeof *tab, "profile table")))
                    st = att_alloc_status();
                for (size_t i = 0; i < n && !st; i++) tab[i * w] = (double)(i + 1);
            }
            if (len != n) { example_end(&x); goto done; }   /* one table needs one length */
            for (size_t i = 0; i < n && !st; i++)
                tab[i * w + 1 + k * P + p] = gsl_vector_get(ws->v[vec[k]], i);
        }
        example_end(&x);
    }
    char cname[PROFILE_MAX_COLS][PROFILE_NAME];
    table_col cols[1 + PROFILE_MAX_COLS] = {{"i", COL_DOUBLE, 0, NAT_EXACT, NULL, NULL, NULL}};
    for (size_t k = 0; k < nvec; k++)
        for (size_t p = 0; p < P; p++) {
            size_t c = k * P + p;
            names(cname[c], PROFILE_NAME, k, &r->pt[p], def->ctx);
            cols[1 + c] =
                (table_col){cname[c], COL_DOUBLE, (1 + c) * sizeof(double), nat, NULL, NULL, bound};
        }
    if (!st && n) st = table_write(e->o.out_dir, name, cols, w, tab, n, w * sizeof(double));
done:
    if (tab) mem_free(tab, n * w, sizeof *tab);
    free(out);
    return st;
}
