/* learned_previous_token - "Three projections, three roles"
 *
 * Claim: keys and values must differ. A previous-token head needs keys that
 * encode position (to find t - 1) and values that carry the token; with tied
 * W_V = W_K one vector must do both, and within one training budget such a
 * head is learned only at a wider head than one with separate W_K, W_V.
 * Trained, not written by hand: one causal head and an output matrix W_O on
 * x_t = [e_{token_t} ; e_t] (d = n_vocab + T), by Adam on the library's
 * backward pass (training.h), to output token_{t-1} at every t >= 1:
 *   L = -1/(B (T-1)) sum_b sum_{t>=1} log softmax(o_t W_O)_{token_{t-1}}.
 * Each draw (a seed) trains a separate and a tied head from the same generator
 * state (initial weights, batches, held-out sequences). What the tied head
 * lacks is learnability, not width: exact tied heads exist at d_k = 2 and 3
 * thanks to the causal mask (training.h; the control lptTiedExact). --no-exact skips that
 * control (its own streams: every other number is the same), e.g. for
 * tools/report/robustness.sh, which reruns lptTiedAcc alone.
 *
 * Measured (n_vocab = 8, T = 8, batches of 8, lr 0.05) at d_k = d_v in
 * {1, 2, 3, 4, 6, 8, 12, 16} x budgets S/16 .. S (S = --steps), --seeds heads
 * per point: held-out accuracy on --draws fresh sequences and the mean weight
 * a_{t,t-1}, with 95% CIs over seeds (seed_ci). Writes learned_previous_token.csv,
 * _draws.csv (every pair), _A.csv (draw 0's map).
 *
 * ONE training trajectory per (width, seed), evaluated at the checkpoints: the pair of
 * seed i at (d_k, S_k) is seed i's trajectory after S_k Adam steps, its train loss the
 * mean over steps S_{k-1} + 1 .. S_k (S_{k-1} = S_k / 2, the second half). Seed i's
 * trajectory is draw i on the stream of the point (d_k, steps 0) (sweep_stream), which
 * does not depend on S: a run with another --steps, --budgets or --dk trains the same
 * heads, longer or shorter (its checkpoint at 1600 steps is the default run's row at
 * 1600). Two sweeps:
 *   1. the trajectories (train_all, no table): draw i at (d_k, 0) trains and evaluates
 *      seed i's pair at every checkpoint, every draw kept;
 *   2. the sweep of the CSVs (draw): draw i at (d_k, S_k) returns seed i's statistics at
 *      S_k from step 1's draw i at (d_k, 0).
 */
#include "prelude.h"
#include "training.h"
#include "statistics.h"

#include <string.h>
#include <gsl/gsl_cdf.h>

static const size_t WIDTHS[] = {1, 2, 3, 4, 6, 8, 12, 16};
enum { NCP = 5, W_SMALL = 2, W_SIDE = 4 };   /* checkpoints; the widths the verdicts name */
static size_t n_vocab = 8, seeds = 10, steps = 1600, batch = 8, map_dk = W_SMALL, budgets = NCP;
static int no_exact = 0;   /* --no-exact: no exact tied heads (exact_check) */

/* per draw, for the separate head then the tied one (C_TIED offsets the second) */
#define STATS(X) X(S_ACC, "sep_acc") X(S_W, "sep_weight") X(S_TRAIN, "sep_train_loss")       \
    X(S_LOSS, "sep_heldout_loss") X(S_DIST, "sep_distinct") X(S_T_ACC, "tied_acc")           \
    X(S_T_W, "tied_weight") X(S_T_TRAIN, "tied_train_loss") X(S_T_LOSS, "tied_heldout_loss") \
    X(S_T_DIST, "tied_distinct")
SWEEP_STATS(STATS);
enum { C_TIED = S_T_ACC };

/* The run's context (read-only during both sweeps): the model every head starts from
 * (its d_k and tying set per head), the generator's name, the held-out predictions per
 * head (H (T - 1)); the checkpoints cp[0 .. ncp - 1] (the last `budgets` of S/16 .. S,
 * ncp = budgets); step 1's result traj (a point (d_k, 0) per width, n1 = ncp NSTAT values
 * per draw: the statistics at every checkpoint); the map run's statistics of draw 0 at
 * (map_dk, 0) (map_out, n1 values), which step 1 takes instead of training that pair
 * again. */
