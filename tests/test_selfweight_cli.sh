#!/bin/sh
# test_selfweight_cli.sh - the self-weight experiments with few draws and on
# point runs: too few draws give INCONCLUSIVE, never FAIL (exit 0), and a
# precision wish never FAILs.
#   1. bin/random_projections --T 4 --draws 100: exit 0, no FAIL row, the
#      precision row (rpRelHalfWidth) INCONCLUSIVE;
#   2. bin/naive_self_attention --draws 100: exit 0, no FAIL row, and the
#      T = 2 control (naiveExactTwo) INCONCLUSIVE (its CI is honest: wide);
#   3. point runs --T 32 and --d 48 of naive_self_attention, --d 48 of
#      concentration: exit 0.
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
[ "$(outcome "$T/rp/random_projections.verdicts.csv" rpRelHalfWidth)" = INCONCLUSIVE ] ||
    fail "rpRelHalfWidth with 100 draws is not INCONCLUSIVE"

OMP_NUM_THREADS=2 "$BIN/naive_self_attention" --draws 100 --quiet --out "$T/n" 2>/dev/null
rc=$?
[ $rc -eq 0 ] || fail "naive_self_attention --draws 100 exits $rc, want 0"
grep -q ',FAIL,' "$T/n/naive_self_attention.verdicts.csv" && fail "naive_self_attention --draws 100 has a FAIL row"
[ "$(outcome "$T/n/naive_self_attention.verdicts.csv" naiveExactTwo)" = INCONCLUSIVE ] ||
    fail "naiveExactTwo with 128 draws per point is not INCONCLUSIVE"

for a in "--T 32" "--d 48"; do
    # shellcheck disable=SC2086
    OMP_NUM_THREADS=1 "$BIN/naive_self_attention" $a --draws 1000 --quiet --out "$T/p" 2>/dev/null ||
        fail "naive_self_attention $a exits $?"
done
OMP_NUM_THREADS=1 "$BIN/concentration" --d 48 --quiet --out "$T/c" 2>/dev/null || fail "concentration --d 48 exits $?"

[ $fails -eq 0 ] && echo "test_selfweight_cli: all checks passed"
[ $fails -eq 0 ]
