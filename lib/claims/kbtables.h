/* kbtables.h - key_bias' two side tables: the RoPE base sweep and the shift figure.
 *
 *   key_bias_base.csv   with RoPE after the bias at base 100, 1e3, 1e4, 1e5
 *                       (KBTABLES_DRAWS heads each, the grid's sizes):
 *                       ||dL/db_K|| / ||dL/db_Q|| (bias_work_draw);
 *   key_bias_shift.csv  the point's draw 0 again without RoPE, query row 0:
 *                       s_0j and a_0j with and without b_K, which differ in
 *                       s_0j by q_0 . b_K for every key j (bias_key_shift_write).
 */
#ifndef ATT_KBTABLES_H
#define ATT_KBTABLES_H

#include "exp.h"
#include "sweep.h"

enum { KBTABLES_NBASE = 4, KBTABLES_DRAWS = 200, KBTABLES_RATIO = 0 /* the statistic */ };
extern const double kbtables_bases[KBTABLES_NBASE];

/* A key-bias draw's work (bias_work at g's largest T, d, d_k, d_v): a sweep
 * work_alloc; free with bias_work_free. */
void *kbtables_work(const sweep_grid *g, const void *ctx);

/* The base sweep over g's sizes (its case axis dropped, a base axis added);
 * *r as sweep_run's, sweep_result_free it. */
int kbtables_base_run(experiment *e, const sweep_grid *g, sweep_result *r);

/* key_bias_shift.csv from point pt's draw 0 (rope = 0), and q_0 . b_K into *shift. */
int kbtables_shift(const experiment *e, const sweep_point *pt, double *shift);

#endif
