/* shapes - "Shapes, written out"
 *
 * Claim: every matrix of one head has the shape the section gives it. For B
 * sequences with T_q queries and T_k keys and values, Q is (B, T_q, d_k),
 * K (B, T_k, d_k), V (B, T_k, d_v), S and A (B, T_q, T_k), O (B, T_q, d_v):
 * queries and keys share the width d_k, d_v is free, T_k disappears from the
 * output, and W_Q, W_K (d, d_k), W_V (d, d_v) hold no T. One GPT-2 head
 * (d = 768, d_k = d_v = 64) has 3 * 768 * 64 = 147,456 projection weights;
 * 12 heads have 1,769,472.
 * Measured: attention_shapes() (lib/math/shapes.h) against the matrices
 * head_forward() and head_forward_batched() really allocate, for self- and
 * cross-attention configurations up to GPT-2's head at T = 1024 (and your
 * --B --Tq --Tk --d --dk --dv when they fit in 256 MiB); the weight shapes
 * for T = 1 .. 100,000; the same weights run at T = 5 and T = 64; GPT-2's
 * counts, by the formula and by the matrices allocated.
 * Writes: shapes.csv (every matrix checked), shapes_sizes.csv (the table for
 * your sizes; default GPT-2's head), shapes.meta (the figure's sizes).
 */
#include "prelude.h"
#include "shapecheck.h"

#include <string.h>

typedef shapecheck_config config;
static const config CONFIGS[] = {
    {"self small", 2, 5, 5, 8, 4, 3, 1},
    {"self d_v > d_k", 3, 7, 7, 16, 4, 12, 1},
    {"cross T_q < T_k", 2, 5, 9, 8, 4, 6, 0},
    {"cross one query", 4, 1, 12, 10, 2, 5, 0},
    {"cross T_q > T_k", 1, 10, 3, 6, 6, 2, 0},
    {"GPT-2 head", 2, 1024, 1024, 768, 64, 64, 1},
};
enum { NCONFIG = sizeof CONFIGS / sizeof CONFIGS[0] };
enum { GPT2_D = SHAPECHECK_GPT2_D, GPT2_DK = SHAPECHECK_GPT2_DK, GPT2_HEADS = 12 };

static shapecheck_table table;   /* shapes.csv: every matrix checked */

/* The values of T (1, 5, 1024, 100,000 at GPT-2 sizes) at which a weight
 * shape from attention_shapes differs from its T = 1 shape. */
static int weights_change_with_T(size_t *differ, size_t *nT)
{
    static const size_t Ts[] = {1, 5, 1024, 100000};
    shape ref[SHAPES_COUNT], sh[SHAPES_COUNT];
    int rc = attention_shapes(ref, 1, 1, 1, GPT2_D, GPT2_DK, GPT2_DK);
    *differ = 0;
    *nT = sizeof Ts / sizeof Ts[0];
    for (size_t i = 1; i < *nT && !rc; i++) {
        if ((rc = attention_shapes(sh, 1, Ts[i], Ts[i], GPT2_D, GPT2_DK, GPT2_DK))) break;
        int same = 1;
        for (size_t k = 2; k <= 4; k++)      /* W_Q, W_K, W_V */
            same &= !memcmp(sh[k].dim, ref[k].dim, sizeof sh[k].dim);
        *differ += !same;
    }
    return rc;
}

