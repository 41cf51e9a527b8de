#!/bin/sh
# test_layout.sh - no overlapping, clipped or too small text in the lecture
# figures and documents (issue 19 item 5), read with poppler
# (tests/layout_check.py: pdftotext -bbox word boxes, pdftohtml font sizes).
# purpose: figure and slide text: no overlaps, nothing clipped, slide words >= 9 pt
#
#   1. the checker itself finds planted defects (two labels on top of each
#      other, a label past the page edge, a label across the plot frame, a
#      7 pt word on a slide figure) and passes a clean figure;
#   2. (make check-all, ATT_CHECK_ALL=1, or ATT_LAYOUT_DIR given: files make reproduce
#      wrote, which no change to the code alters before the next reproduce)
#      every lecture figure in DIR/figures/*.pdf (and the check figures in
#      DIR/figures/checks/, which the instructor notes may show) and its slide version in
#      DIR/figures/slides/*.pdf (no word below 9 pt, median >= 11 pt), and
#      every page of DIR/slides.pdf (figure words >= 9 pt, median >= 11 pt),
#      DIR/handout.pdf, DIR/instructor.pdf and DIR/slides-notes.pdf where they exist (DIR: results, or
#      ATT_LAYOUT_DIR);
#   3. the figures of point runs a student makes (one T, one d), rendered
#      from fresh runs of bin/ into a temporary folder (skipped without bin/).
# Each problem is printed with the file, the page and the words.
set -u
cd "$(dirname "$0")/.."
DIR=${ATT_LAYOUT_DIR:-results}
BIN_DIR=${ATT_BIN_DIR:-bin}
for tool in pdftotext pdftohtml gnuplot python3; do
    command -v $tool >/dev/null 2>&1 || { echo "test_layout: skipped ($tool is missing; make deps installs it)"; exit 0; }
