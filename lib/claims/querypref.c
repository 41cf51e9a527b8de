/* querypref.c - the query bias's preference curve (querypref.h). */
#include "querypref.h"
#include "softmax.h"

#include <math.h>
#include <gsl/gsl_randist.h>

#define PREF_STATS(X) X(P_TV, "tv", SW_MC)
SWEEP_STATS_AS(PREF_STATS, NPSTAT, pref_names);

/* One head at u = pt->x: X (T_k, d) ~ N(0, 1), W_K (d, d_k) ~ N(0, 1/d), z (d_k) ~ N(0, 1);
 * W_Q = 0, so every query is b_Q: TV(softmax(K b_Q), uniform). */
static int draw_pref(gsl_rng *rng, double *out, const sweep_point *pt, void *work, const void *c)
{
    enum { T = QUERYPREF_T, D = QUERYPREF_D, DK = QUERYPREF_DK };
    (void)work, (void)c;
    double X[T][D], W[D][DK], z[DK], kb[T], p[T], fr = 0.0, tv = 0.0;
    for (size_t j = 0; j < T; j++) for (size_t m = 0; m < D; m++) X[j][m] = gsl_ran_gaussian(rng, 1.0);
    for (size_t m = 0; m < D; m++)
        for (size_t l = 0; l < DK; l++) {
            W[m][l] = gsl_ran_gaussian(rng, 1.0 / sqrt((double)D));
            fr += W[m][l] * W[m][l];
        }
    for (size_t l = 0; l < DK; l++) z[l] = gsl_ran_gaussian(rng, 1.0);
    // b_Q = sigma z with sigma = u / ||W_K||_F; (K b_Q)_j = x_j^T W_K b_Q
    double sigma = pt->x / sqrt(fr);
    for (size_t j = 0; j < T; j++) {
        kb[j] = 0.0;
        for (size_t m = 0; m < D; m++)
            for (size_t l = 0; l < DK; l++) kb[j] += X[j][m] * W[m][l] * sigma * z[l];
    }
    int rc = softmax_vec(p, kb, T);
    // TV(p, uniform) = 1/2 sum_j |p_j - 1/T_k|
    for (size_t j = 0; j < T; j++) tv += 0.5 * fabs(p[j] - 1.0 / T);
    out[P_TV] = tv;
    return rc;
}

int querypref_run(experiment *e, sweep_result *r)
{
    static const double us[QUERYPREF_NU] = {0.1, 0.3, 1.0, 3.0, 10.0};
    sweep_grid g;
    sweep_grid_init(&g);
    sweep_axis_x(&g, "u", QUERYPREF_NU, us);
    sweep_def def = SWEEP_DEF_AS(draw_pref, NPSTAT, pref_names);
    def.csv = "query_bias_pref.csv", def.draws = QUERYPREF_DRAWS;
    return sweep_run(e, &g, &def, r);
}
