#!/bin/sh
# run.sh - `make bench`: every row measured side by side in this one run,
# printed as one table and written to $OUT/bench.md with the machine.
#
#   1. random_projections' Monte Carlo (T = 8, d = 64, d_k = 16, 200,000
#      draws): the C binary vs a vectorised NumPy version (bench/rp_numpy.py),
#      draws/s and ratio (target >= 3x)
#   2. the same Monte Carlo vs its RNG limit: the rate at which mt19937 +
#      gsl_ran_gaussian_ziggurat produce the 2,560 variates a draw needs
#   3. the tiled head of any_length at T = 100,000 vs a large OpenBLAS DGEMM:
#      GFLOP/s (target >= half), time (target < 60 s), peak RSS (< 256 MiB)
#   4. wall time of `make reproduce` into a temporary folder
#   5. the Monte Carlo of row 1 under MPI (bin-mpi/, make mpi): draws/s on 1 and
#      2 ranks of one thread each (skipped without mpirun)
#
# Environment: BUILD, BIN (build products, as for make), OUT (default
# results), BENCH_QUICK=1 (T = 20,000 and 50,000 draws instead, no make
# reproduce: a quick look, not the benchmark).
set -eu
BUILD=${BUILD:-build}; BIN=${BIN:-bin}; OUT=${OUT:-results}
PY=/usr/bin/python3
QUICK=${BENCH_QUICK:-0}
T_LONG=100000; DRAWS=200000
[ "$QUICK" = 1 ] && { T_LONG=20000; DRAWS=50000; }

# ---- the C driver, compiled like the Makefile compiles an experiment -------
mkdir -p "$BUILD/bench" "$OUT"
GSL_LIBS=$(pkg-config --libs gsl | sed 's/-lgslcblas//')
BLAS_LIBS=$(pkg-config --exists openblas && pkg-config --libs openblas || echo -lgslcblas)
# SLEEF (Debian libsleef-dev), when installed, for `bench expcmp`: its
# exponential against lib/fast/vexp.c's inside the tiled head
SLEEF_SRC=; SLEEF_FLAGS=; SLEEF_LIBS=
if pkg-config --exists sleef 2>/dev/null; then
    ${CC:-cc} -std=c11 -O2 -g -Wall -Wextra -Werror -mavx512f -mavx2 -mfma -Ilib/math -Ilib/fast \
        -c bench/vexp_sleef.c -o "$BUILD/bench/vexp_sleef.o"
    SLEEF_SRC="$BUILD/bench/vexp_sleef.o"; SLEEF_FLAGS=-DATT_HAVE_SLEEF; SLEEF_LIBS=$(pkg-config --libs sleef)
fi
${CC:-cc} -std=c11 -O2 -g -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -D_GNU_SOURCE $SLEEF_FLAGS \
    -fopenmp -Ilib/math -Ilib/fast -Ilib/run -Ilib/claims $(pkg-config --cflags gsl) bench/bench.c $SLEEF_SRC -o "$BUILD/bench/bench" \
    -fopenmp "$BUILD/libattn.a" $GSL_LIBS $BLAS_LIBS $SLEEF_LIBS -lm
B="$BUILD/bench/bench"

tmp=$(mktemp -d /tmp/attention-bench.XXXXXX)
trap 'rm -rf "$tmp"' EXIT INT TERM

# value KEY FILE: the value of "KEY value" in FILE
value() { sed -n "s/^$1 //p" "$2" | head -n 1; }
now() { date +%s.%N; }
calc() { awk "BEGIN { printf \"$1\", $2 }"; }

echo "bench: machine" >&2
"$B" info > "$tmp/info"
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)
cores=$(nproc)
load0=$(cut -d ' ' -f 1-3 /proc/loadavg)

# ---- 1 and 2: Monte Carlo vs NumPy, vs the RNG -------------------------------
echo "bench: Monte Carlo (C), $DRAWS draws" >&2
if [ -x "$BIN/random_projections" ]; then
    t0=$(now)
    "$BIN/random_projections" --T 8 --d 64 --dk 16 --draws "$DRAWS" --quiet --out "$tmp/rp"
    t1=$(now)
    mc_rate=$(calc "%.6g" "$DRAWS / ($t1 - $t0)")
    mc_what="bin/random_projections --T 8 --d 64 --dk 16 --draws $DRAWS (whole process)"
    # the same Monte Carlo with a faster GSL generator: the run is RNG-bound
    t0=$(now)
    "$BIN/random_projections" --T 8 --d 64 --dk 16 --draws "$DRAWS" --rng taus2 --quiet --out "$tmp/rp2"
    t1=$(now)
    mc_taus_rate=$(calc "%.6g" "$DRAWS / ($t1 - $t0)")