typedef struct {
    prev_config base;
    const char *rng_name;
    size_t predictions;
    double cp[NCP];
    size_t ncp, n1;
    const sweep_result *traj;
    double map_out[NCP * NSTAT];
} ctx;

/* ---- the CIs over seeds ------------------------------------------------ */

/* The 95% CI over the seeds of a mean in a: mean -+ t_{0.975, n-1} sd / sqrt(n);
 * for an accuracy (accuracy != 0) its union with the Wilson interval of
 * round(mean N) correct out of N = n predictions, clipped to [0, 1] (seeds
 * that all score 1.000 still get an interval of nonzero width). */
static measure seed_ci(const stat_acc *a, size_t predictions, int accuracy)
{
    double h = a->n > 1 ? gsl_cdf_tdist_Pinv(0.975, (double)(a->n - 1)) * stat_se(a) : NAN;
    double lo = a->mean - h, hi = a->mean + h, N = (double)a->n * (double)predictions, wl, wh;
    if (accuracy) {
        stat_ci95_wilson(round(a->mean * N), N, &wl, &wh);
        lo = fmax(0.0, fmin(lo, wl)), hi = fmin(1.0, fmax(hi, wh));
    }
    return verdict_measure_as(verdict_measure_ci(a->mean, lo, hi, a->n), NAT_TRAINING);
}

/* The sweep's derived columns: sep_acc_ci_lo, _hi, sep_weight_ci_lo, _hi, tied_acc_ci_lo,
 * _hi, tied_weight_ci_lo, _hi, the seed CIs above, compared as training results. */
enum { NDERIVED = 8 };
#define CI_PAIR(k, name)                                                                      \
    SWEEP_DERIVED(k, name "_ci_lo", NAT_TRAINING, name "_ci_lo", name "_ci_hi", NULL),        \
    SWEEP_DERIVED((k) + 1, name "_ci_hi", NAT_TRAINING, name "_ci_lo", name "_ci_hi", NULL)
static const table_col derived[NDERIVED] = {CI_PAIR(0, "sep_acc"), CI_PAIR(2, "sep_weight"),
                                            CI_PAIR(4, "tied_acc"), CI_PAIR(6, "tied_weight")};

static void derive(double *col, const sweep_point *pt, const stat_acc *a, const void *cv)
{
    const ctx *c = cv;
    (void)pt;
    for (int k = 0; k < 4; k++) {   // k: separate acc, weight, then tied acc, weight
        size_t s = (size_t)(k / 2) * C_TIED + (k % 2 ? S_W : S_ACC);
        measure m = seed_ci(&a[s], c->predictions, k % 2 == 0);
        col[2 * k] = m.ci_low, col[2 * k + 1] = m.ci_high;
    }
}

/* ---- one trajectory ------------------------------------------------------ */

/* Per thread: the training and the held-out generators. */
typedef struct { gsl_rng *train, *eval; } work;

static void work_free(void *p)
{
    work *w = p;
    if (w && w->train) gsl_rng_free(w->train);
    if (w && w->eval) gsl_rng_free(w->eval);
    free(w);
}

static void *work_alloc(const sweep_grid *g, const void *cv)
{
    (void)g;
    const char *name = ((const ctx *)cv)->rng_name;
    work *w = calloc(1, sizeof *w);
    if (w && (w->train = rng_new(name, 1)) && (w->eval = rng_new(name, 1))) return w;
    work_free(w);
    if (!att_last_code()) att_fail(ATT_ERUNTIME, "out of memory for the training's generators");
    return NULL;
}

/* One head (tied or not) of width d_k trained from the generator state `start` for
 * S = cp[ncp - 1] Adam steps, evaluated at every checkpoint S_k = cp[k] on the held-out
 * sequences of eval_seed: out[k NSTAT + S_ACC .. S_DIST] (of that case: + C_TIED when
 * tied); its train loss the mean over steps S_{k-1} + 1 .. S_k, S_{k-1} = S_k / 2 (the
 * second half); the mean attention map (T, T) at S into A if not NULL. */
