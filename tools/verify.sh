#!/bin/sh
# verify.sh - rerun every experiment into a temporary folder and compare each
# result CSV with the committed results/, each number by its NATURE, stored
# with the table in <name>.schema.csv (lib/run/table.h) and, for verdict
# rows, in their `nature` column (lib/run/verdict.h): exact values, counts
# and outcomes exactly; deterministic numbers to 1e-9; Monte Carlo estimates
# within a tenth of their own CI; rounding-level measurements (they depend on
# the CPU's BLAS kernel) by order of magnitude against their bound; training
# results within their seed-to-seed spread; times not at all (tools/csvcmp.c).
# So it passes on any x86-64 machine with the same Debian packages, whatever
# its OpenBLAS kernel and thread count, and fails on a real change.
# Timing data (*_timing.csv, bench.*) and provenance (*.meta) are not compared.
#
#   sh tools/verify.sh                 rerun, compare with results/
#   sh tools/verify.sh --compare OLD NEW   only compare two result folders
# VERIFY_OUT=DIR keeps the rerun in DIR (CI checks its verdicts and builds
# the handout from it).
# results/long/ (make reproduce-long, about 10 min) is rerun and compared
# only with LONG=1 (make verify LONG=1); otherwise, when present, its verdict
# rows are copied into the rerun (not re-measured) so that the reports compare.
set -u
BUILD=${BUILD:-build}; BIN=${BIN:-bin}

# compare OLD NEW: every CSV of OLD (its schema from OLD) against NEW's
compare() {
    old_dir=$1; new_dir=$2; status=0; n=0
    for old in "$old_dir"/*.csv; do
        [ -f "$old" ] || continue
        name=$(basename "$old")
        case "$name" in *_timing.csv|*_timing.schema.csv|bench*) continue ;; esac
        new="$new_dir/$name"
        if [ ! -f "$new" ]; then echo "verify: $name is in $old_dir but no longer produced"; status=1; continue; fi
        n=$((n + 1))
        "$BUILD/tools/csvcmp" --quiet "$old" "$new" || status=1
    done
    for new in "$new_dir"/*.csv; do
        [ -f "$new" ] || continue
        name=$(basename "$new")
        case "$name" in *_timing.csv|*_timing.schema.csv|bench*) continue ;; esac
        [ -f "$old_dir/$name" ] || { echo "verify: $name is produced but not in $old_dir"; status=1; }
    done
    compared=$n
    return $status
}

# the advice on a failure: find the cause; never "commit your numbers"
advice() {
    cat >&2 <<'EOF'
verify: the rerun differs from the committed results beyond what each number's nature allows
  (listed above: file, line, column, old -> new, the comparison). Each comparison already allows
  what another CPU, BLAS kernel or thread count changes, so this is a real change: a code or
  package change since the results were committed, or a bug. Do not commit your machine's
  numbers to make it pass: find the cause (git log -- lib experiments; the .meta files name the
  commit and the packages of the committed run). If the change is intended, the maintainers
  regenerate results/ with make reproduce on the merged main.
EOF
}

if [ "${1:-}" = --compare ]; then
    [ $# -eq 3 ] || { echo "usage: sh tools/verify.sh [--compare OLD_DIR NEW_DIR]" >&2; exit 2; }
    [ -d "$2" ] && [ -d "$3" ] || { echo "verify: $2 and $3 must be folders" >&2; exit 2; }
    compare "$2" "$3"; st=$?
    if [ $st -eq 0 ]; then echo "verify: $compared result files of $3 agree with $2"; else advice; fi
    exit $st
fi
[ $# -eq 0 ] || { echo "usage: sh tools/verify.sh [--compare OLD_DIR NEW_DIR]" >&2; exit 2; }

if [ -n "${VERIFY_OUT:-}" ]; then
    # only a folder verify made (its marker) or an empty one is cleared: never a user's files
    tmp=$VERIFY_OUT
    if [ -d "$tmp" ] && [ -n "$(ls -A "$tmp")" ] && [ ! -f "$tmp/.verify-out" ]; then
        echo "verify: VERIFY_OUT=$tmp is not empty and was not written by make verify: refusing to clear it" >&2
        exit 2
    fi
    if [ -f "$tmp/.verify-out" ]; then
        # what a previous verify wrote: the folder's entries (it made the folder)
        find "$tmp" -mindepth 1 -delete || { echo "verify: cannot clear $tmp" >&2; exit 3; }
    fi
    mkdir -p "$tmp" && : > "$tmp/.verify-out" || { echo "verify: cannot create $tmp" >&2; exit 3; }
else tmp=$(mktemp -d /tmp/attention-verify.XXXXXX); trap 'rm -rf "$tmp"' EXIT INT TERM; fi
echo "verify: rerunning everything into $tmp"
if [ -d results/long ] && [ "${LONG:-0}" = 1 ]; then
    echo "verify: LONG=1: rerunning the long run (make reproduce-long) into $tmp/long"
    make --no-print-directory reproduce-long OUT="$tmp" BUILD="$BUILD" BIN="$BIN" >"$tmp.long.log" 2>&1 || {
        cat "$tmp.long.log" >&2; rm -f "$tmp.long.log"; echo "verify: the long rerun failed" >&2; exit 1; }
    rm -f "$tmp.long.log"
elif [ -d results/long ]; then
    echo "verify: results/long/ is not rerun (make verify LONG=1 reruns it, about 10 min): its verdict rows are copied into the rerun's report"
    mkdir -p "$tmp/long" && cp results/long/*.verdicts.csv "$tmp/long/" || { echo "verify: cannot copy results/long/" >&2; exit 3; }
elif [ "${LONG:-0}" = 1 ]; then
    echo "verify: LONG=1 but there is no results/long/ to compare (make reproduce-long writes it)"
fi
make --no-print-directory figures-report OUT="$tmp" BUILD="$BUILD" BIN="$BIN" >"$tmp.log" 2>&1 || {
    cat "$tmp.log" >&2; rm -f "$tmp.log"; echo "verify: the rerun failed" >&2; exit 1; }
rm -f "$tmp.log"
compare results "$tmp"; status=$?
if [ -d results/long ] && [ "${LONG:-0}" = 1 ]; then
    n_main=$compared
    compare results/long "$tmp/long" || status=1
    compared=$((n_main + compared))
fi
if [ $status -eq 0 ]; then echo "verify: $compared result files agree with the committed results/"
else
    advice
fi
exit $status