else
    "$B" mc --T 8 --d 64 --dk 16 --draws "$DRAWS" > "$tmp/mc"
    mc_rate=$(value mc_draws_per_s "$tmp/mc")
    mc_what="bench/bench.c mc (same per-draw computation; bin/random_projections not built)"
fi
echo "bench: Monte Carlo (NumPy)" >&2
"$PY" bench/rp_numpy.py --draws "$DRAWS" --bitgen PCG64 > "$tmp/np_pcg"
"$PY" bench/rp_numpy.py --draws "$DRAWS" --bitgen MT19937 > "$tmp/np_mt"
np_rate=$(value numpy_draws_per_s "$tmp/np_pcg")
np_mt_rate=$(value numpy_draws_per_s "$tmp/np_mt")
np_ver=$(value numpy_version "$tmp/np_pcg")
echo "bench: RNG rate" >&2
"$B" rng > "$tmp/rng"
rng_all=$(value rng_rate_all "$tmp/rng")
rng_1=$(value rng_rate_1thread "$tmp/rng")
vpd=$((8 * 64 + 2 * 64 * 16))
rng_limit=$(calc "%.6g" "$rng_all / $vpd")

# ---- 5: the same Monte Carlo under MPI, 1 and 2 ranks -------------------------
mpi_row=""
if command -v mpirun >/dev/null 2>&1 && command -v mpicc >/dev/null 2>&1 &&
        make -s --no-print-directory mpi >/dev/null 2>&1; then
    mpi_rate_1=0; mpi_rate_2=0
    for np in 1 2; do
        echo "bench: Monte Carlo under MPI, $np rank(s) x 1 thread" >&2
        t0=$(now)
        if OMP_NUM_THREADS=1 mpirun --allow-run-as-root --oversubscribe --bind-to none -x OMP_NUM_THREADS \
            -np $np bin-mpi/random_projections --T 8 --d 64 --dk 16 --draws "$DRAWS" --quiet \
            --out "$tmp/mpi$np" </dev/null; then
            t1=$(now)
            eval "mpi_rate_$np=\$(calc '%.6g' '$DRAWS / ($t1 - $t0)')"
        fi
    done
    cmp -s "$tmp/mpi1/random_projections.csv" "$tmp/mpi2/random_projections.csv" && mpi_same=yes || mpi_same=NO
    mpi_row="| same Monte Carlo under MPI (bin-mpi, 1 thread per rank; CSVs of 1 and 2 ranks identical: $mpi_same): 2 ranks (draws/s) | $(calc "%.0f" "$mpi_rate_2") | 1 rank $(calc "%.0f" "$mpi_rate_1") | $(calc "%.2f" "$mpi_rate_2 / ($mpi_rate_1 + 1e-300)") x | about 2x on 2 idle cores | |"
fi

# ---- 3: tiled head vs DGEMM ---------------------------------------------------
echo "bench: OpenBLAS DGEMM 4096" >&2
"$B" dgemm --n 4096 > "$tmp/dgemm"
dg=$(value dgemm_gflops "$tmp/dgemm")
echo "bench: tiled head, T = $T_LONG" >&2
"$B" tiled --T "$T_LONG" > "$tmp/tiled"
tg=$(value tiled_gflops "$tmp/tiled")
ts=$(value tiled_seconds "$tmp/tiled")
trss=$(value tiled_peak_rss_bytes "$tmp/tiled")
# the tiled head with lib/fast/vexp.c's exponential and with SLEEF's, interleaved
if [ -n "$SLEEF_SRC" ]; then
    echo "bench: vexp vs SLEEF inside the tiled head, T = $T_LONG, 3 runs each" >&2
    "$B" expcmp --T "$T_LONG" --reps 3 > "$tmp/expcmp"
fi

# ---- 4: make reproduce ----------------------------------------------------------
if [ "$QUICK" = 1 ]; then
    rep_s="skipped (BENCH_QUICK=1)"; rep_note=""
