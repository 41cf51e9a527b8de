/* explorer.c - selection, moves, step, scale and reset for the explorer: after every
 * action the weights and outputs of the configuration (tqfk.h) are recomputed. */
#include "explorer.h"
#include "status.h"

#include <math.h>
#include <string.h>

/* range = max(4, ceil(max |coordinate| of the start)) */
static double explorer_range(const tqfk_config *c)
{
    double m = 4.0;
    for (int i = 0; i < TQFK_NVEC; i++) {
        const double *x = tqfk_vec_const(c, i);
        m = fmax(m, ceil(fmax(fabs(x[0]), fabs(x[1]))));
    }
    return m;
}

int explorer_init(explorer *e, const tqfk_config *start)
{
    memset(e, 0, sizeof *e);
    e->start = *start;
    e->cfg = *start;
    e->sel = 0;
    e->step = EXPLORER_STEP_DEFAULT;
    e->range = explorer_range(start);
    return tqfk_compute(&e->res, &e->cfg);
}

static double clamp(double x, double lo, double hi)
{
    return x < lo ? lo : (x > hi ? hi : x);
}

int explorer_apply(explorer *e, explorer_action a)
{
    if (e->quit) return ATT_OK;
    double *x = tqfk_vec(&e->cfg, e->sel);
    switch (a) {
    case EXPL_NEXT: e->sel = (e->sel + 1) % TQFK_NVEC; break;
    case EXPL_PREV: e->sel = (e->sel + TQFK_NVEC - 1) % TQFK_NVEC; break;
    case EXPL_LEFT:  x[0] = clamp(x[0] - e->step, -e->range, e->range); break;
    case EXPL_RIGHT: x[0] = clamp(x[0] + e->step, -e->range, e->range); break;
    case EXPL_UP:    x[1] = clamp(x[1] + e->step, -e->range, e->range); break;
    case EXPL_DOWN:  x[1] = clamp(x[1] - e->step, -e->range, e->range); break;
    case EXPL_STEP_UP:   e->step = fmin(EXPLORER_STEP_MAX, 2.0 * e->step); break;
    case EXPL_STEP_DOWN: e->step = fmax(EXPLORER_STEP_MIN, 0.5 * e->step); break;
    /* a starting scale outside [0, 8] is left alone by a key that would
     * push it further out, and pulled to the bound by one that goes back */
    case EXPL_SCALE_UP:
        if (e->cfg.scale < EXPLORER_SCALE_MAX)
            e->cfg.scale = fmin(EXPLORER_SCALE_MAX, fmax(0.0, e->cfg.scale + EXPLORER_SCALE_STEP));
        break;
    case EXPL_SCALE_DOWN:
        if (e->cfg.scale > 0.0)
            e->cfg.scale = fmax(0.0, fmin(EXPLORER_SCALE_MAX, e->cfg.scale - EXPLORER_SCALE_STEP));
        break;
    case EXPL_RESET:
        e->cfg = e->start;
        e->step = EXPLORER_STEP_DEFAULT;
        break;
    case EXPL_QUIT: e->quit = 1; break;
    }
    e->keys++;
    return tqfk_compute(&e->res, &e->cfg);
}

int explorer_action_of_letter(int c, explorer_action *a)
{
    static const explorer_action acts[] = {
        EXPL_NEXT, EXPL_PREV, EXPL_LEFT, EXPL_RIGHT, EXPL_UP, EXPL_DOWN,
        EXPL_STEP_UP, EXPL_STEP_DOWN, EXPL_SCALE_UP, EXPL_SCALE_DOWN,
        EXPL_RESET, EXPL_QUIT
    };
    const char *p = (c > 0 && c < 256) ? strchr(EXPLORER_KEY_LETTERS, c) : NULL;
    if (p == NULL) {
        if (c > 32 && c < 127)
            return att_fail(ATT_EUSAGE, "'%c' is not a key", c);
        return att_fail(ATT_EUSAGE, "character \\x%02x is not a key", (unsigned)c & 0xffu);
    }
    *a = acts[p - EXPLORER_KEY_LETTERS];
    return ATT_OK;
}

