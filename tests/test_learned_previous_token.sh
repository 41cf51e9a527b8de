#!/bin/sh
# test_learned_previous_token.sh - bin/learned_previous_token end to end:
#   1. the same seed gives byte-identical CSVs with OMP_NUM_THREADS = 1 and 2
#      (a small run: one width, 3 seeds, 64 steps);
#   2. a --dk run repeats the numbers of that width in a run of every width
#      (every trained pair's stream is sweep_stream of its point (d_k, S));
#   2b. one trajectory per (width, seed), whatever S: a --budgets 1 run (S
#      alone) repeats the rows at S of a run of every budget, a --steps 128 run
#      the rows of a --steps 64 run at 64 and 32; and the sweep's draw 0 at
#      map-dk, taken from the map run instead of trained again, is the same as
#      when trained (--map-dk 2 against --map-dk 3 at --dk 2);
#   3. bad input exits 2 with a message naming the option, writing nothing;
#   4. the same CSVs, byte for byte, under every OpenBLAS kernel this CPU runs
#      (OPENBLAS_CORETYPE = Sandybridge, Haswell, Zen, and SkylakeX with
#      AVX-512): the training's small products go through mat_gemm's
#      fixed-order kernel (lib/math/mat.h), not the BLAS, whose rounding is
#      the kernel's and which the training amplifies (the same run through the
#      BLAS differs between Haswell and Sandybridge in every CSV).
# Run from anywhere: sh tests/test_learned_previous_token.sh (ATT_BIN_DIR=bin-x)
set -u
cd "$(dirname "$0")/.." || exit 2
BIN=${ATT_BIN_DIR:-${BIN:-bin}}
B="$BIN/learned_previous_token"
[ -x "$B" ] || { echo "test_learned_previous_token: $B not found: build it first" >&2; exit 1; }
T=$(mktemp -d "${TMPDIR:-/tmp}/att-lpt.XXXXXX") || exit 2
trap 'rm -rf "$T"' EXIT
npass=0; nfail=0
CSVS="learned_previous_token.csv learned_previous_token_draws.csv learned_previous_token_A.csv"
# the rows of d_k = $2 (a grep pattern after it: ^$2,...) in run $1's per-draw CSV
rows() { grep "^$2," "$1/learned_previous_token_draws.csv"; }
pass() { npass=$((npass + 1)); }
fail() { nfail=$((nfail + 1)); echo "FAIL  $*"; }

small="--dk 2 --seeds 3 --steps 64 --draws 20 --quiet"
mkdir -p "$T/a" "$T/b" "$T/c"
# shellcheck disable=SC2086
OMP_NUM_THREADS=1 "$B" --out "$T/a" $small; rc1=$?
# shellcheck disable=SC2086
OMP_NUM_THREADS=2 "$B" --out "$T/b" $small; rc2=$?
[ "$rc1" -le 1 ] && [ "$rc2" -le 1 ] || fail "small runs exit $rc1 / $rc2"
for f in $CSVS; do
    if cmp -s "$T/a/$f" "$T/b/$f"; then pass; else fail "$f differs between 1 and 2 threads"; fi
done

# --dk 2 alone against the rows of width 2 in a run of widths 1..16 restricted
# by seeds/steps: compare the per-draw rows of d_k = 2
OMP_NUM_THREADS=2 "$B" --out "$T/c" --seeds 3 --steps 64 --draws 20 --quiet; rc=$?
[ "$rc" -le 1 ] || fail "full small run exit $rc"
if [ "$(rows "$T/a" 2)" = "$(rows "$T/c" 2)" ]; then
    pass
else
    fail "--dk 2 does not repeat the d_k = 2 rows of the full run"
fi

# --budgets 1 (the trajectory to S, evaluated at S alone) against the rows at S
# of the five-budget run $T/a; and --map-dk 3 (the pair at d_k = 2 trained in the
# sweep, not copied from the map run) against $T/a's --map-dk 2
# shellcheck disable=SC2086
OMP_NUM_THREADS=2 "$B" --out "$T/d" $small --budgets 1; rc=$?
[ "$rc" -le 1 ] || fail "--budgets 1 run exit $rc"
if [ "$(rows "$T/a" 2,64)" = "$(rows "$T/d" 2)" ] && [ "$(rows "$T/d" 2 | wc -l)" -eq 3 ]; then
    pass
else
    fail "--budgets 1 does not repeat the rows at S = 64 of the five-budget run"
fi
# shellcheck disable=SC2086
OMP_NUM_THREADS=2 "$B" --out "$T/f" --dk 2 --seeds 3 --steps 128 --draws 20 --quiet; rc=$?
[ "$rc" -le 1 ] || fail "--steps 128 run exit $rc"
if [ "$(rows "$T/a" '2,\(32\|64\)')" = "$(rows "$T/f" '2,\(32\|64\)')" ] &&
   [ "$(rows "$T/f" '2,\(32\|64\)' | wc -l)" -eq 6 ]; then
    pass
else
    fail "--steps 128 does not repeat the rows at 32 and 64 steps of --steps 64"
fi
# shellcheck disable=SC2086
OMP_NUM_THREADS=2 "$B" --out "$T/e" $small --map-dk 3; rc=$?
[ "$rc" -le 1 ] || fail "--map-dk 3 run exit $rc"
if cmp -s "$T/a/learned_previous_token_draws.csv" "$T/e/learned_previous_token_draws.csv" &&
   ! cmp -s "$T/a/learned_previous_token_A.csv" "$T/e/learned_previous_token_A.csv"; then
    pass
else
    fail "the pair copied from the map run (--map-dk 2) differs from the pair trained (--map-dk 3)"
fi

# bad input: exit 2, the option named, nothing written
for args in "--T 1" "--vocab 1" "--seeds 1" "--steps 8" "--dk 0" "--draws 0" "--seeds x" \
            "--budgets 0" "--budgets 6" "--map-dk 0"; do
    D="$T/bad"; rm -rf "$D"; mkdir -p "$D"
    # shellcheck disable=SC2086
    "$B" --out "$D" --quiet $args >/dev/null 2>"$T/err"; rc=$?
    opt=$(echo "$args" | cut -d' ' -f1)
    if [ "$rc" -ne 2 ]; then fail "$args: exit $rc, expected 2"
    elif ! grep -q -- "$opt" "$T/err"; then
        fail "$args: message does not name $opt: $(cat "$T/err")"
    elif [ -n "$(ls -A "$D")" ]; then fail "$args: wrote $(ls "$D")"
    else pass; fi
done
# every kernel: a small run at d_k = 12 (the fixed kernel's full and narrow
# panels) byte-identical to the default kernel's
kernels="Sandybridge Haswell Zen"
grep -q '^flags.* avx512f' /proc/cpuinfo && kernels="$kernels SkylakeX"
kargs="--dk 12 --seeds 3 --steps 64 --draws 20 --quiet"
mkdir -p "$T/k0"
# shellcheck disable=SC2086
OMP_NUM_THREADS=1 "$B" --out "$T/k0" $kargs >/dev/null 2>&1
for k in $kernels; do
    mkdir -p "$T/k-$k"
    # shellcheck disable=SC2086
    OPENBLAS_CORETYPE=$k OMP_NUM_THREADS=2 "$B" --out "$T/k-$k" $kargs >/dev/null 2>&1
    for f in $CSVS; do
        if cmp -s "$T/k0/$f" "$T/k-$k/$f"; then pass
        else fail "$f differs under OPENBLAS_CORETYPE=$k"; fi
    done
done
echo "test_learned_previous_token: $npass passed, $nfail failed"
[ "$nfail" -eq 0 ]
