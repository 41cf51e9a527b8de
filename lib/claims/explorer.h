/* explorer.h - the state machine behind the two-queries-four-keys explorer.
 *
 * No terminal code here: the curses front end (explorer_tui.c, declared at the end)
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

/* ---- the full-screen (ncurses) front end: lib/claims/explorer_tui.c ----
 *
 * Only bin/two_queries_four_keys links explorer_tui.c (with -lncursesw); the state
 * machine it drives is the one above, which has no terminal code and is tested.
 *
 * Screen (80 x 24 or larger): the query/key plane (arrows from the origin,
 * labelled q1 q2 k1..k4), the value plane (points v1..v4, outputs o1 o2 with
 * spokes to the values whose density shows the weight), the 2 x 4 weights with
 * bars, the scores, the selection, step and scale, and a key help line.
 * Interactive keys: Tab / Shift-Tab pick a vector, arrow keys or h j k l move
 * it, + (or =) and - double / halve the step, ] and [ raise / lower the scale,
 * r resets, q quits.
 */

/* Run the explorer on the controlling terminal until q or a signal.
 * stdin and stdout must be terminals: ATT_EUSAGE (with the reason) if not,
 * before the screen is touched. SIGINT, SIGTERM and SIGHUP end the session:
 * the terminal is restored first and *signal_seen gets the signal number
 * (0 after q), so that main can re-raise it. ATT_ERUNTIME if the terminal
 * cannot be set up (e.g. TERM unset or unknown). */
int explorer_tui_run(explorer *e, int *signal_seen);

/* The explorer's command line (two_queries_four_keys --interactive or
 * --keys STRING): explorer_tui_wanted says whether argv asks for it;
 * explorer_tui_main parses the options (tqfk_options(cli), id and claim for
 * --help), runs the explorer or replays the keys, prints the final state
 * and returns the exit status. It writes nothing and creates no folder;
 * a signal that ended the full-screen explorer is raised again after the
 * terminal is restored. */
int explorer_tui_wanted(int argc, char **argv);
int explorer_tui_main(int argc, char **argv, const char *id, const char *claim, tqfk_cli *cli);

#endif
