/* lowrank.c - bilinear_low_rank's grid, parameter counts and rounding bound (lowrank.h). */
#include "lowrank.h"
#include "shapes.h"

#include <stdio.h>
#include "status.h"
#include "tol.h"

#include <float.h>
#include <math.h>

static const size_t grid[] = {1, 2, 4, 8, 16, 32};
enum { NGRID = sizeof grid / sizeof grid[0] };

size_t lowrank_dv(const sweep_point *pt, const lowrank_ctx *c) { return c->dv ? c->dv : pt->dk; }

int lowrank_grid(sweep_grid *g, lowrank_ctx *c, const experiment *e)
{
    const size_t T = 16, d = 64;
    size_t dd = e->o.d ? e->o.d : d;
    c->dv = e->o.dv;
    if (e->o.dv_list.n > 1)
        return usage_error("--dv: one value (d_v = d_k over the grid otherwise)");
    size_t dk[NGRID], n = 0;
    for (size_t k = 0; k < NGRID; k++)
        if (grid[k] < dd) dk[n++] = grid[k];     /* d_k = d_v over the grid, below d */
    if (e->o.dv && !e->o.dk) dk[0] = e->o.dv, n = 1;
    if (n == 0) return usage_error("--d %zu: no grid point d_k < d", dd);
    for (size_t k = 0; k < e->o.dk_list.n; k++)
        if (e->o.dk_list.v[k] > dd || (c->dv ? c->dv : e->o.dk_list.v[k]) > dd)
            return usage_error("d_k = %zu, d_v = %zu: both must be <= d = %zu", e->o.dk_list.v[k],
                             c->dv ? c->dv : e->o.dk_list.v[k], dd);
    sweep_grid_head(g, T, d, 0, 0);
    sweep_axis(g, AX_DK, n, dk);
    return ATT_OK;
}

static const table_col derived[] = {
    SWEEP_DERIVED(0, "params_factored", NAT_EXACT, NULL, NULL, NULL),
    SWEEP_DERIVED(1, "params_full", NAT_EXACT, NULL, NULL, NULL),
    SWEEP_DERIVED(2, "d_v", NAT_EXACT, NULL, NULL, NULL)};
static void derive(double *col, const sweep_point *pt, const stat_acc *a, const void *c)
{
    (void)a;
    col[0] = (double)shapes_qk_factored_params(pt->d, pt->dk);   /* 2 d d_k: W_Q and W_K */
    col[1] = (double)(pt->d * pt->d);          /* d^2: a full W_QK     */
    col[2] = (double)lowrank_dv(pt, c);
}

/* the shape words *words (NULL: none) into buf (n bytes), each size word dv as "dk" or the
 * number dv; then *words = buf */
static int dv_words(char *buf, size_t n, const char **words, size_t dv)
{
    size_t k = 0;
    buf[0] = '\0';
    for (const char *w = *words; w && *w; w++) {
        int word = w[0] == 'd' && w[1] == 'v';   /* no other size word has a 'v' */
        int len = !word ? snprintf(buf + k, n - k, "%c", *w)
                  : dv  ? snprintf(buf + k, n - k, "%zu", dv)
                        : snprintf(buf + k, n - k, "dk");
        if (len < 0 || (size_t)len >= n - k)
            return att_fail(ATT_ERUNTIME, "lowrank_def: shape words longer than %zu", n - 1);
        k += (size_t)len;
        w += word;
    }
    if (*words) *words = buf;
    return ATT_OK;
}

int lowrank_def(sweep_def *def, lowrank_ctx *c)
{
    const char **w[3] = {&def->work_mats, &def->work_vecs, &def->work_heads};
    for (size_t k = 0; k < 3; k++)
        if (dv_words(c->words[k], sizeof c->words[k], w[k], c->dv)) return ATT_ERUNTIME;
    def->ctx = c;
    def->nderived = 3;
    def->derived = derived;
    def->derive = derive;
    return ATT_OK;
}

/* 2 eps (d_k || |W_Q| |W_K|^T ||_F + 8 d sigma_1) / sigma_1  (lowrank.h) */
double lowrank_zero_bound(const gsl_matrix *W_Q, const gsl_matrix *W_K, double sigma1)
{
    if (!(sigma1 > 0.0)) return NAN;
    double dk = (double)W_Q->size2, d = (double)W_Q->size1;
    return 2.0 * DBL_EPSILON * (dk * tol_product_scale_frob(W_Q, W_K) + 8.0 * d * sigma1) / sigma1;
}
