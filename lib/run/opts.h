/* opts.h - the common command-line options, parsed strictly, shared by every
 * executable.
 *
 * An experiment accepts the common options its `common` mask names (--seed, --draws, --rng,
 * --T, --d, --dk, --dv), its own (opts_info.extra), and always --out (default
 * OPTS_DEFAULT_OUT, which git ignores: only make reproduce writes results/), --max-memory,
 * --quiet and --help; print_help (opts.c) says what each takes. A sweep option (OPT_LISTS)
 * takes one value, a list N1,N2,... or a doubling range A..B (opts_parse_size_list); any other
 * program takes a single value. Values are given as "--opt V" or "--opt=V"; an option given
 * twice takes its last value. Numbers are parsed strictly (no trailing garbage, no sign on
 * unsigned values, no overflow, no nan/inf, no hexadecimal: the rule of CSV cells), and every
 * error names the option and what it accepts; an unknown option is refused naming the
 * nearest known one (a unique prefix, else within 2 edits). doc/running.md, "Exit codes,
 * limits and bad input", lists what is refused.
 */
#ifndef ATT_OPTS_H
#define ATT_OPTS_H

#include <stddef.h>

#define OPTS_DEFAULT_OUT "out"
/* the largest --draws: 2^53, where a double still counts every draw */
#define OPTS_MAX_DRAWS ((size_t)1 << 53)
/* the largest value of any size or count option (OPT_SIZE, --T, --d, --dk, --dv): 2^53, exact
 * in a double; the products a size feeds are checked by opts_need */
#define OPTS_MAX_SIZE ((size_t)1 << 53)

enum {
    OPT_SEED = 1u << 0, OPT_DRAWS = 1u << 1, OPT_RNG = 1u << 2,
    OPT_T = 1u << 3, OPT_D = 1u << 4, OPT_DK = 1u << 5, OPT_DV = 1u << 6,
    OPT_MC = OPT_SEED | OPT_DRAWS | OPT_RNG,
    /* not an option: --out has no default; o->out_dir stays NULL and no
     * directory is created or checked unless --out is given (bin/attention,
     * whose output may go to stdout only) */
    OPT_NO_OUT_DEFAULT = 1u << 7,
    /* --T, --d, --dk, --dv take lists and ranges (a sweep experiment) */
    OPT_LISTS = 1u << 8,
    /* --verbose: print every verdict row, not only the summary */
    OPT_VERBOSE_FLAG = 1u << 9,
    /* not an option: --help prints no exit-status text (the program has no
     * verdicts and prints its own after the options: bin/attention) */
    OPT_OWN_EXIT_HELP = 1u << 10
};

enum { OPTS_MAX_LIST = 64 };

/* The values of one sweep option (n = 0: not given). */
typedef struct {
    size_t n;
    size_t v[OPTS_MAX_LIST];
} opts_list;

typedef enum {
    OPT_FLAG,     /* int *, set to 1                                 */
    OPT_SIZE,     /* size_t *, >= 1                                  */
    OPT_ULONG,    /* unsigned long *                                 */
    OPT_DOUBLE,   /* double *, finite                                */
    OPT_STRING,   /* const char **                                   */
    OPT_VEC2      /* double[2], "x,y", both finite                   */
} opt_kind;

typedef struct {
    const char *name;   /* without the leading "--"; NULL ends a table */
    opt_kind kind;
    void *dest;
    const char *arg;    /* metavariable for --help, e.g. "S"          */
    const char *help;   /* one line                                    */
} opt_spec;

typedef struct {
    const char *id;            /* the claim ID = program name          */
    const char *summary;       /* one-line description for --help      */
    unsigned common;           /* OPT_* mask of accepted common options */
    unsigned long seed;        /* default seed                          */
    size_t draws;              /* default draws                         */
    const opt_spec *extra;     /* experiment-specific options, or NULL; an entry
                                  {"draws", OPT_SIZE, NULL, NULL, "how"} (no dest) is
                                  not an option: --help prints "default: how" under
                                  --draws in place of "(default N)", for a program
                                  whose draws are not N at every point */
} opts_info;

typedef struct {
    const char *id;
    const char *out_dir;       /* --out (default OPTS_DEFAULT_OUT)     */
    unsigned long seed;
    size_t draws;
    int draws_given;           /* --draws was on the command line (else an experiment may choose) */
    const char *rng_name;
    int quiet;
    size_t T, d, dk, dv;       /* 0 = not given; else the (first) value */
    opts_list T_list, d_list, dk_list, dv_list;   /* every value given  */
    int verbose;               /* --verbose: every verdict row on stdout */
    size_t max_memory;         /* bytes                                 */
    int argc;
    char **argv;
} opts;

/* Parse argv. Returns ATT_OK, ATT_HELP (usage printed on stdout), or
 * ATT_EUSAGE (message recorded; nothing written anywhere). --out is
 * checked here: created if missing, must be a writable directory. */
int opts_parse(opts *o, const opts_info *info, int argc, char **argv);

/* Standard main() epilogue: print the error if status is an error, and
 * map ATT_HELP to 0. Returns the exit status. */
int opts_exit(const opts *o, int status);

/* Strict parsers, usable by anyone (the CSV reader too). `what` names the
 * option or field in the error message. */
int opts_parse_size(const char *s, size_t *out, const char *what);
int opts_parse_ulong(const char *s, unsigned long *out, const char *what);
int opts_parse_double(const char *s, double *out, const char *what);
int opts_parse_bytes(const char *s, size_t *out, const char *what);  /* 64M, 4G */
/* "N", "N1,N2,...", "A..B" (A, 2A, 4A, ... <= B) or a mix, every value >= 1,
 * no repeats, at most OPTS_MAX_LIST values. */
int opts_parse_size_list(const char *s, opts_list *out, const char *what);

/* Sizes that cannot overflow. The bytes of a buffer of elem * f_1 * ... * f_n bytes whose
 * factors are named in `formula` by the options that set them (option names without "--"
 * joined by '*': "T*T", "draws*T*d"), their values (size_t) following, one per name:
 *     bytes = elem * f_1 * ... * f_n      (each step checked: no wrap-around in size_t)
 * ATT_OK when it fits in size_t and within --max-memory (o->max_memory; 0: no budget), else
 * ATT_EUSAGE with a one-line message naming the options and their values:
 *     --T 4294967296: T*T*8 bytes overflows
 *     --T 100000, --d 64: T*T*8 bytes = 74.5 GiB exceeds the memory budget (--max-memory 4 GiB)
 * Call it before allocating, for every product a size option feeds (the allocation itself is
 * counted again by mem.h). *bytes (may be NULL) receives the product when it fits. */
int opts_need(const opts *o, size_t *bytes, size_t elem, const char *formula, ...);
/* The same with the factors in an array (n of them, one per name of the formula). */
int opts_need_v(const opts *o, size_t *bytes, size_t elem, const char *formula, const size_t *f,
                size_t n);
/* The same for a buffer of count * elem bytes that option `opt` (its value val) feeds through
 * a derived count (the draws of every point, the heads of every seed): ATT_EUSAGE
 *     --draws 4294967296: the per-draw table (4294967296 x 80 bytes) = 320 GiB exceeds ...
 * `what` names the buffer; count_over = 1 says the count itself already overflowed. */
int opts_need_for(const opts *o, const char *opt, size_t val, const char *what, size_t count,
                  int count_over, size_t elem);
/* The largest value of a sweep option's list, or dflt when it was not given. */
size_t opts_list_max(const opts_list *l, size_t dflt);

/* 1 when progress/tables may be printed (not --quiet). */
int opts_verbose(const opts *o);

#endif
