/* output.c - LEGACY verdict calls (see output.h), mapped onto verdict.h. */
#include "output.h"

#include <math.h>

/* the old calls carried a decided pass flag; a rule that gives the same
 * outcome keeps the old experiments running until they are rewritten */
static verdict_rule forced(int pass) { return pass ? rule_at_least(-INFINITY) : rule_at_most(-INFINITY); }

int verdict_exact(verdict_list *vl, const char *macro, const char *quantity,
                  double expected, double measured, double tolerance, int pass, const char *rule)
{
    (void)tolerance; (void)rule;
    return verdict_add(vl, KIND_IDENTITY, macro, expected, measure_exact(measured, 0),
                       forced(pass), "%s", quantity);
}

int verdict_mc(verdict_list *vl, const char *macro, const char *quantity, double expected,
               double measured, double ci_low, double ci_high, size_t draws, int pass,
               const char *rule)
{
    (void)rule;
    return verdict_add(vl, KIND_CLAIM, macro, expected, measure_ci(measured, ci_low, ci_high, draws),
                       forced(pass), "%s", quantity);
}

int verdict_timing(verdict_list *vl, const char *macro, const char *quantity, double measured,
                   int pass, const char *rule)
{
    (void)pass; (void)rule;
    return verdict_add(vl, KIND_REPORTED, macro, NAN, measure_exact(measured, 0), rule_none(),
                       "%s", quantity);
}

int legacy_verdicts_write(const verdict_list *vl, const opts *o)
{
    return verdicts_write(vl, o->out_dir, o->id, o->seed, !opts_verbose(o));
}
