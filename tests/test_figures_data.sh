#!/bin/sh
# test_figures_data.sh - make figures on a damaged table names the CSV, not gnuplot's warnings.
# purpose: a truncated, header-only or missing CSV stops its figure with a message naming the file
#
# From the committed two_queries_four_keys run (results/, read only) copied
# into a private folder, tools/report/render.sh is run on its figure with the table
# it reads (two_queries_four_keys_A.csv) cut mid-row (stopped before gnuplot
# runs: no gnuplot warning), cut at a row boundary, cut to its header, and
# removed (gnuplot fails; the last message names the table and what is
# wrong with it), and whole: every damaged case exits non-zero, prints
# "render:" naming the CSV, and writes no figure; the whole table draws.
# (A missing or header-only table alone is no error: a point run writes
# fewer tables, and the scripts test for them.)
set -u
cd "$(dirname "$0")/.." || exit 2
command -v gnuplot >/dev/null 2>&1 || { echo "skip  gnuplot is missing (make deps)"; exit 0; }
T=$(mktemp -d "${TMPDIR:-/tmp}/att-figures-data.XXXXXX") || exit 2
trap 'rm -rf "$T"' EXIT
trap 'exit 130' INT TERM
npass=0 nfail=0
pass() { npass=$((npass + 1)); echo "ok    $1"; }
fail() { nfail=$((nfail + 1)); echo "FAIL  $1"; shift; for l in "$@"; do echo "      $l"; done; }
ID=two_queries_four_keys
CSV=${ID}_A.csv
cp results/$ID* "$T/" || exit 2
whole="$T/whole.csv"
cp "$T/$CSV" "$whole"
# damaged CASE WHAT [raw]: render with the table damaged by CASE; expect a last
# message naming it and WHAT, no figure, and (unless raw) no gnuplot warning
damaged() {
    rm -rf "$T/figures"
    ATT_NO_SLIDES=1 sh tools/report/render.sh plots/$ID.gp "$T" $ID >"$T/out" 2>"$T/err"
    rc=$?
    raw_ok=1
    [ "${3:-}" = raw ] || ! grep -q 'line [0-9]*:' "$T/err" || raw_ok=0
    if [ $rc -ne 0 ] && tail -n 1 "$T/err" | grep "^render: " | grep "$CSV" | grep -q "$2" && [ $raw_ok = 1 ] &&
       [ ! -e "$T/figures/$ID.pdf" ]; then
        pass "$1: exit $rc, names $CSV ($2), no figure"
    else
        fail "$1: expected a message naming $CSV ($2) and no figure" "exit $rc" "$(cat "$T/err")"
    fi
}
head -c "$(($(wc -c <"$whole") * 2 / 3))" "$whole" >"$T/$CSV"
damaged "cut mid-row" "cut short or damaged"
head -n 5 "$whole" >"$T/$CSV"
damaged "cut at a row boundary" "tables: $CSV" raw
head -n 1 "$whole" >"$T/$CSV"
damaged "header only" "$CSV has no rows" raw
rm -f "$T/$CSV"
damaged "missing" "$CSV does not exist" raw
cp "$whole" "$T/$CSV"
rm -rf "$T/figures"
if ATT_NO_SLIDES=1 sh tools/report/render.sh plots/$ID.gp "$T" $ID >"$T/out" 2>"$T/err" && [ -s "$T/figures/$ID.pdf" ]; then
    pass "whole table: the figure is drawn"
else
    fail "whole table: not drawn" "$(cat "$T/err")"
fi
echo "test_figures_data: $npass passed, $nfail failed"
[ $nfail -eq 0 ]
