/* previous_token_head - exercise 4.2b: a head that attends to the previous
 * position and delivers that position's token.
 *
 * Claim (previous_token_head): on inputs x_t = [one-hot token ; one-hot
 * position] (d = n_vocab + T) the three weights can be written so that every
 * position attends to the one before it and receives that token's identity.
 * Keys and values must differ: the key reads the position part of x_j (to be
 * found), the value reads the token part (what is delivered).
 *
 * The construction (lib/circuits.h): k_j = e_j, v_j = e_{token_j},
 * q_t = c e_{t-1} for t >= 1. Position t then scores c against t - 1 and 0
 * against the other T - 1 positions (no mask), so its weight on t - 1 is
 * e^c / (e^c + T - 1); by default c = ln(999 (T - 1)), which makes it 0.999
 * (--factor C fixes c instead). Position 0 has no previous token: its query
 * is zero, so it spreads its weight uniformly (1/T on every position) and
 * receives the sequence's token histogram divided by T, like "the" in the
 * worked example.
 *
 * Measured, by the library's head (head_forward) on --draws random token
 * sequences (tokens uniform in 0 .. n_vocab-1) for each n_vocab in
 * {2, 10, 100, 500} and T in {2, 5, 20, 64}:
 *   - the smallest weight a_{t,t-1}, t >= 1, over all sequences;
 *   - the fraction of sequences in which argmax(o_t) is token t-1 for every
 *     t >= 1 (must be all of them);
 *   - position 0: max_j |a_{0j} - 1/T| and max_v |o_{0v} - count_v / T|.
 * The weights do not depend on the tokens (the keys read positions only);
 * the outputs do, and so does the argmax check.
 *
 * Writes into --out:
 *   previous_token_head.csv          one row per (n_vocab, T): factor, the
 *                                    closed-form weight, min weight, argmax
 *                                    fraction, position-0 errors, draws
 *   previous_token_head_A.csv        one example (n_vocab = 8, T = 12):
 *                                    i,j,token_i,token_j,weight
 *   previous_token_head_tokens.csv   the example's tokens: t,token,label,
 *                                    prev_label,output_argmax,output_label,weight_prev
 *   previous_token_head.meta, previous_token_head.verdicts.csv
 */
#include "circuits.h"
#include "tol.h"
#include "head.h"
#include "mat.h"
#include "mc.h"
#include "opts.h"
#include "output.h"
#include "rng.h"
#include "stats.h"
#include "status.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define ID "previous_token_head"

static const size_t VOCABS[] = { 2, 10, 100, 500 };
static const size_t LENGTHS[] = { 2, 5, 20, 64 };
enum { NV = sizeof VOCABS / sizeof VOCABS[0], NT = sizeof LENGTHS / sizeof LENGTHS[0] };
static const double TARGET = 0.999;     /* default factor: weight 0.999 on t-1 */
static const double THRESHOLD = 0.99;   /* the catalogue's PASS rule            */
enum { EX_VOCAB = 8, EX_T = 12 };       /* the figure's example sequence        */

/* per-draw statistics */
enum { ST_MINW, ST_ALLOK, ST_POS0A, ST_POS0O, ST_POS0OK, NSTATS };

typedef struct {
    size_t n_vocab, T;
    head_params p;          /* weights built once, read by every draw */
} ctx_t;

typedef struct {
    gsl_matrix *X;
    head_state st;
    size_t *tokens, *count;
} scratch_t;

static void scratch_free(void *s)
{
    scratch_t *w = s;
    if (w == NULL) return;
    mat_free(w->X);
    head_state_free(&w->st);
    free(w->tokens);
    free(w->count);
    free(w);
}

static void *scratch_alloc(void *c)
{
    const ctx_t *cx = c;
    scratch_t *w = calloc(1, sizeof *w);
    if (w == NULL) return NULL;
    size_t d = cx->n_vocab + cx->T;
    w->X = mat_new(cx->T, d);
    w->tokens = calloc(cx->T, sizeof *w->tokens);
    w->count = calloc(cx->n_vocab, sizeof *w->count);
    if (!w->X || !w->tokens || !w->count
        || head_state_alloc(&w->st, cx->T, cx->T, d, cx->T, cx->n_vocab) != ATT_OK) {
        scratch_free(w);
        return NULL;
    }
    return w;
}

