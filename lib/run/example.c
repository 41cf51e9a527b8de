/* example.c - one draw of one point outside the sweep (example.h). */
#include "example.h"
#include "status.h"

int example_draw(example *x, const experiment *e, const sweep_grid *g, const sweep_def *def,
                 double *out)
{
    *x = (example){.pt = sweep_grid_point(g, 0),
                   .work_free = def->work_alloc ? def->work_free : workset_free};
    int wants = def->work_alloc || def->work_mats || def->work_vecs || def->work_heads;
    if (wants && !(x->work = sweep_work_new(g, def))) return att_alloc_status();
    if (!(x->rng = sweep_rng(e, &x->pt))) return att_alloc_status();
    return def->draw(x->rng, out, &x->pt, x->work, def->ctx);
}

void example_end(example *x)
{
    if (x->work && x->work_free) x->work_free(x->work);
    if (x->rng) gsl_rng_free(x->rng);
    *x = (example){0};
}
