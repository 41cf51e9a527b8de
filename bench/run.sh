#!/bin/sh
# run.sh - `make bench`: every row measured side by side in this one run,
# printed as one table and written to $OUT/bench.md with the machine.
#
# One function per row (row_<name>), run in the order of ROWS_ALL:
#   mc         random_projections' Monte Carlo (T = 8, d = 64, d_k = 16,
#              200,000 draws): the C binary vs a vectorised NumPy version
#              (bench/rp_numpy.py), draws/s and ratio (target >= 3x)
#   rng        the same Monte Carlo vs its RNG limit: the rate at which
#              mt19937 + gsl_ran_gaussian_ziggurat produce a draw's variates
#   mpi        the Monte Carlo of row mc under MPI (bin-mpi/, make mpi):
#              draws/s on 1 and 2 ranks of one thread each (skipped without mpirun)
#   tiled      the tiled head of any_length at T = 100,000 vs a large OpenBLAS
#              DGEMM: GFLOP/s (target >= half), time (< 60 s), peak RSS (< 256 MiB);
#              the same on the AVX2 path (ATT_VEXP=avx2, OPENBLAS_CORETYPE=Haswell)
#   expcmp     lib/fast/vexp.c's exp vs SLEEF's inside the tiled head (with SLEEF)
#   extra      the rows of bench/rows/*.sh, sourced in name order
#   reproduce  wall and CPU time of `make reproduce` into a temporary folder (<= 60 s),
#              and each experiment's CPU seconds (tools/reproduce/run_one.sh prints them)
#   reproduce_avx2  the same with the AVX2 paths forced on an AVX-512 machine
#              (OPENBLAS_CORETYPE=Haswell, ATT_VEXP=avx2)
#   check      wall and CPU time of `make check` after the build (<= 45 s), and its
#              slowest suites by CPU seconds
#   ci         the last CI run's step times (CI_LOG, default /tmp/ci-times.txt,
#              written by .ci/run), or with BENCH_CI=1 a run of .ci/run's
#              steps after the install, here (<= 20 minutes)
#
# Adding rows: put them in a new file bench/rows/<name>.sh. It is sourced
# (sh, set -eu) with $B (the bench driver, bench/bench.c), $tmp (a private
# temporary folder), $BIN, $BUILD, $PY, $QUICK and the helpers below; it adds
# a table line with `row MEASUREMENT VALUE REFERENCE RATIO TARGET MET` and a
# line under the table with `bench_note TEXT`.
#
# Environment: BUILD, BIN (build products, as for make), OUT (default
# results; make bench passes its own OUT), BENCH_QUICK=1 (T = 20,000 and
# 50,000 draws instead, no make reproduce or make check: a quick look, not the
# benchmark), ATT_BENCH_ROWS="mc tiled ..." (only those rows), BENCH_CI=1
# (time CI's steps here instead of reporting the last CI log).
set -eu
BUILD=${BUILD:-build}; BIN=${BIN:-bin}; OUT=${OUT:-results}
PY=/usr/bin/python3
QUICK=${BENCH_QUICK:-0}
T_LONG=100000; DRAWS=200000
[ "$QUICK" = 1 ] && { T_LONG=20000; DRAWS=50000; }
ROWS_ALL="mc rng mpi tiled expcmp extra reproduce reproduce_avx2 check ci"
ROWS=${ATT_BENCH_ROWS:-$ROWS_ALL}
for r in $ROWS; do
    case " $ROWS_ALL " in *" $r "*) ;; *) echo "bench: ATT_BENCH_ROWS: unknown row '$r' (rows: $ROWS_ALL)" >&2; exit 2 ;; esac
done
case "$OUT" in results|results/|./results) echo "bench: writing results/bench.md (OUT=DIR elsewhere)" >&2 ;; esac

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
: > "$tmp/rows"; : > "$tmp/notes"

