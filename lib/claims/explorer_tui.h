/* explorer_tui.h - the full-screen (ncurses) front end of the explorer.
 *
 * Only bin/two_queries_four_keys links this file (with -lncursesw); the state
 * machine it drives is explorer.h, which has no terminal code and is tested.
 *
 * Screen (80 x 24 or larger): the query/key plane (arrows from the origin,
 * labelled q1 q2 k1..k4), the value plane (points v1..v4, outputs o1 o2 with
 * spokes to the values whose density shows the weight), the 2 x 4 weights with
 * bars, the scores, the selection, step and scale, and a key help line.
 * Interactive keys: Tab / Shift-Tab pick a vector, arrow keys or h j k l move
 * it, + (or =) and - double / halve the step, ] and [ raise / lower the scale,
 * r resets, q quits.
 */
#ifndef ATT_EXPLORER_TUI_H
#define ATT_EXPLORER_TUI_H

#include "explorer.h"

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
