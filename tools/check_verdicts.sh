#!/bin/sh
# check_verdicts.sh CLAIMS.csv [BUILD] - fail on any FAIL verdict that is not an
# explained, expected failure (tools/expected_failures.txt).
set -eu
claims=${1:-results/claims.csv}
build=${2:-build}
expected=$(dirname "$0")/expected_failures.txt
rows=$("$build/tools/csvcol" "$claims" verdict macro id quantity)
unexpected=$(printf '%s\n' "$rows" | awk -F'\t' '$1 == "FAIL"' | while IFS="$(printf '\t')" read -r v macro id q; do
    if grep -q "^$macro[[:space:]]" "$expected"; then
        echo "expected FAIL (explained in claims.md): $id $macro" >&2
    else
        echo "UNEXPECTED FAIL: $id $macro: $q"
    fi
done)
npass=$(printf '%s\n' "$rows" | awk -F'\t' '$1 == "PASS"' | wc -l)
if [ -n "$unexpected" ]; then printf '%s\n' "$unexpected" >&2; exit 1; fi
echo "verdicts: $npass PASS; every FAIL is expected and explained"
