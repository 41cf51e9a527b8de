#!/bin/sh
# verify.sh - rerun every experiment into a temporary folder and compare each
# result CSV with the committed results/, each number by its NATURE, stored
# with the table in <name>.schema.csv (lib/run/table.h) and, for verdict
# rows, in their `nature` column (lib/run/verdict.h): exact values, counts
# and outcomes exactly; deterministic numbers to 1e-9; Monte Carlo estimates
# within a tenth of their own CI; rounding-level measurements (they depend on
# the CPU's BLAS kernel) by order of magnitude against their bound; training
# results within their seed-to-seed spread; times not at all (tools/verify/csvcmp.c).
# So it passes on any x86-64 machine with the same Debian packages, whatever
# its OpenBLAS kernel and thread count, and fails on a real change.
# Timing data (*_timing.csv, bench.*) and provenance (*.meta) are not compared.
#
#   sh tools/verify/verify.sh                 rerun, compare with results/
#   sh tools/verify/verify.sh --compare OLD NEW   only compare two result folders
#   sh tools/verify/verify.sh --prepare-out   only get VERIFY_OUT ready (below), then stop
# VERIFY_OUT=DIR keeps the rerun in DIR (CI checks its verdicts and builds
# the handout from it), by the rules of make reproduce's folder
# (tools/reproduce/prune_results.sh): a non-empty DIR that neither an earlier verify
# nor a reproduce wrote (no .reproduce-manifest; a .verify-out marker of an
# older verify counts as one with an empty manifest) is refused (exit 2); in
# DIR, what a killed program left is rolled forward or back first
# (build/tools/recover); then the files the previous verify wrote (its
# manifest, each still with its recorded inode and size, reached without a
# symlink, inside DIR) are removed, and only those: your own files there stay;
# the rerun records what it writes (ATT_WRITE_LOG) and leaves its manifest.
# Before anything else, results/ is recovered the same way.
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
    [ $# -eq 3 ] || { echo "usage: sh tools/verify/verify.sh [--compare OLD_DIR NEW_DIR | --prepare-out]" >&2; exit 2; }
    [ -d "$2" ] && [ -d "$3" ] || { echo "verify: $2 and $3 must be folders" >&2; exit 2; }
    compare "$2" "$3"; st=$?
    if [ $st -eq 0 ]; then echo "verify: $compared result files of $3 agree with $2"; else advice; fi
    exit $st
fi
# prune CMD: tools/reproduce/prune_results.sh CMD "$tmp", its messages in verify's words
prune() {
    BUILD="$BUILD" sh tools/reproduce/prune_results.sh "$1" "$tmp" >"$tmp.msg" 2>&1; rc=$?
    sed 's/^reproduce:/verify:/' "$tmp.msg"; rm -f "$tmp.msg"
    return $rc
}

# VERIFY_OUT: refuse a foreign folder, recover, remove the previous verify's files
prepare_out() {
    force=0
    [ -f "$tmp/.verify-out" ] && [ ! -f "$tmp/.reproduce-manifest" ] && force=1
    if ! sh tools/reproduce/prune_results.sh check "$tmp" "$force" 2>"$tmp.err"; then
        sed 's/^reproduce: refusing OUT/verify: refusing VERIFY_OUT/; s/^reproduce:/verify:/' "$tmp.err" >&2
        rm -f "$tmp.err"; exit 2
    fi
    rm -f "$tmp.err"
    mkdir -p "$tmp" || { echo "verify: cannot create $tmp" >&2; exit 3; }
    prune open >&2 || { echo "verify: cannot prepare $tmp" >&2; exit 3; }
    prune clear || exit 3
    rm -f "$tmp/.verify-out"
    # whatever a file of the suite's name holds, every experiment reruns
    for c in experiments/*.c; do rm -f "$tmp/$(basename "$c" .c).verdicts.csv"; done
    rm -f "$tmp/claims.csv"
}

if [ "${1:-}" = --prepare-out ]; then
    [ -n "${VERIFY_OUT:-}" ] || { echo "verify: --prepare-out needs VERIFY_OUT=DIR" >&2; exit 2; }
    tmp=$VERIFY_OUT; prepare_out; exit 0
fi
[ $# -eq 0 ] || { echo "usage: sh tools/verify/verify.sh [--compare OLD_DIR NEW_DIR | --prepare-out]" >&2; exit 2; }

# before anything else: a killed run's half-released files in results/ are finished or undone
if [ -x "$BUILD/tools/recover" ]; then "$BUILD/tools/recover" results || exit 3; fi
if [ -n "${VERIFY_OUT:-}" ]; then
    tmp=$VERIFY_OUT
    prepare_out
    ATT_WRITE_LOG="$(cd "$tmp" && pwd -P)/.reproduce-written"; export ATT_WRITE_LOG
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
    sh tools/reproduce/written.sh "$tmp"/long/*.verdicts.csv
elif [ "${LONG:-0}" = 1 ]; then
    echo "verify: LONG=1 but there is no results/long/ to compare (make reproduce-long writes it)"
fi
make --no-print-directory figures-report OUT="$tmp" BUILD="$BUILD" BIN="$BIN" >"$tmp.log" 2>&1 || {
    cat "$tmp.log" >&2; rm -f "$tmp.log"; echo "verify: the rerun failed" >&2; exit 1; }
rm -f "$tmp.log"
if [ -n "${VERIFY_OUT:-}" ]; then
    prune end || exit 3
fi
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
