#!/bin/sh
# run_tests.sh - run test suites (make check, make check-all) and print one
# line per suite: its name, what it checks in a few words, its time, and ok,
# skipped or FAIL. A suite's own output goes to LOGDIR/<suite>.log and is
# shown only when it fails (the last 40 lines; VERBOSE=1 shows everything as
# it runs). Fails (exit 1) if any suite fails.
#
#   sh tools/test/run_tests.sh [--build CMD] [--logs DIR] [--later "SUITE..."] SUITE...
#
# TEST_JOBS suites run at once (default: the number of cores; VERBOSE=1 runs
# one at a time), the longest first (the list SLOW below, longest first), so
# that the last ones to start are short; a line per suite as it finishes.
#
# SUITE is a check binary (build/tests/test_x) or a shell test
# (tests/test_y.sh). --build CMD runs CMD first (the build), timed like a
# suite, its compiler lines in DIR/build.log. The time shown is the wall
# time and, in brackets, the CPU time (user + system) of the suite and its
# children (build/tools/reap counts those their parents left, as bwrap's
# sandboxes): on a loaded machine compare CPU times. --later names suites left
# for make check-all, so that the summary says what did not run.
#
# What a suite checks: the table below, else a line "purpose: ..." in the
# first 30 lines of its source (tests/test_x.c or tests/test_y.sh), else the
# first line of its header comment; cut to 45 characters.
set -u

logs=${BUILD:-build}/test-logs
build=""
later=""
one=0
while [ $# -gt 0 ]; do
    case "$1" in
        --build) build=$2; shift 2 ;;
        --logs) logs=$2; shift 2 ;;
        --later) later=$2; shift 2 ;;
        --one) one=1; shift ;;      # (the worker the parallel run below calls: one suite)
        *) break ;;
    esac
done
mkdir -p "$logs" || { echo "run_tests: cannot create $logs" >&2; exit 3; }
# Suites run TEST_JOBS at a time on the machine's cores, so an OpenMP thread at a barrier often
# waits for a peer that the other suite has preempted, and libgomp's default wait spins (some
# 300,000 times) before it sleeps: CPU burnt for nothing (test_stats' 2000 two-thread Monte Carlo
# runs took 1.6 to 13 CPU s beside another suite, 0.3 s with passive waits). Passive waits sleep
# at once; the threads share the work as before, so every number is the same. An
# OMP_WAIT_POLICY given in the environment is kept.
OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-passive}
export OMP_WAIT_POLICY
# The same for OpenBLAS's own threads: after each product they spin (sched_yield) some 2^28
# cycles before they sleep; 2^4 (its least) makes them sleep at once (fused_qkv --T 128: 3.5 ->
# 2.9 CPU s, test_experiments.sh 13.5 -> 11.8 s beside other work). Kept when set.
OPENBLAS_THREAD_TIMEOUT=${OPENBLAS_THREAD_TIMEOUT:-4}
export OPENBLAS_THREAD_TIMEOUT

