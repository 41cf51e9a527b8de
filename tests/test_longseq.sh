#!/bin/sh
# test_longseq.sh - long_sequences: the same seed gives byte-identical CSVs
# for 1 and 2 OpenMP threads, and a point run (--T --d --dk) gives the numbers
# its point has in the sweep (every point draws from its own stream).
set -u
BIN=${ATT_BIN_DIR:-bin}
b="$BIN/long_sequences"
[ -x "$b" ] || { echo "test_longseq.sh: $b missing (make all)"; exit 1; }
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT INT TERM
nfail=0
fail() { echo "FAIL: $*"; nfail=$((nfail + 1)); }
mkdir -p "$T/t1" "$T/t2" "$T/p"
OMP_NUM_THREADS=1 "$b" --Tmax 1024 --draws 600 --out "$T/t1" --quiet; r1=$?
OMP_NUM_THREADS=2 "$b" --Tmax 1024 --draws 600 --out "$T/t2" --quiet; r2=$?
[ $r1 -le 1 ] && [ $r2 -le 1 ] || fail "runs exited $r1, $r2"
cmp -s "$T/t1/long_sequences.csv" "$T/t2/long_sequences.csv" ||
    fail "1 vs 2 threads: long_sequences.csv differs"
cmp -s "$T/t1/long_sequences.verdicts.csv" "$T/t2/long_sequences.verdicts.csv" ||
    fail "1 vs 2 threads: long_sequences.verdicts.csv differs"
# the point T = 256 of config (64, 4, 1) alone, against its sweep row (all
# columns but the config index)
OMP_NUM_THREADS=2 "$b" --T 256 --d 64 --dk 4 --scale 1 --draws 600 --out "$T/p" --quiet
a=$(awk -F, '$2 == 64 && $3 == 4 && $5 == 256' "$T/t1/long_sequences.csv" | cut -d, -f2-)
p=$(sed -n 2p "$T/p/long_sequences.csv" | cut -d, -f2-)
[ -n "$a" ] && [ "$a" = "$p" ] || fail "point run differs from its sweep row: '$p' vs '$a'"
# bad input: exit 2, nothing written
mkdir -p "$T/bad"
for args in "--scale 0" "--scale 11" "--T 1" "--Tmax 1" "--T 99999999999"; do
    "$b" $args --out "$T/bad" --quiet >/dev/null 2>&1; rc=$?
    [ $rc -eq 2 ] || fail "$args: exit $rc, expected 2"
done
[ -z "$(ls "$T/bad")" ] || fail "a refused run wrote $(ls "$T/bad")"
[ $nfail -eq 0 ] && echo "test_longseq.sh: all passed" || echo "test_longseq.sh: $nfail failed"
[ $nfail -eq 0 ]