static int trajectory(const gsl_rng *start, double *out, const ctx *c, size_t dk, int tied,
                      unsigned long eval_seed, work *w, gsl_matrix *A)
{
    prev_config pc = c->base;
    pc.dk = dk, pc.tied = tied;   /* tied: W_V = W_K, one matrix for keys and values */
    prev_model m = {0};
    int st = ATT_OK;
    if ((st = training_model_alloc(&m, &pc))) goto done;
    gsl_rng_memcpy(w->train, start);
    training_init(w->train, &m);
    // Adam steps 1 .. S_0 / 2 (no loss kept); then S_{k-1} + 1 .. S_k and the evaluation at S_k
    size_t trained = (size_t)c->cp[0] / 2;
    if (trained >= 1 && (st = training_run(w->train, &m, 1, trained, NULL))) goto done;
    for (size_t k = 0; k < c->ncp; k++) {
        double *o = out + k * NSTAT + (tied ? C_TIED : 0);
        size_t Sk = (size_t)c->cp[k];
        prev_eval ev = {0};
        if ((st = training_run(w->train, &m, trained + 1, Sk, &o[S_TRAIN]))) goto done;
        trained = Sk;
        gsl_rng_set(w->eval, eval_seed);   /* the same held-out sequences at every checkpoint */
        if ((st = training_evaluate(w->eval, &m, &ev, k + 1 == c->ncp ? A : NULL))) goto done;
        o[S_ACC] = ev.accuracy, o[S_W] = ev.weight_prev, o[S_LOSS] = ev.loss;
        o[S_DIST] = (double)ev.distinct;
    }
done:
    training_model_free(&m);
    return st;
}

/* ---- the two sweeps ------------------------------------------------------ */

/* Step 1, draw i at (d_k, 0): seed i's separate and tied trajectories from the generator's
 * state after its first output, the held-out sequences' seed (out: n1 values; draw 0 at
 * map_dk copied from the map run, which trained that very pair). */
static int train_all(gsl_rng *rng, double *out, const sweep_point *pt, void *wv, const void *cv)
{
    const ctx *c = cv;
    unsigned long eval_seed = gsl_rng_get(rng);
    if (pt->draw == 0 && pt->dk == map_dk) {
        memcpy(out, c->map_out, c->n1 * sizeof *out);
        return ATT_OK;
    }
    int st = trajectory(rng, out, c, pt->dk, 0, eval_seed, wv, NULL);
    return st ? st : trajectory(rng, out, c, pt->dk, 1, eval_seed, wv, NULL);
}

/* Step 2, draw i at (d_k, S_k): seed i's statistics at S_k, from its trajectory (step 1's
 * draw i at (d_k, 0); the generator is not used). */
static int draw(gsl_rng *rng, double *out, const sweep_point *pt, void *w, const void *cv)
{
    (void)rng, (void)w;
    const ctx *c = cv;
    const sweep_result *t = c->traj;
    size_t a = 0, k = 0, first = 0;   /* first: the draws of step 1's points before a */
    while (a < t->npoints && t->pt[a].dk != pt->dk) first += t->pt[a++].draws;
    while (k < c->ncp && c->cp[k] != pt->x) k++;
    if (a == t->npoints || k == c->ncp || pt->draw >= t->pt[a].draws)
        return att_fail(ATT_ERUNTIME, "learned_previous_token: (d_k = %zu, steps = %g) draw %zu "
                        "is not a trained trajectory", pt->dk, pt->x, pt->draw);
    memcpy(out, t->values + (first + pt->draw) * c->n1 + k * NSTAT, NSTAT * sizeof *out);
    return ATT_OK;
}

/* ---- the figure's maps and the exact tied head ----------------------------- */

typedef struct { size_t query, key; double separate, tied; } map_row;
static const table_col map_cols[] = {COL(map_row, query), COL(map_row, key), COL(map_row, separate),
                                     COL(map_row, tied)};

