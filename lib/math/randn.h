/* randn.h - Gaussian variates in bulk, the same doubles as GSL's ziggurat.
 *
 * randn_fill(rng, out, n, sigma) writes out[0 .. n) with exactly the values
 * n successive calls of gsl_ran_gaussian_ziggurat(rng, sigma) return, and
 * leaves rng in exactly the state those calls leave it in, so every later
 * draw is unchanged. Only faster:
 *  - mt19937 (and mt19937_1998/_1999, which share its state and output):
 *    the 32-bit words are generated and tempered in place, and the
 *    ziggurat's fast path (j < k_i, about 99% of the variates) is inlined;
 *  - taus, taus2 (L'Ecuyer's three-component Tausworthe): the same;
 *  - cmrg (L'Ecuyer's combined multiple recursive generator, 31-bit words,
 *    two per variate as GSL takes them): the same;
 *  - any other generator: the GSL calls themselves.
 * A variate that leaves the fast path (the wedges and the i = 127 tail) is
 * handed back to GSL: the generator is stepped back by the word(s) just read
 * and gsl_ran_gaussian_ziggurat draws it, with all its branches.
 *
 * The ziggurat's tables k_i, w_i (i = 0 .. 127) are not copied from GSL's
 * source: they are read from the linked GSL itself, once, by running its
 * ziggurat on a scripted generator (randn.c), so they are GSL's own doubles
 * whatever its version.
 */
#ifndef ATT_RANDN_H
#define ATT_RANDN_H

#include <stddef.h>
#include <gsl/gsl_rng.h>

/* out (n): gsl_ran_gaussian_ziggurat(rng, sigma), n times, in order. */
void randn_fill(gsl_rng *rng, double *out, size_t n, double sigma);

/* 1 when randn_fill has a bulk path for rng's generator, 0 when it falls back. */
int randn_has_fast_path(const gsl_rng *rng);

#endif
