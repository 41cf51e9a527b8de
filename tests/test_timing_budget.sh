#!/bin/sh
# test_timing_budget.sh - the timing sweeps of any_length and fused_qkv are bounded in CPU
# seconds (timing_sweep, lib/run/timing.h), and the numbers that are not times do not depend on
# the budget:
#   1. any_length --timing-budget 0: no (head, T) is timed (every *_reps is 0) and the
#      .meta counts them as untimed for the budget; the lengths' own results
#      (any_length.csv) are those of a run with a large budget, byte for byte,
#      and its verdict rows are the same (the time slope's row, NaN, included);
#   2. a budget that fits every length: every (head, T) up to --timing-max-T is
#      timed, none is left out, and the CPU the sweep reports is within it;
#   3. fused_qkv --timing-budget 0 at --T 64: every variant is still timed (none left out), with
#      exactly the rule's 3 samples; the .meta records the budget and a spent CPU > 0;
#      one speed-up row per variant beside fused; fused_qkv.csv (the checks) is
#      results/fused_qkv.csv byte for byte;
#   4. either program with --timing-budget -1 or x: exit 2 naming the option, nothing written.
# Run from anywhere: sh tests/test_timing_budget.sh (ATT_BIN_DIR=bin-x)
set -u
cd "$(dirname "$0")/.." || exit 2
BIN=${ATT_BIN_DIR:-${BIN:-bin}}
B="$BIN/any_length" F="$BIN/fused_qkv"
for p in "$B" "$F"; do
    [ -x "$p" ] || { echo "test_timing_budget: $p not found: build it first" >&2; exit 1; }
done
T=$(mktemp -d "${TMPDIR:-/tmp}/att-tb.XXXXXX") || exit 2
trap 'rm -rf "$T"' EXIT
npass=0; nfail=0
pass() { npass=$((npass + 1)); }
fail() { nfail=$((nfail + 1)); echo "FAIL  $*"; }
meta() { sed -n "s/^$1: //p" "$2"; }
# column NAME of a CSV, one value a line
col() {
    awk -F, -v c="$1" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == c) k = i; next }
                       { print $k }' "$2"
}

small="--max-T 1000 --max-plain-T 500 --timing-max-T 1000 --quiet"
mkdir -p "$T/zero" "$T/all"
# shellcheck disable=SC2086
"$B" --out "$T/zero" $small --timing-budget 0; rc0=$?
# shellcheck disable=SC2086
"$B" --out "$T/all" $small --timing-budget 1000; rc1=$?
[ "$rc0" -le 1 ] && [ "$rc1" -le 1 ] && pass || fail "runs exit $rc0 / $rc1"

# 1. nothing timed
reps=$(col tiled_reps "$T/zero/any_length_timing.csv"
       col plain_reps "$T/zero/any_length_timing.csv")
if [ -n "$reps" ] && [ -z "$(echo "$reps" | grep -v '^0$')" ]; then pass
else fail "budget 0: reps $(echo $reps)"; fi
u=$(meta timing_untimed_for_budget "$T/zero/any_length.meta")
# 8 lengths T <= 1000 for the tiled head, 7 (T <= 500) for the plain one
[ "$u" = 15 ] && pass || fail "budget 0: $u untimed for the budget, expected 15"
cmp -s "$T/zero/any_length.csv" "$T/all/any_length.csv" && pass ||
    fail "the budget changed any_length.csv"

# the verdict rows do not depend on the budget: the time slope's row is there (NaN) when the
# sweep reaches its lengths, even if nothing was timed
mkdir -p "$T/slope"
# shellcheck disable=SC2086
"$B" --out "$T/slope" --max-T 1000 --max-plain-T 500 --timing-max-T 5000 --quiet --timing-budget 0
grep -q ',anyLengthTimeSlope,' "$T/slope/any_length.verdicts.csv" && pass ||
    fail "budget 0: no time-slope row"

# 2. everything timed, within the budget
reps=$(col tiled_reps "$T/all/any_length_timing.csv")
if [ -z "$(echo "$reps" | grep -v '^[3-9]$')" ]; then pass
else fail "budget 1000: tiled reps $(echo $reps)"; fi
n_plain=$(col plain_reps "$T/all/any_length_timing.csv" | grep -c '^[3-9]$')
[ "$n_plain" = 7 ] && pass || fail "budget 1000: $n_plain plain lengths timed, expected 7"
[ "$(meta timing_untimed_for_budget "$T/all/any_length.meta")" = 0 ] && pass ||
    fail "budget 1000: some left out"
spent=$(meta timing_spent_cpu "$T/all/any_length.meta")
awk -v s="$spent" 'BEGIN { exit !(s > 0 && s < 1000) }' && pass ||
    fail "budget 1000: spent '$spent' CPU s"

# 3. fused_qkv, a spent budget: the minimum, every variant
mkdir -p "$T/fzero"
"$F" --out "$T/fzero" --quiet --T 64 --timing-budget 0; rc=$?
[ "$rc" -le 1 ] && pass || fail "budget 0: exit $rc"
reps=$(col reps "$T/fzero/fused_qkv_timing.csv")
# T = 64: fused and separate at 1 head, fused, separate and per_head at 12
[ "$(echo "$reps" | grep -c '^3$')" = 5 ] && [ "$(echo "$reps" | wc -l)" = 5 ] && pass ||
    fail "budget 0: reps $(echo $reps), expected five 3s"
[ "$(col versus "$T/fzero/fused_qkv_speedup_timing.csv" | wc -l)" = 3 ] && pass ||
    fail "budget 0: not 3 speed-up rows"
[ "$(meta timing_budget_cpu "$T/fzero/fused_qkv.meta")" = 0 ] && pass || fail "budget 0: .meta budget"
spent=$(meta timing_spent_cpu "$T/fzero/fused_qkv.meta")
awk -v s="$spent" 'BEGIN { exit !(s > 0) }' && pass || fail "budget 0: spent '$spent' CPU s"
[ "$(meta reps_min "$T/fzero/fused_qkv.meta")" = 3 ] && [ "$(meta reps_max "$T/fzero/fused_qkv.meta")" = 9 ] &&
    pass || fail "budget 0: .meta reps_min/reps_max"
if [ -f results/fused_qkv.csv ]; then
    cmp -s "$T/fzero/fused_qkv.csv" results/fused_qkv.csv && pass ||
        fail "the checks (fused_qkv.csv) differ from results/"
fi

# 4. bad budgets, both programs
for p in "$B" "$F"; do
    for v in -1 x; do
        rm -rf "$T/bad"; mkdir -p "$T/bad"
        "$p" --out "$T/bad" --quiet --timing-budget "$v" >/dev/null 2>"$T/err"; rc=$?
        if [ "$rc" -eq 2 ] && grep -q -- "--timing-budget" "$T/err" && [ -z "$(ls -A "$T/bad")" ]
        then pass
        else fail "$p --timing-budget $v: exit $rc, $(cat "$T/err")"; fi
    done
done
echo "test_timing_budget: $npass passed, $nfail failed"
[ "$nfail" -eq 0 ]
