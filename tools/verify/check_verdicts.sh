#!/bin/sh
# check_verdicts.sh CLAIMS.csv [BUILD] - for CI: fail on any FAIL verdict that
# is not an explained, expected failure (tools/verify/expected_failures.txt), and on
# any INCONCLUSIVE claim check (the committed runs must have the draws to
# decide every claim; a precision wish alone may stay INCONCLUSIVE).
set -eu
claims=${1:-results/claims.csv}
build=${2:-build}
expected=$(dirname "$0")/expected_failures.txt
rows=$("$build/tools/csvcol" "$claims" verdict kind rule macro id quantity)
unexpected=$(printf '%s\n' "$rows" | while IFS="$(printf '\t')" read -r v kind rule macro id q; do
    case "$v" in
    FAIL)
        if grep -q "^$macro[[:space:]]" "$expected"; then echo "expected FAIL (explained in claims.md): $id $macro" >&2
        else echo "UNEXPECTED FAIL: $id \\$macro: $q"; fi ;;
    INCONCLUSIVE)
        [ "$rule" = precision ] || echo "INCONCLUSIVE $kind row (too few draws to decide): $id \\$macro: $q" ;;
    esac
done)
count() { printf '%s\n' "$rows" | awk -F'\t' -v v="$1" '$1 == v' | wc -l; }
if [ -n "$unexpected" ]; then printf '%s\n' "$unexpected" >&2; exit 1; fi
echo "verdicts: $(count PASS) PASS, $(count REPORTED) REPORTED, $(count INCONCLUSIVE) INCONCLUSIVE (precision wishes), $(count FAIL) FAIL; every FAIL is expected and explained"