int explorer_replay(explorer *e, const char *keys)
{
    explorer_action a;
    /* pass 1: check every letter, so a bad one changes nothing */
    for (size_t i = 0; keys[i]; i++)
        if (explorer_action_of_letter((unsigned char)keys[i], &a) != ATT_OK) {
            char why[64];     /* a copy: att_fail overwrites the message */
            snprintf(why, sizeof why, "%s", att_last_error());
            return att_fail(ATT_EUSAGE, "--keys: %s (character %zu of %zu); the keys are "
                            "t T (next/previous vector), h l k j (left right up down), "
                            "+ - (step), ] [ (scale), r (reset), q (quit)", why, i + 1,
                            strlen(keys));
        }
    /* pass 2: apply them */
    for (size_t i = 0; keys[i] && !e->quit; i++) {
        explorer_action_of_letter((unsigned char)keys[i], &a);
        int st = explorer_apply(e, a);
        if (st) return st;
    }
    return ATT_OK;
}

/* "options: --q1 x,y ... --scale s", wrapped to fit 80 columns: each line at
 * most 79 characters, an option never split from its value, every line but
 * the last ending in " \" and the next indented under the first option, so
 * that the lines paste into a shell as one command line. */
static void print_options(FILE *f, const tqfk_config *c)
{
    char buf[1024];
    FILE *m = fmemopen(buf, sizeof buf, "w");
    if (m == NULL) { fputs("options: ", f); tqfk_print_args(f, c); fputc('\n', f); return; }
    tqfk_print_args(m, c);
    fputc('\0', m);
    fclose(m);
    buf[sizeof buf - 1] = '\0';
    const char *lead = "options: ", *indent = "         ";
    size_t col = strlen(lead);
    fputs(lead, f);
    int first = 1;
    for (const char *p = buf; *p;) {
        // one option and its value: "--name value"
        const char *q = strchr(p, ' ');
        q = q ? strchr(q + 1, ' ') : NULL;
        size_t len = q ? (size_t)(q - p) : strlen(p);
        if (!first && col + 1 + len + 2 > 79) {
            fprintf(f, " \\\n%s", indent);
            col = strlen(indent);
        } else if (!first) {
            fputc(' ', f);
            col++;
        }
        fwrite(p, 1, len, f);
        col += len;
        first = 0;
        p += len;
        while (*p == ' ') p++;
    }
    fputc('\n', f);
}

void explorer_print(FILE *f, const explorer *e)
{
    const tqfk_config *c = &e->cfg;
    const tqfk_result *r = &e->res;
    /* every number in the C locale: the text reads the same under any
     * LC_NUMERIC, and the options line pastes back */
    locale_t cl = tqfk_c_numeric(), old = cl ? uselocale(cl) : (locale_t)0;
    fprintf(f, "after %zu keys%s: selected %s, step %g, scale %g\n", e->keys,
            e->quit ? " (quit)" : "", tqfk_vec_name(e->sel), e->step, c->scale);
    fprintf(f, "vectors:");
    for (int i = 0; i < TQFK_NVEC; i++) {
        const double *x = tqfk_vec_const(c, i);
        fprintf(f, "%s %s=(%g, %g)", i == TQFK_NQ || i == TQFK_NQ + TQFK_NK ? "\n        " : "",
                tqfk_vec_name(i), x[0], x[1]);
    }
    fprintf(f, "\nweights A      k1      k2      k3      k4     output\n");
    for (int i = 0; i < TQFK_NQ; i++) {
        fprintf(f, "  q%d     ", i + 1);
        for (int j = 0; j < TQFK_NK; j++) fprintf(f, " %7.4f", r->A[i][j]);
        fprintf(f, "    o%d=(%.4f, %.4f)\n", i + 1, r->O[i][0], r->O[i][1]);
    }
    print_options(f, c);
    if (cl) uselocale(old);
}
