#!/bin/sh
# run_one.sh ID BINDIR OUTDIR BUILDDIR [--long [ARG ...] | --draws N] - one experiment of make
# reproduce: runs BINDIR/ID --out OUTDIR --quiet (with --long: BINDIR/ID --long ARG ... --out
# OUTDIR, its progress on stderr, make reproduce-long; with --draws N, make reproduce DRAWS=N:
# BINDIR/ID --out OUTDIR --quiet --draws N when ID takes --draws, else as without) and prints,
# as it finishes, one line:
# its name, its wall time, its CPU time (user + system) and its verdicts, e.g.
#   reproduce:   key_bias                  3.1 s (cpu    5.9 s)  4 PASS, 1 REPORTED
# Exit 1 (some verdict FAIL) is a result, not an error: it exits 0 then;
# exit 2 or more is passed on, with the experiment named.
set -u
id=$1 bin=$2 out=$3 build=$4 mode=${5:-}
[ $# -ge 5 ] && shift 5 || shift $#
# --draws N only to a program whose --help lists it (the others refuse the option)
draws=""
[ "$mode" = --draws ] && "$bin/$id" --help 2>/dev/null | grep -q -- '--draws N' && draws=${1:-}
t0=$(date +%s%N)
if [ "$mode" = --long ]; then "$bin/$id" --long "$@" --out "$out"
else "$bin/$id" --out "$out" --quiet ${draws:+--draws "$draws"}; fi
st=$?
t1=$(date +%s%N)
secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", (b - a) / 1e9 }')
# CPU seconds of the finished children: the second line of `times` ("0m1.23s 0m0.45s"),
# run in this shell (in a pipe or $(...) it would see a subshell's children only)
tf=$(mktemp "${TMPDIR:-/tmp}/att-times.XXXXXX") && times > "$tf"
cpu=$(awk 'NR == 2 { t = 0; for (i = 1; i <= 2; i++) { split($i, a, "m"); t += a[1] * 60 + a[2] }
                     printf "%.1f", t }' "$tf" 2>/dev/null)
rm -f "$tf"
if [ "$st" -gt 1 ]; then
    printf 'reproduce:   %-24s %6s s (cpu %6s s)  FAILED TO RUN (exit %d)\n' "$id" "$secs" "$cpu" "$st" >&2
    exit "$st"
fi
# the CPU seconds of a default run, for the order of the next reproduce (tools/reproduce/order.sh)
if [ -z "$mode" ] && mkdir -p "$build/reproduce-cpu" 2>/dev/null; then
    echo "$cpu" > "$build/reproduce-cpu/$id.tmp.$$" && mv "$build/reproduce-cpu/$id.tmp.$$" "$build/reproduce-cpu/$id"
fi
summary=$("$build/tools/csvcol" "$out/$id.verdicts.csv" verdict 2>/dev/null |
          awk '{ n[$1]++ } END { s = ""; split("PASS FAIL INCONCLUSIVE REPORTED", k, " ");
                 for (i = 1; i <= 4; i++) if (n[k[i]]) s = s (s ? ", " : "") n[k[i]] " " k[i];
                 print s }')
printf 'reproduce:   %-24s %6s s (cpu %6s s)  %s\n' "$id" "$secs" "$cpu" "${summary:-no verdict rows}"
exit 0
