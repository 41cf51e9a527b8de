#!/bin/sh
# test_point_alone.sh - a grid point gives the same numbers alone as in a
# list of points (sweep.h: a point's stream and its work are its own), for
# the experiments whose --T/--d/--dk lists change the sizes point by point:
# qk_invariance (--d 32 within --d 32,64; --T 8 --dk 4 within --T 8,16
# --dk 4,16) and bilinear_low_rank (--dk 4 within --dk 4,8). Work buffers
# sized for the largest point once gave a smaller point the larger sizes.
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
echo "test_point_alone: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
