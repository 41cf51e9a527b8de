/* opts.c - strict parsing of the common options and of experiment options. */
#include "opts.h"
#include "afile.h"
#include "mem.h"
#include "par.h"
#include "rng.h"
#include "status.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define DEFAULT_MAX_MEMORY ((size_t)4 << 30)   /* 4 GiB */

/* ---- strict number parsers ------------------------------------------- */

int opts_parse_ulong(const char *s, unsigned long *out, const char *what)
{
    /* digits only: strtoul would accept "-1", " 7" and "7abc" */
    if (s == NULL || *s == '\0')
        return att_fail(ATT_EUSAGE, "%s: empty value, expected an unsigned integer", what);
    for (const char *p = s; *p; p++)
        if (!isdigit((unsigned char)*p))
            return att_fail(ATT_EUSAGE, "%s: '%s' is not an unsigned integer "
                            "(digits 0-9 only)", what, s);
    errno = 0;
    unsigned long v = strtoul(s, NULL, 10);
    if (errno == ERANGE)
        return att_fail(ATT_EUSAGE, "%s: '%s' is too large (at most %lu)", what, s, ULONG_MAX);
    *out = v;
    return ATT_OK;
}

/* an integer >= 1 with no upper bound but size_t's (the byte counts of --max-memory) */
static int parse_count(const char *s, size_t *out, const char *what)
{
    unsigned long v;
    int st = opts_parse_ulong(s, &v, what);
    if (st) return st;
    if (v == 0) return att_fail(ATT_EUSAGE, "%s: must be >= 1, got %s", what, s);
    if (v > SIZE_MAX) return att_fail(ATT_EUSAGE, "%s: '%s' is too large", what, s);
    *out = (size_t)v;
    return ATT_OK;
}

int opts_parse_size(const char *s, size_t *out, const char *what)
{
    size_t v = 0;
    int st = parse_count(s, &v, what);
    if (st) return st;
    /* a size stays exact in a double (the sweep grid holds its values as doubles, tables print
     * them as numbers), and a product of two sizes of this range is checked, not wrapped */
    if (v > OPTS_MAX_SIZE)
        return att_fail(ATT_EUSAGE, "%s %s: at most 2^53 = %zu (a size or count must stay exact "
                        "in a double)", what, s, OPTS_MAX_SIZE);
    *out = v;
    return ATT_OK;
}

int opts_parse_double(const char *s, double *out, const char *what)
{
    if (s == NULL || *s == '\0' || isspace((unsigned char)*s))
        return att_fail(ATT_EUSAGE, "%s: empty value, expected a finite number", what);
    /* one rule with the CSV cells (csvmat.h): decimal numbers only */
    const char *h = s + (*s == '+' || *s == '-');
    if (h[0] == '0' && (h[1] == 'x' || h[1] == 'X'))
        return att_fail(ATT_EUSAGE, "%s: '%s' is a hexadecimal number; write it in decimal", what,
                        s);
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || *end != '\0')
        return att_fail(ATT_EUSAGE, "%s: '%s' is not a number", what, s);
    if (errno == ERANGE && fabs(v) > 1.0)
        return att_fail(ATT_EUSAGE, "%s: '%s' overflows a double", what, s);
    if (!isfinite(v))
        return att_fail(ATT_EUSAGE, "%s: '%s' is not finite (nan and inf are refused)", what, s);
    *out = v;
    return ATT_OK;
}

int opts_parse_bytes(const char *s, size_t *out, const char *what)
{
    char num[64];
    size_t n = s ? strlen(s) : 0, mult = 1;
    if (n == 0 || n >= sizeof num)
        return att_fail(ATT_EUSAGE, "%s: expected a byte count such as 512M or 4G", what);
    memcpy(num, s, n + 1);
    switch (num[n - 1]) {
    case 'K': case 'k': mult = (size_t)1 << 10; num[n - 1] = '\0'; break;
    case 'M': case 'm': mult = (size_t)1 << 20; num[n - 1] = '\0'; break;
    case 'G': case 'g': mult = (size_t)1 << 30; num[n - 1] = '\0'; break;
    case 'T': case 't': mult = (size_t)1 << 40; num[n - 1] = '\0'; break;
    default: break;
    }
    size_t v = 0;
    int st = parse_count(num, &v, what);
    if (st) return att_fail(ATT_EUSAGE, "%s: '%s' is not a byte count such as 512M or 4G", what, s);
    if (v > SIZE_MAX / mult) return att_fail(ATT_EUSAGE, "%s: '%s' is too large", what, s);
    *out = v * mult;
    return ATT_OK;
}

