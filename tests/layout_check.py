#!/usr/bin/env python3
"""layout_check.py - text layout of figures and documents, read with poppler.

  layout_check.py [--fig PDF]... [--slidefig PDF]... [--doc PDF]... [--deck PDF]

Every word box comes from `pdftotext -bbox` (points, origin top left). A
problem is printed as one line naming the file, the page and the words:

  overlap   two word boxes intersect (by more than 0.5 pt across and 1 pt and 10% of
            the smaller height: touching neighbours on a line do not count)
  outside   a word box leaves the page or ends within 1.5 pt of its edge (a
            figure is read with its page widened by 300 pt on every side, so
            words poppler would drop as clipped are seen where they are)
  frame     a word box straddles the plot frame (part inside, part outside,
            by more than 1.5 pt each way), where the frame is known: render.sh
            writes it to frames/NAME.txt beside a single-plot figure
  small     a figure word below 9 pt (--slidefig, and figure words of --deck)
  median    the median figure word below 11 pt (--slidefig, --deck)

Figure words on a deck page are told from the deck's own text by their font
(the figures are drawn in DejaVu Sans, the deck in Latin Modern); font sizes
come from `pdftohtml -xml` at zoom 3 (its largest: 1/4 pt resolution). Exit 1 when
anything is found, 0 otherwise; --summary prints the counts by kind.
"""
import os
import re
import statistics
import subprocess
import tempfile
import sys
from collections import Counter

WORD = re.compile(r'<word xMin="([-\d.]+)" yMin="([-\d.]+)" xMax="([-\d.]+)" '
                  r'yMax="([-\d.]+)">(.*?)</word>')
PAGE = re.compile(r'<page width="([\d.]+)" height="([\d.]+)">')
FONTSPEC = re.compile(r'<fontspec id="(\d+)" size="(\d+)" family="([^"]*)"')
TEXT = re.compile(r'<text top="-?\d+" left="-?\d+" width="\d+" height="\d+" font="(\d+)">(.*?)</text>')
PAGENO = re.compile(r'<page number="(\d+)"')
ZOOM = 3.0   # pdftohtml caps the zoom at 3
PX = 0.75    # its sizes are pixels at 96 dpi: 0.75 pt each (calibrated on DejaVu Sans 6, 10, 20 pt)
FIGURE_FONT = 'DejaVu'


def unescape(s):
    return (s.replace('&lt;', '<').replace('&gt;', '>').replace('&quot;', '"')
            .replace('&apos;', "'").replace('&amp;', '&'))


MEDIABOX = re.compile(rb'/MediaBox \[ *0 +0 +([\d.]+) +([\d.]+) *\]')
PAD = 300.0


def pages(pdf, widen=False):
    """[(width, height, [(x0, y0, x1, y1, word)])] for every page of pdf.
    widen: read a copy whose MediaBox is PAD points larger on every side, so
    that words drawn past the page (which poppler drops) are seen too, at
    their true place (a single-page figure with a plain MediaBox only)."""
    src, shift, size = pdf, 0.0, None
    tmp = None
    if widen:
        with open(pdf, 'rb') as f:
            data = f.read()
        boxes = MEDIABOX.findall(data)
        if len(boxes) == 1:
            w, h = (float(v) for v in boxes[0])
            data = MEDIABOX.sub(f'/MediaBox [ {-PAD:g} {-PAD:g} {w + PAD:g} {h + PAD:g} ]'.encode(), data)
            fd, tmp = tempfile.mkstemp(suffix='.pdf')
            with os.fdopen(fd, 'wb') as f:
                f.write(data)
            src, shift, size = tmp, PAD, (w, h)
    try:
        out = subprocess.run(['pdftotext', '-bbox', src, '-'], capture_output=True,
                             text=True, check=True).stdout
    finally:
        if tmp:
            os.unlink(tmp)
    result = []
    for chunk in out.split('<page ')[1:]:
        m = PAGE.match('<page ' + chunk)
        words = [(float(a) - shift, float(b) - shift, float(c) - shift, float(d) - shift, unescape(w))
                 for a, b, c, d, w in WORD.findall(chunk)]
        width, height = size if size else (float(m.group(1)), float(m.group(2)))
        result.append((width, height, words))
    return result


def font_sizes(pdf):
    """{page number: [(size in pt, family, text)]} from pdftohtml -xml."""
    out = subprocess.run(['pdftohtml', '-xml', '-i', '-q', '-stdout', '-zoom', str(ZOOM), pdf],
                         capture_output=True, text=True, check=True).stdout
    fonts = {}
    sizes = {}
    page = 0
    for line in out.splitlines():
        m = PAGENO.search(line)
        if m:
            page = int(m.group(1))
            sizes.setdefault(page, [])
            continue
        m = FONTSPEC.search(line)
        if m:
            fonts[m.group(1)] = (int(m.group(2)) / ZOOM * PX, m.group(3))
            continue
        m = TEXT.search(line)
        if m and m.group(1) in fonts:
            text = re.sub(r'<[^>]+>', '', unescape(m.group(2))).strip()
            size, family = fonts[m.group(1)]
            for word in text.split():      # a run of words: each word counts
                sizes[page].append((size, family, word))
    return sizes


