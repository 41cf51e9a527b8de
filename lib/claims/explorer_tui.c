/* explorer_tui.c - draw the explorer with ncurses and feed it key presses (shapes in tqfk.h).
 * A plane maps (x, y) in [-R, R]^2 to a grid of W x H cells (W, H odd, so
 * that the origin is a cell):  col = (x + R) / 2R * (W - 1),
 *                              row = (R - y) / 2R * (H - 1)   (rounded).
 */
#include "explorer.h"
#include "status.h"

#include <curses.h>
#include <locale.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { BOTTOM_ROWS = 8, MIN_COLS = 80, MIN_LINES = 24 };
enum { PAIR_QUERY = 1, PAIR_KEY, PAIR_VALUE, PAIR_OUTPUT, PAIR_AXIS };

static volatile sig_atomic_t tui_signal;
static const int TUI_SIGS[3] = {SIGINT, SIGTERM, SIGHUP};

static void tui_on_signal(int sig) { tui_signal = sig; }

/* the handlers of TUI_SIGS as they were before the explorer */
static void tui_restore(const struct sigaction old[3])
{
    for (int i = 0; i < 3; i++) sigaction(TUI_SIGS[i], &old[i], NULL);
}

/* ---- small drawing helpers ------------------------------------------- */

/* printf at (y, x), clipped to the screen width */
static void put(int y, int x, attr_t attr, const char *fmt, ...)
{
    char buf[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (y < 0 || y >= LINES || x >= COLS) return;
    attron(attr);
    mvaddnstr(y, x, buf, COLS - x);
    attroff(attr);
}

static attr_t pair(int p) { return has_colors() ? COLOR_PAIR(p) : 0; }

typedef struct {
    int top, left;   /* first interior cell                 */
    int w, h;        /* interior size, both odd             */
    double range;    /* the plane shows [-range, range]^2   */
} plane;

static int plane_col(const plane *p, double x)
{
    double c = (x + p->range) / (2.0 * p->range) * (p->w - 1);
    return p->left + (int)lround(fmin(fmax(c, 0.0), p->w - 1));
}

static int plane_row(const plane *p, double y)
{
    double r = (p->range - y) / (2.0 * p->range) * (p->h - 1);
    return p->top + (int)lround(fmin(fmax(r, 0.0), p->h - 1));
}

/* A box with a title, axes through the origin, and the range on the axes. */
static void plane_frame(const plane *p, const char *title)
{
    int y0 = p->top - 1, x0 = p->left - 1;
    attron(pair(PAIR_AXIS));
    mvaddch(y0, x0, ACS_ULCORNER);
    mvaddch(y0, x0 + p->w + 1, ACS_URCORNER);
    mvaddch(y0 + p->h + 1, x0, ACS_LLCORNER);
    mvaddch(y0 + p->h + 1, x0 + p->w + 1, ACS_LRCORNER);
    mvhline(y0, x0 + 1, ACS_HLINE, p->w);
    mvhline(y0 + p->h + 1, x0 + 1, ACS_HLINE, p->w);
    mvvline(y0 + 1, x0, ACS_VLINE, p->h);
    mvvline(y0 + 1, x0 + p->w + 1, ACS_VLINE, p->h);
    int oy = plane_row(p, 0.0), ox = plane_col(p, 0.0);
    for (int c = 0; c < p->w; c++) mvaddch(oy, p->left + c, '-');
    for (int r = 0; r < p->h; r++) mvaddch(p->top + r, ox, '|');
    mvaddch(oy, ox, '+');
    attroff(pair(PAIR_AXIS));
    put(y0, x0 + 2, A_BOLD, " %s ", title);
    put(oy, p->left + p->w - 3, pair(PAIR_AXIS), "%2gx", p->range);
    put(p->top, ox + 1, pair(PAIR_AXIS), "%gy", p->range);
}

/* A legend on the plane's bottom border (clipped to the plane's width). */
static void plane_legend(const plane *p, const char *text)
{
    int y = p->top + p->h, x = p->left + 1;
    char buf[256];
    snprintf(buf, sizeof buf, " %.*s ", p->w > 4 ? p->w - 4 : 0, text);
    put(y, x, A_BOLD, "%s", buf);
}

/* Cells strictly between (r0, c0) and (r1, c1) get ch (Bresenham). */
static void grid_line(int r0, int c0, int r1, int c1, chtype ch)
{
    int dc = abs(c1 - c0), sc = c0 < c1 ? 1 : -1;
    int dr = -abs(r1 - r0), sr = r0 < r1 ? 1 : -1;
    int err = dc + dr, r = r0, c = c0;
    for (;;) {
        if (r == r1 && c == c1) break;
        if (!(r == r0 && c == c0)) mvaddch(r, c, ch);
        int e2 = 2 * err;
        if (e2 >= dr) { err += dr; c += sc; }
        if (e2 <= dc) { err += dc; r += sr; }
    }
}

/* Cells already holding a label in this frame: a later label that would
 * cover one moves to a free neighbouring spot (below, above, right, left)
 * instead of hiding it. Cleared at the start of every frame. */
enum { OCC_ROWS = 128, OCC_COLS = 256 };
static unsigned char occupied[OCC_ROWS][OCC_COLS];

static int label_fits(const plane *p, int r, int c, int len)
{
    if (r < p->top || r >= p->top + p->h || c < p->left || c + len > p->left + p->w)
        return 0;
    for (int k = 0; k < len; k++)
        if (r < OCC_ROWS && c + k < OCC_COLS && occupied[r][c + k]) return 0;
    return 1;
}

/* A label whose first letter sits on the point if that spot is free. */
static void plane_label(const plane *p, const double *x, const char *name, attr_t attr)
{
    static const int tries[][2] = {{0, 0}, {1, 0}, {-1, 0}, {0, 3}, {0, -3}, {1, 2}, {-1, 2}};
    int r0 = plane_row(p, x[1]), c0 = plane_col(p, x[0]);
    int len = (int)strlen(name);
    if (name[0] == '[') c0--;         /* "[o1]": the 'o' sits on the point */
    if (c0 + len > p->left + p->w) c0 = p->left + p->w - len;   /* right edge */
    int r = r0, c = c0;
    for (size_t t = 0; t < sizeof tries / sizeof tries[0]; t++)
        if (label_fits(p, r0 + tries[t][0], c0 + tries[t][1], len)) {
            r = r0 + tries[t][0];
            c = c0 + tries[t][1];
            break;
        }
    for (int k = 0; k < len; k++)
        if (r >= 0 && r < OCC_ROWS && c + k >= 0 && c + k < OCC_COLS) occupied[r][c + k] = 1;
    put(r, c, attr, "%s", name);
}

/* ---- the screen ------------------------------------------------------ */

static void draw_qk_plane(const plane *p, const explorer *e)
{
    enum { NQK = TQFK_NQ + TQFK_NK };
    plane_frame(p, "queries q and keys k");
    int or_ = plane_row(p, 0.0), oc = plane_col(p, 0.0);
    /* arrows from the origin: keys '.', queries ':', the selected one bold */
    for (int i = 0; i < NQK; i++) {
        const double *x = tqfk_vec_const(&e->cfg, i);
        attr_t a = pair(i < TQFK_NQ ? PAIR_QUERY : PAIR_KEY) | (i == e->sel ? A_BOLD : 0);
        attron(a);
        grid_line(or_, oc, plane_row(p, x[1]), plane_col(p, x[0]), i < TQFK_NQ ? ':' : '.');
        attroff(a);
    }
    plane_legend(p, "q :::: query   k .... key");
    /* labels at the tips: the selected one first (it keeps its spot), then
     * the queries, then the keys */
    int order[NQK], n = 0;
    if (e->sel < NQK) order[n++] = e->sel;
    for (int i = 0; i < NQK; i++) if (i != e->sel) order[n++] = i;
    for (int m = 0; m < n; m++) {
        int i = order[m];
        attr_t a = pair(i < TQFK_NQ ? PAIR_QUERY : PAIR_KEY) | (i < TQFK_NQ ? A_BOLD : 0);
        plane_label(p, tqfk_vec_const(&e->cfg, i), tqfk_vec_name(i),
                    a | (i == e->sel ? A_REVERSE : 0));
    }
}

static void draw_value_plane(const plane *p, const explorer *e)
{
    plane_frame(p, "values v and outputs o = A v");
    plane_legend(p, "[o] output  spokes *+. by weight");
    /* spokes o_i -> v_j, denser for larger weight a_ij */
    for (int i = 0; i < TQFK_NQ; i++)
        for (int j = 0; j < TQFK_NK; j++) {
            double a = e->res.A[i][j];
            chtype ch = a >= 0.5 ? '*' : a >= 0.2 ? '+' : a >= 0.05 ? '.' : 0;
            if (ch == 0) continue;
            attron(pair(PAIR_OUTPUT));
            grid_line(plane_row(p, e->res.O[i][1]), plane_col(p, e->res.O[i][0]),
                      plane_row(p, e->cfg.v[j][1]), plane_col(p, e->cfg.v[j][0]), ch);
            attroff(pair(PAIR_OUTPUT));
        }
    /* labels: a selected value first, then the outputs, then the values */
    int base = TQFK_NQ + TQFK_NK;
    if (e->sel >= base)
        plane_label(p, e->cfg.v[e->sel - base], tqfk_vec_name(e->sel),
                    pair(PAIR_VALUE) | A_BOLD | A_REVERSE);
    /* an output is a boxed point "[o1]" in reverse video, which no spoke
     * character can be mistaken for */
    for (int i = 0; i < TQFK_NQ; i++) {
        char name[8] = {'[', 'o', (char)('1' + i), ']', 0};
        plane_label(p, e->res.O[i], name, pair(PAIR_OUTPUT) | A_BOLD | A_REVERSE);
    }
    for (int j = 0; j < TQFK_NK; j++)
        if (base + j != e->sel)
            plane_label(p, e->cfg.v[j], tqfk_vec_name(base + j), pair(PAIR_VALUE) | A_BOLD);
}

static void draw_bottom(int y, const explorer *e, const char *msg)
{
    const tqfk_result *r = &e->res;
    put(y, 0, A_BOLD, "A = softmax(s q.k)");
    for (int j = 0; j < TQFK_NK; j++) put(y, 20 + 8 * j, A_BOLD, "   k%d", j + 1);
    put(y, 54, A_BOLD, "output o = sum a v");
    for (int i = 0; i < TQFK_NQ; i++) {
        int row = y + 1 + 2 * i, best = 0;
        for (int j = 1; j < TQFK_NK; j++) if (r->A[i][j] > r->A[i][best]) best = j;
        put(row, 2, pair(PAIR_QUERY) | A_BOLD, "q%d weights", i + 1);
        for (int j = 0; j < TQFK_NK; j++) {
            put(row, 20 + 8 * j, j == best ? A_BOLD : 0, "%6.3f", r->A[i][j]);
            /* a bar of 0..7 cells: the heatmap in characters */
            int n = (int)lround(7.0 * r->A[i][j]);
            char bar[8];
            memset(bar, '#', (size_t)n);
            bar[n] = '\0';
            put(row + 1, 20 + 8 * j, A_REVERSE | pair(PAIR_QUERY), "%s", bar);
            if (n == 0) put(row + 1, 20 + 8 * j, 0, ".");
        }
        put(row, 54, pair(PAIR_OUTPUT) | A_BOLD, "o%d = (%6.2f, %6.2f)", i + 1,
            r->O[i][0], r->O[i][1]);
    }
    put(y + 5, 0, 0, "scores s q.k  q1:%6.2f%6.2f%6.2f%6.2f   q2:%6.2f%6.2f%6.2f%6.2f",
        r->S[0][0], r->S[0][1], r->S[0][2], r->S[0][3],
        r->S[1][0], r->S[1][1], r->S[1][2], r->S[1][3]);
    const double *x = tqfk_vec_const(&e->cfg, e->sel);
    put(y + 6, 0, A_BOLD, "%s = (%.4g, %.4g)", tqfk_vec_name(e->sel), x[0], x[1]);
    put(y + 6, 24, 0, "step %-7g scale s = %-5g", e->step, e->cfg.scale);
    if (msg && *msg) put(y + 6, 56, A_BOLD, "%s", msg);
    put(y + 7, 0, A_DIM, "Tab/S-Tab pick  arrows/hjkl move  +/- step  [/] scale  r reset  q quit");
}

static void draw(const explorer *e, const char *msg)
{
    erase();
    memset(occupied, 0, sizeof occupied);
    if (COLS < MIN_COLS || LINES < MIN_LINES) {
        put(0, 0, A_BOLD, "The explorer needs %d x %d; this terminal is %d x %d.",
            MIN_COLS, MIN_LINES, COLS, LINES);
        put(1, 0, 0, "Enlarge it, or press q to quit.");
        refresh();
        return;
    }
    /* two planes side by side above the BOTTOM_ROWS rows of numbers */
    int half = COLS / 2, ph = LINES - BOTTOM_ROWS;
    plane left = {1, 1, half - 2, ph - 2, e->range};
    plane right = {1, half + 1, COLS - half - 2, ph - 2, e->range};
    if (left.w % 2 == 0) left.w--;
    if (right.w % 2 == 0) right.w--;
    if (left.h % 2 == 0) left.h--, right.h--;
    else right.h = left.h;
    draw_qk_plane(&left, e);
    draw_value_plane(&right, e);
    draw_bottom(LINES - BOTTOM_ROWS, e, msg);
    refresh();
}

/* ---- keys -------------------------------------------------------------- */

/* The action of a curses key; 0 if the key does nothing. */
static int action_of_key(int ch, explorer_action *a)
{
    switch (ch) {
    case '\t': *a = EXPL_NEXT; return 1;
    case KEY_BTAB: *a = EXPL_PREV; return 1;
    case KEY_LEFT: *a = EXPL_LEFT; return 1;
    case KEY_RIGHT: *a = EXPL_RIGHT; return 1;
    case KEY_UP: *a = EXPL_UP; return 1;
    case KEY_DOWN: *a = EXPL_DOWN; return 1;
    case '=': *a = EXPL_STEP_UP; return 1;
    default: break;
    }
    /* the replay letters work here too (t T h j k l + - [ ] r q) */
    return ch > 0 && ch < 128 && explorer_action_of_letter(ch, a) == ATT_OK;
}

int explorer_tui_run(explorer *e, int *signal_seen)
{
    *signal_seen = 0;
    /* both ends must be a terminal: keys come from stdin, the screen goes to stdout */
    int in_tty = isatty(STDIN_FILENO), out_tty = isatty(STDOUT_FILENO);
    if (!in_tty || !out_tty)
        return att_fail(ATT_EUSAGE,
                        "--interactive needs a terminal on both stdin (the keys) and stdout "
                        "(the screen), but %s; use --keys STRING to replay keys without a terminal",
                        !in_tty && !out_tty ? "neither is one"
                        : !in_tty           ? "stdin is not one"
                                            : "stdout is not one");

    /* our handlers first: ncurses leaves signals alone that already have one */
    struct sigaction sa, old[3];
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = tui_on_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = 0;              /* no SA_RESTART: a signal wakes getch */
    tui_signal = 0;
    for (int i = 0; i < 3; i++) sigaction(TUI_SIGS[i], &sa, &old[i]);

    setlocale(LC_ALL, "");
    SCREEN *scr = newterm(NULL, stdout, stdin);   /* NULL instead of exiting */
    if (scr == NULL) {
        tui_restore(old);
        const char *term = getenv("TERM");
        return att_fail(ATT_ERUNTIME,
                        "cannot set up the terminal (TERM=%s): set TERM to a terminal type this "
                        "system knows, e.g. xterm",
                        term ? term : "unset");
    }
    cbreak();                     /* keys at once; Ctrl-C still sends SIGINT */
    noecho();
    keypad(stdscr, TRUE);
    curs_set(0);
    timeout(200);                 /* wake up to notice signals */
    if (has_colors()) {
        start_color();
        use_default_colors();
        init_pair(PAIR_QUERY, COLOR_YELLOW, -1);
        init_pair(PAIR_KEY, COLOR_CYAN, -1);
        init_pair(PAIR_VALUE, COLOR_GREEN, -1);
        init_pair(PAIR_OUTPUT, COLOR_MAGENTA, -1);
        init_pair(PAIR_AXIS, COLOR_BLUE, -1);
    }

    int st = ATT_OK;
    char msg[64] = "";
    while (!e->quit && !tui_signal && st == ATT_OK) {
        draw(e, msg);
        int ch = getch();
        if (ch == ERR || ch == KEY_RESIZE) continue;
        explorer_action a;
        if (action_of_key(ch, &a)) {
            msg[0] = '\0';
            st = explorer_apply(e, a);
        } else {
            snprintf(msg, sizeof msg, "key %s does nothing", keyname(ch) ? keyname(ch) : "?");
        }
    }

    endwin();                     /* the terminal as it was */
    delscreen(scr);
    tui_restore(old);
    *signal_seen = tui_signal;
    return st;
}

int explorer_tui_wanted(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--interactive") || !strcmp(argv[i], "--keys") ||
            !strncmp(argv[i], "--keys=", 7))
            return 1;
    return 0;
}