/* one item of a list: "N" or "A..B" (the doubling A, 2A, ... <= B) */
static int list_item(const char *s, size_t len, opts_list *out, const char *what, const char *all)
{
    char a[64], b[64];
    const char *dots = NULL;
    for (size_t i = 0; i + 1 < len; i++)
        if (s[i] == '.' && s[i + 1] == '.') { dots = s + i; break; }
    size_t la = dots ? (size_t)(dots - s) : len, lb = dots ? len - la - 2 : 0;
    if (la == 0 || la >= sizeof a || lb >= sizeof b || (dots && lb == 0))
        return att_fail(ATT_EUSAGE, "%s: '%s' is not a list N1,N2,... or a range A..B of "
                        "integers >= 1", what, all);
    memcpy(a, s, la); a[la] = '\0';
    size_t lo = 0, hi;
    if (opts_parse_size(a, &lo, what)) return ATT_EUSAGE;
    hi = lo;
    if (dots) {
        memcpy(b, dots + 2, lb); b[lb] = '\0';
        if (opts_parse_size(b, &hi, what)) return ATT_EUSAGE;
        if (hi < lo)
            return att_fail(ATT_EUSAGE, "%s: range %s..%s runs downwards (A..B needs A <= B)",
                            what, a, b);
    }
    for (size_t x = lo; x <= hi; x *= 2) {
        for (size_t k = 0; k < out->n; k++)
            if (out->v[k] == x)
                return att_fail(ATT_EUSAGE, "%s: '%s' lists %zu twice", what, all, x);
        if (out->n == OPTS_MAX_LIST)
            return att_fail(ATT_EUSAGE, "%s: '%s' has more than %d values", what, all,
                            OPTS_MAX_LIST);
        out->v[out->n++] = x;
        if (x > SIZE_MAX / 2) break;
    }
    return ATT_OK;
}

int opts_parse_size_list(const char *s, opts_list *out, const char *what)
{
    out->n = 0;
    if (s == NULL || *s == '\0')
        return att_fail(ATT_EUSAGE, "%s: empty value, expected N, N1,N2,... or A..B", what);
    for (const char *p = s;;) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        if (list_item(p, len, out, what, s)) return ATT_EUSAGE;
        if (!comma) break;
        p = comma + 1;
    }
    return ATT_OK;
}

static int parse_vec2(const char *s, double *xy, const char *what)
{
    const char *comma = s ? strchr(s, ',') : NULL;
    char a[128];
    if (comma == NULL || (size_t)(comma - s) >= sizeof a)
        return att_fail(ATT_EUSAGE, "%s: '%s' is not a pair x,y", what, s ? s : "");
    memcpy(a, s, (size_t)(comma - s));
    a[comma - s] = '\0';
    if (opts_parse_double(a, &xy[0], what) || opts_parse_double(comma + 1, &xy[1], what))
        return att_fail(ATT_EUSAGE, "%s: '%s' is not a pair x,y of finite numbers", what, s);
    return ATT_OK;
}

/* ---- the option table ------------------------------------------------ */

typedef struct {
    const char *name;
    unsigned mask;
    opt_kind kind;
    const char *arg;
    const char *help;
    const char *symbol;   /* the sweep options: T, d, d_k, d_v */
    size_t dest, list;    /* offsetof(opts, ...) of the value and (sweep options) its list */
} common_spec;

