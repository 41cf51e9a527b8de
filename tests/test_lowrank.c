/* test_lowrank.c - bilinear_low_rank's headline, rank(W_QK) <= d_k at rounding level
 * (lowrank_zero_bound, lib/claims/lowrank.h): for random W_Q, W_K (d, d_k) ~ N(0, 1/d) from a
 * printed seed, sigma_{d_k+1} / sigma_1 of W_QK = W_Q W_K^T is within its bound; planted wrong
 * heads fail it: W_QK built through d_k + 1 dimensions (a wrong inner width), and W_QK with a
 * perturbation of 1e-9 (a product that is not W_Q W_K^T).
 */
#include "prop.h"
#include "lowrank.h"
#include "qkov.h"
#include "status.h"

#include <math.h>
#include <gsl/gsl_randist.h>

static void fill(gsl_rng *rng, gsl_matrix *M, double sd)
{
    for (size_t i = 0; i < M->size1; i++)
        for (size_t j = 0; j < M->size2; j++)
            gsl_matrix_set(M, i, j, gsl_ran_gaussian_ziggurat(rng, sd));
}

/* sigma_{r+1} / sigma_1 of W (d, d) in units of lowrank_zero_bound(W_Q, W_K, sigma_1) */
static double units(const gsl_matrix *W, const gsl_matrix *W_Q, const gsl_matrix *W_K, size_t r)
{
    size_t d = W->size1;
    gsl_vector *sv = gsl_vector_alloc(d);
    double *spec = malloc(d * sizeof *spec), mis, kept, next;
    ck_assert_int_eq(qkov_rank_profile(W, r, 1e-10, sv, spec, &mis, &kept, &next), ATT_OK);
    double u = next / lowrank_zero_bound(W_Q, W_K, gsl_vector_get(sv, 0));
    free(spec);
    gsl_vector_free(sv);
    return u;
}

START_TEST(test_rank_at_rounding_level)
{
    gsl_rng *rng = rng_new("mt19937", 41);
    PROP_FOR(k, rng, "sigma_{d_k+1} of W_Q W_K^T within its rounding bound; wrong heads outside it")
    {
        if (k >= 60) break;
        size_t d = prop_size(rng, 8, 80), dk = prop_size(rng, 1, d - 2);
        double sd = 1.0 / sqrt((double)d) * pow(10.0, (double)prop_size(rng, 0, 6) - 3.0);
        gsl_matrix *WQ = gsl_matrix_alloc(d, dk + 1), *WK = gsl_matrix_alloc(d, dk + 1),
                   *W = gsl_matrix_alloc(d, d);
        fill(rng, WQ, sd), fill(rng, WK, sd);
        gsl_matrix_view q = gsl_matrix_submatrix(WQ, 0, 0, d, dk),
                        kk = gsl_matrix_submatrix(WK, 0, 0, d, dk);
        ck_assert_int_eq(qkov_qk(W, &q.matrix, &kk.matrix), ATT_OK);
        double u = units(W, &q.matrix, &kk.matrix, dk);
        PROP_ASSERT(u <= 1.0, "d %zu d_k %zu sd %g: sigma_{d_k+1} at %g bounds", d, dk, sd, u);
        // planted: the product through d_k + 1 dimensions, judged as rank d_k
        ck_assert_int_eq(qkov_qk(W, WQ, WK), ATT_OK);
        double wrong = units(W, &q.matrix, &kk.matrix, dk);
        PROP_ASSERT(wrong > 1e6, "d %zu d_k %zu: a rank d_k + 1 product at only %g bounds", d, dk,
                    wrong);
        // planted: W_Q W_K^T + noise 1e-9 times sigma_1's size
        ck_assert_int_eq(qkov_qk(W, &q.matrix, &kk.matrix), ATT_OK);
        double s1 = sd * sd * (double)d;   /* about sigma_1's size */
        for (size_t i = 0; i < d; i++)
            gsl_matrix_set(W, i, (i * 7 + 3) % d,
                           gsl_matrix_get(W, i, (i * 7 + 3) % d) + 1e-9 * s1);
        wrong = units(W, &q.matrix, &kk.matrix, dk);
        PROP_ASSERT(wrong > 1.0, "d %zu d_k %zu: W_QK + 1e-9 noise at only %g bounds", d, dk,
                    wrong);
        gsl_matrix_free(WQ), gsl_matrix_free(WK), gsl_matrix_free(W);
    }
    gsl_rng_free(rng);
}
END_TEST

PROP_MAIN("lowrank", {"properties", 120, {test_rank_at_rounding_level}})
