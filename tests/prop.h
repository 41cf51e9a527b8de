/* prop.h - property tests: many random cases from one printed seed.
 *
 * Every case k of property P gets its own generator seeded with
 * rng_stream_seed(seed, hash(P), k), so a failing case can be replayed alone:
 *   ATT_TEST_SEED=<seed> ATT_TEST_CASE=<k> build/tests/test_x
 * ATT_TEST_CASES sets the number of cases (default PROP_DEFAULT_CASES).
 * PROP_ASSERT failures print the property, the seed, the case and the replay
 * command, then check's summary line counts the failure.
 */
#ifndef ATT_PROP_H
#define ATT_PROP_H

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <gsl/gsl_rng.h>
#include "opts.h"
#include "rng.h"
#include "status.h"

enum { PROP_DEFAULT_CASES = 200 };
#define PROP_DEFAULT_SEED 20261129UL

static inline unsigned long prop_env_ulong(const char *name, unsigned long dflt)
{
    const char *s = getenv(name);
    unsigned long v;
    if (s == NULL || *s == '\0') return dflt;
    if (opts_parse_ulong(s, &v, name) != 0) {
        fprintf(stderr, "prop: ignoring malformed %s=%s\n", name, s);
        return dflt;
    }
    return v;
}

static inline unsigned long prop_seed(void)
{
    return prop_env_ulong("ATT_TEST_SEED", PROP_DEFAULT_SEED);
}

static inline uint64_t prop_hash(const char *s)   /* FNV-1a */
{
    uint64_t h = 1469598103934665603ULL;
    while (*s) { h ^= (unsigned char)*s++; h *= 1099511628211ULL; }
    return h;
}

/* The replay context of the running case, printed by PROP_ASSERT. */
static char prop_ctx[256] __attribute__((unused));

/* for (k ...) over the cases of property `name`, with `rng` reseeded per case:
 *   PROP_FOR(k, rng, "softmax rows sum to 1") { ... PROP_ASSERT(...); }   */
#define PROP_FOR(k, rng, name)                                                  \
    for (size_t k##_n = prop_env_ulong("ATT_TEST_CASES", PROP_DEFAULT_CASES),   \
                k##_only = prop_env_ulong("ATT_TEST_CASE", (unsigned long)-1),  \
                k = (k##_only == (size_t)-1 ? 0 : k##_only);                    \
         k < (k##_only == (size_t)-1 ? k##_n : k##_only + 1)                    \
         && (gsl_rng_set(rng, rng_stream_seed(prop_seed(), prop_hash(name), k)),\
             snprintf(prop_ctx, sizeof prop_ctx,                                \
                      "[%s] seed %lu case %zu; replay: ATT_TEST_SEED=%lu "      \
                      "ATT_TEST_CASE=%zu", name, prop_seed(), (size_t)k,        \
                      prop_seed(), (size_t)k), 1);                              \
         k++)

#define PROP_ASSERT(cond, ...)                                                  \
    do {                                                                        \
        if (!(cond)) {                                                          \
            char prop_msg_[512];                                                \
            snprintf(prop_msg_, sizeof prop_msg_, __VA_ARGS__);                 \
            ck_abort_msg("%s: %s (%s)", prop_ctx, prop_msg_, #cond);            \
        }                                                                       \
    } while (0)

/* The draws of a Monte Carlo check: n at the default ATT_TEST_CASES (200); with fewer cases
 * (make valgrind runs 25) proportionally fewer, never below n/8: every code path still runs,
 * and a check at 5 standard errors is as strict at any n (it only loses power). */
static inline size_t prop_draws(size_t n)
{
    static unsigned long c;
    if (c == 0) {
        c = prop_env_ulong("ATT_TEST_CASES", PROP_DEFAULT_CASES);
        if (c > PROP_DEFAULT_CASES) c = PROP_DEFAULT_CASES;
        if (c < PROP_DEFAULT_CASES / 8) c = PROP_DEFAULT_CASES / 8;
    }
    return (n * c + PROP_DEFAULT_CASES - 1) / PROP_DEFAULT_CASES;
}

/* A uniformly drawn size in [lo, hi]. */
static inline size_t prop_size(gsl_rng *rng, size_t lo, size_t hi)
{
    return lo + (size_t)gsl_rng_uniform_int(rng, (unsigned long)(hi - lo + 1));
}

/* Print the seed once per suite so every log says how to replay it. */
static inline void prop_announce(const char *suite)
{
    printf("%s: property seed %lu, %lu cases per property "
           "(ATT_TEST_SEED, ATT_TEST_CASES, ATT_TEST_CASE replay)\n", suite,
           prop_seed(), prop_env_ulong("ATT_TEST_CASES", PROP_DEFAULT_CASES));
}

/* Run a suite; its exit status: 0 when every test passed, 1 otherwise
 * (check prints its summary line, "100%: Checks: N, Failures: 0, ..."). */
static inline int prop_run_suite(Suite *s)
{
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}

/* The one main() of every check suite: its name, then its test cases, each
 * {"name", timeout in seconds (0: check's default), {test, test, ...}}:
 *     PROP_MAIN("head",
 *               {"unit", 60, {test_worked_example, test_shape_errors}},
 *               {"properties", 300, {test_prop_rope, test_prop_grad_cross}})
 * It announces the property seed, runs every case and exits 0 when every
 * test passed, 1 otherwise. */
enum { PROP_MAX_TESTS = 32 };
typedef struct {
    const char *name;
    double timeout;
    const TTest *tests[PROP_MAX_TESTS];
} prop_case;

static inline int prop_main(const char *suite, const prop_case *cases, size_t ncases)
{
    att_init();
    prop_announce(suite);
    Suite *s = suite_create(suite);
    for (size_t c = 0; c < ncases; c++) {
        TCase *tc = tcase_create(cases[c].name);
        if (cases[c].timeout > 0) tcase_set_timeout(tc, cases[c].timeout);
        for (size_t k = 0; k < PROP_MAX_TESTS && cases[c].tests[k]; k++) tcase_add_test(tc, cases[c].tests[k]);
        suite_add_tcase(s, tc);
    }
    return prop_run_suite(s);
}

#define PROP_MAIN(suite, ...)                                                   \
    int main(void)                                                              \
    {                                                                           \
        const prop_case prop_cases_[] = {__VA_ARGS__};                          \
        return prop_main(suite, prop_cases_, sizeof prop_cases_ / sizeof prop_cases_[0]); \
    }

#endif
