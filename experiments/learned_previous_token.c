/* learned_previous_token - keys and values must differ: a previous-token head, learned.
 *
 * Claim (learned_previous_token): a previous-token head needs keys that encode
 * position (to find t - 1) and values that carry the token (what is
 * delivered); with tied keys and values, k_j = v_j, the head would have to
 * deliver the position code it matched on. Trained here, not written by hand:
 * one causal head and an output matrix W_O on x_t = [e_{token_t} ; e_t]
 * (d = n_vocab + T), by Adam on the library's backward pass (lib/claims/
 * prevtrain.h), to output token_{t-1} at every t >= 1, with the loss
 *   L = -1/(B (T-1)) sum_b sum_{t>=1} log softmax(o_t W_O)_{token_{t-1}}
 * (cross-entropy). The control is the same head with W_V = W_K (so d_v = d_k)
 * under the same budget: the same steps, learning rate, initial W_Q, W_K, W_O,
 * training batches and held-out sequences.
 *
 * Measured, for n_vocab = 8, T = 8 (d = 16), batches of 8 sequences, lr 0.05,
 * widths d_k = d_v in {1, 2, 3, 4, 6, 8, 12, 16}, separate and tied, --seeds
 * trained heads each:
 * held-out accuracy (argmax of the output = token_{t-1}, t >= 1, on --draws
 * fresh random sequences) and the mean weight a_{t,t-1}, at the checkpoints
 * S/16, S/8, S/4, S/2, S of S = --steps Adam steps; the mean attention map.
 * 95% CIs: over seeds, t-interval (t_{0.975, seeds-1}); for accuracy the
 * union of that and the Wilson interval of all pooled held-out predictions,
 * so that seeds that all score 1.000 still get an interval of nonzero width.
 * Options: --seeds N (heads per width and kind), --draws N (held-out
 * sequences per head), --steps S, --vocab N, --T N, --dk W (one width),
 * --map-dk W, --seed, --rng, --out, --quiet.
 *
 * Writes into --out:
 *   learned_previous_token.csv       one row per (d_k, tied, steps): accuracy and
 *                                    weight on t-1 with CIs, seeds, predictions
 *   learned_previous_token_runs.csv  one row per trained head at S: accuracy, weight
 *                                    on t-1, train loss (mean over steps S/2+1 .. S),
 *                                    held-out loss, distinct tokens output
 *   learned_previous_token_A.csv     the mean attention map (seed 0, --map-dk),
 *                                    separate and tied: query t, key j
 *   learned_previous_token.meta, learned_previous_token.verdicts.csv
 */
#include "experiment.h"
#include "mat.h"
#include "mem.h"
#include "prevtrain.h"
#include "rng.h"
#include "status.h"
#include "table.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

static const size_t WIDTHS[] = { 1, 2, 3, 4, 6, 8, 12, 16 };
enum { NW_ALL = sizeof WIDTHS / sizeof WIDTHS[0], NCP = 5 };
enum { W_SMALL = 2, W_SIDE = 4 };   /* the widths the verdicts name (see below) */
static size_t n_vocab = 8, seeds = 10, steps = 1600, batch = 8, map_dk = W_SMALL;

typedef struct {
    size_t widths[NW_ALL], nw, cp[NCP], nstats;
    prev_config base;
    unsigned long seed;
    const char *rng_name;
} ctx;

typedef struct { gsl_rng *train, *eval; } scratch;

/* per-draw values: (accuracy, weight on t-1) at each checkpoint, then the
 * final train loss, held-out loss, distinct outputs, and A_mean (T x T) */
enum { V_CP = 0, V_TRAIN = 2 * NCP, V_LOSS, V_DISTINCT, V_MAP };

typedef struct { size_t dk; int tied; size_t steps, seeds, predictions;
                 double accuracy, acc_lo, acc_hi, weight_prev, weight_lo, weight_hi; } width_row;
typedef struct { size_t dk; int tied; size_t seed; double accuracy, weight_prev, train_loss,
                 heldout_loss; size_t distinct; } run_row;
typedef struct { size_t query, key; double separate, tied; } map_row;

static void scratch_free(void *p)
{
    scratch *s = p;
    if (s == NULL) return;
    if (s->train) gsl_rng_free(s->train);
    if (s->eval) gsl_rng_free(s->eval);
    free(s);
}

/* the two generators of a head, of the --rng type (seeded per head in draw_at) */
static void *scratch_alloc(void *c)
{
    const ctx *cx = c;
    scratch *s = calloc(1, sizeof *s);
    if (s && (s->train = rng_new(cx->rng_name, 1)) && (s->eval = rng_new(cx->rng_name, 1))) return s;
    scratch_free(s);
    return NULL;
}