/* index of the largest entry of row i of M (first on ties) */
static size_t row_argmax(const gsl_matrix *M, size_t i)
{
    size_t best = 0;
    for (size_t j = 1; j < M->size2; j++)
        if (gsl_matrix_get(M, i, j) > gsl_matrix_get(M, i, best)) best = j;
    return best;
}

/* One random sequence through the head, checked position by position. */
static int one_sequence(const ctx_t *cx, scratch_t *w, gsl_rng *rng, double *out)
{
    size_t T = cx->T, V = cx->n_vocab;
    for (size_t t = 0; t < T; t++) w->tokens[t] = gsl_rng_uniform_int(rng, V);
    int rc = circuit_prev_token_inputs(w->X, w->tokens, V, T);
    if (!rc) rc = head_forward(&w->st, &cx->p, w->X, w->X);
    if (rc) return rc;
    const gsl_matrix *A = w->st.A, *O = w->st.O;

    // positions t >= 1: the weight on t-1 and argmax(o_t) == token_{t-1}
    double minw = INFINITY;
    int allok = 1;
    for (size_t t = 1; t < T; t++) {
        minw = fmin(minw, gsl_matrix_get(A, t, t - 1));
        allok &= row_argmax(O, t) == w->tokens[t - 1];
    }
    // position 0: zero query -> a_0j = 1/T, o_0 = (token counts) / T
    double e_a = 0.0, e_o = 0.0;
    for (size_t j = 0; j < T; j++) e_a = fmax(e_a, fabs(gsl_matrix_get(A, 0, j) - 1.0 / (double)T));
    for (size_t v = 0; v < V; v++) w->count[v] = 0;
    for (size_t t = 0; t < T; t++) w->count[w->tokens[t]]++;
    for (size_t v = 0; v < V; v++)
        e_o = fmax(e_o, fabs(gsl_matrix_get(O, 0, v) - (double)w->count[v] / (double)T));
    out[ST_MINW] = minw;
    out[ST_ALLOK] = allok;
    out[ST_POS0A] = e_a;
    out[ST_POS0O] = e_o;
    // a sum of T terms of size <= 1: tolerance 8 T eps
    out[ST_POS0OK] = e_a <= tol_eps(8, T, 1.0) && e_o <= tol_eps(8, T, 1.0);
    return ATT_OK;
}

static int draw(void *c, void *s, gsl_rng *rng, size_t i, double *out)
{
    (void)i;
    return one_sequence(c, s, rng, out);
}

/* Weights for (n_vocab, T) with factor c into freshly allocated matrices. */
static int build_head(ctx_t *cx, gsl_matrix **W, size_t n_vocab, size_t T, double c)
{
    size_t d = n_vocab + T;
    W[0] = mat_new(d, T); W[1] = mat_new(d, T); W[2] = mat_new(d, n_vocab);
    if (!W[0] || !W[1] || !W[2]) return ATT_ERUNTIME;
    int rc = circuit_prev_token_build(W[0], W[1], W[2], n_vocab, T, c);
    cx->n_vocab = n_vocab;
    cx->T = T;
    cx->p = head_params_make(W[0], W[1], W[2]);
    return rc;
}

static void free_head(gsl_matrix **W)
{
    for (int k = 0; k < 3; k++) { mat_free(W[k]); W[k] = NULL; }
}

static double factor_for(size_t T, double fixed)
{
    return isnan(fixed) ? circuit_prev_token_factor(T, TARGET) : fixed;
}

