/* previous_token_head - "A worked example you can check by hand"
 *
 * Claim: weights can be written so that every position attends to the one
 * before it and receives its token (Exercise 4.2b). On inputs x_t = [one-hot
 * token ; one-hot position] (d = n_vocab + T) the key reads the position part
 * of x_j (to be found), the value the token part (what is delivered):
 * k_j = e_j, v_j = e_{token_j}, q_t = c e_{t-1} (t >= 1), q_0 = 0
 * (lib/claims/prevtoken.h). Row t scores c on t - 1 and 0 on the other T - 1
 * keys, so a(t, t-1) = e^c / (e^c + T - 1) exactly: the 0.999 on the
 * previous token is the CONSTANT the construction chose, c = ln(999 (T-1))
 * (--factor C fixes c instead), checked as an identity, never cited.
 * Position 0 has a zero query: weight 1/T everywhere, output = histogram / T.
 *
 * Measured by the library's head (head_forward) on --draws random token
 * sequences (tokens uniform) for T in {2, 5, 20, 64} x n_vocab in {2, 10,
 * 100, 500}: the fraction of sequences in which argmax(o_t) is token t - 1 at
 * every t >= 1 (the headline, Wilson 95% CI), the smallest a(t, t-1) against
 * the closed form, and position 0 against 1/T and counts/T.
 * Writes (sweep.h): previous_token_head.csv (per (T, n_vocab): every
 * statistic's mean, CI, min, max, n; then d, factor, weight_closed),
 * previous_token_head_A.csv (one example's weights, n_vocab = 8, T = 12:
 * i,j,token_i,token_j,weight), previous_token_head_tokens.csv (its tokens and
 * outputs).
 */
#include "prelude.h"
#include "prevtoken.h"

static const size_t LENGTHS[] = {2, 5, 20, 64};
static const double VOCABS[] = {2, 10, 100, 500};
enum { EX_VOCAB = 8, EX_T = 12 };                 /* the figure's example sequence */
static prevtoken_ctx weights = {0.999, NAN};      /* weight 0.999 on t - 1; --factor C */

#define STATS(X) X(S_MINW, "min_weight", SW_COMPUTED) X(S_ALLOK, "all_argmax_ok", SW_MC) \
    X(S_POS0A, "pos0_weight_err", SW_ROUND(NULL)) X(S_POS0O, "pos0_output_err", SW_ROUND(NULL))
SWEEP_STATS(STATS);

/* one random sequence through the hand-built head of point pt (T, n_vocab = V) */
static int draw(gsl_rng *rng, double *out, const sweep_point *pt, void *wp, const void *ctx)
{
    (void)ctx;
    prevtoken_work *w = wp;
    workset *s = w->p[pt->index];
    size_t T = pt->T, V = (size_t)pt->x;
    for (size_t t = 0; t < T; t++) w->tokens[t] = gsl_rng_uniform_int(rng, V);
    head_params p = head_params_make(s->m[PT_WQ], s->m[PT_WK], s->m[PT_WV]);
    // x_t = [e_{token_t} ; e_t]; A = softmax(X W_Q (X W_K)^T) (T, T), O = A X W_V (T, V)
    int rc = prevtoken_circuit_inputs(s->m[PT_X], w->tokens, V, T);
    if (!rc) rc = head_forward(&s->h[0], &p, s->m[PT_X], s->m[PT_X]);
    if (rc) return rc;
    const gsl_matrix *A = s->h[0].A, *O = s->h[0].O;
    // t >= 1: the weight a(t, t-1), and argmax o_t == token_{t-1}
    out[S_MINW] = INFINITY;
    out[S_ALLOK] = 1;
    for (size_t t = 1; t < T; t++) {
        out[S_MINW] = fmin(out[S_MINW], gsl_matrix_get(A, t, t - 1));
        out[S_ALLOK] = out[S_ALLOK] && prevtoken_row_argmax(O, t) == w->tokens[t - 1];
    }
    // t = 0: zero query, so a(0, j) = 1/T and o_0 = (token counts) / T
    out[S_POS0A] = out[S_POS0O] = 0.0;
    for (size_t j = 0; j < T; j++)
        out[S_POS0A] = fmax(out[S_POS0A], fabs(gsl_matrix_get(A, 0, j) - 1.0 / (double)T));
    for (size_t v = 0; v < V; v++) w->count[v] = 0;
    for (size_t t = 0; t < T; t++) w->count[w->tokens[t]]++;
    for (size_t v = 0; v < V; v++)
        out[S_POS0O] = fmax(out[S_POS0O],
                            fabs(gsl_matrix_get(O, 0, v) - (double)w->count[v] / (double)T));
    return ATT_OK;
}

/* beside every point: d = n_vocab + T, c, and
 * a(t, t-1) = e^c / (e^c + T - 1) = 1 / (1 + (T - 1) e^{-c}) */
static const table_col derived[] = {
    SWEEP_DERIVED(0, "d", NAT_EXACT, NULL, NULL, NULL),
    SWEEP_DERIVED(1, "factor", NAT_COMPUTED, NULL, NULL, NULL),
    SWEEP_DERIVED(2, "weight_closed", NAT_COMPUTED, NULL, NULL, NULL)};