/* dir/name: query,key,separate,tied for every cell of the two maps A_sep, A_tied (T, T). */
static int map_write(const char *dir, const char *name, const gsl_matrix *A_sep,
                     const gsl_matrix *A_tied)
{
    size_t T = A_sep->size1;
    map_row *rows = calloc(T * T, sizeof *rows);
    if (!rows) return att_fail(ATT_ERUNTIME, "%s: out of memory", name);
    for (size_t i = 0; i < T * T; i++)
        rows[i] = (map_row){i / T, i % T, gsl_matrix_get(A_sep, i / T, i % T),
                            gsl_matrix_get(A_tied, i / T, i % T)};
    int st = TABLE_WRITE(dir, name, map_cols, rows, T * T);
    free(rows);
    return st;
}

/* The figure's maps: draw 0 of the trajectories at d_k = map_dk, from the stream of
 * (map_dk, 0), the separate then the tied trajectory (their statistics into c->map_out),
 * their mean attention maps A (T, T) at S written to <out_dir>/learned_previous_token_A.csv. */
static int map_run(experiment *e, ctx *c, size_t T)
{
    const sweep_point pt = {.dk = map_dk, .x = 0.0};
    gsl_rng *rng = sweep_rng(e, &pt);
    work *w = work_alloc(NULL, c);
    gsl_matrix *A[2] = {mat_new(T, T), mat_new(T, T)};
    int st = ATT_OK;
    if ((st = rng && w && A[0] && A[1] ? ATT_OK : att_alloc_status())) goto done;
    unsigned long eval_seed = gsl_rng_get(rng);   /* as train_all takes it */
    for (int t = 0; t < 2; t++)
        if ((st = trajectory(rng, c->map_out, c, map_dk, t, eval_seed, w, A[t]))) goto done;
    if ((st = map_write(e->o.out_dir, "learned_previous_token_A.csv", A[0], A[1]))) goto done;
done:
    mat_free(A[0]), mat_free(A[1]), work_free(w);
    if (rng) gsl_rng_free(rng);
    return st;
}

/* The exact tied head W_V = W_K at d_k = w (tiedhead_exact, lambda 12) for n_vocab tokens
 * and length T, evaluated on `heldout` sequences from the stream of the point {d_k = w,
 * case 1}: with the causal mask into *ev, the same weights without it into *nomask. */
static int exact_tied(const experiment *e, size_t T, size_t w, size_t heldout, prev_eval *ev,
                      prev_eval *nomask)
{
    prev_config c = training_config_default(n_vocab, T, w, 1);
    c.heldout = heldout;
    prev_model m = {0};
    gsl_rng *g = NULL;
    int st = ATT_OK;
    if ((st = training_model_alloc(&m, &c))) goto done;
    const sweep_point pt = {.dk = w, .kase = 1};     /* its held-out stream */
    g = sweep_rng(e, &pt);
    if ((st = g ? tiedhead_exact(&m, 12.0) : att_alloc_status())) goto done;
    if ((st = training_evaluate(g, &m, ev, NULL))) goto done;
    m.p.causal = 0;   /* the same weights without the mask */
    if ((st = training_evaluate(g, &m, nomask, NULL))) goto done;
done:
    if (g) gsl_rng_free(g);
    training_model_free(&m);
    return st;
}

/* The control that the width allows a tied head at d_k = 2: the exact tied heads at
 * d_k = 2 and 3 (exact_tied, 20000 held-out sequences each) and their verdict rows
 * lptTiedExact, lptTiedExactNoMask, lptTiedExactThree (accuracy CI above 0.999, Wilson
 * interval over the predictions). */
