/* lsconfig.h - long_sequences' configurations: the four (d, d_k, c) it runs, which of them
 * a run takes (--config, --long, --d, --dk), their draws and random streams, one
 * configuration's Monte Carlo with its per-draw values kept, and the table of its curve
 * T E[a_ii] against T (long_sequences.csv).
 *
 * The four configurations: section (d = 64, d_k = 16, c = 1), soft (64, 16, c^2 = 1/2: the
 * default run's headline), narrow (64, 4, c = 1), wide (256, 16, c^2 = 1/2).
 *
 * The long run's draws (--long): the delta-method 95% half-width h of ln T* falls as 1/sqrt(n),
 * so n = n0 (h0 / ln 1.1)^2 draws reach +-10%, with a margin for h0's own error:
 *   narrow:  pilot n0 = 100,000, h0 = 0.169 -> 316,000 x 1.3 = 411,000 (121 us of CPU per draw);
 *   section: a run of n0 = 6M gave h0 = 0.150 -> 15M x 1.15 = 17M (96 us per draw: about 27 min
 *            of CPU, 4.3 GB of per-draw values: make reproduce-long passes --max-memory 8G).
 * The pilots and the measured half-widths are in doc/long_run.md.
 */
#ifndef ATT_LSCONFIG_H
#define ATT_LSCONFIG_H

#include <stddef.h>
#include <stdint.h>
#include "exp.h"
#include "table.h"

enum { LONG_DRAWS_SECTION = 17000000, LONG_DRAWS_NARROW = 411000, LSCONFIG_N = 4 };

/* mult: draws = mult x --draws (the soft crossing: 4 x 20,000 give a 95% CI of x1.085, within +-10%).
 * long_draws: the draws of --long (0: not in the long run). macro: the verdict macros' suffix. */
typedef struct { const char *name; size_t d, d_k; double c; const char *macro; size_t mult, long_draws; } lsconfig;
extern const lsconfig LSCONFIGS[LSCONFIG_N];   /* section, soft, narrow, wide */

/* The options --config NAMES and --long (the experiment's extra options for exp_main);
 * lsconfig_long: --long was given. */
extern const opt_spec lsconfig_options[4];
int lsconfig_long(void);

/* *want bit i: LSCONFIGS[i] is run: named by --config (comma-separated; default all, or the
 * long ones with --long) and matching d, dk (0: any). ATT_OK, or exp_usage's status with a
 * message naming the unknown name, a name not in the long run, that nothing matches, or
 * draws < 16 (the control-variate regression needs at least 16). */
int lsconfig_select(size_t draws, size_t d, size_t dk, unsigned *want);

/* base, then cf->macro, then "Long" in the long run, in buf (n bytes); returns buf */
const char *lsconfig_macro(char *buf, size_t n, const char *base, const lsconfig *cf);

/* One configuration's (the config-th run's) Monte Carlo: n draws of nstat values each, kept in val (n, nstat),
 * and their statistics acc (nstat); n = mult x --draws, or in the long run --draws when
 * given, else long_draws. The stream is a function of (d, d_k, c). Progress on stderr
 * (one line) unless --quiet; a meta line config<config>. lsconfig_mc_free frees val and acc (also after a failure). */
typedef struct { size_t n, nstat; double *val; stat_acc *acc; } lsconfig_mc;
int lsconfig_mc_run(experiment *e, size_t config, const lsconfig *cf, size_t nstat, mc_draw_fn draw,
                    mc_alloc_fn alloc, mc_free_fn free_fn, void *ctx, lsconfig_mc *r);
void lsconfig_mc_free(lsconfig_mc *r);

/* long_sequences.csv: a row per (configuration, T): the curve's fit T_self with its CI
 * (yh, V: the control-variate regression) and the plain mean of the same draws. */
typedef struct { size_t config, d, d_k, T, draws; double scale, T_self, T_self_lo, T_self_hi, plain, plain_lo, plain_hi; } lsconfig_row;
extern const table_col lsconfig_cols[12];
/* rows[t] for T = Ts[t], t < nt (Shapes: Ts, yh (nt), V (nt, nt), acc (>= nt)); l[t] = ln Ts[t] */
void lsconfig_rows(size_t config, const lsconfig *cf, size_t n, size_t nt, const double *Ts, const double *yh,
                   const double *V, const stat_acc *acc, lsconfig_row *rows, double *l);

#endif