# ---- helpers ------------------------------------------------------------------
# value KEY FILE: the value of "KEY value" in FILE
value() { sed -n "s/^$1 //p" "$2" | head -n 1; }
now() { date +%s.%N; }
calc() { awk "BEGIN { printf \"$1\", $2 }"; }
yes_no() { awk "BEGIN { print ($1) ? \"yes\" : \"no\" }"; }
load() { cut -d ' ' -f 1-3 /proc/loadavg; }
# row MEASUREMENT VALUE REFERENCE RATIO TARGET MET: one line of the table
row() { printf '| %s | %s | %s | %s | %s | %s |\n' "$1" "$2" "$3" "$4" "$5" "$6" >> "$tmp/rows"; }
# bench_note TEXT: a line under the table
bench_note() { echo "$*" >> "$tmp/notes"; }
# CPU seconds (user + system) of this shell's finished children, from the
# second line of `times` (run in this shell, not in $(...))
cpu_of() { awk 'NR == 2 { t = 0; for (i = 1; i <= 2; i++) { split($i, a, "m");
           t += a[1] * 60 + a[2] } printf "%.1f\n", t }' "$1"; }
# timed_make NAME ARGS...: run make ARGS, its output in $tmp/NAME.log; sets
# made_s (wall seconds), made_cpu (CPU seconds of all its processes: what
# a loaded machine does not inflate), made_ok (yes/no), made_load (load
# before / after)
timed_make() {
    _n=$1; shift
    _l0=$(load); times > "$tmp/.times0"; _t0=$(now)
    # as a user runs it from a shell: not with make bench's own command-line
    # variables (MAKEFLAGS holds OUT=..., which every make inside would inherit)
    if env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u OUT make --no-print-directory "$@" >"$tmp/$_n.log" 2>&1
    then made_ok=yes; else made_ok=no; fi
    _t1=$(now); times > "$tmp/.times1"; made_load="$_l0 / $(load)"
    made_s=$(calc "%.1f" "$_t1 - $_t0")
    made_cpu=$(calc "%.1f" "$(cpu_of "$tmp/.times1") - $(cpu_of "$tmp/.times0")")
    [ "$made_ok" = yes ] || { echo "bench: make $* failed; its last lines:" >&2; tail -n 20 "$tmp/$1.log" >&2; }
}

# ---- the machine ----------------------------------------------------------------
echo "bench: machine" >&2
"$B" info > "$tmp/info"
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)
cores=$(nproc)
flags=$(sed -n 's/^flags[[:space:]]*: //p' /proc/cpuinfo | head -n 1)
has_flag() { case " $flags " in *" $1 "*) echo yes ;; *) echo no ;; esac; }
avx2=$(has_flag avx2); avx512=$(has_flag avx512f)
# the kernel OpenBLAS picked (openblas_get_corename, in bench info) and whether it was forced
coretype_note="openblas_get_corename; OPENBLAS_CORETYPE ${OPENBLAS_CORETYPE:+=$OPENBLAS_CORETYPE}${OPENBLAS_CORETYPE:-unset: the CPU's own}"
load0=$(load)

# ---- mc: the Monte Carlo, C vs NumPy ---------------------------------------------
row_mc() {
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
    r_np=$(calc "%.2f" "$mc_rate / $np_rate")
    row "random_projections Monte Carlo, T = 8, d = 64, d_k = 16, $DRAWS draws (draws/s)" "$(calc "%.0f" "$mc_rate")" \
        "NumPy $np_ver (PCG64, vectorised) $(calc "%.0f" "$np_rate")" "$r_np x" ">= 3x" "$(yes_no "$r_np >= 3")"
    if [ -n "${mc_taus_rate:-}" ]; then
        r_np_taus=$(calc "%.2f" "$mc_taus_rate / $np_rate")
        row "same, C with \`--rng taus2\` (L'Ecuyer's Tausworthe generator, period 2^88)" "$(calc "%.0f" "$mc_taus_rate")" \
            "NumPy (PCG64) $(calc "%.0f" "$np_rate")" "$r_np_taus x" ">= 3x" "$(yes_no "$r_np_taus >= 3")"
    fi
    row "same, NumPy with MT19937 (the C generator's family)" "$(calc "%.0f" "$mc_rate")" "$(calc "%.0f" "$np_mt_rate")" \
        "$(calc "%.2f" "$mc_rate / $np_mt_rate") x" "" ""
    bench_note "Monte Carlo source: $mc_what."
}

