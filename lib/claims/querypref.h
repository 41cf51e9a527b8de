/* querypref.h - the query bias's preference for some keys, as a curve.
 *
 * With W_Q = 0 every query is b_Q and every row of A is softmax(K b_Q). How far
 * that is from uniform is set by the scale of the added scores b_Q . k_j,
 * u = sigma(b_Q) ||W_K||_F: at u = 0.1, 0.3, 1, 3, 10 (T_k = 8, d = 16, d_k = 8,
 * QUERYPREF_DRAWS heads each), TV(softmax(K b_Q), uniform), written as
 * query_bias_pref.csv (u, then tv's mean, CI, min, max, n: sweep.h).
 */
#ifndef ATT_QUERYPREF_H
#define ATT_QUERYPREF_H

#include "exp.h"
#include "sweep.h"

enum { QUERYPREF_T = 8, QUERYPREF_D = 16, QUERYPREF_DK = 8, QUERYPREF_DRAWS = 2000 };
enum { QUERYPREF_U1 = 2, QUERYPREF_NU = 5 };   /* point QUERYPREF_U1 is u = 1 */
enum { QUERYPREF_TV = 0 };                     /* the statistic: tv */

/* The curve's sweep (one point per u, the point's own stream); *r as sweep_run's,
 * sweep_result_free it. */
int querypref_run(experiment *e, sweep_result *r);

#endif
