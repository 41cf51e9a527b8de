#!/bin/sh
# test_help.sh - make help lists every target of the Makefile, also after a
# build (when make has included the build/*.d dependency files, which once
# made it print "Makefile" in place of every target name).
#
# Every rule "name:" of the Makefile and every .PHONY name with a rule must
# appear at the start of a line of `make help`, and no line may start with a
# file name such as "Makefile" or "build/...".
set -u
cd "$(dirname "$0")/.." || exit 1
out=$(env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s --no-print-directory help 2>&1) || {
    echo "test_help: make help failed:"; echo "$out"; exit 1; }
fail=0
# the targets, read as make reads rule lines (continuations joined)
targets=$(awk '{ l = $0; while (l ~ /\\$/ && (getline n) > 0) l = substr(l, 1, length(l) - 1) " " n }
  l ~ /^[A-Za-z0-9][A-Za-z0-9_.-]*:/ && l !~ /^[^:]*:[:!?]?=/ { t = l; sub(/:.*/, "", t); print t }' Makefile | sort -u)
[ -n "$targets" ] || { echo "test_help: no targets found in the Makefile"; exit 1; }
n=0
for t in $targets; do
    n=$((n + 1))
    # a described target starts its line; the undescribed ones are on the "also" line
    if ! printf '%s\n' "$out" | grep -Eq "^  $t( |\$)|^  also .*(^| |,)$t(,| |\$)"; then
        echo "test_help: target '$t' is missing from make help"; fail=1
    fi
done
if printf '%s\n' "$out" | grep -Eq '^ *(Makefile|build|GNUmakefile)[/ :]'; then
    echo "test_help: make help prints a file name in place of a target:"
    printf '%s\n' "$out" | grep -E '^ *(Makefile|build)' | head -n 3; fail=1
fi
for t in check check-all reproduce help; do
    printf '%s\n' "$out" | grep -Eq "^  $t +[a-z]" || { echo "test_help: '$t' has no description"; fail=1; }
done
[ $fail = 0 ] && echo "test_help: all $n targets listed, each described or named as a step"
exit $fail
