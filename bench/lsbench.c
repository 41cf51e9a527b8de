/* lsbench.c - `make bench` (bench/rows/lsfix.sh): the long_sequences estimator's cost.
 *
 * At one length T (d = 64, d_k = 16, c^2 = 1/2, the headline's configuration), for the
 * same number of weight draws W:
 *   conditional: 8 rows per W from the defensive mixture, each E[T a_ii | s, sigma] by
 *                quadrature (lib/claims/longseq.h): O(d d_k) per row whatever T is;
 *   brute force: 8 plain rows per W, each T a_ii from T - 1 explicit scores
 *                (longseq_log_denominator, O(T) per row).
 * Prints per estimator: seconds per row, the 95% CI half-width h of T E[a_ii] over
 * the W's, and the precision per second 1 / (h^2 t) (the CI a second of CPU buys:
 * h scales like 1/sqrt(t), so this is the run-length-free figure of merit).
 * usage: lsbench T draws  (output: KEY value lines)
 */
#include "../tests/longseq_ref.h"
#include "rng.h"
#include "statistics.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

enum { ROWS = 8 };

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(int argc, char **argv)
{
    if (argc != 3) { fprintf(stderr, "usage: lsbench T draws\n"); return 2; }
    double T = atof(argv[1]);
    size_t n = (size_t)atol(argv[2]);
    if (T < 2 || n < 2) { fprintf(stderr, "lsbench: T >= 2, draws >= 2\n"); return 2; }
    longseq_cond_table tab;
    longseq_work w;
    if (longseq_cond_table_build(&tab) || longseq_work_alloc(&w, 64, 16)) return 3;
    const double c = M_SQRT1_2;
    for (int brute = 0; brute < 2; brute++) {
        gsl_rng *rng = rng_new("mt19937", 20261201UL);
        stat_acc a;
        stat_init(&a);
        double t0 = now();
        for (size_t i = 0; i < n; i++) {
            longseq_weights g;
            if (longseq_draw_weights(rng, &w, c, &g)) return 3;
            double m = 0.0;
            for (int r = 0; r < ROWS; r++) {
                longseq_query q;
                if (brute) {
                    longseq_draw_row(rng, &w, &g, 0, 1.0, &q);   /* plain */
                    m += longseq_estimate(&q, (size_t)T, longseq_log_denominator(rng, q.s, sqrt(q.sigma2), (size_t)T));
                } else {
                    double h;
                    longseq_draw_row(rng, &w, &g, r > 0, 1.0 / ROWS, &q);   /* the mixture */
                    longseq_cond_self(&tab, q.s, sqrt(q.sigma2), &T, 1, LONGSEQ_COND_H, &h);
                    m += h * exp(q.log_ratio);
                }
            }
            stat_push(&a, m / ROWS);
        }
        double t = now() - t0, h = STAT_Z95 * stat_se(&a);
        const char *k = brute ? "brute" : "cond";
        printf("%s_mean %.6f\n%s_half %.6g\n%s_s_per_row %.6g\n%s_prec_per_s %.6g\n", k, a.mean, k, h, k,
               t / (double)(n * ROWS), k, 1.0 / (h * h * t));
        gsl_rng_free(rng);
    }
    longseq_work_free(&w);
    longseq_cond_table_free(&tab);
    return 0;
}