purpose_table() {
    case "$1" in
        build)                       echo "the library, every bin/<ID>, tools, tests" ;;
        test_bias_claims|test_bias)  echo "the key bias's identities, the bias tables" ;;
        test_csvmat)                 echo "the strict matrix CSV reader" ;;
        test_exact_claims)           echo "identities behind the exact claims" ;;
        test_extreme)                echo "the head on extreme and infinite scores" ;;
        test_fused)                  echo "fused W_QKV, (out, in) storage, batching" ;;
        test_head)                   echo "the head: worked example, RoPE, gradients" ;;
        test_head_causal)            echo "the causal mask" ;;
        test_io)                     echo "option parsing, atomic files, verdict rows" ;;
        test_longseq)                echo "the long_sequences estimator" ;;
        test_machinery|test_mc)      echo "NaN rules, memory budget, Monte Carlo grids" ;;
        test_mc_claims_a|test_selfweight) echo "self-weight draws, expectations at 5 sigma" ;;
        test_mc_claims_b|test_qkov)  echo "asymmetry, low rank, QK invariance" ;;
        test_head_ref)               echo "the loop-level head equals the fast one" ;;
        test_ov_invariance)          echo "the OV circuit's invariance" ;;
        test_par)                    echo "the single-process parallel context" ;;
        test_training)              echo "the learned head: gradients, Adam, training" ;;
        test_robust)                 echo "fuzz corpus and past crash inputs replayed" ;;
        test_shapes)                 echo "attention_shapes against the real matrices" ;;
        test_softmax)                echo "stable, log-sum-exp and online softmax" ;;
        test_stats)                  echo "moments, CI coverage, the Monte Carlo engine" ;;
        test_tiled)                  echo "tiled head = plain head, its exp, threads" ;;
        test_tqfk)                   echo "two queries, four keys; the explorer state" ;;
        test_attention.sh)           echo "bin/attention against NumPy" ;;
        test_bad_inputs.sh)          echo "every bad input against the real binaries" ;;
        test_browser.sh)             echo "the browser explorer in headless Chromium" ;;
        test_experiments.sh)         echo "every experiment once, with few draws" ;;
        test_experiment)             echo "the experiment skeleton: sticky errors" ;;
        test_claims_tex.sh)          echo "claims.tex reads in a sentence" ;;
        test_grade.sh)               echo "the grader: solutions pass, wrong ones fail" ;;
        test_grade_hostile.sh)       echo "the grader's hostile battery: no false points" ;;
        test_autograder.sh)          echo "make autograder's zip in Gradescope's layout" ;;
        test_layout.sh)              echo "figure text: no overlap, nothing clipped" ;;
        test_glyphs.sh)              echo "deck glyphs: all >= 9 pt, text >= 12 pt" ;;
        test_registry.sh)            echo "the claims registry is whole" ;;
        test_reproduce_out.sh)       echo "reproduce keeps files it did not write" ;;
        test_explorer_tui.sh)        echo "the terminal explorer in tmux" ;;
        test_help.sh)                echo "make help lists every target" ;;
        test_layers.sh)              echo "lib/ includes point one way" ;;
        test_learned_previous_token.sh) echo "the learned head: threads, seeds, budgets" ;;
        test_longseq.sh)             echo "long_sequences: threads, point runs" ;;
        test_mpi.sh)                 echo "MPI on 3 ranks gives one process's bytes" ;;
        test_readme.sh)              echo "the README's student commands, as shown" ;;
        test_report.sh)              echo "the report refuses edited verdict rows" ;;
        test_selfweight_cli.sh)      echo "few draws: INCONCLUSIVE, never FAIL" ;;
        test_torch.sh)               echo "the head against PyTorch's conventions" ;;
        test_tqfk_locale.sh)         echo "explorer printout under a comma locale" ;;
        test_docs.sh)                echo "the four lecture documents build from results/" ;;
        test_threads.sh)             echo "every experiment: same bytes at 1, 2, 5 threads" ;;
        test_verify.sh)              echo "make verify: other CPUs agree, changes caught" ;;
        *) return 1 ;;
    esac
}

# purpose NAME SOURCE: a few words on what the suite checks
purpose() {
    p=$(purpose_table "$1") || p=""
    [ -n "$p" ] || [ ! -f "$2" ] || p=$(head -n 30 "$2" | sed -n 's/^[#/* ]*purpose: *//p' | head -n 1)
    if [ -z "$p" ] && [ -f "$2" ]; then
        # "test_x.c - what it checks, ..." -> the words after " - "
        p=$(head -n 5 "$2" | sed -n 's/^[#/* ]*[A-Za-z0-9_.]* - //p' | head -n 1)
    fi
    # one column: at most 45 characters, cut at a word
    printf '%s' "$p" | awk '{ if (length($0) <= 45) { print; exit } s = ""
        for (i = 1; i <= NF; i++) { if (length(s) + length($i) > 41) break; s = s (s == "" ? "" : " ") $i }
        sub(/[,;:(]$/, "", s); print s "..." }'
}

now() { date +%s.%N; }
# CPU seconds (user + system) of this shell's finished children, from the
# second line of `times` ("0m1.23s 0m0.45s"); times runs in this shell (not
# in a pipe or $(...), whose children would be another process's)
cpu_of() { awk 'NR == 2 { t = 0; for (i = 1; i <= 2; i++) { split($i, a, "m");
           t += a[1] * 60 + a[2] } printf "%.2f\n", t }' "$1"; }

# run NAME SOURCE CMD...: run one suite, print its line (and, a failure, its log's last
# lines) in one write, so that the lines of suites running at once do not mix; its result
# (ok, skipped, FAIL) in LOGDIR/NAME.result
pass=0; fail=0; skip=0; failed=""
run() {
    name=$1; src=$2; shift 2
    log="$logs/$name.log"
    # through build/tools/reap (once built): the CPU time of processes a suite's own leave
    # behind (the grader's bwrap sandboxes) is counted too
    cmd="$*"; reap=${BUILD:-build}/tools/reap
    [ -x "$reap" ] && set -- "$reap" "$@"
    t0=$(now); times >"$logs/.times0.$name"
    if [ "${VERBOSE:-0}" = 1 ]; then
        echo "== $name: $cmd"
        # the status of "$@", not of tee (POSIX sh has no pipefail)
        { "$@" </dev/null; echo $? >"$log.st"; } 2>&1 | tee "$log"
        st=$(cat "$log.st"); rm -f "$log.st"
    else
        "$@" >"$log" 2>&1 </dev/null; st=$?
    fi
    t1=$(now); times >"$logs/.times1.$name"
    c0=$(cpu_of "$logs/.times0.$name"); c1=$(cpu_of "$logs/.times1.$name")
    rm -f "$logs/.times0.$name" "$logs/.times1.$name"
    time=$(awk -v a="$t0" -v b="$t1" -v c="$c0" -v d="$c1" 'BEGIN { printf "%6.1f s (cpu %5.1f s)", b - a, d - c }')
    if [ "$st" -eq 0 ]; then
        why=$(grep -i -m 1 ': skipped' "$log" | sed 's/^.*: [Ss]kipped[ :]*//')
        [ -n "$why" ] || grep -qi ': skipped' "$log" && why=${why:-"(no reason given)"}
        if [ -n "$why" ]; then result="skipped"; skip=$((skip + 1)); else result="ok"; fi
        [ "$name" = build ] || pass=$((pass + 1))
    else
        result="FAIL (exit $st)"; fail=$((fail + 1)); failed="$failed $name"
    fi
    { printf '  %-31s %-45s %s  %s\n' "$name" "$(purpose "$name" "$src")" "$time" "$result"
      if [ "$st" -ne 0 ] && [ "${VERBOSE:-0}" != 1 ]; then
          echo "  ---- last lines of $log:"
          tail -n 40 "$log" | sed 's/^/  | /'
          echo "  ---- rerun it alone: $cmd"
      elif [ "$result" = skipped ]; then
          echo "      $why"
      fi; } >"$log.line"
    cat "$log.line"; rm -f "$log.line"
    echo "${result%% *}" >"$logs/$name.result"
}