/* One trained head: point = (width index, tied), draw = its seed index. The
 * generators depend on (seed, d_k, draw) only, so the tied and separate heads
 * of a width share init, batches and held-out data, and a --dk run repeats
 * the full run's numbers. out: see V_* above. */
static int draw_at(void *c, void *sp, gsl_rng *rng, size_t point, size_t draw, double *out)
{
    (void)rng;
    const ctx *cx = c;
    scratch *s = sp;
    prev_config pc = cx->base;
    pc.dk = cx->widths[point / 2];
    pc.tied = (int)(point % 2);
    prev_model m;
    int rc = prev_model_alloc(&m, &pc);
    if (rc) return rc;
    gsl_rng_set(s->train, rng_stream_seed(cx->seed, pc.dk, 2 * draw));
    prev_init(&m, s->train);
    size_t k = 1;
    prev_eval ev = { 0 };
    gsl_matrix_view A = gsl_matrix_view_array(out + V_MAP, pc.T, pc.T);
    for (size_t i = 0; i < NCP && !rc; i++) {
        // train steps k .. cp[i], then evaluate on the same held-out sequences
        rc = prev_train(&m, s->train, k, cx->cp[i], &out[V_TRAIN]);
        k = cx->cp[i] + 1;
        gsl_rng_set(s->eval, rng_stream_seed(cx->seed, pc.dk, 2 * draw + 1));
        if (!rc) rc = prev_evaluate(&m, s->eval, &ev, i + 1 == NCP ? &A.matrix : NULL);
        out[V_CP + 2 * i] = ev.accuracy;
        out[V_CP + 2 * i + 1] = ev.weight_prev;
    }
    out[V_LOSS] = ev.loss;
    out[V_DISTINCT] = (double)ev.distinct;
    prev_model_free(&m);
    return rc;
}

static int point_of(const ctx *cx, size_t dk, int tied)
{
    for (size_t i = 0; i < cx->nw; i++)
        if (cx->widths[i] == dk) return (int)(2 * i) + tied;
    return -1;
}

