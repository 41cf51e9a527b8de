#!/bin/sh
# tools/test/quick_reproduce.sh - run every $BIN/<ID> once with a small --draws
# into a temporary directory (make sanitize runs it after building the suite
# under AddressSanitizer + UndefinedBehaviorSanitizer).
#
# Fails if any binary exits with 2 or more (1 = some verdict FAIL is allowed:
# few draws give wide intervals), prints a sanitizer report, or runs longer
# than QUICK_TIMEOUT seconds. bin/attention runs the worked example in
# self-attention with gradients, with RoPE, as cross-attention, and --print.
#
# Environment: BIN (default bin), QUICK_DRAWS (default 200), QUICK_TIMEOUT
# (default 900), KEEP=1 keeps the output directory, QUICK_OUT=DIR writes
# there (kept), QUICK_ARGS_<ID> adds options for one experiment.
set -u
cd "$(dirname "$0")/../.." || exit 2
BIN=${BIN:-bin}
DRAWS=${QUICK_DRAWS:-200}
LIMIT=${QUICK_TIMEOUT:-900}
W=examples/worked

# sanitizer reports go to stderr and end the process with a distinctive code
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}exitcode=86:detect_leaks=1"
UBSAN_OPTIONS="${UBSAN_OPTIONS:+$UBSAN_OPTIONS:}exitcode=87:print_stacktrace=1:halt_on_error=1"
export ASAN_OPTIONS UBSAN_OPTIONS

ids=""
for b in "$BIN"/*; do [ -f "$b" ] && [ -x "$b" ] && ids="$ids $(basename "$b")"; done
[ -n "$ids" ] || { echo "quick_reproduce: no binaries in $BIN/: build them first" >&2; exit 2; }

if [ -n "${QUICK_OUT:-}" ]; then OUT=$QUICK_OUT; mkdir -p "$OUT" || exit 2
else
    OUT=$(mktemp -d "${TMPDIR:-/tmp}/att-quick.XXXXXX") || exit 2
    [ "${KEEP:-0}" = 1 ] || trap 'rm -rf "$OUT"' EXIT
fi
trap 'exit 130' INT TERM
bad=0

# run NAME CMD...: one run, judged by its exit code and its stderr
run() {
    name=$1
    shift
    start=$(date +%s)
    timeout "$LIMIT" "$@" >"$OUT/$name.stdout" 2>"$OUT/$name.stderr"
    rc=$?
    secs=$(($(date +%s) - start))
    if grep -qE 'ERROR: (Address|Leak)Sanitizer|runtime error:|SUMMARY: .*Sanitizer' "$OUT/$name.stderr"; then
        printf '%-34s SANITIZER (exit %d, %ds)\n' "$name" "$rc" "$secs"
        sed -n '1,40p' "$OUT/$name.stderr"
        bad=1
    elif [ "$rc" -ge 2 ]; then
        printf '%-34s exit %d (%ds)\n' "$name" "$rc" "$secs"
        sed -n '1,10p' "$OUT/$name.stderr"
        bad=1
    else
        printf '%-34s exit %d (%ds)\n' "$name" "$rc" "$secs"
    fi
}

for id in $ids; do
    b="$BIN/$id"
    if [ "$id" = attention ]; then
        ww="--wq $W/W_Q.csv --wk $W/W_K.csv --wv $W/W_V.csv"
        # shellcheck disable=SC2086
        run attention-self-grad "$b" --x $W/X.csv $ww --grad $W/G.csv --out "$OUT/attention"
        # shellcheck disable=SC2086
        run attention-rope "$b" --x $W/X.csv $ww --grad $W/G.csv --rope --scale 0.5 --out "$OUT/attention-rope"
        # shellcheck disable=SC2086
        run attention-cross "$b" --xq $W/X.csv --xkv $W/X.csv $ww --grad $W/G.csv --out "$OUT/attention-cross"
        # shellcheck disable=SC2086
        run attention-print "$b" --x $W/X.csv $ww --tokens the,cat,sat --print
        continue
    fi
    mkdir -p "$OUT/$id"
    small=""
    # its --help, read once (four runs and four greps per program were 0.2 CPU s)
    help=$("$b" --help 2>/dev/null)
    case "$help" in *"--draws N"*) small="--draws $DRAWS" ;; esac
    # a quick run of any_length stops at T = 2000 (the default goes to 100,000), and times
    # within 0.3 CPU seconds (--timing-budget; the default is 8): 6 (head, T) timed, the others
    # counted as untimed (1 s timed 17 for 0.6 s more; tests/test_timing_budget.sh checks
    # the budget's rules)
    case "$help" in *--max-T*) small="$small --max-T 2000" ;; esac
    case "$help" in *--timing-budget*) small="$small --timing-budget 0.3" ;; esac
    # a quick run of a trained experiment (learned_previous_token) trains 3 heads of 160
    # Adam steps per point, not 10 of 1600: --draws sets its held-out sequences only, so
    # the default training was most of make check's CPU (17 of 29 s in test_experiments.sh)
    case "$help" in *"--steps S"*) small="$small --seeds 3 --steps 160" ;; esac
    # fused_qkv times its products at its default T (10 CPU s); at T = 128 every check and the
    # timing code still run, in 2 s
    [ "$id" = fused_qkv ] && small="$small --T 128"
    extra=$(eval echo "\${QUICK_ARGS_$id:-}")
    # shellcheck disable=SC2086
    run "$id" "$b" --out "$OUT/$id" --quiet $small $extra
done
[ "${KEEP:-0}" = 1 ] && echo "outputs kept in $OUT"
if [ "$bad" -ne 0 ]; then
    echo "quick_reproduce: FAILED" >&2
    exit 1
fi
echo "quick_reproduce: every binary ran (exit 0 or 1), no sanitizer report"