# ---- rng: the Monte Carlo vs its generator's limit --------------------------------
row_rng() {
    echo "bench: RNG rate" >&2
    "$B" rng > "$tmp/rng"
    rng_all=$(value rng_rate_all "$tmp/rng")
    rng_1=$(value rng_rate_1thread "$tmp/rng")
    vpd=$((8 * 64 + 2 * 64 * 16))
    rng_limit=$(calc "%.6g" "$rng_all / $vpd")
    # (mcfast's driver) GSL's own one-call-per-variate rate, when measured
    gsl_1=$(value rng_gsl_rate_1thread "$tmp/rng")
    [ -z "$gsl_1" ] || gsl_1="; GSL's own call: $(calc "%.3g" "$gsl_1") on one"
    if [ -n "${mc_rate:-}" ]; then
        row "Monte Carlo vs its RNG limit: mt19937 + ziggurat, $vpd variates per draw (draws/s)" "$(calc "%.0f" "$mc_rate")" \
            "$(calc "%.0f" "$rng_limit") ($(calc "%.3g" "$rng_all") variates/s on all threads, $(calc "%.3g" "$rng_1") on one$gsl_1)" \
            "$(calc "%.2f" "$mc_rate / $rng_limit")" "fraction reached" ""
    else
        row "RNG limit: mt19937 + ziggurat, $vpd variates per draw (draws/s; row mc not run)" "" \
            "$(calc "%.0f" "$rng_limit") ($(calc "%.3g" "$rng_all") variates/s on all threads)" "" "" ""
    fi
}

# ---- mpi: the same Monte Carlo under MPI, 1 and 2 ranks ------------------------------
row_mpi() {
    command -v mpirun >/dev/null 2>&1 && command -v mpicc >/dev/null 2>&1 || { echo "bench: no mpirun/mpicc: MPI row skipped" >&2; return 0; }
    make -s --no-print-directory mpi >/dev/null 2>&1 || { echo "bench: make mpi failed: MPI row skipped" >&2; return 0; }
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
    row "same Monte Carlo under MPI (bin-mpi, 1 thread per rank; CSVs of 1 and 2 ranks identical: $mpi_same): 2 ranks (draws/s)" \
        "$(calc "%.0f" "$mpi_rate_2")" "1 rank $(calc "%.0f" "$mpi_rate_1")" \
        "$(calc "%.2f" "$mpi_rate_2 / ($mpi_rate_1 + 1e-300)") x" "about 2x on 2 idle cores" ""
}

# ---- tiled: the any_length head vs DGEMM -----------------------------------------------
row_tiled() {
    echo "bench: OpenBLAS DGEMM 4096" >&2
    "$B" dgemm --n 4096 > "$tmp/dgemm"
    dg=$(value dgemm_gflops "$tmp/dgemm")
    echo "bench: tiled head, T = $T_LONG" >&2
    "$B" tiled --T "$T_LONG" > "$tmp/tiled"
    tg=$(value tiled_gflops "$tmp/tiled")
    ts=$(value tiled_seconds "$tmp/tiled")
    trss=$(value tiled_peak_rss_bytes "$tmp/tiled")
    r_dg=$(calc "%.2f" "$tg / $dg")
    rss_mib=$(calc "%.1f" "$trss / 1048576")
    paths=""
    [ -z "$(value tiled_vexp "$tmp/tiled")" ] || paths=", vexp $(value tiled_vexp "$tmp/tiled"), OpenBLAS kernel $(value tiled_blas_core "$tmp/tiled")"
    row "any_length tiled head, T = $T_LONG, d = d_k = d_v = 64$paths (GFLOP/s)" "$(calc "%.1f" "$tg")" \
        "OpenBLAS DGEMM 4096^3 $(calc "%.1f" "$dg")" "$r_dg" ">= 0.5" "$(yes_no "$r_dg >= 0.5")"
    row "same: time (s)" "$(calc "%.1f" "$ts")" "" "" "< 60 s" "$(yes_no "$ts < 60")"
    # (any_length) the AVX2 path of an AVX-512 machine, in the same run: vexp and
    # OpenBLAS both forced (ATT_VEXP=avx2, OPENBLAS_CORETYPE=Haswell, for the
    # head's own products too); target: tiled >= half of DGEMM on each path
    echo "bench: tiled head and DGEMM on the AVX2 path (ATT_VEXP=avx2, OPENBLAS_CORETYPE=Haswell)" >&2
    if ATT_VEXP=avx2 OPENBLAS_CORETYPE=Haswell "$B" dgemm --n 4096 > "$tmp/dgemm_avx2" 2>"$tmp/avx2.err" &&
            ATT_VEXP=avx2 OPENBLAS_CORETYPE=Haswell "$B" tiled --T "$T_LONG" > "$tmp/tiled_avx2" 2>>"$tmp/avx2.err"; then
        dg2=$(value dgemm_gflops "$tmp/dgemm_avx2"); tg2=$(value tiled_gflops "$tmp/tiled_avx2")
        r_dg2=$(calc "%.2f" "$tg2 / $dg2")
        row "same head on the AVX2 path: vexp $(value tiled_vexp "$tmp/tiled_avx2"), OpenBLAS kernel $(value tiled_blas_core "$tmp/tiled_avx2") (GFLOP/s; $(calc "%.1f" "$(value tiled_seconds "$tmp/tiled_avx2")") s)" \
            "$(calc "%.1f" "$tg2")" "OpenBLAS DGEMM 4096^3, kernel $(value dgemm_blas_core "$tmp/dgemm_avx2"): $(calc "%.1f" "$dg2")" \
            "$r_dg2" ">= 0.5" "$(yes_no "$r_dg2 >= 0.5")"
    else
        row "same head on the AVX2 path" "not run: $(head -n 1 "$tmp/avx2.err")" "" "" ">= 0.5" ""
    fi
    row "same: peak resident memory (MiB)" "$rss_mib" "" "" "< 256 MiB" "$(yes_no "$rss_mib < 256")"
    bench_note "GFLOP counts: DGEMM 2 n^3; the head 2 T^2 (d_k + d_v) + 2 T d (2 d_k + d_v)."
}

