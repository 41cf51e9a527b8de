/* example.h - a figure's example: one draw of one point, outside the sweep.
 *
 * A figure often shows one draw in full (its weights, its tokens, its
 * outputs). example_draw makes the draw the sweep makes as draw 0 of the
 * first point of grid g: from that point's stream (sweep_rng), with the work
 * buffers sweep_work_new gives for g (def->work_alloc, or def's shape words),
 * through def->draw. The
 * caller reads what it needs from x.work (and out), then example_end frees
 * the work and the generator (also after a failed example_draw).
 *
 *     sweep_grid g;
 *     sweep_grid_head(&g, 12, 0, 0, 0);          // the figure's point
 *     example x;
 *     double out[NSTAT];
 *     int st = example_draw(&x, e, &g, &def, out);
 *     if (!st) st = write_the_figure_table(((work *)x.work)->...);
 *     example_end(&x);
 */
#ifndef ATT_EXAMPLE_H
#define ATT_EXAMPLE_H

#include "experiment.h"
#include "sweep.h"

typedef struct {
    sweep_point pt;          /* the point drawn (g's first)            */
    void *work;              /* sweep_work_new's buffers, or NULL      */
    gsl_rng *rng;            /* the point's generator after the draw   */
    void (*work_free)(void *work);
} example;

/* Draw 0 of g's first point into out[0 .. def->nstats - 1]. The error of the
 * allocation or of the draw; x is always safe to pass to example_end. */
int example_draw(example *x, const experiment *e, const sweep_grid *g, const sweep_def *def,
                 double *out);
void example_end(example *x);

#endif
