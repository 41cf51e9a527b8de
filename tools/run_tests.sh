#!/bin/sh
# run_tests.sh - run every test (binaries, and tests/test_*.sh scripts); fail
# if any fails. Each suite prints its own summary (check's line for the C
# suites); a closing "N passed, N failed" line counts the suites.
set -u
pass=0; fail=0; failed=""
for t in "$@"; do
    echo "== $(basename "$t")"
    case "$t" in *.sh) cmd="sh $t" ;; *) cmd="$t" ;; esac
    if $cmd; then pass=$((pass + 1)); else fail=$((fail + 1)); failed="$failed $(basename "$t")"; fi
done
echo
[ "$fail" -eq 0 ] || echo "failing suites:$failed"
echo "suites: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
