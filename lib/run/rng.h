/* rng.h - GSL generators chosen by name, seeded explicitly.
 *
 * The environment variables GSL_RNG_TYPE / GSL_RNG_SEED are never read:
 * the generator is always --rng NAME and the seed always --seed N.
 */
#ifndef ATT_RNG_H
#define ATT_RNG_H

#include <stddef.h>
#include <stdint.h>
#include <gsl/gsl_rng.h>

/* The gsl_rng_type called name ("mt19937", "ranlxd2", ...), or NULL with an
 * error naming the accepted generators. */
const gsl_rng_type *rng_type_find(const char *name);

/* New generator of the named type seeded with seed; NULL + error on failure. */
gsl_rng *rng_new(const char *name, unsigned long seed);

/* A well-mixed seed for stream (seed, a, b): splitmix64 of the three words.
 * Used to give every Monte Carlo block its own independent generator. */
unsigned long rng_stream_seed(uint64_t seed, uint64_t a, uint64_t b);

/* A size drawn uniformly from [lo, hi]. */
size_t rng_uniform_size(gsl_rng *rng, size_t lo, size_t hi);

/* 10^(lo + (hi - lo) u), u ~ U(0, 1): log-uniform on [10^lo, 10^hi]. */
double rng_log_uniform(gsl_rng *rng, double lo, double hi);

#endif