static double weight_closed(size_t T)
{
    return 1.0 / (1.0 + (double)(T - 1) * exp(-prevtoken_factor(&weights, T)));
}
static void derive(double *col, const sweep_point *pt, const stat_acc *a, const void *ctx)
{
    (void)a;
    (void)ctx;
    col[0] = pt->x + (double)pt->T;
    col[1] = prevtoken_factor(&weights, pt->T);
    col[2] = weight_closed(pt->T);
}

/* the figure's sequence: n_vocab 8, T 12, draw 0 of that point's stream */
static int write_example(experiment *e, const sweep_def *def)
{
    sweep_grid g;
    const double V = EX_VOCAB;
    sweep_grid_head(&g, EX_T, 0, 0, 0);
    sweep_axis_x(&g, "n_vocab", 1, &V);
    example x;
    double out[NSTAT];
    int rc = example_draw(&x, e, &g, def, out);
    const prevtoken_work *w = x.work;
    if (!rc)
        rc = prevtoken_write_example(e->o.out_dir, "previous_token_head", w->p[0]->h[0].A,
                                     w->p[0]->h[0].O, w->tokens, EX_T);
    example_end(&x);
    return rc;
}

static int run(experiment *e)
{
    sweep_grid g;
    sweep_grid_init(&g);
    sweep_axis(&g, AX_T, sizeof LENGTHS / sizeof LENGTHS[0], LENGTHS);
    sweep_axis_x(&g, "n_vocab", sizeof VOCABS / sizeof VOCABS[0], VOCABS);
    sweep_def def = SWEEP_DEF(draw);
    def.work_alloc = prevtoken_work_alloc;
    def.work_free = prevtoken_work_free;
    def.ctx = &weights;
    def.nderived = 3;
    def.derived = derived;
    def.derive = derive;
    sweep_result r;
    int st = write_example(e, &def);
    if (!st) st = sweep_run(e, &g, &def, &r);
    if (st) return st;
    exp_meta(e, "example_n_vocab: %d\nexample_T: %d\nweight_target: %g", EX_VOCAB, EX_T,
             weights.target);

    // pooled over the points: sequences all right, the smallest weight, position 0's errors
    double ok = 0.0, n = 0.0, minw = INFINITY, wc_err = 0.0, pos0 = 0.0, lo, hi;
    size_t T_max = 0;
    for (size_t p = 0; p < r.npoints; p++) {
        const stat_acc *a = sweep_acc(&r, p, 0);
        ok += round(a[S_ALLOK].mean * (double)a[S_ALLOK].n);
        n += (double)a[S_ALLOK].n;
        minw = fmin(minw, a[S_MINW].min);
        wc_err = fmax(wc_err, fabs(a[S_MINW].min - weight_closed(r.pt[p].T)));
        pos0 = fmax(pos0, fmax(a[S_POS0A].max, a[S_POS0O].max));
        T_max = r.pt[p].T > T_max ? r.pt[p].T : T_max;
    }
    sweep_result_free(&r);
    stat_ci95_wilson(ok, n, &lo, &hi);
    measure frac = verdict_measure_ci(ok / n, lo, hi, (size_t)n);

    exp_claim(e, "prevTokenArgmax", 1.0, frac, verdict_rule_ci_above(0.999), "fraction of %.0f "
              "random sequences (n_vocab 2..500, T 2..64) in which argmax(o_t) = token(t-1) at "
              "every t >= 1 (Wilson 95%% CI)", n);
    exp_headline(e);
    exp_reported(e, "prevTokenWeightConstant", NAN, verdict_measure_exact(weights.target, 1),
                 "weight on t-1 the construction is built for (c = ln(999 (T-1))): "
                 "a constant of the construction, not a measurement");
    exp_identity(e, "prevTokenMinWeightErr", 0.0, verdict_measure_exact(wc_err, (size_t)n),
                 verdict_rule_at_most(tol_eps(8, T_max, 1.0)), "max over (n_vocab, T) of |smallest "
                 "a(t, t-1) - e^c / (e^c + T - 1)| (smallest weight %.6f)", minw);
    exp_identity(e, "prevTokenFirstUniform", 0.0, verdict_measure_exact(pos0, (size_t)n),
                 verdict_rule_at_most(tol_eps(8, T_max, 1.0)),
                 "position 0 (no previous token): max |a(0,j) - 1/T| and |o(0) - counts/T|");
    exp_summary_measure(e, "fraction of sequences whose every o_t names token t-1", frac,
                        "the exercise: all of them");
    exp_summary(e, "smallest weight on t-1: %.6f (built for %g); position 0 attends uniformly",
                minw, weights.target);
    return ATT_OK;
}

int main(int argc, char **argv)
{
    static const opt_spec extra[] = {
        {"factor", OPT_DOUBLE, &weights.factor, "C",
         "query factor for every T (default ln(999 (T-1)): weight 0.999 on t-1)"},
        {NULL, 0, NULL, NULL, NULL}};
    static const experiment_def def = {"previous_token_head", NULL, OPT_MC, 42, 1000, extra, run};
    return exp_main(&def, argc, argv);
}