static int run(experiment *e)
{
    int given;
    config mine = shapecheck_user(&given);
    int rc = shapecheck_sizes_table(e->o.out_dir, e->o.quiet, &mine);
    if (rc) return rc;
    gsl_rng *rng = rng_new("mt19937", e->o.seed);
    rc = rng ? ATT_OK : att_alloc_status();
    for (size_t i = 0; i < NCONFIG && !rc; i++) rc = shapecheck_run(rng, &table, &CONFIGS[i]);
    // your sizes through head_forward too, when they fit in 256 MiB
    int checked_mine = given && shapecheck_doubles(&mine) * sizeof(double) <= 256.0 * 1024 * 1024;
    if (!rc && checked_mine) rc = shapecheck_run(rng, &table, &mine);
    if (given && !checked_mine && !e->o.quiet)
        printf("(your sizes need more than 256 MiB: not run through head_forward)\n\n");
    size_t differ = 0, nT = 0, failed = 2;
    if (!rc) rc = weights_change_with_T(&differ, &nT);
    if (!rc) rc = shapecheck_same_weights_two_T(rng, &failed);
    if (rng) gsl_rng_free(rng);
    // GPT-2: the formula 3 d d_k, and the elements of the weights allocated
    size_t count = shapes_head_projection_params(GPT2_D, GPT2_DK, GPT2_DK), allocated = 0;
    // W_Q, W_K (d, d_k) and W_V (d, d_v), d_v = d_k = 64 in GPT-2
    gsl_matrix *W[3] = {mat_new(GPT2_D, GPT2_DK), mat_new(GPT2_D, GPT2_DK), mat_new(GPT2_D, GPT2_DK)};
    for (int k = 0; k < 3; k++) allocated += W[k] ? W[k]->size1 * W[k]->size2 : 0;
    for (int k = 0; k < 3; k++) mat_free(W[k]);
    if (rc || (rc = shapecheck_write(e->o.out_dir, &table))) return rc;

    // what the figure draws: the first self-attention configuration's sizes
    const config *f = &CONFIGS[0];
    exp_meta(e, "T: %zu\nd: %zu\nd_k: %zu\nd_v: %zu\nB: %zu", f->T_q, f->d, f->d_k, f->d_v, f->B);
    exp_meta(e, "gpt2_d: %d\ngpt2_dk: %d\ngpt2_heads: %d", GPT2_D, GPT2_DK, GPT2_HEADS);

    size_t disagree = shapecheck_disagree(&table), nrows = table.n;
    size_t layer = GPT2_HEADS * count;
    exp_claim(e, "shapesDisagree", 0, verdict_measure_exact((double)disagree, nrows),
                verdict_rule_at_most(0), "matrices whose computed shape differs from attention_shapes "
                "(%zu checked, %d configurations)", nrows, (int)NCONFIG + checked_mine);
    exp_headline(e);
    exp_claim(e, "shapesWeightsNoT", 0, verdict_measure_exact((double)differ, nT),
                verdict_rule_at_most(0), "values of T (1 .. 100,000, %zu) at which a weight shape changes", nT);
    exp_claim(e, "shapesSameWeightsTwoT", 0, verdict_measure_exact((double)failed, 2),
                verdict_rule_at_most(0), "runs of the same weights at T = 5 and T = 64 that failed");
    exp_claim(e, "shapesGPTTwoHead", 147456, verdict_measure_exact((double)count, 1),
                verdict_rule_between(147456, 147456), "projection weights of one GPT-2 head, 3 x 768 x 64 (formula)");
    exp_identity(e, "shapesGPTTwoAllocated", 147456, verdict_measure_exact((double)allocated, 1),
                verdict_rule_between(147456, 147456), "elements of W_Q, W_K, W_V allocated at GPT-2 sizes");
    exp_claim(e, "shapesGPTTwoLayer", 1769472, verdict_measure_exact((double)layer, 1),
              verdict_rule_between(1769472, 1769472), "projection weights of 12 GPT-2 heads");
    char g1[32], g2[32];
    exp_summary(e, "one GPT-2 head has %s projection weights (the section: 3 x 768 x 64 = 147,456), "
                "12 heads %s", shapecheck_grouped(g1, count), shapecheck_grouped(g2, layer));
    exp_summary(e, "%zu of %zu matrices have the shape attention_shapes gives (%d configurations); "
                "a weight shape changes at %zu of %zu values of T", nrows - disagree, nrows,
                (int)NCONFIG + checked_mine, differ, nT);
    return ATT_OK;
}

int main(int argc, char **argv)
{
    static experiment_def def = {"shapes", "every matrix's shape in one head, against what "
                                       "the library computes", OPT_SEED, 42, 1, NULL, run};
    def.extra = shapecheck_options();
    return exp_main(&def, argc, argv);
}
