/* learned_previous_token - "Three projections, three roles"
 *
 * Claim: keys and values must differ. A previous-token head needs keys that
 * encode position (to find t - 1) and values that carry the token; with tied
 * W_V = W_K one vector must do both, and within one training budget such a
 * head is learned only at a wider head than one with separate W_K, W_V.
 * Trained, not written by hand: one causal head and an output matrix W_O on
 * x_t = [e_{token_t} ; e_t] (d = n_vocab + T), by Adam on the library's
 * backward pass (prevtrain.h), to output token_{t-1} at every t >= 1:
 *   L = -1/(B (T-1)) sum_b sum_{t>=1} log softmax(o_t W_O)_{token_{t-1}}.
 * Each draw (a seed) trains a separate and a tied head from the same generator
 * state (initial weights, batches, held-out sequences). What the tied head
 * lacks is learnability, not width: exact tied heads exist at d_k = 2 and 3
 * thanks to the causal mask (tiedhead.h; the control lptTiedExact).
 *
 * Measured (n_vocab = 8, T = 8, batches of 8, lr 0.05) at d_k = d_v in
 * {1, 2, 3, 4, 6, 8, 12, 16} x budgets S/16 .. S (S = --steps), --seeds heads
 * per point: held-out accuracy on --draws fresh sequences and the mean weight
 * a_{t,t-1}, with 95% CIs over seeds (prevlearn_seed_ci). Writes
 * learned_previous_token.csv, _draws.csv (every pair), _A.csv (draw 0's map).
 */
#include "prelude.h"
#include "prevlearn.h"
#include "prevtrain.h"

static const size_t WIDTHS[] = {1, 2, 3, 4, 6, 8, 12, 16};
enum { NCP = 5, W_SMALL = 2, W_SIDE = 4 };   /* checkpoints; the widths the verdicts name */
static size_t n_vocab = 8, seeds = 10, steps = 1600, batch = 8, map_dk = W_SMALL, budgets = NCP;

/* per draw, for the separate head then the tied one (C_TIED offsets the second) */
#define TRAIN SW_TRAIN_ROUND(NULL)
#define STATS(X) X(S_ACC, "sep_acc", TRAIN) X(S_W, "sep_weight", TRAIN) X(S_TRAIN, "sep_train_loss", TRAIN) \
    X(S_LOSS, "sep_heldout_loss", TRAIN) X(S_DIST, "sep_distinct", TRAIN) X(S_T_ACC, "tied_acc", TRAIN)   \
    X(S_T_W, "tied_weight", TRAIN) X(S_T_TRAIN, "tied_train_loss", TRAIN)                                  \
    X(S_T_LOSS, "tied_heldout_loss", TRAIN) X(S_T_DIST, "tied_distinct", TRAIN)
SWEEP_STATS(STATS);
enum { C_TIED = S_T_ACC };

typedef prevlearn_ctx ctx;        /* the start model and the generator's name */
typedef prevlearn_work work;      /* the training and held-out generators    */
/* One head (tied or not) of width d_k trained for S Adam steps from the generator
 * state `start`, evaluated on the held-out sequences of eval_seed: out[S_ACC .. S_DIST]
 * (of that case); the mean attention map (T, T) into A if not NULL. */
static int train_eval(const gsl_rng *start, double *out, const ctx *c, size_t dk, int tied, size_t S,
                      unsigned long eval_seed, work *w, gsl_matrix *A)
{
    prev_config pc = c->base;
    pc.dk = dk, pc.tied = tied;   /* tied: W_V = W_K, one matrix for keys and values (prevtrain.h) */
    prev_model m;
    prev_eval ev = {0};
    int rc = prevtrain_model_alloc(&m, &pc);
    if (rc) return rc;
    gsl_rng_memcpy(w->train, start);
    prevtrain_init(w->train, &m);
    // Adam steps 1 .. S/2, then S/2 + 1 .. S: the train loss is the mean over the second half
    if (S / 2 >= 1) rc = prevtrain_run(w->train, &m, 1, S / 2, NULL);
    if (!rc) rc = prevtrain_run(w->train, &m, S / 2 + 1, S, &out[S_TRAIN]);
    gsl_rng_set(w->eval, eval_seed);
    if (!rc) rc = prevtrain_evaluate(w->eval, &m, &ev, A);
    out[S_ACC] = ev.accuracy, out[S_W] = ev.weight_prev, out[S_LOSS] = ev.loss, out[S_DIST] = (double)ev.distinct;
    prevtrain_model_free(&m);
    return rc;
}

/* one draw at (d_k, S): a separate and a tied head from the same generator state */
static int draw(gsl_rng *rng, double *out, const sweep_point *pt, void *w, const void *c)
{
    unsigned long eval_seed = gsl_rng_get(rng);
    int rc = train_eval(rng, out, c, pt->dk, 0, (size_t)pt->x, eval_seed, w, NULL);
    return rc ? rc : train_eval(rng, out + C_TIED, c, pt->dk, 1, (size_t)pt->x, eval_seed, w, NULL);
}