# suite PATH: run one suite (a shell test through sh, a check binary directly)
suite() {
    n=$(basename "$1")
    case "$1" in
        *.sh) run "$n" "$1" sh "$1" ;;
        *)    run "$n" "tests/$n.c" "$1" ;;
    esac
}
if [ "$one" = 1 ]; then
    suite "$1"
    exit 0
fi

T0=$(now)
echo "$# suites (each suite's output: $logs/<suite>.log; VERBOSE=1 shows it as it runs)"
if [ -n "$build" ]; then
    run build "" sh -c "$build"
    [ "$fail" -eq 0 ] || { echo "build failed: nothing tested (whole log: $logs/build.log)"; exit 1; }
    rm -f "$logs/build.result"
fi
jobs=${TEST_JOBS:-$(nproc 2>/dev/null || echo 1)}
case "$jobs" in ''|*[!0-9]*|0) echo "run_tests: TEST_JOBS='$jobs' is not a positive whole number" >&2; exit 2 ;; esac
[ "${VERBOSE:-0}" = 1 ] && jobs=1
# the longest suites first (CPU seconds, perf task-clock with the sandboxes: check-all's 2026-12-02,
# make check's 2026-12-03; the others follow in the order given), so that two at a time end together
SLOW="test_verify.sh test_threads.sh test_bad_inputs.sh test_docs.sh test_mpi.sh test_reproduce_long.sh
      test_browser.sh test_experiments.sh test_grade_hostile.sh test_readme.sh test_lscond
      test_autograder.sh test_grade.sh test_reproduce_out.sh test_layout.sh
      test_learned_previous_token.sh test_sizes.sh test_longseq.sh test_torch.sh test_excess
      test_figures_named.sh test_selfweight_cli.sh test_tiled test_longseq test_glyphs.sh"
for s in $SLOW; do for t in "$@"; do [ "$(basename "$t")" = "$s" ] && echo "$t"; done; done >"$logs/.order"
for t in "$@"; do case " $(echo $SLOW) " in *" $(basename "$t") "*) ;; *) echo "$t" ;; esac; done >>"$logs/.order"
for t in "$@"; do rm -f "$logs/$(basename "$t").result"; done
if [ "$jobs" -eq 1 ]; then
    for t in "$@"; do suite "$t"; done
else
    echo "($jobs suites at a time, the longest first; TEST_JOBS=1 runs one at a time)"
    xargs -P "$jobs" -I{} sh "$0" --logs "$logs" --one {} <"$logs/.order"
fi
rm -f "$logs/.order"
# the results, in the order given
pass=0; fail=0; skip=0; failed=""
for t in "$@"; do
    n=$(basename "$t")
    case "$(cat "$logs/$n.result" 2>/dev/null)" in
        ok) pass=$((pass + 1)) ;;
        skipped) pass=$((pass + 1)); skip=$((skip + 1)) ;;
        *) fail=$((fail + 1)); failed="$failed $n" ;;
    esac
    rm -f "$logs/$n.result"
done
T1=$(now)
times >"$logs/.times1"
total=$(awk -v a="$T0" -v b="$T1" -v c="$(cpu_of "$logs/.times1")" 'BEGIN { printf "%.0f s (cpu %.0f s)", b - a, c }')
rm -f "$logs/.times1"
echo
[ "$fail" -eq 0 ] || echo "failing suites:$failed (their output: $logs/<suite>.log)"
[ -z "$later" ] || echo "not run here (make check-all runs them):" $(for t in $later; do basename "$t"; done)
echo "suites: $((pass - skip)) passed, $skip skipped (a tool missing), $fail failed, in $total"
[ "$fail" -eq 0 ]