#define OPT_AT(o, off) ((void *)((char *)(o) + (off)))
static const common_spec COMMON[] = {
    {"seed", OPT_SEED, OPT_ULONG, "N", "seed of the random generator (unsigned integer)", NULL,
     offsetof(opts, seed), 0},
    {"draws", OPT_DRAWS, OPT_SIZE, "N", "Monte Carlo draws per configuration (1 .. 2^53)", NULL,
     offsetof(opts, draws), 0},
    {"rng", OPT_RNG, OPT_STRING, "NAME", "GSL generator: mt19937 (default), ranlxd2, taus2, ...",
     NULL, offsetof(opts, rng_name), 0},
    {"T", OPT_T, OPT_SIZE, "N", "sequence length", "T", offsetof(opts, T), offsetof(opts, T_list)},
    {"d", OPT_D, OPT_SIZE, "N", "model width", "d", offsetof(opts, d), offsetof(opts, d_list)},
    {"dk", OPT_DK, OPT_SIZE, "N", "query/key width", "d_k", offsetof(opts, dk),
     offsetof(opts, dk_list)},
    {"dv", OPT_DV, OPT_SIZE, "N", "value width", "d_v", offsetof(opts, dv),
     offsetof(opts, dv_list)},
};
enum { NCOMMON = sizeof COMMON / sizeof COMMON[0] };

static const char *kind_accepts(opt_kind k)
{
    switch (k) {
    case OPT_SIZE: return "an integer >= 1";
    case OPT_ULONG: return "an unsigned integer";
    case OPT_DOUBLE: return "a finite number";
    case OPT_STRING: return "a string";
    case OPT_VEC2: return "a pair x,y";
    default: return "no value";
    }
}

static int set_value(opt_kind kind, void *dest, const char *val, const char *what)
{
    switch (kind) {
    case OPT_FLAG: *(int *)dest = 1; return ATT_OK;
    case OPT_SIZE: return opts_parse_size(val, dest, what);
    case OPT_ULONG: return opts_parse_ulong(val, dest, what);
    case OPT_DOUBLE: return opts_parse_double(val, dest, what);
    case OPT_VEC2: return parse_vec2(val, dest, what);
    case OPT_STRING:
        if (val == NULL || *val == '\0')
            return att_fail(ATT_EUSAGE, "%s: empty value", what);
        *(const char **)dest = val;
        return ATT_OK;
    }
    return att_fail(ATT_EUSAGE, "%s: unknown option kind", what);
}

static void print_help(const opts_info *info)
{
    printf("%s - %s\n\nusage: %s [options]\n\noptions:\n", info->id, info->summary, info->id);
    if (info->common & OPT_NO_OUT_DEFAULT)
        printf("  --out DIR          write the CSV files into DIR (no default)\n");
    else
        printf("  --out DIR          write CSVs and verdicts into DIR (default %s/, which git\n"
               "                     ignores; only make reproduce writes results/)\n",
               OPTS_DEFAULT_OUT);
    int sweep = 0, list = (info->common & OPT_LISTS) != 0;
    for (size_t i = 0; i < NCOMMON; i++)
        if (info->common & COMMON[i].mask) {
            char left[64];
            int size = COMMON[i].mask >= OPT_T && COMMON[i].mask <= OPT_DV;
            snprintf(left, sizeof left, "--%s %s", COMMON[i].name, COMMON[i].arg);
            printf("  %-18s %s", left, COMMON[i].help);
            if (size) {
                sweep = 1;
                printf("%s %s: %s", list ? "(s)" : "", COMMON[i].symbol,
                       list ? "one value, a list 4,8,16 or a range 2..256 (doubling)"
                            : "one value");
            }
            if (COMMON[i].mask == OPT_SEED) printf(" (default %lu)", info->seed);
            if (COMMON[i].mask == OPT_DRAWS) {
                /* an extra entry "draws" with no dest says what the default does (opts.h) */
                const char *how = NULL;
                for (const opt_spec *e = info->extra; e && e->name && !how; e++)
                    if (!e->dest && !strcmp(e->name, "draws")) how = e->help;
                if (how) printf("\n  %-18s default: %s", "", how);
                else printf(" (default %zu)", info->draws);
            }
            printf("\n");
        }
    /* the grid is declared inside each experiment's run(), after the options
     * are parsed: --help names where it is, not its values */
    if (sweep)
        printf("  %-18s %s experiments/%s.c\n", "",
               list ? "none given: the full sweep, as declared in" : "not given: the value set in",
               info->id);
    for (const opt_spec *e = info->extra; e && e->name; e++) {
        if (!e->dest && !strcmp(e->name, "draws")) continue;   /* printed with --draws */
        char left[64];
        snprintf(left, sizeof left, "--%s%s%s", e->name, e->kind == OPT_FLAG ? "" : " ",
                 e->kind == OPT_FLAG ? "" : (e->arg ? e->arg : "V"));
        printf("  %-18s %s\n", left, e->help);
    }
    printf(
        "  --max-memory B     refuse runs needing more than B bytes (K/M/G suffix; default 4G)\n");
    if (info->common & OPT_VERBOSE_FLAG)
        printf("  --verbose          print every verdict row (they are always in "
               "<id>.verdicts.csv)\n");
    printf("  --quiet            print nothing but errors\n");
    printf("  --help             this text\n");
    printf("an option given twice takes its last value; numbers are decimal (no hex)\n\n");
    if (info->common & OPT_OWN_EXIT_HELP) return;
    printf("exit status: 0 no verdict FAIL (INCONCLUSIVE rows, which more draws would decide,\n"
           "are named on stderr), 1 some verdict FAIL, 2 bad usage or input, 3 runtime error\n"
           "(I/O, memory)\n");
}