/* The figure's example: one sequence (n_vocab = 8, T = 12), its own stream. */
static int write_example(const opts *o, double fixed)
{
    ctx_t cx;
    gsl_matrix *W[3] = { NULL, NULL, NULL };
    scratch_t *w = NULL;
    gsl_rng *rng = rng_new(o->rng_name, rng_stream_seed(o->seed, NV * NT, 0));
    int rc = rng ? build_head(&cx, W, EX_VOCAB, EX_T, factor_for(EX_T, fixed)) : ATT_ERUNTIME;
    if (!rc && (w = scratch_alloc(&cx)) == NULL) rc = att_fail(ATT_ERUNTIME, "out of memory");
    double out[NSTATS];
    if (!rc) rc = one_sequence(&cx, w, rng, out);
    afile af;
    if (!rc && !(rc = afile_open(&af, o->out_dir, ID "_A.csv"))) {
        fprintf(af.f, "i,j,token_i,token_j,weight\n");
        for (size_t i = 0; i < EX_T; i++)
            for (size_t j = 0; j < EX_T; j++) {
                fprintf(af.f, "%zu,%zu,%c,%c,", i, j, (char)('A' + w->tokens[i]),
                        (char)('A' + w->tokens[j]));
                csv_num(af.f, gsl_matrix_get(w->st.A, i, j));
                fputc('\n', af.f);
            }
        rc = afile_commit(&af);
    }
    if (!rc && !(rc = afile_open(&af, o->out_dir, ID "_tokens.csv"))) {
        fprintf(af.f, "t,token,label,prev_label,output_argmax,output_label,weight_prev\n");
        for (size_t t = 0; t < EX_T; t++) {
            size_t am = row_argmax(w->st.O, t);
            fprintf(af.f, "%zu,%zu,%c,%c,%zu,%c,", t, w->tokens[t], (char)('A' + w->tokens[t]),
                    t ? (char)('A' + w->tokens[t - 1]) : '-', am, t ? (char)('A' + am) : '-');
            csv_num(af.f, t ? gsl_matrix_get(w->st.A, t, t - 1) : NAN);
            fputc('\n', af.f);
        }
        rc = afile_commit(&af);
    }
    if (!rc && opts_verbose(o)) {
        printf("example (n_vocab = %d, T = %d): tokens ", EX_VOCAB, EX_T);
        for (size_t t = 0; t < EX_T; t++) putchar('A' + (int)w->tokens[t]);
        printf("\n  t: token, argmax of output, weight on t-1\n");
        for (size_t t = 0; t < EX_T; t++) {
            if (t == 0) printf("  0: %c  (no previous token: uniform 1/%d)\n", 'A' + (int)w->tokens[0], EX_T);
            else printf("  %zu: %c  gets %c  (previous %c), a = %.6f\n", t, 'A' + (int)w->tokens[t],
                        'A' + (int)row_argmax(w->st.O, t), 'A' + (int)w->tokens[t - 1],
                        gsl_matrix_get(w->st.A, t, t - 1));
        }
        putchar('\n');
    }
    scratch_free(w);
    free_head(W);
    if (rng) gsl_rng_free(rng);
    return rc;
}

