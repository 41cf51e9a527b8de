#!/usr/bin/env python3
"""glyph_check.py - the size of every glyph on every frame of a beamer deck,
read with pdfminer (Debian's python3-pdfminer; tools/deps.sh tex).

  glyph_check.py [--quiet] DECK.pdf

A lecture hall reads a 160 x 90 mm frame at about 0.8 of the size of a
128 mm one, so the deck is held to three rules, each on every page:

  small   every glyph at least 9 pt (the frame number in the bottom right
          corner aside), figure text and sub- or superscripts included
  main    every glyph that is not a sub- or superscript at least 12 pt
  title   the frame title (the bold glyphs at the top) at least as large as
          the frame's body text (the median size of its other main glyphs)

A glyph's size is its font size times the scale of its text matrix, the
page's graphics scaling included (pdfminer's LTChar box: its height for
upright text, its width for text turned by 90 degrees), so a figure shrunk
onto a frame is measured as printed. A glyph below 12 pt counts as a sub- or
superscript when its run (neighbours of its size on its baseline) touches,
within 3 pt along the line, a larger glyph on another baseline (0.5 pt or
more off): x_i, W_Q^T, R^{T x d}, the limits of a sum. Everything else below
12 pt is main text. Not counted: the frame number (digits in the bottom
right corner), glyphs drawn off the page, and the pieces of extensible
delimiters (their font size says nothing of their height). The body size
is that of the frame's own text (the figures, in DejaVu Sans, aside).

One line per problem (page, rule, size, the glyphs and their neighbours);
exit 1 when anything is found, 0 otherwise, 2 when the PDF cannot be read.
"""
import math
import statistics
import sys

try:
    from pdfminer.high_level import extract_pages
    from pdfminer.layout import LTChar
except ImportError:  # the shell test checks for pdfminer first
    sys.stderr.write("glyph_check: pdfminer is missing (Debian: python3-pdfminer; sh tools/deps.sh tex)\n")
    sys.exit(2)

MIN_ANY = 9.0       # pt, any glyph
MIN_MAIN = 12.0     # pt, a glyph on its line's baseline
TOL = 0.1           # pt: 11.96 (12 pt at pdfTeX's rounding) passes 12
SHIFT = 0.5         # pt: a script's baseline is at least this far off
TOUCH = 3.0         # pt: a script touches its base within this along the line
SCRIPT_MAX = 0.7    # a script's baseline is at most 0.7 of its base's size off
RUN_GAP = 0.6       # glyphs of one size on one baseline this close (x size) are one run
CORNER_W, CORNER_H = 20 * 72 / 25.4, 8 * 72 / 25.4   # the frame number's corner
TOP = 16 * 72 / 25.4  # the frame title's band under the top edge
FIGURE_FONT = 'DejaVu'   # the figures' typeface (tools/report/render.sh)


class Glyph:
    __slots__ = ('text', 'size', 'u0', 'u1', 'v', 'dir', 'font', 'box')

    def __init__(self, c):
        a, b, _, _, e, f = c.matrix
        n = math.hypot(a, b) or 1.0
        turned = abs(b) > abs(a)
        self.text = c.get_text()
        self.size = c.width if turned else c.height
        self.font = c.fontname.split('+')[-1]
        self.box = (c.x0, c.y0, c.x1, c.y1)
        # position along the line (u) and of the baseline across it (v), in
        # the glyph's own direction (rounded, so that turned figure labels
        # group with each other)
        dx, dy = a / n, b / n
        self.dir = (round(dx), round(dy))
        self.u0 = e * dx + f * dy
        self.u1 = self.u0 + c.adv * n
        self.v = -e * dy + f * dx


def chars(obj):
    if isinstance(obj, LTChar):
        yield obj
    elif hasattr(obj, '__iter__'):
        for o in obj:
            yield from chars(o)