/* ---- "did you mean --draws?" ------------------------------------------ */

enum { NAME_MAX_LEN = 63 };   /* option names longer than this are never compared */

/* The optimal-string-alignment (restricted Damerau-Levenshtein) distance of a
 * and b, ASCII letters compared without case: the fewest insertions, deletions,
 * substitutions and swaps of two neighbours that turn a into b. Both strings
 * at most NAME_MAX_LEN characters (the caller checks); O(|a| |b|) work, no
 * allocation.
 *   D[i][j] = min(D[i-1][j] + 1, D[i][j-1] + 1, D[i-1][j-1] + [a_i != b_j],
 *                 D[i-2][j-2] + 1 if a_i = b_{j-1} and a_{i-1} = b_j)      */
static size_t edit_distance(const char *a, size_t la, const char *b, size_t lb)
{
    unsigned char D[NAME_MAX_LEN + 1][NAME_MAX_LEN + 1];
    for (size_t i = 0; i <= la; i++) D[i][0] = (unsigned char)i;
    for (size_t j = 0; j <= lb; j++) D[0][j] = (unsigned char)j;
    for (size_t i = 1; i <= la; i++)
        for (size_t j = 1; j <= lb; j++) {
            int ne = tolower((unsigned char)a[i - 1]) != tolower((unsigned char)b[j - 1]);
            size_t v = D[i - 1][j - 1] + (size_t)ne;
            if (D[i - 1][j] + 1u < v) v = D[i - 1][j] + 1u;
            if (D[i][j - 1] + 1u < v) v = D[i][j - 1] + 1u;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
                D[i - 2][j - 2] + 1u < v)
                v = D[i - 2][j - 2] + 1u;
            D[i][j] = (unsigned char)v;
        }
    return D[la][lb];
}

typedef struct {
    const char *name;   /* the input, without "--" */
    size_t len;
    const char *best;   /* the suggestion so far */
    size_t best_dist;
    const char *prefix_of;   /* the one known option the input begins, or NULL */
    size_t nprefix;
} suggest;

static void suggest_try(suggest *s, const char *cand)
{
    size_t lc = strlen(cand);
    if (lc > NAME_MAX_LEN || s->len > NAME_MAX_LEN) return;
    if (s->len >= 2 && s->len < lc && !strncmp(s->name, cand, s->len)) {
        s->nprefix++;
        s->prefix_of = cand;
    }
    /* a distance up to 2 (1 for names of 3 letters or fewer), and never as
     * large as the longer name: "--ab" suggests no "--d" */
    size_t shorter = s->len < lc ? s->len : lc, longer = s->len < lc ? lc : s->len;
    size_t limit = shorter >= 4 ? 2 : 1;
    size_t dist = edit_distance(s->name, s->len, cand, lc);
    if (dist <= limit && dist < longer && dist < s->best_dist) {
        s->best = cand;
        s->best_dist = dist;
    }
}