# ---- expcmp: our exp vs SLEEF's inside the tiled head, interleaved --------------------------
row_expcmp() {
    [ -n "$SLEEF_SRC" ] || return 0
    echo "bench: vexp vs SLEEF inside the tiled head, T = $T_LONG, 3 runs each" >&2
    "$B" expcmp --T "$T_LONG" --reps 3 > "$tmp/expcmp"
    row "tiled head, T = $T_LONG, median of 3 (s): lib/fast/vexp.c exp vs SLEEF's (interleaved)" \
        "$(calc "%.2f" "$(value exp_own_seconds_median "$tmp/expcmp")") (max $(value exp_own_max_ulps "$tmp/expcmp") ulp)" \
        "SLEEF $(calc "%.2f" "$(value exp_sleef_seconds_median "$tmp/expcmp")") (max $(value exp_sleef_max_ulps "$tmp/expcmp") ulp)" \
        "SLEEF speed / own $(value exp_sleef_speed_over_own "$tmp/expcmp")" ">= 0.95 to switch" ""
}

# ---- extra: other rows, one file each ---------------------------------------------------------
row_extra() {
    for f in bench/rows/*.sh; do
        [ -f "$f" ] || continue
        echo "bench: rows of $f" >&2
        . "./$f"
    done
}

# ---- reproduce: make reproduce, as a user runs it, into a temporary folder ---------------------
# reproduce_row LABEL DIR: time make reproduce OUT=DIR (with the caller's environment)
reproduce_row() {
    echo "bench: make reproduce OUT=$2 ($1; this takes a while)" >&2
    timed_make "reproduce-$(basename "$2")" reproduce OUT="$2" BUILD="$BUILD" BIN="$BIN"
    n_exp=$(ls "$2"/*.verdicts.csv 2>/dev/null | wc -l)
    [ "$made_ok" = yes ] && ok="$made_s s" || ok="$made_s s (FAILED)"
    row "wall time of \`make reproduce\`, $1" "$ok (cpu $made_cpu s)" "$n_exp experiments; load before / after $made_load" "" "<= 60 s on 2 idle cores" \
        "$(yes_no "\"$made_ok\" == \"yes\" && $made_s <= 60")"
    # the experiments' own times, as make reproduce prints them (tools/reproduce/run_one.sh:
    # "reproduce:   ID   N.N s (cpu M.M s)  verdicts"), by CPU seconds
    sed -n 's/^reproduce: *\([a-z_0-9]*\) *\([0-9][0-9.]*\) s (cpu *\([0-9][0-9.]*\) s).*/\1 \2 \3/p' \
        "$tmp/reproduce-$(basename "$2").log" | sort -k3 -g -r |
        awk -v l="$1" 'NR == 1 { printf "experiments by CPU seconds (%s; wall in brackets):", l }
                       { printf " %s %s s (%s s),", $1, $3, $2 } END { if (NR) print "" }' |
        sed 's/,$/./' >> "$tmp/notes"
}
row_reproduce() {
    [ "$QUICK" = 1 ] && { row "wall time of \`make reproduce\`" "skipped (BENCH_QUICK=1)" "" "" "<= 60 s" ""; return 0; }
    reproduce_row "this machine's paths (AVX-512: $avx512, OpenBLAS kernel $(value openblas_core "$tmp/info"))" "$tmp/reproduce"
}
row_reproduce_avx2() {
    [ "$QUICK" = 1 ] && return 0
    if [ "$avx512" != yes ]; then
        bench_note "No AVX-512 on this machine: the reproduce row above is the AVX2 one."
        return 0
    fi
    if grep -q ATT_VEXP lib/fast/*.c 2>/dev/null; then vexp_note="ATT_VEXP=avx2"; else vexp_note="ATT_VEXP not read by this build: only OpenBLAS forced"; fi
    OPENBLAS_CORETYPE=Haswell ATT_VEXP=avx2 reproduce_row "AVX2 forced (OPENBLAS_CORETYPE=Haswell, $vexp_note)" "$tmp/reproduce-avx2"
}

# ---- check: make check after the build -----------------------------------------------------------
row_check() {
    [ "$QUICK" = 1 ] && { row "wall time of \`make check\`" "skipped (BENCH_QUICK=1)" "" "" "<= 45 s" ""; return 0; }
    echo "bench: make tests all, then make check" >&2
    make -s --no-print-directory tests all BUILD="$BUILD" BIN="$BIN" >/dev/null
    timed_make check check BUILD="$BUILD" BIN="$BIN"
    suites=$(sed -n 's/^suites: \(.*\)/\1/p' "$tmp/check.log" | head -n 1)
    [ "$made_ok" = yes ] && ok="$made_s s" || ok="$made_s s (FAILED)"
    row "wall time of \`make check\` (built beforehand; the slow suites are in make check-all)" "$ok (cpu $made_cpu s)" \
        "${suites:-see its log}; load before / after $made_load" "" "<= 45 s" "$(yes_no "\"$made_ok\" == \"yes\" && $made_s <= 45")"
    # the slowest suites by CPU seconds (tools/test/run_tests.sh: "  name  what  N.N s (cpu M.M s)  ok")
    sed -n 's/^  *\(test_[a-z_0-9.]*\) .* \([0-9][0-9.]*\) s (cpu *\([0-9][0-9.]*\) s).*/\1 \2 \3/p' "$tmp/check.log" |
        sort -k3 -g -r | head -n 8 |
        awk 'NR == 1 { printf "slowest suites of make check by CPU seconds (wall in brackets):" }
             { printf " %s %s s (%s s),", $1, $3, $2 } END { if (NR) print "" }' | sed 's/,$/./' >> "$tmp/notes"
}

