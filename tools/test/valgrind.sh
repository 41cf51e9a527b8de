#!/bin/sh
# tools/test/valgrind.sh - run test binaries under valgrind (make valgrind).
#
# check's fork mode is off (CK_FORK=no) so valgrind sees the tests
# themselves; one OpenMP and one OpenBLAS thread keep thread pools out of the
# leak report. Any invalid read or write, use of uninitialised memory, or a
# definite or indirect leak makes valgrind exit 1, and so does a failing test.
# Property tests run ATT_TEST_CASES cases (default here 25 instead of 200:
# valgrind is 20-50x slower; set ATT_TEST_CASES=200 for the full run).
# VALGRIND_JOBS tests run at once (default: the number of cores, each test
# is one thread under valgrind), the slowest ones first; a line per test as
# it finishes.
#
#   sh tools/test/valgrind.sh build/tests/test_a build/tests/test_b ...
set -u
cd "$(dirname "$0")/../.." || exit 2
command -v valgrind >/dev/null 2>&1 || { echo "valgrind.sh: valgrind not found (apt-get install valgrind)" >&2; exit 2; }

# one test (the worker the parallel run below calls): its line, its status file
if [ "${1:-}" = "--one" ]; then
    t=$2; LOGDIR=$3
    name=$(basename "$t")
    log="$LOGDIR/$name.log"
    start=$(date +%s)
    valgrind --error-exitcode=1 --leak-check=full \
             --show-leak-kinds=definite,indirect --errors-for-leak-kinds=definite,indirect \
             --num-callers=30 "$t" >"$log" 2>&1
    rc=$?
    secs=$(($(date +%s) - start))
    summary=$(grep -E 'ERROR SUMMARY' "$log" | tail -n 1 | sed 's/^==[0-9]*== //; s/ (suppressed.*//')
    # the whole report in one write, so that parallel lines do not mix
    if [ "$rc" -eq 0 ]; then
        echo "== $name under valgrind ... ok, ${secs}s ($summary)" > "$log.line"
    else
        { echo "== $name under valgrind ... FAILED, ${secs}s (exit $rc; $summary)"
          grep -E '^[0-9]+%: Checks|Invalid|uninitialised|definitely lost|indirectly lost|^==[0-9]+== +(at|by) ' "$log" | head -n 40
          echo "   full log: $log"; } > "$log.line"
    fi
    echo "$rc" > "$log.rc"
    cat "$log.line"
    exit 0
fi

[ $# -gt 0 ] || { echo "usage: sh tools/test/valgrind.sh TEST_BINARY..." >&2; exit 2; }
jobs=${VALGRIND_JOBS:-$(nproc 2>/dev/null || echo 1)}
case "$jobs" in ''|*[!0-9]*|0) echo "valgrind.sh: VALGRIND_JOBS='$jobs' is not a positive whole number" >&2; exit 2 ;; esac

export CK_FORK=no OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1
# tests that run the binaries find them where make put them
[ -n "${BIN:-}" ] && export ATT_BIN_DIR="${ATT_BIN_DIR:-$BIN}"
export ATT_TEST_CASES="${ATT_TEST_CASES:-25}"
LOGDIR=$(mktemp -d "${TMPDIR:-/tmp}/att-valgrind.XXXXXX") || exit 2

# the slowest tests under valgrind first, so that the last one to start is short (with 25
# cases: test_stats and test_longseq about 3 s natively, test_lscond 1.7 s, test_excess 1 s)
SLOW="test_stats test_longseq test_lscond test_excess test_qkov test_leak test_selfweight test_tiled"
{
    for s in $SLOW; do for t in "$@"; do [ "$(basename "$t")" = "$s" ] && echo "$t"; done; done
    for t in "$@"; do case " $SLOW " in *" $(basename "$t") "*) ;; *) echo "$t" ;; esac; done
} > "$LOGDIR/order"
echo "valgrind: $# tests, $jobs at a time"
xargs -P "$jobs" -I{} sh tools/test/valgrind.sh --one {} "$LOGDIR" < "$LOGDIR/order"

pass=0
fail=0
failed=""
for t in "$@"; do
    name=$(basename "$t")
    if [ "$(cat "$LOGDIR/$name.log.rc" 2>/dev/null)" = 0 ]; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1))
        failed="$failed $name"
    fi
done
echo
[ "$fail" -eq 0 ] || echo "valgrind: failing:$failed (logs in $LOGDIR)"
echo "valgrind: $pass passed, $fail failed"
[ "$fail" -eq 0 ] && rm -rf "$LOGDIR"
[ "$fail" -eq 0 ]