/* The known option closest to the unknown `name` that this program accepts, or
 * NULL: a unique prefix first, else the nearest within the distance limit. */
static const char *suggest_option(const opts_info *info, const char *name)
{
    suggest s = {name, strlen(name), NULL, (size_t)-1, NULL, 0};
    static const char *const ALWAYS[] = {"out", "quiet", "max-memory", "help"};
    for (size_t i = 0; i < sizeof ALWAYS / sizeof ALWAYS[0]; i++) suggest_try(&s, ALWAYS[i]);
    if (info->common & OPT_VERBOSE_FLAG) suggest_try(&s, "verbose");
    for (size_t c = 0; c < NCOMMON; c++)
        if (info->common & COMMON[c].mask) suggest_try(&s, COMMON[c].name);
    for (const opt_spec *e = info->extra; e && e->name; e++) suggest_try(&s, e->name);
    return s.nprefix == 1 ? s.prefix_of : s.best;
}

/* The error for an unknown option: names it, and the nearest known one. */
static int unknown_option(const opts_info *info, const char *name)
{
    for (size_t c = 0; c < NCOMMON; c++)
        if (!strcmp(name, COMMON[c].name))   /* a common option this program does not take */
            return att_fail(ATT_EUSAGE,
                            "unknown option '--%s' for %s: it takes no --%s (see --help)", name,
                            info->id, name);
    const char *near = suggest_option(info, name);
    if (near)
        return att_fail(ATT_EUSAGE, "unknown option '--%s' for %s: did you mean --%s? (see --help)",
                        name, info->id, near);
    return att_fail(ATT_EUSAGE, "unknown option '--%s' for %s (see --help)", name, info->id);
}

/* --out: create if missing, then it must be a writable directory. */
static int check_out_dir(const char *dir)
{
    struct stat sb;
    if (stat(dir, &sb) != 0) {
        if (errno != ENOENT)
            return att_fail(ATT_EUSAGE, "--out '%s': %s", dir, strerror(errno));
        /* EEXIST: another MPI rank (or program) made it just now */
        if (mkdir(dir, 0777) != 0 &&
            !(errno == EEXIST && stat(dir, &sb) == 0 && S_ISDIR(sb.st_mode)))
            return att_fail(ATT_EUSAGE, "--out '%s' cannot be created: %s", dir, strerror(errno));
        return ATT_OK;
    }
    if (!S_ISDIR(sb.st_mode))
        return att_fail(ATT_EUSAGE, "--out '%s' is not a directory (expected a writable directory)",
                        dir);
    if (access(dir, W_OK | X_OK) != 0)
        return att_fail(ATT_EUSAGE, "--out '%s' is not writable: %s", dir, strerror(errno));
    return ATT_OK;
}

