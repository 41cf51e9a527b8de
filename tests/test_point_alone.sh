#!/bin/sh
# test_point_alone.sh - a grid point gives the same numbers alone as in a
# list of points (sweep.h: a point's stream and its work are its own), for
# the experiments whose --T/--d/--dk lists change the sizes point by point:
# qk_invariance (--d 32 within --d 32,64; --T 8 --dk 4 within --T 8,16
# --dk 4,16) and bilinear_low_rank (--dk 4 within --dk 4,8). Work buffers
# sized for the largest point once gave a smaller point the larger sizes.
# Also the restrictions tools/report/robustness.sh reruns its numbers with:
# qk_invariance --cond 1 (the orthogonal point) within the whole cond grid,
# key_bias --no-fd (no central differences) and learned_previous_token
# --no-exact (no exact tied heads), whose every verdict row but those they
# skip is the full run's, byte for byte.
# purpose: a point alone = the point in a list
set -u
cd "$(dirname "$0")/.." || exit 2
BIN=${ATT_BIN_DIR:-bin}
pass=0; fail=0
ok() { pass=$((pass + 1)); }
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }
T=$(mktemp -d /tmp/attn-point-test.XXXXXX)
trap 'rm -rf "$T"' EXIT INT TERM

# same_row ID KEY-COLUMNS "ALONE-ARGS" "LIST-ARGS": the alone run's data rows
# appear, byte for byte, among the list run's rows
same_row() {
    id=$1; alone=$2; list=$3
    rm -rf "$T/a" "$T/b"
    # shellcheck disable=SC2086
    "$BIN/$id" $alone --draws 20 --out "$T/a" --quiet >/dev/null 2>&1 || { bad "$id $alone: exit $?"; return; }
    # shellcheck disable=SC2086
    "$BIN/$id" $list --draws 20 --out "$T/b" --quiet >/dev/null 2>&1 || { bad "$id $list: exit $?"; return; }
    rows=$(tail -n +2 "$T/a/$id.csv")
    [ -n "$rows" ] || { bad "$id $alone: no rows"; return; }
    if printf '%s\n' "$rows" | while IFS= read -r r; do grep -qxF "$r" "$T/b/$id.csv" || exit 1; done; then
        ok
    else
        bad "$id: the row of '$alone' differs within '$list'"
    fi
}
same_row qk_invariance "--d 32 --cond 10" "--d 32,64 --cond 10"
same_row qk_invariance "--T 8 --dk 4 --cond 10" "--T 8,16 --dk 4,16 --cond 10"
same_row bilinear_low_rank "--dk 4" "--dk 4,8"
same_row qk_invariance "--cond 1" ""

# without ID "ARGS" FLAG MACROS: a run with FLAG writes the verdict rows of the run
# without it, byte for byte, but the rows of MACROS (an ERE of macros), which it leaves out
# (exit status 1, a verdict FAIL of a short run, is a run like any other)
without() {
    id=$1; args=$2; flag=$3; macros=$4
    rm -rf "$T/a" "$T/b"
    # shellcheck disable=SC2086
    "$BIN/$id" $args $flag --out "$T/a" --quiet >/dev/null 2>&1
    sa=$?
    # shellcheck disable=SC2086
    "$BIN/$id" $args --out "$T/b" --quiet >/dev/null 2>&1
    sb=$?
    if [ "$sa" -gt 1 ] || [ "$sb" -gt 1 ]; then bad "$id $args: exit $sb, with $flag $sa"; return; fi
    if grep -Ev ",($macros),[^,]*,[^,]*,[^,]*\$" "$T/b/$id.verdicts.csv" | cmp -s - "$T/a/$id.verdicts.csv" &&
       grep -Eq ",($macros)," "$T/b/$id.verdicts.csv"; then
        ok
    else
        bad "$id $flag: its verdict rows are not those of the run without it, less $macros"
    fi
}
without key_bias "--draws 20" --no-fd keyBiasFDErrMax
without learned_previous_token "--dk 2 --budgets 1 --seeds 2 --steps 64" --no-exact \
    "lptTiedExact|lptTiedExactNoMask|lptTiedExactThree"
echo "test_point_alone: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
