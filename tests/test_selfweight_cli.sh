#!/bin/sh
# test_selfweight_cli.sh - the self-weight experiments with few draws and on
# point runs: too few draws give INCONCLUSIVE, never FAIL (exit 0), and a
# precision wish never FAILs.
#   1. bin/random_projections --T 4 --draws 100: exit 0, no FAIL row, the
#      precision row (rpPrecision) INCONCLUSIVE;
#   2. (bin/naive_self_attention's whole sweep with few draws, 128 per point: exit 0, no FAIL
#      row, the T = 2 control naiveExactTwo INCONCLUSIVE: tests/test_experiments.sh checks it
#      on its own run of that sweep, which has the same draws; not run twice);
#   3. point runs --T 32 and --d 48 of naive_self_attention, --d 48 of
#      concentration: exit 0;
#   4. random_projections' heatmap follows the run's T and is the point's
#      draw 0: at --T 12 --draws 1 the projected panel's diagonal, averaged with that of
#      softmax(-S) (the antithetic -W_K, from the panel itself), is the CSV's T_self_mean
#      (T times the mean self-weight of that one draw and its pair); at
#      --T 40 it shows 32 tokens, the 13th named t13;
#   5. naive_self_attention on widths that do not bracket both contour levels
#      (--T 12 --d 20,21): exit 0, no contour table, a note on stderr naming
#      the widths to give; a small run's summary prints its own points.
set -u
cd "$(dirname "$0")/.." || exit 2
BIN=${ATT_BIN_DIR:-${BIN:-bin}}
T=$(mktemp -d "${TMPDIR:-/tmp}/att-sw.XXXXXX") || exit 2
trap 'rm -rf "$T"' EXIT
fails=0
fail() { echo "FAIL  $*"; fails=$((fails + 1)); }
outcome() {   # file macro -> the verdict of that row (quantities hold commas: a CSV reader)
    /usr/bin/python3 -c 'import csv, sys
for r in csv.DictReader(open(sys.argv[1])):
    if r["macro"] == sys.argv[2]: print(r["verdict"])' "$1" "$2" 2>/dev/null
}

OMP_NUM_THREADS=1 "$BIN/random_projections" --T 4 --draws 100 --quiet --out "$T/rp" 2>/dev/null
rc=$?
[ $rc -eq 0 ] || fail "random_projections --T 4 --draws 100 exits $rc, want 0"
grep -q ',FAIL,' "$T/rp/random_projections.verdicts.csv" && fail "random_projections --T 4 --draws 100 has a FAIL row"
[ "$(outcome "$T/rp/random_projections.verdicts.csv" rpPrecision)" = INCONCLUSIVE ] ||
    fail "rpPrecision with 100 draws is not INCONCLUSIVE"

for a in "--T 32" "--d 48"; do
    # shellcheck disable=SC2086
    OMP_NUM_THREADS=1 "$BIN/naive_self_attention" $a --draws 1000 --quiet --out "$T/p" 2>/dev/null ||
        fail "naive_self_attention $a exits $?"
done
OMP_NUM_THREADS=1 "$BIN/concentration" --d 48 --quiet --out "$T/c" 2>/dev/null || fail "concentration --d 48 exits $?"

for t in 12 40; do
    OMP_NUM_THREADS=1 "$BIN/random_projections" --T $t --draws 1 --quiet --out "$T/h$t" 2>/dev/null
    /usr/bin/python3 -c 'import csv, sys
d = sys.argv[1]; t = int(sys.argv[2])
a = list(csv.DictReader(open(d + "/random_projections_A.csv")))
n = max(int(r["i"]) for r in a)
meta = dict(l.split(": ", 1) for l in open(d + "/random_projections.meta").read().splitlines() if ": " in l)
assert n == min(t, 32) and int(meta["heatmap_T"]) == n, "heatmap T %d, meta %s, want %d" % (n, meta.get("heatmap_T"), min(t, 32))
assert len(a) == 2 * n * n, "%d cells" % len(a)
if t > 12: assert a[12]["key"] == "t13", "13th key named %s" % a[12]["key"]
if t == 12:
    # T_self is T a_ii averaged with its antithetic draw -W_K: softmax(-S) row i is
    # softmax(-log a_i.) (the row constant cancels), so (diag A + diag A(-S)) / 2
    A = {}
    for r in a:
        if r["panel"] == "projected": A[int(r["i"]), int(r["j"])] = float(r["a"])
    diag = sum(A[i, i] for i in range(1, n + 1))
    flip = sum((1 / A[i, i]) / sum(1 / A[i, j] for j in range(1, n + 1)) for i in range(1, n + 1))
    ts = float(next(csv.DictReader(open(d + "/random_projections.csv")))["T_self_mean"])
    assert abs((diag + flip) / 2 - ts) <= 1e-9 * n, "(diagonal + flipped) / 2 %.17g, T_self_mean %.17g" % ((diag + flip) / 2, ts)
' "$T/h$t" $t || fail "random_projections --T $t: heatmap (above)"
done

OMP_NUM_THREADS=1 "$BIN/naive_self_attention" --T 12 --d 20,21 --draws 400 --out "$T/nb" >"$T/nb.out" 2>"$T/nb.err"
rc=$?
[ $rc -eq 0 ] || fail "naive_self_attention --T 12 --d 20,21 exits $rc, want 0: $(cat "$T/nb.err")"
[ -e "$T/nb/naive_self_attention_contour.csv" ] && fail "naive --d 20,21 wrote a contour table from widths that do not bracket 0.999"
grep -q "no contour d\*(T) (give widths on both sides" "$T/nb.err" || fail "naive --d 20,21: no note on stderr: $(cat "$T/nb.err")"
grep -q "at d = 21, T = 12: mean self-weight" "$T/nb.out" || fail "naive --d 20,21: the summary does not print the run's own points"

[ $fails -eq 0 ] && echo "test_selfweight_cli: all checks passed"
[ $fails -eq 0 ]
