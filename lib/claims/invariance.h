/* invariance.h - the sweep both invariance experiments run (qk_invariance,
 * ov_invariance): a head reparametrized by an invertible R, over cond(R).
 *
 * The grid: T = 16, d = 64, d_k = d_v = 16 (--T, --d, --dk, --dv replace
 * them), times cond(R) = 10^(k/2), k = 0 .. 16 (1 .. 1e8; cond 1 is a Haar
 * orthogonal R, randmat.h). Beside every point, the allowed rounding error
 * in units of cond(R) eps (Higham 3.5: W R ~ ||R|| and R^{-1} W ~ ||R^{-1}||,
 * so the products that give back a circuit carry ~ cond(R) eps times the
 * length of the chain): a column "allowed_units" = C(point).
 */
#ifndef ATT_INVARIANCE_H
#define ATT_INVARIANCE_H

#include <stddef.h>
#include "sweep.h"

#define INVARIANCE_MAX_COND 1e15   /* cond(R) at most this, below 1/eps */

/* The head sizes alone: T = 16, d = 64, d_k = d_v = 16 (one-value axes). */
void invariance_grid_head(sweep_grid *g);
/* The grid above for an R of size r x r (r = 1: cond 1 alone, a 1 x 1 R
 * has no other), or the single cond(R) = cond_only when it is not 0 (checked:
 * 1 <= cond_only <= INVARIANCE_MAX_COND, r >= 2 unless it is 1). ATT_OK, or
 * ATT_EUSAGE with a message naming --cond. */
int invariance_grid(sweep_grid *g, size_t r, double cond_only);

/* C(pt): the allowed error at a point, in units of cond(R) eps (or of eps). */
typedef double (*invariance_allowed_fn)(const sweep_point *pt);
/* def gets the derived column "allowed_units" = (*C)(point); def->ctx = C
 * (the draw must not need another ctx). */
void invariance_def_allowed(sweep_def *def, const invariance_allowed_fn *C);

/* ", while the <what> moved by at least N%" (the smallest relative change
 * vmin, in percent) into buf (n bytes) when moved draws > 0, else "". */
const char *invariance_moved(char *buf, size_t n, const char *what, double vmin, size_t moved);

#endif