else
    echo "bench: make reproduce OUT=$tmp/reproduce (this takes a while)" >&2
    t0=$(now)
    if make --no-print-directory reproduce OUT="$tmp/reproduce" BUILD="$BUILD" BIN="$BIN" \
            >"$tmp/reproduce.log" 2>&1; then
        t1=$(now); rep_s=$(calc "%.1f s" "$t1 - $t0")
    else
        t1=$(now); rep_s=$(calc "%.1f s (FAILED: see the log)" "$t1 - $t0")
        tail -n 20 "$tmp/reproduce.log" >&2
    fi
    n_exp=$(ls "$tmp/reproduce"/*.verdicts.csv 2>/dev/null | wc -l)
    rep_note="$n_exp experiments"
fi
load1=$(cut -d ' ' -f 1-3 /proc/loadavg)

# ---- the table ----------------------------------------------------------------------
yes_no() { awk "BEGIN { print ($1) ? \"yes\" : \"no\" }"; }
r_np=$(calc "%.2f" "$mc_rate / $np_rate")
r_np_taus=$(calc "%.2f" "${mc_taus_rate:-0} / $np_rate")
r_np_mt=$(calc "%.2f" "$mc_rate / $np_mt_rate")
r_rng=$(calc "%.2f" "$mc_rate / $rng_limit")
r_dg=$(calc "%.2f" "$tg / $dg")
rss_mib=$(calc "%.1f" "$trss / 1048576")
{
echo "# Benchmarks (\`make bench\`)"
echo
echo "Every row was measured in the same run, side by side. Machine:"
echo
echo "- CPU: $cpu, $cores cores ($(value omp_threads "$tmp/info") OpenMP threads)"
echo "- BLAS: $(value openblas_config "$tmp/info") (kernel $(value openblas_core "$tmp/info"), $(value blas_threads "$tmp/info") threads); GSL $(value gsl "$tmp/info"); NumPy $np_ver"
echo "- load average at start / end: $load0 / $load1 (other processes slow every row)"
echo
echo "| measurement | this project | reference | ratio | target | met |"
echo "|---|---|---|---|---|---|"
echo "| random_projections Monte Carlo, T = 8, d = 64, d_k = 16, $DRAWS draws (draws/s) | $(calc "%.0f" "$mc_rate") | NumPy (PCG64, vectorised) $(calc "%.0f" "$np_rate") | $r_np x | >= 3x | $(yes_no "$r_np >= 3") |"
[ -n "${mc_taus_rate:-}" ] && echo "| same, C with \`--rng taus2\` (L'Ecuyer's Tausworthe generator, period 2^88) | $(calc "%.0f" "$mc_taus_rate") | NumPy (PCG64) $(calc "%.0f" "$np_rate") | $r_np_taus x | >= 3x | $(yes_no "$r_np_taus >= 3") |"
echo "| same, NumPy with MT19937 (the C generator's family) | $(calc "%.0f" "$mc_rate") | $(calc "%.0f" "$np_mt_rate") | $r_np_mt x | | |"
echo "| Monte Carlo vs its RNG limit: mt19937 + ziggurat, $vpd variates per draw (draws/s) | $(calc "%.0f" "$mc_rate") | $(calc "%.0f" "$rng_limit") ($(calc "%.3g" "$rng_all") variates/s on all threads, $(calc "%.3g" "$rng_1") on one) | $r_rng | fraction reached | |"
echo "| any_length tiled head, T = $T_LONG, d = d_k = d_v = 64 (GFLOP/s) | $(calc "%.1f" "$tg") | OpenBLAS DGEMM 4096^3 $(calc "%.1f" "$dg") | $r_dg | >= 0.5 | $(yes_no "$r_dg >= 0.5") |"
echo "| same: time (s) | $(calc "%.1f" "$ts") | | | < 60 s | $(yes_no "$ts < 60") |"
echo "| same: peak resident memory (MiB) | $rss_mib | | | < 256 MiB | $(yes_no "$rss_mib < 256") |"
if [ -n "$SLEEF_SRC" ]; then
    echo "| tiled head, T = $T_LONG, median of 3 (s): lib/fast/vexp.c exp vs SLEEF's (interleaved) | $(calc "%.2f" "$(value exp_own_seconds_median "$tmp/expcmp")") (max $(value exp_own_max_ulps "$tmp/expcmp") ulp) | SLEEF $(calc "%.2f" "$(value exp_sleef_seconds_median "$tmp/expcmp")") (max $(value exp_sleef_max_ulps "$tmp/expcmp") ulp) | SLEEF speed / own $(value exp_sleef_speed_over_own "$tmp/expcmp") | >= 0.95 to switch | |"
fi
echo "| wall time of \`make reproduce\` | $rep_s | $rep_note | | about a minute | |"
[ -n "$mpi_row" ] && echo "$mpi_row"
echo
echo "Monte Carlo source: $mc_what."
echo "GFLOP counts: DGEMM 2 n^3; the head 2 T^2 (d_k + d_v) + 2 T d (2 d_k + d_v)."
} > "$tmp/bench.md"
cat "$tmp/bench.md"
cp "$tmp/bench.md" "$OUT/.bench.md.tmp.$$" && mv "$OUT/.bench.md.tmp.$$" "$OUT/bench.md"
echo "bench: wrote $OUT/bench.md" >&2
