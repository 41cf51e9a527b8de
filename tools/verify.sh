#!/bin/sh
# verify.sh - rerun every experiment into a temporary folder and compare each
# result CSV with the committed results/ (numbers within 1e-9 relative, text
# and verdicts equal). Timing data (*_timing.csv, bench.*), provenance
# (*.meta) and the numbers of run-dependent verdict rows (times) are not
# compared: what is compared is identical from run to run.
# VERIFY_OUT=DIR keeps the rerun in DIR (CI checks its verdicts and builds
# the handout from it).
set -u
BUILD=${BUILD:-build}; BIN=${BIN:-bin}
if [ -n "${VERIFY_OUT:-}" ]; then tmp=$VERIFY_OUT; rm -rf "$tmp"; mkdir -p "$tmp"
else tmp=$(mktemp -d /tmp/attention-verify.XXXXXX); trap 'rm -rf "$tmp"' EXIT INT TERM; fi
echo "verify: rerunning everything into $tmp"
make --no-print-directory figures-report OUT="$tmp" BUILD="$BUILD" BIN="$BIN" >"$tmp.log" 2>&1 || {
    cat "$tmp.log" >&2; rm -f "$tmp.log"; echo "verify: the rerun failed" >&2; exit 1; }
rm -f "$tmp.log"
status=0; n=0
for old in results/*.csv; do
    name=$(basename "$old")
    case "$name" in *_timing.csv|bench*) continue ;; esac
    new="$tmp/$name"
    if [ ! -f "$new" ]; then echo "verify: $name is committed but no longer produced"; status=1; continue; fi
    n=$((n + 1))
    "$BUILD/tools/csvcmp" "$old" "$new" || status=1
done
for new in "$tmp"/*.csv; do
    name=$(basename "$new")
    case "$name" in *_timing.csv|bench*) continue ;; esac
    [ -f "results/$name" ] || { echo "verify: $name is produced but not committed (run make reproduce and commit results/)"; status=1; }
done
if [ $status -eq 0 ]; then echo "verify: $n result files agree with the committed results/"
else echo "verify: results moved (listed above): rerun make reproduce and commit results/, or find out why" >&2; fi
exit $status