static int exact_check(experiment *e, size_t T)
{
    prev_eval ex[2][2];
    int st = ATT_OK;
    for (size_t w = 2; w <= 3; w++)
        if ((st = exact_tied(e, T, w, 20000, &ex[w - 2][0], &ex[w - 2][1]))) return st;
    for (size_t w = 2; w <= 3; w++) {   // the width allows d_k = 2 under the causal mask
        const prev_eval *x = &ex[w - 2][0];
        double lo, hi;
        stat_ci95_wilson((double)x->correct, (double)x->predictions, &lo, &hi);
        verdict_control(e, w == 2 ? "lptTiedExact" : "lptTiedExactThree", 1.0,
                    verdict_measure_ci(x->accuracy, lo, hi, x->predictions),
                    verdict_rule_ci_above(0.999),
                    "an exact tied head W_V = W_K at d_k = %zu, built (1-D zig-zag position code, "
                    "token heights 4^v, token-blind queries, sector read-out; needs the causal "
                    "mask): accuracy over %zu predictions", w, x->predictions);
        if (w == 2)
            verdict_reported(e, "lptTiedExactNoMask", NAN,
                         verdict_measure_exact(ex[0][1].accuracy, ex[0][1].predictions),
                         "the same exact tied head without the causal mask: accuracy (all T keys "
                         "visible: a 1-D code is extreme at two positions only)");
    }
    experiment_summary(
        e,
        "an exact tied head at d_k = 2 (causal mask): accuracy %.4f; without the mask "
        "%.4f",
        ex[0][0].accuracy, ex[0][1].accuracy);
    return ATT_OK;
}

/* Step 1 (the trajectories) into *traj: the widths of step 2's grid g at steps 0, seeds
 * draws each, every draw kept (sweep_result_free, also after a failure). */
static int train_table(experiment *e, const ctx *c, const sweep_grid *g, sweep_result *traj)
{
    static const double untrained = 0.0;
    sweep_grid g0 = *g;
    sweep_axis_x(&g0, "steps", 1, &untrained);
    sweep_def def = {.draw = train_all, .nstats = c->n1, .ctx = c, .draws = seeds, .csv = "",
                     .keep_draws = 1, .work_alloc = work_alloc, .work_free = work_free};
    return sweep_run(e, &g0, &def, traj);
}