done
tmp=$(mktemp -d "${TMPDIR:-/tmp}/test_layout.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
fail=0
. tests/python3.sh
check() { "$PY" tests/layout_check.py "$@"; }

# ---- 1. the checker finds planted defects -----------------------------------
mkdir -p "$tmp/planted/figures"
cat > "$tmp/planted.gp" <<'GP'
set xrange [0:1]; set yrange [0:1]
if (defect) {
    set label 1 "overlapping" at 0.5, 0.5
    set label 2 "labels" at 0.52, 0.5
    set label 3 "clipped-at-the-edge" at screen 0.95, 0.5
    set label 4 "across" at graph 0.97, 0.3
    set label 5 "tiny" at 0.2, 0.8 font ',6'
}
plot x notitle
GP
for defect in 0 1; do
    d="$tmp/planted/$defect"; mkdir -p "$d"
    printf '%s\n' "defect = $defect" > "$d/pre.gp"
    cat "$d/pre.gp" "$tmp/planted.gp" > "$d/planted.gp"
    ATT_NO_SLIDES=1 sh tools/report/render.sh "$d/planted.gp" "$d" planted >/dev/null || { echo "test_layout: render of the planted figure failed"; exit 1; }
    check --slidefig "$d/figures/planted.pdf" > "$d/report.txt"; rc=$?
    if [ $defect = 0 ]; then
        # a clean figure at print size passes everything but the 11 pt median
        if grep -v 'median' "$d/report.txt" | grep -q 'layout: [a-z]* .*planted'; then
            echo "test_layout: FAIL: the checker flags a clean figure:"; cat "$d/report.txt"; fail=1
        fi
    else
        for want in 'overlap .*"overlapping" and "labels"' 'outside .*"clipp' \
                    'frame .*"across"' 'small .*"tiny" is 6'; do
            grep -q "$want" "$d/report.txt" || { echo "test_layout: FAIL: the checker misses: $want"; cat "$d/report.txt"; fail=1; }
        done
        [ $rc = 1 ] || { echo "test_layout: FAIL: the checker exits $rc on a planted defect"; fail=1; }
    fi
done
[ $fail = 0 ] && echo "test_layout: the checker finds the 4 planted defects and passes a clean figure"

# ---- 2. the committed lecture figures and documents -------------------------
if [ "${ATT_CHECK_ALL:-0}" != 1 ] && [ -z "${ATT_LAYOUT_DIR:-}" ]; then
    echo "test_layout: $DIR/'s figures and documents: make check-all checks them (ATT_CHECK_ALL=1)"
else
    set --
    for f in "$DIR"/figures/*.pdf "$DIR"/figures/checks/*.pdf; do [ -f "$f" ] && set -- "$@" --fig "$f"; done
    for f in "$DIR"/figures/slides/*.pdf; do [ -f "$f" ] && set -- "$@" --slidefig "$f"; done
    [ -f "$DIR/slides.pdf" ] && set -- "$@" --deck "$DIR/slides.pdf"
    for f in "$DIR/handout.pdf" "$DIR/instructor.pdf" "$DIR/slides-notes.pdf"; do [ -f "$f" ] && set -- "$@" --doc "$f"; done
    if [ $# = 0 ]; then
        echo "test_layout: FAIL: no figure in $DIR/figures (make reproduce writes them)"; fail=1
    elif check --summary "$@"; then
        echo "test_layout: $DIR: $(($# / 2)) files, no overlapping, clipped or small text"
    else
        echo "test_layout: FAIL: $DIR has text problems (listed above)"; fail=1
    fi
fi

# ---- 3. figures of a student's point runs -----------------------------------
if [ -x "$BIN_DIR/random_projections" ] && [ -x "$BIN_DIR/naive_self_attention" ]; then
    p="$tmp/point"
    ok=1
    "$BIN_DIR/random_projections" --T 32 --draws 200 --out "$p" --quiet >/dev/null 2>&1 || true
    # naive_self_attention's sweep over T: make check to T = 64 (0.4 of its 1.15 CPU s; the
    # figure's text the same: labels, legend, the same kind of axis), check-all the whole
    # sweep a student's --d 8 run draws (to T = 256)
    nT="--T 2..64"; [ "${ATT_CHECK_ALL:-0}" = 1 ] && nT=""
    # shellcheck disable=SC2086
    "$BIN_DIR/naive_self_attention" --d 8 $nT --draws 200 --out "$p" --quiet >/dev/null 2>&1 || true
    for id in random_projections naive_self_attention; do
        [ -f "$p/$id.verdicts.csv" ] || { echo "test_layout: FAIL: the point run of $id wrote no verdicts"; ok=0; fail=1; }
    done
    if [ $ok = 1 ]; then
        sh tools/report/figures.sh "$p" random_projections naive_self_attention > "$p/render.txt" 2>&1 ||
            { echo "test_layout: FAIL: make figures on point runs:"; cat "$p/render.txt"; fail=1; }
        set --
        for f in "$p"/figures/*.pdf; do [ -f "$f" ] && set -- "$@" --fig "$f"; done
        for f in "$p"/figures/slides/*.pdf; do [ -f "$f" ] && set -- "$@" --slidefig "$f"; done
        if check "$@"; then
            echo "test_layout: point runs (random_projections --T 32, naive_self_attention --d 8): $(($# / 2)) figures clean"
        else
            echo "test_layout: FAIL: figures of point runs have text problems (listed above)"; fail=1
        fi
    fi
    # a run of two T (--T 8,64): its figure's text clean too, and both runs' figures show
    # the band and, for each outcome present, what the rule says on the CSV's own numbers
    p2="$tmp/point2"
    "$BIN_DIR/random_projections" --T 8,64 --draws 200 --out "$p2" --quiet >/dev/null 2>&1 || true
    if [ -f "$p2/random_projections.verdicts.csv" ] &&
       sh tools/report/figures.sh "$p2" random_projections > "$p2/render.txt" 2>&1; then
        if check --fig "$p2/figures/random_projections.pdf" --slidefig "$p2/figures/slides/random_projections.pdf"; then
            echo "test_layout: a run of two T (random_projections --T 8,64): its figures clean"
        else
            echo "test_layout: FAIL: the figure of random_projections --T 8,64 has text problems (listed above)"; fail=1
        fi
    else
        echo "test_layout: FAIL: random_projections --T 8,64 or its figures:"; cat "$p2/render.txt" 2>/dev/null; fail=1
    fi
    for run in "$p" "$p2"; do
        [ -f "$run/figures/random_projections.pdf" ] || continue
        pdftotext "$run/figures/random_projections.pdf" "$run/fig.txt" 2>/dev/null
        "$PY" - "$run" <<'PY' || fail=1
import csv, sys
run = sys.argv[1]
rows = list(csv.DictReader(open(run + "/random_projections.csv")))
text = " ".join(open(run + "/fig.txt").read().split())
WORDS = ["CI inside the band: PASS", "CI outside the band: FAIL", "CI across a band edge: INCONCLUSIVE"]
def outcome(lo, hi):   # verdict.c's RULE_CI_WITHIN on [0.95, 1.05]
    if lo != lo or hi != hi: return 1
    return 0 if lo >= 0.95 and hi <= 1.05 else 1 if hi < 0.95 or lo > 1.05 else 2
ks = [outcome(float(r["T_self_lo"]), float(r["T_self_hi"])) for r in rows]
want = ["pass band [0.95, 1.05]"]
for k in sorted(set(ks)):
    want.append(WORDS[k] if len(rows) == 1 else "%s (%d of %d T)" % (WORDS[k], ks.count(k), len(rows)))
missing = [w for w in want if w not in text]
T = ",".join(r["T"] for r in rows)
if missing:
    print("test_layout: FAIL: the figure of random_projections --T %s does not show: %s" % (T, "; ".join(missing)))
    sys.exit(1)
print("test_layout: random_projections --T %s: its figure shows the band and %s" % (T, ", ".join(want[1:])))
PY
    done
else
    echo "test_layout: point runs skipped ($BIN_DIR/ not built)"
fi
exit $fail