static int run(experiment *e)
{
    size_t T = e->o.T ? e->o.T : 8, H = e->o.draws;
    if (T < 2 || T > 4096)
        return exp_usage("--T %zu: needs 2 <= T <= 4096 (a previous token; a T x T map per head)", T);
    if (n_vocab < 2) return exp_usage("--vocab %zu: needs >= 2 tokens", n_vocab);
    if (seeds < 2) return exp_usage("--seeds %zu: a t-interval over seeds needs >= 2", seeds);
    if (steps < 16) return exp_usage("--steps %zu: needs >= 16 (checkpoints at S/16 .. S)", steps);
    ctx cx = { .seed = e->o.seed, .rng_name = e->o.rng_name, .base = prev_config_default(n_vocab, T, 1, 0) };
    cx.base.steps = steps;
    cx.base.batch = batch;
    cx.base.heldout = H;
    for (size_t i = 0; i < NW_ALL; i++)
        if (!e->o.dk || WIDTHS[i] == e->o.dk) cx.widths[cx.nw++] = WIDTHS[i];
    if (!cx.nw) cx.widths[cx.nw++] = e->o.dk;
    for (size_t i = 0; i < NCP; i++) cx.cp[i] = steps >> (NCP - 1 - i);
    cx.nstats = V_MAP + T * T;
    size_t P = 2 * cx.nw, nv = P * seeds * cx.nstats;
    if (seeds > SIZE_MAX / P / cx.nstats) return exp_usage("--seeds %zu: too many to keep", seeds);
    double *values = mem_calloc(nv, sizeof *values, "per-run values");
    if (values == NULL) return ATT_EUSAGE;

    mc_config cfg = exp_mc(e, "learned_previous_token");
    cfg.draws = seeds; cfg.nstats = cx.nstats; cfg.points = P; cfg.draw_at = draw_at;
    cfg.alloc = scratch_alloc; cfg.free = scratch_free; cfg.ctx = &cx; cfg.values = values;
    stat_acc *acc = mem_calloc(P * cx.nstats, sizeof *acc, "statistics");
    int rc = acc ? mc_run(&cfg, acc) : ATT_EUSAGE;

    // tables: per (width, tied, checkpoint); per run; the attention map
    size_t npred = H * (T - 1), nrows = P * NCP;
    width_row *wr = mem_calloc(nrows, sizeof *wr, "table");
    run_row *rr = mem_calloc(P * seeds, sizeof *rr, "table");
    map_row *mr = mem_calloc(T * T, sizeof *mr, "table");
    if (!rc && (!wr || !rr || !mr)) rc = ATT_EUSAGE;
    for (size_t p = 0; p < P && !rc; p++) {
        const double *v = values + p * seeds * cx.nstats;
        for (size_t i = 0; i < NCP; i++) {
            width_row *w = &wr[p * NCP + i];
            *w = (width_row){ .dk = cx.widths[p / 2], .tied = (int)(p % 2), .steps = cx.cp[i],
                              .seeds = seeds, .predictions = npred };
            w->accuracy = prev_seed_ci(v + V_CP + 2 * i, seeds, cx.nstats, &w->acc_lo, &w->acc_hi);
            w->weight_prev = prev_seed_ci(v + V_CP + 2 * i + 1, seeds, cx.nstats, &w->weight_lo, &w->weight_hi);
            // accuracy: the union with Wilson over seeds x predictions pooled
            double n = (double)(seeds * npred), lo, hi;
            stat_ci95_wilson(round(w->accuracy * n), n, &lo, &hi);
            w->acc_lo = fmax(0.0, fmin(w->acc_lo, lo)); w->acc_hi = fmin(1.0, fmax(w->acc_hi, hi));
        }
        for (size_t s = 0; s < seeds; s++) {
            const double *u = v + s * cx.nstats;
            rr[p * seeds + s] = (run_row){ cx.widths[p / 2], (int)(p % 2), s, u[V_CP + 2 * (NCP - 1)],
                                           u[V_CP + 2 * NCP - 1], u[V_TRAIN], u[V_LOSS], (size_t)u[V_DISTINCT] };
        }
    }
    int pm = point_of(&cx, map_dk, 0);
    if (pm < 0) pm = 0;
    size_t map_w = cx.widths[pm / 2];
    for (size_t i = 0; i < T * T && !rc; i++)
        mr[i] = (map_row){ i / T, i % T, values[(size_t)pm * seeds * cx.nstats + V_MAP + i],
                           values[(size_t)(pm + 1) * seeds * cx.nstats + V_MAP + i] };
    static const table_col wcols[] = { COL(width_row, dk), COL(width_row, tied), COL(width_row, steps),
        COL(width_row, seeds), COL(width_row, predictions), COL_TRAIN(width_row, accuracy, "acc_lo", "acc_hi"),
        COL_TRAIN(width_row, acc_lo, "acc_lo", "acc_hi"), COL_TRAIN(width_row, acc_hi, "acc_lo", "acc_hi"),
        COL_TRAIN(width_row, weight_prev, "weight_lo", "weight_hi"),
        COL_TRAIN(width_row, weight_lo, "weight_lo", "weight_hi"), COL_TRAIN(width_row, weight_hi, "weight_lo", "weight_hi") };
    static const table_col rcols[] = { COL(run_row, dk), COL(run_row, tied), COL(run_row, seed),
        COL_TRAIN_RUNS(run_row, accuracy, "dk;tied"), COL_TRAIN_RUNS(run_row, weight_prev, "dk;tied"),
        COL_TRAIN_RUNS(run_row, train_loss, "dk;tied"), COL_TRAIN_RUNS(run_row, heldout_loss, "dk;tied"),
        COL(run_row, distinct) };
    static const table_col mcols[] = { COL(map_row, query), COL(map_row, key),
        COL(map_row, separate), COL(map_row, tied) };
    if (!rc) rc = TABLE_WRITE(e->o.out_dir, "learned_previous_token.csv", wcols, wr, nrows);
    if (!rc) rc = TABLE_WRITE(e->o.out_dir, "learned_previous_token_runs.csv", rcols, rr, P * seeds);
    if (!rc) rc = TABLE_WRITE(e->o.out_dir, "learned_previous_token_A.csv", mcols, mr, T * T);
    exp_meta(e, "n_vocab: %zu\nT: %zu\nd: %zu\nsteps: %zu\nbatch: %zu\nlr: %g\nseeds: %zu\n"
             "heldout: %zu\nmap_dk: %zu", n_vocab, T, n_vocab + T, steps, cx.base.batch,
             cx.base.adam.lr, seeds, H, map_w);

    // verdicts at the full budget S (the last checkpoint of every point)
#define ROW(p) (&wr[(size_t)(p) * NCP + NCP - 1])
/* trained heads: make verify allows their seed-to-seed spread (table.h) */
#define ACC(r) measure_as(measure_ci((r)->accuracy, (r)->acc_lo, (r)->acc_hi, seeds), NAT_TRAINING)
#define WGT(r) measure_as(measure_ci((r)->weight_prev, (r)->weight_lo, (r)->weight_hi, seeds), NAT_TRAINING)
    int ps = point_of(&cx, W_SMALL, 0), pw = point_of(&cx, W_SIDE, 1);
    int pf = point_of(&cx, n_vocab + T, 1), p1 = point_of(&cx, 1, 0);
    if (!rc && ps >= 0) {
        // d_k = 2: room for a position code or a token code, not both side by side
        rc = verdict_add(&e->v, KIND_CLAIM, "lptSepAcc", 1.0, ACC(ROW(ps)), rule_ci_above(0.95),
                         "separate W_K, W_V at d_k = d_v = %d: held-out accuracy after %zu steps", W_SMALL, steps);
        if (!rc) rc = verdict_add(&e->v, KIND_CLAIM, "lptSepWeight", 1.0, WGT(ROW(ps)), rule_ci_above(0.9),
                                  "separate at d_k = %d: mean attention weight on t-1", W_SMALL);
        if (!rc) rc = verdict_add(&e->v, KIND_CLAIM, "lptTiedAcc", NAN, ACC(ROW(ps + 1)), rule_ci_below(0.9),
                                  "tied W_V = W_K at d_k = %d, same budget: held-out accuracy", W_SMALL);
        if (!rc) rc = verdict_add(&e->v, KIND_REPORTED, "lptTiedWeight", NAN, WGT(ROW(ps + 1)), rule_none(),
                                  "tied at d_k = %d: mean attention weight on t-1", W_SMALL);
    }
    if (!rc && ps < 0)     // a run without d_k = 2 (--dk W): what it measured, without a rule
        for (int t = 0; t <= 1 && !rc; t++)
            rc = verdict_add(&e->v, KIND_REPORTED, "", NAN, ACC(ROW(t)), rule_none(),
                             "%s at d_k = %zu: held-out accuracy", t ? "tied" : "separate", cx.widths[0]);
    if (!rc && pw >= 0)
        rc = verdict_add(&e->v, KIND_CLAIM, "lptTiedSide", NAN, ACC(ROW(pw)), rule_ci_above(0.95),
                         "prediction: tied at d_k = %d (a 2-D position code beside a 2-D token code) learns it",
                         W_SIDE);
    if (!rc && pf >= 0)
        rc = verdict_add(&e->v, KIND_CONTROL, "lptTiedFull", NAN, ACC(ROW(pf)), rule_ci_above(0.95),
                         "positive control: tied at d_k = d = %zu (all of x_j fits) learns it", n_vocab + T);
    if (!rc && p1 >= 0) {
        double most = 0.0;
        for (size_t s = 0; s < seeds; s++) most = fmax(most, fmax((double)rr[p1 * seeds + s].distinct,
                                                                  (double)rr[(p1 + 1) * seeds + s].distinct));
        // d_v = 1: z_v = o w_v, so argmax_v is the largest or the smallest w_v
        rc = verdict_add(&e->v, KIND_IDENTITY, "", 2.0, measure_exact(most, 2 * seeds), rule_at_most(2.0),
                         "d_k = d_v = 1: distinct tokens the head ever outputs (a scalar value names at most 2)");
        if (!rc) rc = verdict_add(&e->v, KIND_REPORTED, "lptOneDimAcc", 2.0 / (double)n_vocab, ACC(ROW(p1)),
                                  rule_none(), "separate at d_k = 1: accuracy (expected <= 2/n_vocab)");
    }
    for (size_t i = 0; i < cx.nw && !rc; i++)
        if (ROW(2 * i + 1)->acc_lo >= 0.95) {
            rc = verdict_add(&e->v, KIND_REPORTED, "lptTiedFirstWidth", NAN,
                             measure_exact((double)cx.widths[i], seeds), rule_none(),
                             "smallest width at which tied reaches accuracy CI above 0.95");
            break;
        }
    mem_free(values, nv, sizeof *values);
    if (acc) mem_free(acc, P * cx.nstats, sizeof *acc);
    if (wr) mem_free(wr, nrows, sizeof *wr);
    if (rr) mem_free(rr, P * seeds, sizeof *rr);
    if (mr) mem_free(mr, T * T, sizeof *mr);
    return rc;
}

int main(int argc, char **argv)
{
    static const opt_spec extra[] = {
        { "seeds", OPT_SIZE, &seeds, "N", "trained heads per (width, tied) (default 10; >= 2)" },
        { "steps", OPT_SIZE, &steps, "S", "Adam steps per head (default 1600; checkpoints S/16 .. S)" },
        { "batch", OPT_SIZE, &batch, "B", "sequences per Adam step (default 8)" },
        { "vocab", OPT_SIZE, &n_vocab, "N", "vocabulary size (default 8)" },
        { "map-dk", OPT_SIZE, &map_dk, "W", "width of the attention-map figure (default 2)" },
        { NULL, 0, NULL, NULL, NULL }
    };
    static const experiment_def def = { "learned_previous_token",
        "a previous-token head learned by Adam: separate vs tied keys and values (W_V = W_K); "
        "--draws N = held-out sequences per trained head",
        OPT_MC | OPT_T | OPT_DK, 20261201UL, 200, extra, run };
    return experiment_main(&def, argc, argv);
}
