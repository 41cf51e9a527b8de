/* invariance.c - the reparametrization sweep's grid and allowed error (invariance.h). */
#include "invariance.h"

#include <math.h>
#include <stdio.h>
#include <float.h>
#include "status.h"

enum { NCOND_GRID = 17 };   /* cond = 10^(k/2), k = 0 .. 16 */

void invariance_grid_head(sweep_grid *g) { sweep_grid_head(g, 16, 64, 16, 16); }

int invariance_grid(sweep_grid *g, size_t r, double cond_only)
{
    if (cond_only != 0.0 && !(cond_only >= 1.0))
        return usage_error("--cond: %g is not a condition number >= 1", cond_only);
    if (cond_only > INVARIANCE_MAX_COND) /* cond(R) eps >= 1: R is singular to working precision */
        return usage_error("--cond: %g is too large: at most %g (beyond 1/eps = %.3g, R is "
                           "singular to working precision)",
                           cond_only, INVARIANCE_MAX_COND, 1.0 / DBL_EPSILON);
    if (r == 1 && cond_only > 1.0)
        return usage_error("--cond %g needs d_k >= 2 (a 1 x 1 R has cond 1)", cond_only);
    double cond[NCOND_GRID];
    size_t ncond = 0;
    // cond(R) = 10^(k/2), k = 0 .. 16 (a 1 x 1 R: cond 1 only)
    for (int k = 0; k < NCOND_GRID && !(r == 1 && k > 0); k++) cond[ncond++] = pow(10.0, 0.5 * k);
    if (cond_only != 0.0) cond[0] = cond_only, ncond = 1;
    invariance_grid_head(g);
    sweep_axis_x(g, "cond", ncond, cond);
    return ATT_OK;
}

static const table_col allowed_col[] = {
    SWEEP_DERIVED(0, "allowed_units", NAT_COMPUTED, NULL, NULL, NULL)};
static void derive_allowed(double *col, const sweep_point *pt, const stat_acc *a, const void *ctx)
{
    (void)a;
    col[0] = (*(const invariance_allowed_fn *)ctx)(pt);
}

void invariance_def_allowed(sweep_def *def, const invariance_allowed_fn *C)
{
    def->ctx = C;
    def->nderived = 1, def->derived = allowed_col, def->derive = derive_allowed;
}

const char *invariance_moved(char *buf, size_t n, const char *what, double vmin, size_t moved)
{
    buf[0] = '\0';
    if (moved) snprintf(buf, n, ", while the %s moved by at least %.0f%%", what, 100.0 * vmin);
    return buf;
}
