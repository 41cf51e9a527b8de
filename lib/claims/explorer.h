/* explorer.h - the state machine behind the two-queries-four-keys explorer.
 *
 * No terminal code here: the curses front end (experiments/two_queries_four_keys.c)
 * turns key presses into explorer_action's, and --keys STRING replays the same
 * actions from letters, so tests drive exactly the code the user drives.
 *
 * Replay letters (the interactive keys in brackets):
 *   t  next vector      [Tab]        T  previous vector   [Shift-Tab]
 *   h  move left        [Left]       l  move right        [Right]
 *   k  move up          [Up]         j  move down         [Down]
 *   +  double the step  [+ or =]     -  halve the step    [-]
 *   ]  scale + 0.25     []]          [  scale - 0.25      [[]
 *   r  reset vectors, scale and step to the start   q  quit
 * The vectors are visited in the order q1 q2 k1 k2 k3 k4 v1 v2 v3 v4.
 * The step runs from 1/64 to 2 in powers of two (default 1/4) and the scale
 * from 0 to 8 in steps of 1/4, so a replay from dyadic starting vectors is
 * exact. Coordinates stay inside [-range, range], where range is the larger
 * of 4 and the largest starting coordinate rounded up.
 */
#ifndef ATT_EXPLORER_H
#define ATT_EXPLORER_H

#include <stddef.h>
#include <stdio.h>
#include "tqfk.h"

typedef enum {
    EXPL_NEXT, EXPL_PREV,
    EXPL_LEFT, EXPL_RIGHT, EXPL_UP, EXPL_DOWN,
    EXPL_STEP_UP, EXPL_STEP_DOWN,
    EXPL_SCALE_UP, EXPL_SCALE_DOWN,
    EXPL_RESET, EXPL_QUIT
} explorer_action;

#define EXPLORER_STEP_DEFAULT 0.25
#define EXPLORER_STEP_MIN (1.0 / 64.0)
#define EXPLORER_STEP_MAX 2.0
#define EXPLORER_SCALE_STEP 0.25
#define EXPLORER_SCALE_MAX 8.0

/* The letters --keys accepts, in the order of the list above. */
#define EXPLORER_KEY_LETTERS "tThlkj+-][rq"

typedef struct {
    tqfk_config start;   /* what reset returns to                       */
    tqfk_config cfg;     /* the current vectors and scale               */
    tqfk_result res;     /* scores, weights and outputs of cfg          */
    int sel;             /* selected vector, 0 .. TQFK_NVEC-1           */
    double step;         /* distance of one move                        */
    double range;        /* coordinates are kept in [-range, range]     */
    size_t keys;         /* actions applied so far                      */
    int quit;            /* set by EXPL_QUIT                            */
} explorer;

/* Start from `start` (q1 selected, default step) and compute its weights.
 * Returns tqfk_compute's status. */
int explorer_init(explorer *e, const tqfk_config *start);

/* Apply one action and recompute. After EXPL_QUIT nothing changes. */
int explorer_apply(explorer *e, explorer_action a);

/* The action of replay letter c: ATT_OK, or ATT_EUSAGE naming c. */
int explorer_action_of_letter(int c, explorer_action *a);

/* Replay every letter of keys. The whole string is checked first, so a bad
 * letter anywhere is ATT_EUSAGE (naming it and its position) and nothing is
 * applied; letters after a 'q' are checked but not applied. */
int explorer_replay(explorer *e, const char *keys);

/* The state in words and numbers: selection, step, scale, vectors, weights,
 * outputs, and the command line that reproduces the configuration. */
void explorer_print(FILE *f, const explorer *e);
/* The line "options: --q1 x,y ... --scale s" that rebuilds c, wrapped to 80
 * columns with " \" continuations (the lines paste into a shell as one). */
void explorer_print_options(FILE *f, const tqfk_config *c);

#endif