# ---- ci: the last CI run's step times, or CI's steps timed here ------------------------------------
row_ci() {
    log=${CI_LOG:-/tmp/ci-times.txt}
    if [ "${BENCH_CI:-0}" = 1 ]; then
        echo "bench: CI's steps on this installed machine (bash .ci/run; this takes 15 minutes)" >&2
        log="$tmp/ci-times.txt"
        CI_LOG="$log" bash .ci/run >"$tmp/ci.log" 2>&1 || { echo "bench: .ci/run failed:" >&2; tail -n 20 "$tmp/ci.log" >&2; }
        what="measured in this run, after the install"
    else
        what="the last CI log, $log"
    fi
    if [ ! -f "$log" ]; then
        row "CI (.ci/run), total wall time" "no CI log ($log): run .ci/run, or make bench BENCH_CI=1" "" "" "<= 20 min" ""
        return 0
    fi
    total=$(awk -F '\t' '$1 == "total" { print $2 }' "$log")
    when=$(sed -n 's/^# CI step times: //p' "$log")
    mach=$(sed -n 's/^# machine: //p' "$log")
    # steps: "name wall s" and, in newer logs, "(cpu N s)"
    steps=$(awk -F '\t' '!/^#/ && $1 != "total" { sub(/ \(.*/, "", $1); printf "%s%s %d s", (n++ ? ", " : ""), $1, $2
            if ($3 != "") printf " (cpu %d s)", $3 }' "$log")
    tcpu=$(awk -F '\t' '$1 == "total" && $3 != "" { printf " (cpu %d s)", $3 }' "$log")
    row "CI (.ci/run), total wall time ($what: $when)" "${total:-?} s ($(calc "%.1f" "${total:-0} / 60") min)$tcpu" \
        "machine: $mach" "" "<= 20 min (1200 s)" "$(yes_no "${total:-1e9} <= 1200")"
    bench_note "CI steps ($when): $steps."
}

