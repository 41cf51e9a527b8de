#!/bin/sh
# test_reproduce_long.sh - long_sequences --config/--long and make reproduce-long at small
# draws (LONG_DRAWS=200): --config runs exactly the named configurations; bad names exit 2
# and write nothing; the target writes OUT/long/ (the long run's file set, every macro ending
# in Long, its manifest) and nothing beside it; a second run into the same OUT is accepted, a
# non-empty long/ it did not write is refused; a report in OUT is rewritten with the Long
# rows, and the report without long/ has none (the rows are optional).
# purpose: the long run's option and the file set of make reproduce-long
set -u
BIN=${ATT_BIN_DIR:-bin}
BUILD=${ATT_BUILD_DIR:-build}
b="$BIN/long_sequences"
[ -x "$b" ] && [ -x "$BUILD/tools/report" ] || { echo "test_reproduce_long.sh: $b or $BUILD/tools/report missing (make all)"; exit 1; }
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT INT TERM
nfail=0
fail() { echo "FAIL: $*"; nfail=$((nfail + 1)); }
mk() { make --no-print-directory BIN="$BIN" BUILD="$BUILD" "$@"; }

# --config: exactly the named configurations, in the program's order
mkdir -p "$T/c"
"$b" --config narrow,section --draws 64 --out "$T/c" --quiet; rc=$?
[ $rc -le 1 ] || fail "--config narrow,section: exit $rc"
got=$(tail -n +2 "$T/c/long_sequences.csv" | cut -d, -f2,3,4 | sort -u | tr '\n' ' ')
[ "$got" = "64,16,1 64,4,1 " ] || fail "--config narrow,section ran (d,d_k,c) = $got"
grep -q 'Long,' "$T/c/long_sequences.verdicts.csv" && fail "a run without --long has Long macros"
# bad values: exit 2, a message naming the option, nothing written
mkdir -p "$T/bad"
for args in "--config foo" "--config section,,narrow" "--long --config soft" "--config wide --dk 4"; do
    "$b" $args --draws 64 --out "$T/bad" --quiet >/dev/null 2>"$T/err"; rc=$?
    [ $rc -eq 2 ] || fail "$args: exit $rc, expected 2"
    grep -q -- '--config' "$T/err" || fail "$args: the message does not name --config: $(cat "$T/err")"
done
[ -z "$(ls "$T/bad")" ] || fail "a refused run wrote $(ls "$T/bad")"
"$b" --help | grep -q -- '--config NAMES' || fail "--help does not list --config"
"$b" --help | grep -q -- '--long' || fail "--help does not list --long"

# make reproduce-long: OUT/long/ with the long run's files, nothing else in OUT
o="$T/o"
mk reproduce-long OUT="$o" LONG_DRAWS=200 >"$T/log" 2>&1 || { cat "$T/log"; fail "make reproduce-long exited non-zero"; }
for f in long_sequences.csv long_sequences_tail.csv long_sequences.verdicts.csv long_sequences.meta .reproduce-manifest; do
    [ -f "$o/long/$f" ] || fail "reproduce-long did not write long/$f"
done
[ "$(ls -A "$o")" = long ] || fail "reproduce-long wrote beside long/: $(ls -A "$o" | tr '\n' ' ')"
grep -q 'long_sequences.verdicts.csv' "$o/long/.reproduce-manifest" || fail "the manifest does not list the verdicts"
cfg=$(tail -n +2 "$o/long/long_sequences.csv" | cut -d, -f2,3,4 | sort -u | tr '\n' ' ')
[ "$cfg" = "64,16,1 64,4,1 " ] || fail "reproduce-long ran (d,d_k,c) = $cfg, expected section and narrow"
nm=$("$BUILD/tools/csvcol" "$o/long/long_sequences.verdicts.csv" macro | grep -c .)
nl=$("$BUILD/tools/csvcol" "$o/long/long_sequences.verdicts.csv" macro | grep -c 'Long$')
[ "$nm" -gt 0 ] && [ "$nm" = "$nl" ] || fail "$nl of $nm macros of the long run end in Long"
dr=$("$BUILD/tools/csvcol" "$o/long/long_sequences.verdicts.csv" draws | sort -u | tr '\n' ' ')
[ "$dr" = "200 " ] || fail "LONG_DRAWS=200: the long run's draws are $dr"
# a second run into the same OUT is accepted (its manifest); a long/ it did not write is refused
mk reproduce-long OUT="$o" LONG_DRAWS=200 >"$T/log" 2>&1 || { cat "$T/log"; fail "a second reproduce-long into the same OUT failed"; }
mkdir -p "$T/x/long" && echo mine >"$T/x/long/notes.txt"
mk reproduce-long OUT="$T/x" LONG_DRAWS=200 >"$T/log" 2>&1 && fail "a non-empty long/ without a manifest was accepted"
[ "$(cat "$T/x/long/notes.txt")" = mine ] && [ "$(ls -A "$T/x/long")" = notes.txt ] || fail "the refused long/ was changed"

# the report: without long/ no Long rows; reproduce-long rewrites a report in OUT with them
r="$T/r"
mkdir -p "$r"
"$b" --draws 200 --out "$r" --quiet; rc=$?
[ $rc -le 1 ] || fail "default run: exit $rc"
"$BUILD/tools/report" --out "$r" long_sequences >/dev/null || fail "report without long/ failed"
grep -q 'Long' "$r/claims.tex" && fail "claims.tex has Long macros without a long run"
mk reproduce-long OUT="$r" LONG_DRAWS=200 >"$T/log" 2>&1 || { cat "$T/log"; fail "reproduce-long into a reported OUT failed"; }
grep -q '\\newcommand{\\lsTwoExactLong}\|\\lsTwoExactLong' "$r/claims.tex" || fail "claims.tex lacks \\lsTwoExactLong after reproduce-long"
grep -q 'lsTwoExactLong' "$r/claims.csv" || fail "claims.csv lacks lsTwoExactLong after reproduce-long"
grep -q 'lsTwoExactSoft' "$r/claims.csv" || fail "the rewritten claims.csv lost the default run's rows"

[ $nfail -eq 0 ] && echo "test_reproduce_long.sh: all passed" || echo "test_reproduce_long.sh: $nfail failed"
[ $nfail -eq 0 ]