static int run(experiment *e)
{
    size_t T = e->o.T ? e->o.T : 8, H = e->o.draws;
    if (T < 2 || T > 4096)
        return usage_error("--T %zu: needs 2 <= T <= 4096 (a previous token; a T x T map per head)",
                         T);
    if (n_vocab < 2) return usage_error("--vocab %zu: needs >= 2 tokens", n_vocab);
    if (seeds < 2) return usage_error("--seeds %zu: a t-interval over seeds needs >= 2", seeds);
    if (steps < 16)
        return usage_error("--steps %zu: needs >= 16 (checkpoints at S/16 .. S)", steps);
    if (budgets < 1 || budgets > NCP)
        return usage_error("--budgets %zu: needs 1 .. %d", budgets, NCP);
    // predictions per head: H (T - 1); the widths: --dk's list, else WIDTHS
    ctx c = {.base = training_config_default(n_vocab, T, 1, 0), .rng_name = e->o.rng_name,
             .predictions = 0, .ncp = budgets, .n1 = budgets * NSTAT};
    size_t ndk = e->o.dk_list.n ? e->o.dk_list.n : sizeof WIDTHS / sizeof WIDTHS[0];
    // sizes that cannot overflow (opts.h): Z, P (T x vocab), the map (T x map-dk), a batch of
    // tokens (batch x T), the per-draw tables (seeds per point: the sweep's, the trajectories'),
    // H (T - 1) held-out predictions
    size_t npt = ndk * budgets, nd = 0, nd1 = 0;
    int over = __builtin_mul_overflow(npt, seeds, &nd);
    int over1 = __builtin_mul_overflow(ndk, seeds, &nd1);   /* step 1: (d_k, 0) */
    if (opts_need(&e->o, NULL, sizeof(double), "T*vocab", T, n_vocab) ||
        opts_need(&e->o, NULL, sizeof(double), "T*map-dk", T, map_dk) ||
        opts_need(&e->o, NULL, sizeof(size_t), "batch*T", batch, T) ||
        opts_need_for(&e->o, "--seeds", seeds, "the per-draw table", nd, over, NSTAT * 8) ||
        opts_need_for(&e->o, "--seeds", seeds, "the trajectories' table", nd1, over1, c.n1 * 8))
        return ATT_EUSAGE;
    if (__builtin_mul_overflow(H, T - 1, &c.predictions))
        return usage_error("--draws %zu, --T %zu: H (T - 1) predictions overflow a count", H, T);
    c.base.steps = steps, c.base.batch = batch, c.base.heldout = H;
    // the checkpoints: the last `budgets` of S/16, S/8, S/4, S/2, S
    for (size_t k = 0; k < budgets; k++) c.cp[k] = (double)(steps >> (budgets - 1 - k));
    sweep_grid g;
    sweep_grid_init(&g);
    sweep_axis(&g, AX_DK, sizeof WIDTHS / sizeof WIDTHS[0], WIDTHS);
    sweep_axis_x(&g, "steps", budgets, c.cp);
    sweep_def def = SWEEP_DEF(draw);
    def.ctx = &c, def.draws = seeds;
    def.nderived = NDERIVED, def.derived = derived, def.derive = derive;
    def.draws_csv = "learned_previous_token_draws.csv";
    // Every thread: the products with the one-hot X are sums of rows (training.c, the same bits
    // as mat.h's fixed-order kernel), the other tiny (8 x d_k) products that kernel, not
    // OpenBLAS (whose buffer lock made 2 threads cost twice the CPU of 1); the same bytes for
    // any thread count (mc.h) and any OpenBLAS kernel (tests/test_learned_previous_token.sh).
    sweep_result r = {0}, traj = {0};
    int st = ATT_OK;
    // the figure's maps: draw 0 at (map_dk, 0), separate and tied; then every trajectory
    // (step 1, which takes that pair from the map run), then the sweep (step 2: the CSVs)
    if ((st = map_run(e, &c, T))) goto done;
    if ((st = train_table(e, &c, &g, &traj))) goto done;
    c.traj = &traj;
    if ((st = sweep_run(e, &g, &def, &r))) goto done;
    sweep_result_free(&traj);   /* (done frees it on a failure; a freed result is zeroed) */
    experiment_meta(e, "n_vocab: %zu\nT: %zu\nd: %zu\nsteps: %zu\nbatch: %zu\nlr: %g\nseeds: %zu\n"
             "heldout: %zu\nmap_dk: %zu", n_vocab, T, n_vocab + T, steps, batch, c.base.adam.lr,
             seeds, H, map_dk);

    // verdicts at the full budget S: the accumulators of the point (d_k, S)
#define AT(width) sweep_find(&r, &(sweep_point){.dk = (width), .x = (double)steps})
#define ACC(p, t) seed_ci(sweep_acc(&r, p, (t) * C_TIED + S_ACC), c.predictions, 1)
#define WGT(p, t) seed_ci(sweep_acc(&r, p, (t) * C_TIED + S_W), c.predictions, 0)
    size_t n = r.npoints, ps = AT(W_SMALL), pw = AT(W_SIDE), pf = AT(n_vocab + T), p1 = AT(1);
    if (ps < n) {   // d_k = 2: room for a position code or a token code, not both side by side
        verdict_claim(e, "lptSepAcc", 1.0, ACC(ps, 0), verdict_rule_ci_above(0.95),
                  "separate W_K, W_V at d_k = d_v = %d: held-out accuracy after %zu steps", W_SMALL,
                  steps);
        experiment_headline(e);
        verdict_claim(e, "lptSepWeight", 1.0, WGT(ps, 0), verdict_rule_ci_above(0.9),
                  "separate at d_k = %d: mean attention weight on t-1", W_SMALL);
        verdict_claim(e, "lptTiedAcc", NAN, ACC(ps, 1), verdict_rule_ci_below(0.9),
                  "tied W_V = W_K at d_k = %d, same budget (%zu Adam steps, over %zu seeds): "
                  "held-out accuracy; not learned in this budget, though an exact tied head exists "
                  "at this width (lptTiedExact)", W_SMALL, steps, seeds);
        verdict_reported(e, "lptTiedWeight", NAN, WGT(ps, 1),
                     "tied at d_k = %d: mean attention weight on t-1", W_SMALL);
        experiment_summary_measure(e, "separate W_K, W_V at d_k = 2: held-out accuracy", ACC(ps, 0),
                            "the section: keys find, values deliver");
        experiment_summary_measure(e, "tied W_V = W_K at d_k = 2, same budget", ACC(ps, 1),
                            "not learned; an exact tied head exists");
    }
    for (int t = 0; t <= 1 && ps == n; t++)   // a run without d_k = 2 (--dk W): what it measured
        verdict_reported(e, "", NAN, ACC(AT(r.pt[0].dk), t), "%s at d_k = %zu: held-out accuracy",
                     t ? "tied" : "separate", r.pt[0].dk);
    if (pw < n)
        verdict_claim(e, "lptTiedSide", NAN, ACC(pw, 1), verdict_rule_ci_above(0.95),
                  "learnability: tied at d_k = %d reaches the task within %zu Adam steps (over %zu "
                  "seeds; a budget result: exact tied heads exist from d_k = 2, lptTiedExact)",
                  W_SIDE, steps, seeds);
    if (pf < n)
        verdict_control(e, "lptTiedFull", NAN, ACC(pf, 1), verdict_rule_ci_above(0.95),
                    "positive control: tied at d_k = d = %zu (all of x_j fits) learns it",
                    n_vocab + T);
    if (p1 < n) {   // d_v = 1: z_v = o w_v, so argmax_v is the largest or the smallest w_v
        double most = fmax(sweep_acc(&r, p1, S_DIST)->max, sweep_acc(&r, p1, S_T_DIST)->max);
        verdict_identity(
            e, "", 2.0, verdict_measure_exact(most, 2 * seeds), verdict_rule_at_most(2.0),
            "d_k = d_v = 1: distinct tokens the head ever outputs (a scalar value names "
            "at most 2)");
        verdict_reported(e, "lptOneDimAcc", 2.0 / (double)n_vocab, ACC(p1, 0),
                     "separate at d_k = 1: accuracy (expected <= 2/n_vocab)");
    }
    for (size_t p = 0; p < n; p++)
        if (r.pt[p].x == (double)steps && ACC(p, 1).ci_low >= 0.95) {
            verdict_reported(e, "lptTiedFirstWidth", NAN,
                         verdict_measure_exact((double)r.pt[p].dk, seeds),
                         "smallest width at which tied training reaches accuracy CI above 0.95 "
                         "within %zu Adam steps (over %zu seeds; what the width allows is 2: "
                         "lptTiedExact)", steps, seeds);
            break;
        }
    sweep_result_free(&r);
    // the control: exact tied heads exist at d_k = 2 and 3 (lib/claims/training.h)
    if (!no_exact && (st = exact_check(e, T))) goto done;
done:
    sweep_result_free(&r);
    sweep_result_free(&traj);
    return st;
}

