#!/bin/sh
# order.sh BUILDDIR ID ... - the IDs in the order make reproduce starts them: longest first,
# by the CPU seconds each took in this build's last reproduce (BUILDDIR/reproduce-cpu/ID, one
# number, written by run_one.sh), so that the short ones fill the cores at the end (the
# longest-first rule of list scheduling). An ID without a record (a new experiment, a fresh
# build) goes first, in the order given. Prints the IDs on one line.
set -u
build=${1:?usage: order.sh BUILDDIR ID ...}; shift
n=0
for id in "$@"; do
    n=$((n + 1))
    cpu=$(cat "$build/reproduce-cpu/$id" 2>/dev/null) || cpu=
    # key: unrecorded first (1e9), then by CPU seconds, largest first; ties in the given order
    printf '%s %s %s\n' "${cpu:-1e9}" "$n" "$id"
done | sort -k1,1gr -k2,2n | awk '{ printf "%s%s", (NR > 1 ? " " : ""), $3 } END { print "" }'