def scripts(glyphs):
    """The glyphs that are sub- or superscripts. A glyph touching (within
    TOUCH along the line) a larger glyph on another baseline, at most
    SCRIPT_MAX of its size away (not the line below), is one (x_i,
    W^T, the limits of a sum); so is a glyph touching a script on another
    baseline, not larger than it (the k of R^{d_k}, where the script and the
    scriptscript sizes may be equal); and so is every glyph of a run of one
    size on one baseline that holds a script ("T x d" in R^{T x d})."""
    n = len(glyphs)
    parent = list(range(n))

    def find(i):
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i
    script = [False] * n
    shifted = []          # (i, j): touching, on different baselines
    for i, g in enumerate(glyphs):
        for j in range(i + 1, n):
            h = glyphs[j]
            if h.dir != g.dir:
                continue
            gap = max(h.u0, g.u0) - min(h.u1, g.u1)   # < 0: they overlap along the line
            dv = abs(h.v - g.v)
            if abs(h.size - g.size) <= 0.2 and dv < SHIFT:
                if gap <= RUN_GAP * g.size:
                    parent[find(i)] = find(j)         # one run ("d_k x d_k": the k between)
                continue
            if gap > TOUCH:
                continue
            big = max(g.size, h.size)
            if SHIFT <= dv <= (1.2 if big >= 100 else SCRIPT_MAX) * big:
                shifted.append((i, j))
                if g.size > h.size + 0.2:
                    script[j] = True
                elif h.size > g.size + 0.2:
                    script[i] = True
    changed = True
    while changed:
        changed = False
        runs = {find(i) for i in range(n) if script[i]}
        for i in range(n):
            if not script[i] and find(i) in runs:
                script[i] = changed = True
        for i, j in shifted:
            for a, b in ((i, j), (j, i)):
                if script[a] and not script[b] and glyphs[b].size <= glyphs[a].size + 0.2:
                    script[b] = changed = True
    return {id(glyphs[i]) for i in range(n) if script[i]}


def words(gs):
    """the glyphs as text, in reading order, for a message"""
    gs = sorted(gs, key=lambda g: (-round(g.v), g.u0))
    s = ''.join(g.text for g in gs)
    return s if len(s) <= 60 else s[:57] + '...'


def check(pdf, quiet=False):
    problems = []
    npages = 0
    for pn, page in enumerate(extract_pages(pdf), 1):
        npages += 1
        W, H = page.width, page.height
        gs = []       # the glyphs checked
        every = []    # and the ones that only serve as bases of scripts
        for c in chars(page):
            if not c.get_text().strip():
                continue
            g = Glyph(c)
            x0, y0, x1, y1 = g.box
            if x1 < 0 or x0 > W or y1 < 0 or y0 > H:
                continue  # drawn off the page (not seen)
            every.append(g)
            if x0 > W - CORNER_W and y1 < CORNER_H and g.text.isdigit():
                continue  # the frame number
            if 'Extension' in g.font or 'cmex' in g.font.lower():
                # a big operator or a piece of a delimiter, drawn to its content's
                # height whatever its font size: not checked, and larger than any
                # script beside it (the limits of a sum)
                g.size = 100.0
                continue
            gs.append(g)
        title = [g for g in gs if g.box[1] > H - TOP and 'Bold' in g.font and g.dir == (1, 0)]
        body = [g for g in gs if g not in title]
        script = scripts(every)
        small = [g for g in gs if g.size < MIN_ANY - TOL]
        main_small = [g for g in body if MIN_ANY - TOL <= g.size < MIN_MAIN - TOL and id(g) not in script]
        for label, bad, rule in (('small', small, MIN_ANY), ('main', main_small, MIN_MAIN)):
            by_size = {}
            for g in bad:
                by_size.setdefault(round(g.size, 1), []).append(g)
            for size, group in sorted(by_size.items()):
                problems.append(f"glyphs: {label:5s} {pdf} page {pn}: {len(group)} glyph(s) at {size} pt "
                                f"(< {rule:g}): \"{words(group)}\"")
        # the body's size: the frame's own text, not its figures (DejaVu)
        mains = [g.size for g in body if g.size >= MIN_MAIN - TOL and id(g) not in script
                 and FIGURE_FONT not in g.font]
        if title and mains:
            tmin = min(g.size for g in title)
            bsize = statistics.median(mains)
            if tmin < bsize - TOL:
                problems.append(f"glyphs: title {pdf} page {pn}: title \"{words(title)}\" at {tmin:.1f} pt, "
                                f"under the body's {bsize:.1f} pt")
    for p in problems:
        print(p)
    if not quiet:
        print(f"glyph_check: {pdf}: {npages} pages, {len(problems)} problem(s)")
    return 1 if problems else 0


def main(argv):
    quiet = '--quiet' in argv
    args = [a for a in argv if a != '--quiet']
    if len(args) != 1:
        sys.stderr.write(__doc__.split('\n\n')[1] + '\n')
        return 2
    try:
        return check(args[0], quiet)
    except Exception as e:  # a damaged or missing PDF
        sys.stderr.write(f"glyph_check: cannot read {args[0]}: {e}\n")
        return 2


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