static int run(const opts *o, double fixed)
{
    /* per thread at the largest n_vocab and T (d = V + T): X (T, d), the head
     * state (4 T x T, 2 T x V, 2 T x T), tokens and counts; the weights
     * (d, T) x 2 and (d, V); and the engine's blocks */
    double nv = (double)VOCABS[NV - 1], nt = (double)LENGTHS[NT - 1], dm = nv + nt;
    double scratch = nt * dm + 6 * nt * nt + 2 * nt * nv + nt + nv + 2 * dm * nt + dm * nv;
    int mrc = opts_check_memory(o, mc_run_bytes(mat_bytes_approx(scratch), o->draws, NSTATS),
                                "the head (per thread) and Monte Carlo blocks");
    if (mrc) return mrc;
    verdict_list vl;
    verdicts_init(&vl);
    stat_acc all[NSTATS];
    for (int k = 0; k < NSTATS; k++) stat_init(&all[k]);
    size_t T_max = LENGTHS[NT - 1];
    afile af;
    int rc = afile_open(&af, o->out_dir, ID ".csv");
    if (rc) return rc;
    fprintf(af.f, "n_vocab,T,d,factor,weight_closed,draws,min_weight,frac_all_argmax_ok,"
                  "pos0_max_weight_err,pos0_max_output_err\n");
    if (opts_verbose(o))
        printf("%8s %4s %6s %9s %10s %12s %10s %10s\n", "n_vocab", "T", "d", "factor",
               "closed", "min a(t,t-1)", "argmax ok", "pos-0 err");

    for (size_t iv = 0; iv < NV && !rc; iv++)
        for (size_t it = 0; it < NT && !rc; it++) {
            size_t V = VOCABS[iv], T = LENGTHS[it];
            double c = factor_for(T, fixed), wc = 1.0 / (1.0 + (double)(T - 1) * exp(-c));
            ctx_t cx;
            gsl_matrix *W[3] = { NULL, NULL, NULL };
            stat_acc acc[NSTATS];
            if (!(rc = build_head(&cx, W, V, T, c))) {
                mc_config cfg = { .rng_name = o->rng_name, .seed = o->seed, .stream = iv * NT + it,
                                  .draws = o->draws, .nstats = NSTATS, .draw = draw,
                                  .alloc = scratch_alloc, .free = scratch_free, .ctx = &cx,
                                  .label = ID, .quiet = o->quiet };
                rc = mc_run(&cfg, acc);
            }
            free_head(W);
            if (rc) break;
            for (int k = 0; k < NSTATS; k++) stat_merge(&all[k], &acc[k]);
            fprintf(af.f, "%zu,%zu,%zu,", V, T, V + T);
            const double row[] = { c, wc, (double)o->draws, acc[ST_MINW].min, acc[ST_ALLOK].mean,
                                   acc[ST_POS0A].max, acc[ST_POS0O].max };
            for (size_t m = 0; m < sizeof row / sizeof row[0]; m++) {
                if (m) fputc(',', af.f);
                csv_num(af.f, row[m]);
            }
            fputc('\n', af.f);
            if (opts_verbose(o))
                printf("%8zu %4zu %6zu %9.4f %10.6f %12.6f %10.4f %10.2g\n", V, T, V + T, c, wc,
                       acc[ST_MINW].min, acc[ST_ALLOK].mean,
                       fmax(acc[ST_POS0A].max, acc[ST_POS0O].max));
        }
    if (rc) { afile_abort(&af); return rc; }
    if ((rc = afile_commit(&af))) return rc;
    if (opts_verbose(o)) putchar('\n');
    if ((rc = write_example(o, fixed)) || (rc = output_meta(o, NULL))) return rc;

    size_t nseq = all[ST_MINW].n;
    double minw = all[ST_MINW].min, frac = all[ST_ALLOK].mean;
    double e0 = fmax(all[ST_POS0A].max, all[ST_POS0O].max), tol0 = tol_eps(8, T_max, 1.0);
    char q[200];
    snprintf(q, sizeof q, "smallest weight on the previous position a(t, t-1), t >= 1, over "
             "%zu sequences (n_vocab 2..500, T 2..64)", nseq);
    rc = verdict_exact(&vl, "prevTokenMinWeight", q, NAN, minw, NAN, minw >= THRESHOLD, ">= 0.99");
    if (!rc) {
        vl.v[vl.n - 1].m.draws = nseq;
        rc = verdict_exact(&vl, "prevTokenArgmax",
                           "fraction of sequences in which argmax(o_t) = token(t-1) for every t >= 1",
                           1.0, frac, NAN, frac == 1.0, "= 1: every sequence");
    }
    if (!rc) {
        vl.v[vl.n - 1].m.draws = nseq;
        rc = verdict_exact(&vl, "prevTokenFirstUniform",
                           "position 0 (no previous token): max |a(0,j) - 1/T| and |o(0) - counts/T|",
                           0.0, e0, tol0, all[ST_POS0OK].min == 1.0,
                           "<= 8 T eps per sequence: uniform weights, token histogram out");
    }
    if (!rc) {
        vl.v[vl.n - 1].m.draws = nseq;
        rc = legacy_verdicts_write(&vl, o);
    }
    if (!rc) rc = verdicts_status(&vl);
    verdicts_free(&vl);
    return rc;
}

int main(int argc, char **argv)
{
    att_init();
    double fixed = NAN;
    const opt_spec extra[] = {
        { "factor", OPT_DOUBLE, &fixed, "C",
          "query factor for every T (default: ln(999 (T-1)), weight 0.999 on t-1)" },
        { NULL, 0, NULL, NULL, NULL }
    };
    const opts_info info = { ID, "exercise 4.2b: the previous-token head on random sequences",
                             OPT_MC, 42, 1000, extra };
    opts o;
    int st = opts_parse(&o, &info, argc, argv);
    if (st) return opts_exit(&o, st);
    return opts_exit(&o, run(&o, fixed));
}