int explorer_tui_main(int argc, char **argv, const char *id, const char *claim, tqfk_cli *cli)
{
    att_init();
    const opts_info info = {id, claim, OPT_NO_OUT_DEFAULT, 0, 1, tqfk_options(cli)};
    opts o;
    int st = opts_parse(&o, &info, argc, argv);
    if (st == ATT_OK && o.out_dir)
        st = att_fail(ATT_EUSAGE, "--out: --interactive and --keys write nothing");
    if (st == ATT_OK) st = tqfk_config_check(&cli->cfg);
    if (st == ATT_OK && cli->interactive && cli->keys)
        st = att_fail(ATT_EUSAGE, "--interactive and --keys exclude each other");
    if (st) return opts_exit(&o, st);

    setlocale(LC_ALL, "");         /* the terminal's locale (ncursesw needs it) */
    explorer ex;
    int sig = 0;
    if ((st = explorer_init(&ex, &cli->cfg))) return opts_exit(&o, st);
    st = cli->keys ? explorer_replay(&ex, cli->keys) : explorer_tui_run(&ex, &sig);
    /* explorer_print writes its numbers in the C locale whatever the
     * terminal's, so the options line pastes back */
    if (st == ATT_OK && (cli->keys || !o.quiet)) explorer_print(stdout, &ex);
    if (sig) {                     /* the terminal is restored: die of it now */
        fflush(stdout);
        signal(sig, SIG_DFL);
        raise(sig);
    }
    return opts_exit(&o, st);
}
