#!/bin/sh
# fuzz/run.sh - build the libFuzzer targets with clang and run each for a
# fixed time budget (make fuzz).
#
#   fuzz_csvmat   the matrix CSV reader (tools/lib/csvmat.c)
#   fuzz_opts     the option parser (lib/run/opts.c), argv = NUL-separated pieces
# The invariants each input must satisfy are in fuzz/targets.h.
#
# Environment:
#   FUZZ_SECONDS   seconds per target (default 60)
#   FUZZ_BUDGET    instead, wall seconds for the whole run: each target gets
#                  FUZZ_BUDGET x FUZZ_JOBS / (number of targets), at least 10,
#                  so that a new target does not lengthen CI
#   FUZZ_JOBS      targets fuzzed at once (default 1; one core each)
#   FUZZ_TARGETS   which targets (default "csvmat opts")
#   FUZZ_BUILD     where the binaries and crash artifacts go (default build-fuzz)
#   FUZZ_MERGE=1   afterwards, merge what the run found into the committed
#                  corpus fuzz/corpus/<target>/ (minimised with -merge=1)
#   CLANG          the compiler (default clang)
#
# The committed corpus fuzz/corpus/<target>/ seeds every run; new inputs go to
# fuzz/corpus-work/<target>/ (not committed). Any crash, leak or timeout input
# is copied into tests/fuzz_cases/<target>/, where tests/test_robust.c replays
# it on every `make check` -- and this script then fails.
set -u
cd "$(dirname "$0")/.." || exit 2

SECS=${FUZZ_SECONDS:-60}
TARGETS=${FUZZ_TARGETS:-csvmat opts}
OUT=${FUZZ_BUILD:-build-fuzz}
CLANG=${CLANG:-clang}
JOBS=${FUZZ_JOBS:-1}

case "$SECS" in ''|*[!0-9]*) echo "fuzz/run.sh: FUZZ_SECONDS='$SECS' is not a whole number" >&2; exit 2 ;; esac
case "$JOBS" in ''|*[!0-9]*|0) echo "fuzz/run.sh: FUZZ_JOBS='$JOBS' is not a positive whole number" >&2; exit 2 ;; esac
if [ -n "${FUZZ_BUDGET:-}" ]; then
    case "$FUZZ_BUDGET" in *[!0-9]*) echo "fuzz/run.sh: FUZZ_BUDGET='$FUZZ_BUDGET' is not a whole number" >&2; exit 2 ;; esac
    n=$(echo $TARGETS | wc -w)
    [ "$JOBS" -le "$n" ] || JOBS=$n
    SECS=$((FUZZ_BUDGET * JOBS / n))
    [ "$SECS" -ge 10 ] || SECS=10
    echo "fuzz: budget ${FUZZ_BUDGET}s for $n targets, $JOBS at a time: ${SECS}s each"
fi
command -v "$CLANG" >/dev/null 2>&1 || { echo "fuzz/run.sh: $CLANG not found (apt-get install clang)" >&2; exit 2; }

GSL_CFLAGS=$(pkg-config --cflags gsl 2>/dev/null)
GSL_LIBS=$(pkg-config --libs gsl 2>/dev/null || echo "-lgsl -lgslcblas -lm")
CFLAGS="-std=c11 -g -O1 -D_GNU_SOURCE -Ilib/math -Ilib/fast -Ilib/run -Ilib/claims -Itools/lib -Wall -Wextra -Werror \
 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"

# the library sources each target needs
sources() {
    case "$1" in
    csvmat) echo "tools/lib/csvmat.c lib/math/mat.c lib/math/randn.c lib/math/mem.c lib/math/status.c" ;;
    opts) echo "lib/run/opts.c lib/run/rng.c lib/run/par.c lib/run/afile.c lib/math/mem.c lib/math/status.c" ;;
    *) echo "fuzz/run.sh: unknown target '$1'" >&2; return 1 ;;
    esac
}

mkdir -p "$OUT" || exit 2
for t in $TARGETS; do
    src=$(sources "$t") || exit 2
    bin="$OUT/fuzz_$t"
    echo "== build $bin"
    # shellcheck disable=SC2086
    $CLANG $CFLAGS $GSL_CFLAGS "fuzz/fuzz_$t.c" $src -o "$bin" $GSL_LIBS || exit 2
done

# fuzz_one TARGET: fuzz it for SECS seconds; its report in $OUT/fuzz_TARGET.report,
# its status (0 or 1) in $OUT/fuzz_TARGET.rc
fuzz_one() {
    t=$1
    bin="$OUT/fuzz_$t"
    work="fuzz/corpus-work/$t"
    art="$OUT/artifacts/$t"
    mkdir -p "$work" "$art" "fuzz/corpus/$t"
    rm -f "$art"/*
    {
    echo "== run fuzz_$t for ${SECS}s (corpus fuzz/corpus/$t, new inputs in $work)"
    ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1} \
    "$bin" -max_total_time="$SECS" -timeout=10 -rss_limit_mb=2048 -max_len=4096 \
           -print_final_stats=1 -artifact_prefix="$art/" "$work" "fuzz/corpus/$t" \
           >"$OUT/fuzz_$t.log" 2>&1
    rc=$?
    grep -E '^(Done|stat::number_of_executed_units|stat::peak_rss_mb)' "$OUT/fuzz_$t.log"
    found=$(ls "$art" 2>/dev/null | wc -l)
    if [ "$rc" -ne 0 ] || [ "$found" -ne 0 ]; then
        echo "fuzz_$t: FAILED (exit $rc, $found artifact(s)); log: $OUT/fuzz_$t.log"
        tail -n 40 "$OUT/fuzz_$t.log"
        mkdir -p "tests/fuzz_cases/$t"
        for a in "$art"/*; do
            [ -f "$a" ] || continue
            cp "$a" "tests/fuzz_cases/$t/$(basename "$a")"
            echo "  regression case added: tests/fuzz_cases/$t/$(basename "$a")"
        done
        echo 1 > "$OUT/fuzz_$t.rc"
    else
        echo "fuzz_$t: OK, no crash in ${SECS}s"
        echo 0 > "$OUT/fuzz_$t.rc"
    fi
    if [ "${FUZZ_MERGE:-0}" = 1 ]; then
        "$bin" -merge=1 "fuzz/corpus/$t" "$work" >"$OUT/merge_$t.log" 2>&1 &&
            echo "merged new inputs into fuzz/corpus/$t ($(ls "fuzz/corpus/$t" | wc -l) files)"
    fi
    } > "$OUT/fuzz_$t.report" 2>&1
}

# JOBS targets at a time; each report printed whole when its batch ends
batch=""; k=0
flush() {
    wait
    for b in $batch; do cat "$OUT/fuzz_$b.report"; done
    batch=""; k=0
}
for t in $TARGETS; do
    rm -f "$OUT/fuzz_$t.rc"
    fuzz_one "$t" &
    batch="$batch $t"; k=$((k + 1))
    [ "$k" -lt "$JOBS" ] || flush
done
flush
status=0
for t in $TARGETS; do
    [ "$(cat "$OUT/fuzz_$t.rc" 2>/dev/null)" = 0 ] || status=1
done
exit $status
