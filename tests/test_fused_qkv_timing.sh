#!/bin/sh
# test_fused_qkv_timing.sh - fused_qkv's timing sweep is bounded in CPU seconds
# (timing_sweep, lib/run/timing.h), and the checks do not depend on it:
#   1. --timing-budget 0 at --T 64: every variant is still timed (none left out), with
#      exactly the rule's 3 samples; the .meta records the budget and a spent CPU > 0;
#      one speed-up row per variant beside fused; fused_qkv.csv (the checks) is
#      results/fused_qkv.csv byte for byte;
#   2. --timing-budget -1 or x: exit 2 naming the option, nothing written.
# Run from anywhere: sh tests/test_fused_qkv_timing.sh (ATT_BIN_DIR=bin-x)
set -u
cd "$(dirname "$0")/.." || exit 2
BIN=${ATT_BIN_DIR:-${BIN:-bin}}
B="$BIN/fused_qkv"
[ -x "$B" ] || { echo "test_fused_qkv_timing: $B not found: build it first" >&2; exit 1; }
T=$(mktemp -d "${TMPDIR:-/tmp}/att-fqt.XXXXXX") || exit 2
trap 'rm -rf "$T"' EXIT
npass=0; nfail=0
pass() { npass=$((npass + 1)); }
fail() { nfail=$((nfail + 1)); echo "FAIL  $*"; }
meta() { sed -n "s/^$1: //p" "$2"; }
col() {
    awk -F, -v c="$1" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == c) k = i; next }
                       { print $k }' "$2"
}

# 1. a spent budget: the minimum, every variant
mkdir -p "$T/zero"
"$B" --out "$T/zero" --quiet --T 64 --timing-budget 0; rc=$?
[ "$rc" -le 1 ] && pass || fail "budget 0: exit $rc"
reps=$(col reps "$T/zero/fused_qkv_timing.csv")
# T = 64: fused and separate at 1 head, fused, separate and per_head at 12
[ "$(echo "$reps" | grep -c '^3$')" = 5 ] && [ "$(echo "$reps" | wc -l)" = 5 ] && pass ||
    fail "budget 0: reps $(echo $reps), expected five 3s"
[ "$(col versus "$T/zero/fused_qkv_speedup_timing.csv" | wc -l)" = 3 ] && pass ||
    fail "budget 0: not 3 speed-up rows"
[ "$(meta timing_budget_cpu "$T/zero/fused_qkv.meta")" = 0 ] && pass || fail "budget 0: .meta budget"
spent=$(meta timing_spent_cpu "$T/zero/fused_qkv.meta")
awk -v s="$spent" 'BEGIN { exit !(s > 0) }' && pass || fail "budget 0: spent '$spent' CPU s"
[ "$(meta reps_min "$T/zero/fused_qkv.meta")" = 3 ] && [ "$(meta reps_max "$T/zero/fused_qkv.meta")" = 9 ] &&
    pass || fail "budget 0: .meta reps_min/reps_max"
if [ -f results/fused_qkv.csv ]; then
    cmp -s "$T/zero/fused_qkv.csv" results/fused_qkv.csv && pass ||
        fail "the checks (fused_qkv.csv) differ from results/"
fi

# 2. bad budgets
for v in -1 x; do
    mkdir -p "$T/bad"
    "$B" --out "$T/bad" --quiet --timing-budget "$v" >/dev/null 2>"$T/err"; rc=$?
    if [ "$rc" -eq 2 ] && grep -q -- "--timing-budget" "$T/err" && [ -z "$(ls -A "$T/bad")" ]
    then pass
    else fail "--timing-budget $v: exit $rc, $(cat "$T/err")"; fi
done
echo "test_fused_qkv_timing: $npass passed, $nfail failed"
[ "$nfail" -eq 0 ]
