#!/bin/sh
# test_longseq.sh - long_sequences: the same seed gives byte-identical CSVs
# for 1 and 2 OpenMP threads; a config run alone (--d --dk) gives the numbers
# it has in the full run (every config draws from its own stream); bad input
# exits 2 and writes nothing.
# purpose: long_sequences thread-independence, config streams, bad input
set -u
BIN=${ATT_BIN_DIR:-bin}
b="$BIN/long_sequences"
[ -x "$b" ] || { echo "test_longseq.sh: $b missing (make all)"; exit 1; }
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT INT TERM
nfail=0
fail() { echo "FAIL: $*"; nfail=$((nfail + 1)); }
mkdir -p "$T/t1" "$T/t2" "$T/p"
OMP_NUM_THREADS=1 "$b" --draws 300 --out "$T/t1" --quiet; r1=$?
OMP_NUM_THREADS=2 "$b" --draws 300 --out "$T/t2" --quiet; r2=$?
[ $r1 -le 1 ] && [ $r2 -le 1 ] || fail "runs exited $r1, $r2"
for f in long_sequences.csv long_sequences_tail.csv long_sequences.verdicts.csv; do
    cmp -s "$T/t1/$f" "$T/t2/$f" || fail "1 vs 2 threads: $f differs"
done
# the config (64, 4, 1) alone, against its rows of the full run (all columns but the config index)
OMP_NUM_THREADS=2 "$b" --d 64 --dk 4 --draws 300 --out "$T/p" --quiet
a=$(awk -F, '$2 == 64 && $3 == 4' "$T/t1/long_sequences.csv" | cut -d, -f2-)
p=$(tail -n +2 "$T/p/long_sequences.csv" | cut -d, -f2-)
[ -n "$a" ] && [ "$a" = "$p" ] || fail "a config run alone differs from its rows in the full run"
# bad input: exit 2, nothing written
mkdir -p "$T/bad"
for args in "--d 3" "--dk 5" "--draws 10" "--draws 0"; do
    "$b" $args --out "$T/bad" --quiet >/dev/null 2>&1; rc=$?
    [ $rc -eq 2 ] || fail "$args: exit $rc, expected 2"
done
[ -z "$(ls "$T/bad")" ] || fail "a refused run wrote $(ls "$T/bad")"
[ $nfail -eq 0 ] && echo "test_longseq.sh: all passed" || echo "test_longseq.sh: $nfail failed"
[ $nfail -eq 0 ]