for r in $ROWS_ALL; do
    case " $ROWS " in *" $r "*) "row_$r" ;; esac
done
load1=$(load)

# earlier_machines: the section "Earlier runs on other machines" of the new bench.md: the
# previous $OUT/bench.md's machine and its headline times in one line (unless it was this
# machine's kind, which the new table supersedes), then that file's own earlier lines of other
# kinds; the newest 6. The targets are per machine, so each line names the machine it held on.
earlier_machines() {
    prev="$OUT/bench.md"
    [ -f "$prev" ] || return 0
    kind_now="$cpu; AVX-512: $avx512; OpenBLAS kernel in use: $(value openblas_core "$tmp/info")"
    awk -v now="$kind_now" -F ' [|] ' '
        function col(line, k,   f) { split(line, f, / [|] /); return f[k] }
        function or_not(x) { return x == "" ? "not measured" : x }
        /^- kind: / { kind = substr($0, 9); sub(/ \(.*/, "", kind) }
        /^- run: / { run = substr($0, 8) }
        /^[|] wall time of `make reproduce`, this machine/ { rep = col($0, 2) }
        /^[|] wall time of `make reproduce`, AVX2 forced/ { avx2 = col($0, 2) }
        /^[|] wall time of `make check`/ { chk = col($0, 2) }
        /^[|] any_length tiled head/ { tiled = col($0, 2) " GFLOP/s, " col($0, 4) " of " col($0, 3) }
        /^## Earlier runs on other machines/ { sec = 1; next }
        sec && /^- / { if (index($0, "- " now " (") == 0) old[++n] = $0; next }
        sec && /^#/ { sec = 0 }
        END {
            if (kind == "") exit
            line = ""
            if (kind != now)
                line = "- " kind " (" run "): make reproduce " or_not(rep) "; AVX2 forced " or_not(avx2) \
                       "; make check " or_not(chk) "; tiled head " or_not(tiled)
            if (line == "" && n == 0) exit
            print ""; print "## Earlier runs on other machines"; print ""
            print "The previous make bench runs on machines of other kinds (kind, run, then the same rows):"
            print ""
            m = 0
            if (line != "") { print line; m++ }
            for (i = 1; i <= n && m < 6; i++) { print old[i]; m++ }
        }' "$prev"
}

# ---- the table ----------------------------------------------------------------------
{
echo "# Benchmarks (\`make bench\`)"
echo
echo "Every row was measured in the same run, side by side. Machine:"
echo
echo "- kind: $cpu; AVX-512: $avx512; OpenBLAS kernel in use: $(value openblas_core "$tmp/info") ($coretype_note)"
echo "- CPU: $cpu, $cores cores ($(value omp_threads "$tmp/info") OpenMP threads); AVX2: $avx2, AVX-512: $avx512"
echo "- BLAS: $(value openblas_config "$tmp/info") (kernel $(value openblas_core "$tmp/info"), $(value blas_threads "$tmp/info") threads); GSL $(value gsl "$tmp/info")"
echo "- load average at start / end: $load0 / $load1 (other processes slow every row)"
echo "- run: $(date -u '+%Y-%m-%d %H:%M UTC'), commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
echo
echo "| measurement | this project | reference | ratio | target | met |"
echo "|---|---|---|---|---|---|"
cat "$tmp/rows"
echo
cat "$tmp/notes"
earlier_machines
} > "$tmp/bench.md"
cat "$tmp/bench.md"
cp "$tmp/bench.md" "$OUT/.bench.md.tmp.$$" && mv "$OUT/.bench.md.tmp.$$" "$OUT/bench.md"
echo "bench: wrote $OUT/bench.md" >&2