int opts_parse(opts *o, const opts_info *info, int argc, char **argv)
{
    par_run_begin(info->id);             /* under mpirun: rank 0 alone writes (par.h) */
    memset(o, 0, sizeof *o);
    o->id = info->id;
    o->out_dir = (info->common & OPT_NO_OUT_DEFAULT) ? NULL : OPTS_DEFAULT_OUT;
    o->seed = info->seed;
    o->draws = info->draws;
    o->rng_name = "mt19937";
    o->max_memory = DEFAULT_MAX_MEMORY;
    o->argc = argc;
    o->argv = argv;

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            print_help(info);
            return ATT_HELP;
        }
        if (strncmp(a, "--", 2) != 0 || a[2] == '\0')
            return att_fail(ATT_EUSAGE,
                            "unexpected argument '%s' (options start with --; see --help)", a);
        char name[64];
        const char *eq = strchr(a + 2, '='), *val = NULL;
        size_t len = eq ? (size_t)(eq - a - 2) : strlen(a + 2);
        if (len >= sizeof name)
            return att_fail(ATT_EUSAGE, "unknown option '%.40s...' (see --help)", a);
        memcpy(name, a + 2, len);
        name[len] = '\0';

        /* find the option: --out, --quiet, --max-memory, common, extra */
        opt_kind kind = OPT_FLAG;
        void *dest = NULL;
        opts_list *list = NULL;   /* a sweep option's values */
        if (!strcmp(name, "out")) { kind = OPT_STRING; dest = &o->out_dir; }
        else if (!strcmp(name, "quiet")) { kind = OPT_FLAG; dest = &o->quiet; }
        else if (!strcmp(name, "max-memory")) { kind = OPT_STRING; dest = NULL; }
        else if (!strcmp(name, "verbose") && (info->common & OPT_VERBOSE_FLAG)) {
            kind = OPT_FLAG; dest = &o->verbose;
        }
        else {
            for (size_t c = 0; c < NCOMMON && !dest; c++)
                if ((info->common & COMMON[c].mask) && !strcmp(name, COMMON[c].name)) {
                    kind = COMMON[c].kind;
                    dest = OPT_AT(o, COMMON[c].dest);
                    if (COMMON[c].list) list = OPT_AT(o, COMMON[c].list);
                    if (!strcmp(name, "draws")) o->draws_given = 1;
                }
            for (const opt_spec *e = info->extra; e && e->name && !dest; e++)
                if (!strcmp(name, e->name)) { kind = e->kind; dest = e->dest; }
            if (!dest) return unknown_option(info, name);
        }
        if (kind == OPT_FLAG) {
            if (eq) return att_fail(ATT_EUSAGE, "option --%s takes no value", name);
        } else if (eq) {
            val = eq + 1;
        } else {
            if (i + 1 >= argc)
                return att_fail(ATT_EUSAGE, "option --%s needs a value: %s", name,
                                strcmp(name, "max-memory") ? kind_accepts(kind)
                                                           : "a byte count such as 512M");
            val = argv[++i];
        }
        char what[80];
        snprintf(what, sizeof what, "--%s", name);
        int st;
        if (list) {
            st = opts_parse_size_list(val, list, what);
            if (!st && list->n > 1 && !(info->common & OPT_LISTS))
                st = att_fail(ATT_EUSAGE, "%s: %s runs one value (got '%s')", what, info->id, val);
            if (!st) *(size_t *)dest = list->v[0];
        } else {
            st = dest ? set_value(kind, dest, val, what)
                      : opts_parse_bytes(val, &o->max_memory, what);
        }
        if (st) return st;
    }
    if ((info->common & OPT_RNG) && rng_type_find(o->rng_name) == NULL) return ATT_EUSAGE;
    /* counts and means of draws stay exact in a double up to 2^53 */
    if ((info->common & OPT_DRAWS) && o->draws > OPTS_MAX_DRAWS)
        return att_fail(ATT_EUSAGE, "--draws %zu: at most 2^53 = %llu (a count of draws must stay "
                        "exact in a double)", o->draws, (unsigned long long)OPTS_MAX_DRAWS);
    /* every sweep size feeds at least one row of doubles (X is T x d, W_Q d x d_k, V T x d_v):
     * 8 N bytes within the budget, checked here before any experiment sizes a buffer */
    static const char *const SIZE_NAMES[] = {"T", "d", "dk", "dv"};
    const opts_list *lists[] = {&o->T_list, &o->d_list, &o->dk_list, &o->dv_list};
    for (size_t a = 0; a < 4; a++)
        if (lists[a]->n &&
            opts_need(o, NULL, sizeof(double), SIZE_NAMES[a], opts_list_max(lists[a], 0)))
            return ATT_EUSAGE;
    int st = o->out_dir ? check_out_dir(o->out_dir) : ATT_OK;
    /* before anything else: finish or undo what a killed run left in the
     * folder (afile.h), so that it holds one whole set of files */
    if (st == ATT_OK && o->out_dir && par_is_root()) st = afile_recover(o->out_dir);
    return st;
}

/* ---- sizes that cannot overflow ---------------------------------------- */

enum { NEED_MAX = 8 };   /* factors in one formula */

/* "--T 100000, --d 64" for the distinct names of the formula (n of them in names/lens). */
static void need_options(char *buf, size_t cap, const char *const *names, const size_t *lens,
                         const size_t *f, size_t n)
{
    size_t k = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < n; i++) {
        int seen = 0;
        for (size_t j = 0; j < i; j++)
            if (lens[j] == lens[i] && !strncmp(names[j], names[i], lens[i])) seen = 1;
        if (seen || k >= cap) continue;
        k += (size_t)snprintf(buf + k, cap - k, "%s--%.*s %zu", k ? ", " : "", (int)lens[i],
                              names[i], f[i]);
    }
}

