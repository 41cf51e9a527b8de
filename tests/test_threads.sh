#!/bin/sh
# test_threads.sh - the thread count changes no result: every experiment in
# $BIN (small draws) run with OMP_NUM_THREADS = 1, 2 and 5 writes
# byte-identical verdict files and data CSVs (.meta and *_timing.csv, which
# name the machine and hold times, excepted). 5 threads on fewer cores also
# checks that more threads than cores change nothing. any_length runs T up
# to 20,000, so that its memory slope (T >= 5,000) and its tiled head's
# multi-threaded path are in the comparison. random_projections runs twice:
# with --draws 300, and as random_projections.pilot without --draws, so that
# the draws its pilot chooses per T are in the comparison too.
# purpose: same bytes at 1, 2, 5 threads
set -u
cd "$(dirname "$0")/.." || exit 2
BIN=${ATT_BIN_DIR:-bin}
pass=0; fail=0
ok() { pass=$((pass + 1)); }
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }
T=$(mktemp -d /tmp/attn-threads-test.XXXXXX)
trap 'rm -rf "$T"' EXIT INT TERM

args_of() {
    case "$1" in
    any_length) echo "--max-T 20000 --timing-max-T 5" ;;
    fused_qkv) echo "--no-timing" ;;
    learned_previous_token) echo "--draws 4 --seeds 3 --steps 160" ;;
    long_sequences) echo "--draws 256" ;;
    random_projections.pilot) echo "--T 2,8 --d 16 --dk 4" ;;   # the pilot: 11,264 and 98,304 draws
    worked_example|shapes|two_queries_four_keys) echo "" ;;
    *) echo "--draws 300" ;;   # more than one block of 256 draws: the blocks' merge order counts
    esac
}
n=0
for b in "$BIN"/* "$BIN/random_projections.pilot"; do
    id=$(basename "$b")
    b=${b%.pilot}
    [ -x "$b" ] && [ "$id" != attention ] || continue
    [ "$b" != "$BIN/$id" ] || n=$((n + 1))
    for th in 1 2 5; do
        mkdir -p "$T/$th/$id"
        # shellcheck disable=SC2046
        OMP_NUM_THREADS=$th "$b" $(args_of "$id") --out "$T/$th/$id" --quiet >/dev/null 2>"$T/$th/$id.err"
        st=$?
        [ $st -le 1 ] || bad "$id with $th threads: exit $st: $(head -3 "$T/$th/$id.err")"
    done
    [ -f "$T/1/$id/${id%.pilot}.verdicts.csv" ] || { bad "$id wrote no verdicts"; continue; }
    for f in "$T/1/$id"/*.csv; do
        name=$(basename "$f")
        case "$name" in *_timing.csv|*_timing.schema.csv) continue ;; esac
        for th in 2 5; do
            if cmp -s "$f" "$T/$th/$id/$name"; then ok
            else
                bad "$id: $name differs between 1 and $th threads:"
                diff "$f" "$T/$th/$id/$name" | head -6
            fi
        done
    done
done
[ $n -ge 18 ] && ok || bad "only $n experiments in $BIN (18 expected: make all)"
echo "test_threads: $pass passed, $fail failed ($n experiments x 1, 2, 5 threads)"
[ "$fail" -eq 0 ]