static int run(experiment *e)
{
    size_t T = e->o.T ? e->o.T : 8, H = e->o.draws;
    if (T < 2 || T > 4096)
        return exp_usage("--T %zu: needs 2 <= T <= 4096 (a previous token; a T x T map per head)", T);
    if (n_vocab < 2) return exp_usage("--vocab %zu: needs >= 2 tokens", n_vocab);
    if (seeds < 2) return exp_usage("--seeds %zu: a t-interval over seeds needs >= 2", seeds);
    if (steps < 16) return exp_usage("--steps %zu: needs >= 16 (checkpoints at S/16 .. S)", steps);
    if (budgets < 1 || budgets > NCP) return exp_usage("--budgets %zu: needs 1 .. %d", budgets, NCP);
    // sizes that cannot overflow (opts.h): Z, P (T x vocab), the map (T x map-dk), a batch of
    // tokens (batch x T), the per-draw table (seeds per point), H (T - 1) held-out predictions
    size_t npt = sizeof WIDTHS / sizeof WIDTHS[0] * budgets, nd = 0, npred = 0;
    int over = __builtin_mul_overflow(npt, seeds, &nd);
    if (opts_need(&e->o, NULL, sizeof(double), "T*vocab", T, n_vocab) ||
        opts_need(&e->o, NULL, sizeof(double), "T*map-dk", T, map_dk) ||
        opts_need(&e->o, NULL, sizeof(size_t), "batch*T", batch, T) ||
        opts_need_for(&e->o, "--seeds", seeds, "the per-draw table", nd, over, NSTAT * 8))
        return ATT_EUSAGE;
    if (__builtin_mul_overflow(H, T - 1, &npred))
        return exp_usage("--draws %zu, --T %zu: H (T - 1) predictions overflow a count", H, T);
    // predictions per head: H (T - 1); the CI columns read S_ACC, S_W of each case (C_TIED apart)
    ctx c = {.base = prevtrain_config_default(n_vocab, T, 1, 0), .rng_name = e->o.rng_name,
             .predictions = H * (T - 1), .acc = S_ACC, .weight = S_W, .tied = C_TIED};
    c.base.steps = steps, c.base.batch = batch, c.base.heldout = H;
    double cp[NCP];
    for (size_t i = 0; i < NCP; i++) cp[i] = (double)(steps >> (NCP - 1 - i));
    sweep_grid g;
    sweep_grid_init(&g);
    sweep_axis(&g, AX_DK, sizeof WIDTHS / sizeof WIDTHS[0], WIDTHS);
    sweep_axis_x(&g, "steps", budgets, cp + NCP - budgets);   /* the last `budgets` of them */
    sweep_def def = SWEEP_DEF(draw);
    def.ctx = &c, def.draws = seeds, def.work_alloc = prevlearn_work_alloc, def.work_free = prevlearn_work_free;
    def.nderived = PREVLEARN_NDERIVED, def.derived = prevlearn_derived, def.derive = prevlearn_derive;
    def.draws_csv = "learned_previous_token_draws.csv";
    // Every thread: the tiny (8 x 16) products are mat_gemm's fixed-order kernel (mat.h), not
    // OpenBLAS (whose buffer lock made 2 threads cost twice the CPU of 1); the same bytes for
    // any thread count (mc.h) and any OpenBLAS kernel (tests/test_learned_previous_token.sh).
    sweep_result r;
    // the figure's maps: draw 0 at (map_dk, S) again, separate and tied (prevlearn.h)
    int st = prevlearn_map_run(e, &c, T, map_dk, steps, NSTAT, train_eval, "learned_previous_token_A.csv");
    if (!st) st = sweep_run(e, &g, &def, &r);
    if (st) return st;
    exp_meta(e, "n_vocab: %zu\nT: %zu\nd: %zu\nsteps: %zu\nbatch: %zu\nlr: %g\nseeds: %zu\n"
             "heldout: %zu\nmap_dk: %zu", n_vocab, T, n_vocab + T, steps, batch, c.base.adam.lr, seeds, H, map_dk);

    // verdicts at the full budget S: the accumulators of the point (d_k, S)
#define AT(dk) prevlearn_find(&r, dk, (double)steps)
#define ACC(p, t) prevlearn_seed_ci(sweep_acc(&r, p, (t) * C_TIED + S_ACC), c.predictions, 1)
#define WGT(p, t) prevlearn_seed_ci(sweep_acc(&r, p, (t) * C_TIED + S_W), c.predictions, 0)
    size_t n = r.npoints, ps = AT(W_SMALL), pw = AT(W_SIDE), pf = AT(n_vocab + T), p1 = AT(1);
    if (ps < n) {   // d_k = 2: room for a position code or a token code, not both side by side
        exp_claim(e, "lptSepAcc", 1.0, ACC(ps, 0), verdict_rule_ci_above(0.95),
                  "separate W_K, W_V at d_k = d_v = %d: held-out accuracy after %zu steps", W_SMALL, steps);
        exp_headline(e);
        exp_claim(e, "lptSepWeight", 1.0, WGT(ps, 0), verdict_rule_ci_above(0.9),
                  "separate at d_k = %d: mean attention weight on t-1", W_SMALL);
        exp_claim(e, "lptTiedAcc", NAN, ACC(ps, 1), verdict_rule_ci_below(0.9),
                  "tied W_V = W_K at d_k = %d, same budget (%zu Adam steps, over %zu seeds): held-out "
                  "accuracy; not learned in this budget, though an exact tied head exists at this width "
                  "(lptTiedExact)", W_SMALL, steps, seeds);
        exp_reported(e, "lptTiedWeight", NAN, WGT(ps, 1), "tied at d_k = %d: mean attention weight on t-1", W_SMALL);
        exp_summary_measure(e, "separate W_K, W_V at d_k = 2: held-out accuracy", ACC(ps, 0), "the section: keys find, values deliver");
        exp_summary_measure(e, "tied W_V = W_K at d_k = 2, same budget", ACC(ps, 1), "not learned; an exact tied head exists");
    }
    for (int t = 0; t <= 1 && ps == n; t++)   // a run without d_k = 2 (--dk W): what it measured
        exp_reported(e, "", NAN, ACC(AT(r.pt[0].dk), t), "%s at d_k = %zu: held-out accuracy", t ? "tied" : "separate", r.pt[0].dk);
    if (pw < n)
        exp_claim(e, "lptTiedSide", NAN, ACC(pw, 1), verdict_rule_ci_above(0.95),
                  "learnability: tied at d_k = %d reaches the task within %zu Adam steps (over %zu seeds; "
                  "a budget result: exact tied heads exist from d_k = 2, lptTiedExact)", W_SIDE, steps, seeds);
    if (pf < n)
        exp_control(e, "lptTiedFull", NAN, ACC(pf, 1), verdict_rule_ci_above(0.95),
                    "positive control: tied at d_k = d = %zu (all of x_j fits) learns it", n_vocab + T);
    if (p1 < n) {   // d_v = 1: z_v = o w_v, so argmax_v is the largest or the smallest w_v
        double most = fmax(sweep_acc(&r, p1, S_DIST)->max, sweep_acc(&r, p1, S_T_DIST)->max);
        exp_identity(e, "", 2.0, verdict_measure_exact(most, 2 * seeds), verdict_rule_at_most(2.0),
                     "d_k = d_v = 1: distinct tokens the head ever outputs (a scalar value names at most 2)");
        exp_reported(e, "lptOneDimAcc", 2.0 / (double)n_vocab, ACC(p1, 0),
                     "separate at d_k = 1: accuracy (expected <= 2/n_vocab)");
    }
    for (size_t p = 0; p < n; p++)
        if (r.pt[p].x == (double)steps && ACC(p, 1).ci_low >= 0.95) {
            exp_reported(e, "lptTiedFirstWidth", NAN, verdict_measure_exact((double)r.pt[p].dk, seeds),
                         "smallest width at which tied training reaches accuracy CI above 0.95 within %zu "
                         "Adam steps (over %zu seeds; what the width allows is 2: lptTiedExact)", steps, seeds);
            break;
        }
    sweep_result_free(&r);
    // the control: exact tied heads exist at d_k = 2 and 3 (lib/claims/tiedhead.h)
    return prevlearn_exact_check(e, n_vocab, T);
}