int opts_need_v(const opts *o, size_t *bytes, size_t elem, const char *formula, const size_t *f,
                size_t n)
{
    const char *names[NEED_MAX];
    size_t lens[NEED_MAX], k = 0;
    for (const char *p = formula; *p && k < NEED_MAX; k++) {
        names[k] = p;
        lens[k] = strcspn(p, "*");
        p += lens[k] + (p[lens[k]] == '*');
    }
    if (k != n || n == 0)
        return att_fail(ATT_ERUNTIME, "opts_need: the formula '%s' names %zu factors, %zu given",
                        formula, k, n);
    /* bytes = elem * f_1 * ... * f_n, refused at the first step that wraps */
    size_t b = elem;
    int over = 0;
    for (size_t i = 0; i < n && !over; i++) over = __builtin_mul_overflow(b, f[i], &b);
    char who[256];
    need_options(who, sizeof who, names, lens, f, n);
    if (over)
        return att_fail(ATT_EUSAGE, "%s: %s*%zu bytes overflows (more than 2^64 bytes)", who,
                        formula, elem);
    if (o && o->max_memory > 0 && b > o->max_memory) {
        const char *u1, *u2;
        double x1 = mem_human(b, &u1), x2 = mem_human(o->max_memory, &u2);
        return att_fail(ATT_EUSAGE,
                        "%s: %s*%zu bytes = %.3g %s exceeds the memory budget "
                        "(--max-memory %.3g %s; raise it, or choose smaller sizes)",
                        who, formula, elem, x1, u1, x2, u2);
    }
    if (bytes) *bytes = b;
    return ATT_OK;
}

int opts_need_for(const opts *o, const char *opt, size_t val, const char *what, size_t count,
                  int count_over, size_t elem)
{
    size_t b = 0;
    if (count_over || __builtin_mul_overflow(count, elem, &b))
        return att_fail(ATT_EUSAGE, "%s %zu: %s (%s x %zu bytes) overflows (more than 2^64 bytes)",
                        opt, val, what, count_over ? "a count beyond 2^64" : "", elem);
    if (o && o->max_memory > 0 && b > o->max_memory) {
        const char *u1, *u2;
        double x1 = mem_human(b, &u1), x2 = mem_human(o->max_memory, &u2);
        return att_fail(ATT_EUSAGE,
                        "%s %zu: %s (%zu x %zu bytes) = %.3g %s exceeds the memory budget "
                        "(--max-memory %.3g %s; raise it, or choose smaller sizes)",
                        opt, val, what, count, elem, x1, u1, x2, u2);
    }
    return ATT_OK;
}

int opts_need(const opts *o, size_t *bytes, size_t elem, const char *formula, ...)
{
    size_t f[NEED_MAX], n = 0;
    for (const char *p = formula; *p; p++) n += *p == '*';
    n += *formula != '\0';
    if (n > NEED_MAX)
        return att_fail(ATT_ERUNTIME, "opts_need: the formula '%s' has more than %d factors",
                        formula, NEED_MAX);
    va_list ap;
    va_start(ap, formula);
    for (size_t i = 0; i < n; i++) f[i] = va_arg(ap, size_t);
    va_end(ap);
    return opts_need_v(o, bytes, elem, formula, f, n);
}

size_t opts_list_max(const opts_list *l, size_t dflt)
{
    if (l->n == 0) return dflt;
    size_t m = l->v[0];
    for (size_t i = 1; i < l->n; i++) if (l->v[i] > m) m = l->v[i];
    return m;
}

int opts_exit(const opts *o, int status)
{
    status = par_run_end(status);    /* under mpirun: every rank agrees */
    if (status == ATT_HELP) return 0;
    if (status >= ATT_EUSAGE && par_is_root()) att_print_error(o && o->id ? o->id : "error");
    return status;
}

int opts_verbose(const opts *o) { return !o->quiet; }