def frames_of(pdf):
    """Plot frames render.sh recorded for pdf: [(x0, x1, y0, y1)]."""
    path = os.path.join(os.path.dirname(pdf), 'frames',
                        os.path.splitext(os.path.basename(pdf))[0] + '.txt')
    result = []
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                p = line.split()
                if len(p) == 5 and p[0] == 'frame':
                    result.append(tuple(float(v) for v in p[1:]))
    return result


class Report:
    def __init__(self):
        self.problems = []

    def add(self, kind, where, what):
        self.problems.append((kind, where, what))
        print(f'layout: {kind:8s} {where}: {what}')


def check_words(rep, where, width, height, words, frames):
    # two word boxes that intersect
    for i in range(len(words)):
        a = words[i]
        for j in range(i + 1, len(words)):
            b = words[j]
            ix = min(a[2], b[2]) - max(a[0], b[0])
            iy = min(a[3], b[3]) - max(a[1], b[1])
            if ix <= 0.5 or iy <= max(1.0, 0.1 * min(a[3] - a[1], b[3] - b[1])):
                continue
            if a[:4] == b[:4] and a[4] == b[4]:
                continue          # the same word drawn twice (an outline)
            rep.add('overlap', where, f'"{a[4]}" and "{b[4]}" '
                    f'(at {a[0]:.0f},{a[1]:.0f} and {b[0]:.0f},{b[1]:.0f})')
    for x0, y0, x1, y1, w in words:
        # past the edge, or flush with it: poppler drops the glyphs a page
        # clips, so a clipped word ends exactly at the edge
        if x0 < 1.5 or y0 < 1.5 or x1 > width - 1.5 or y1 > height - 1.5:
            rep.add('outside', where, f'"{w}" at {x0:.1f},{y0:.1f}-{x1:.1f},{y1:.1f} '
                    f'on a {width:.0f} x {height:.0f} pt page (past or flush with the edge)')
        for fx0, fx1, fy0, fy1 in frames:
            # inside by more than 1.5 pt in both directions, outside by more than 1.5 pt
            inside = (min(x1, fx1) - max(x0, fx0) > 1.5 and min(y1, fy1) - max(y0, fy0) > 1.5)
            outside = (x0 < fx0 - 1.5 or x1 > fx1 + 1.5 or y0 < fy0 - 1.5 or y1 > fy1 + 1.5)
            if inside and outside:
                rep.add('frame', where, f'"{w}" crosses the plot frame '
                        f'({x0:.0f}..{x1:.0f} x {y0:.0f}..{y1:.0f} against '
                        f'{fx0:.0f}..{fx1:.0f} x {fy0:.0f}..{fy1:.0f})')


def check_sizes(rep, where, entries):
    """entries: [(size, text)] of figure words; returns their sizes."""
    for size, text in entries:
        if size < 9:
            rep.add('small', where, f'"{text}" is {size:.1f} pt (below 9 pt)')
    return [s for s, _ in entries]


def main(argv):
    figs, slidefigs, docs, decks = [], [], [], []
    summary = False
    i = 0
    while i < len(argv):
        opt = argv[i]
        if opt == '--summary':
            summary = True
            i += 1
            continue
        if i + 1 >= len(argv) or opt not in ('--fig', '--slidefig', '--doc', '--deck'):
            print(__doc__, file=sys.stderr)
            return 2
        {'--fig': figs, '--slidefig': slidefigs, '--doc': docs, '--deck': decks}[opt].append(argv[i + 1])
        i += 2
    for f in figs + slidefigs + docs + decks:
        if not os.path.isfile(f):
            print(f'layout_check: {f}: no such file', file=sys.stderr)
            return 2
    rep = Report()
    for f in figs + slidefigs:
        for width, height, words in pages(f, widen=True):
            check_words(rep, f, width, height, words, frames_of(f))
    for f in slidefigs:
        entries = [(s, t) for page in font_sizes(f).values() for s, _, t in page]
        sizes = check_sizes(rep, f, entries)
        if sizes and statistics.median(sizes) < 11:
            rep.add('median', f, f'median word {statistics.median(sizes):.1f} pt (below 11 pt)')
    for f in docs + decks:
        for n, (width, height, words) in enumerate(pages(f), 1):
            check_words(rep, f'{f} page {n}', width, height, words, [])
    for f in decks:
        allsizes = []
        for n, entries in sorted(font_sizes(f).items()):
            fig = [(s, t) for s, fam, t in entries if FIGURE_FONT in fam]
            allsizes += check_sizes(rep, f'{f} page {n}', fig)
        if allsizes:
            med = statistics.median(allsizes)
            print(f'layout: {f}: {len(allsizes)} figure words, smallest {min(allsizes):.1f} pt, '
                  f'median {med:.1f} pt')
            if med < 11:
                rep.add('median', f, f'median figure word {med:.1f} pt (below 11 pt)')
    if summary or rep.problems:
        counts = Counter(k for k, _, _ in rep.problems)
        files = len({w.split(' page ')[0] for _, w, _ in rep.problems})
        print('layout: ' + (', '.join(f'{counts[k]} {k}' for k in sorted(counts)) or 'no problem')
              + f' in {files} of {len(figs) + len(slidefigs) + len(docs) + len(decks)} files')
    return 1 if rep.problems else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
