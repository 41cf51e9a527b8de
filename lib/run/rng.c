/* rng.c - GSL generators by name, and per-stream seeds. */
#include "rng.h"
#include "status.h"

#include <math.h>
#include <string.h>

const gsl_rng_type *rng_type_find(const char *name)
{
    const gsl_rng_type **t = gsl_rng_types_setup();
    for (; *t != NULL; t++)
        if (strcmp((*t)->name, name) == 0) return *t;
    att_fail(ATT_EUSAGE,
             "unknown generator '%s' for --rng: accepted are GSL's names, e.g. "
             "mt19937, ranlxd2, ranlux389, taus2, gfsr4, cmrg, mrg", name);
    return NULL;
}

gsl_rng *rng_new(const char *name, unsigned long seed)
{
    const gsl_rng_type *T = rng_type_find(name);
    if (T == NULL) return NULL;
    gsl_rng *r = gsl_rng_alloc(T);
    if (r == NULL) {
        att_fail(ATT_ERUNTIME, "out of memory allocating generator %s", name);
        return NULL;
    }
    gsl_rng_set(r, seed);
    return r;
}

/* splitmix64 finaliser (Steele, Lea & Flood 2014) */
static uint64_t mix64(uint64_t z)
{
    z += 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* seed(s, a, b) = mix(mix(mix(s) ^ a) ^ b), folded to 32 bits so that every
 * GSL generator (some use only the low 32 bits of the seed) sees all of it.
 * Zero is avoided: some generators map seed 0 to their default seed. */
unsigned long rng_stream_seed(uint64_t seed, uint64_t a, uint64_t b)
{
    uint64_t z = mix64(mix64(mix64(seed) ^ a) ^ b);
    unsigned long s = (unsigned long)((z >> 32) ^ (z & 0xffffffffULL));
    return s ? s : 1UL;
}

size_t rng_uniform_size(gsl_rng *rng, size_t lo, size_t hi)
{
    return lo + (size_t)gsl_rng_uniform_int(rng, (unsigned long)(hi - lo + 1));
}

/* 10^(lo + (hi - lo) u) */
double rng_log_uniform(gsl_rng *rng, double lo, double hi)
{
    return pow(10.0, lo + (hi - lo) * gsl_rng_uniform(rng));
}