int main(int argc, char **argv)
{
    static const opt_spec extra[] = {
        {"seeds", OPT_SIZE, &seeds, "N", "trained heads per (width, budget) (default 10; >= 2)"},
        {"steps", OPT_SIZE, &steps, "S", "Adam steps per head (default 1600; checkpoints S/16 .. S)"},
        {"batch", OPT_SIZE, &batch, "B", "sequences per Adam step (default 8)"},
        {"vocab", OPT_SIZE, &n_vocab, "N", "vocabulary size (default 8)"},
        {"map-dk", OPT_SIZE, &map_dk, "W", "width of the attention-map figure (default 2)"},
        {"budgets", OPT_SIZE, &budgets, "N", "run the last N budgets of S/16, S/8, S/4, S/2, S (default 5; "
         "1: S alone, the one the verdicts read)"},
        {"draws", OPT_SIZE, NULL, NULL, "200 held-out sequences per trained head"},
        {NULL, 0, NULL, NULL, NULL}};
    static const experiment_def def = {"learned_previous_token",
        "a previous-token head learned by Adam: separate vs tied keys and values (W_V = W_K); "
        "--draws N = held-out sequences per trained head",
        OPT_MC | OPT_T | OPT_DK, 20261201UL, 200, extra, run};
    return exp_main(&def, argc, argv);
}