/* how make verify compares the statistics (sweep.h) */
SWEEP_VERIFY_ALL(stat_names, SW_TRAIN)   /* every statistic: a trained model's result */

int main(int argc, char **argv)
{
    static const opt_spec extra[] = {
        {"seeds", OPT_SIZE, &seeds, "N",
         "trained head pairs per width, each evaluated at every budget (default 10; >= 2)"},
        {"steps", OPT_SIZE, &steps, "S",
         "Adam steps per head (default 1600; checkpoints S/16 .. S)"},
        {"batch", OPT_SIZE, &batch, "B", "sequences per Adam step (default 8)"},
        {"vocab", OPT_SIZE, &n_vocab, "N", "vocabulary size (default 8)"},
        {"map-dk", OPT_SIZE, &map_dk, "W", "width of the attention-map figure (default 2)"},
        {"budgets", OPT_SIZE, &budgets, "N", "evaluate at the last N budgets of S/16, S/8, S/4, "
         "S/2, S (default 5; 1: S alone, the one the verdicts read)"},
        {"no-exact", OPT_FLAG, &no_exact, NULL,
         "skip the control of the exact tied heads at d_k = 2, 3 (lptTiedExact*); the same draws"},
        {"draws", OPT_SIZE, NULL, NULL, "200 held-out sequences per trained head"},
        {NULL, 0, NULL, NULL, NULL}};
    static const experiment_def def = {"learned_previous_token",
        "a previous-token head learned by Adam: separate vs tied keys and values (W_V = W_K); "
        "--draws N = held-out sequences per trained head",
        OPT_MC | OPT_T | OPT_DK, 20261201UL, 200, extra, run};
    return experiment_main(&def, argc, argv);
}
