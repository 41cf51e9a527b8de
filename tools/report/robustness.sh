#!/bin/sh
# robustness.sh OUTDIR BINDIR - is a headline number one lucky seed?
#
# Reruns each experiment listed in NUMBERS below, restricted by its options to
# the point that carries the number (so the whole table costs seconds), under
# 5 seeds x 2 generators, each run into its own temporary folder with --quiet.
# From every run's <ID>.verdicts.csv it takes the verdict row with the listed
# macro: the measured value, its 95% CI (Monte Carlo rows) or its verdict
# (exact rows). Writes (atomically: a temporary, then mv)
#   OUTDIR/robustness.csv   one row per number and run (with the verdict
#                           row's nature; robustness.schema.csv: how make
#                           verify compares it)
#   OUTDIR/robustness.md    a summary per number and the table of every run
#
# "All agree", defined:
#   Monte Carlo rows: the 10 values are consistent with one common value.
#     With se_k = (ci_high - ci_low) / (2 * 1.96) and weights w_k = 1/se_k^2,
#     pooled v = sum w_k v_k / sum w_k, Cochran's Q = sum w_k (v_k - v)^2 is
#     chi-square with n - 1 degrees of freedom when all runs estimate the same
#     number; they agree when Q <= the 99.9% point of that chi-square (27.88
#     for n = 10), i.e. a disagreement this large would happen by chance less
#     than once in 1000. The pooled value comes with its 95% CI,
#     v -+ 1.96 / sqrt(sum w_k). (Asking instead that every pair of 95% CIs
#     overlap fails by chance about 15% of the time for 10 runs.)
#   Exact rows (no CI: a value against a tolerance): every run passes its rule.
#
# The runs are independent of OMP_NUM_THREADS (lib/mc.h), so they run one
# thread each, as many at a time as there are processors.
# Exit status 0; 1 if some run failed to run (exit status >= 2).
set -u
out=${1:?usage: robustness.sh OUTDIR BINDIR}
bin=${2:?usage: robustness.sh OUTDIR BINDIR}

# The second generator is of another family than the Mersenne Twister: L'Ecuyer's
# combined multiple recursive generator (GSL's cmrg; L'Ecuyer, Operations Research 44,
# 1996), the difference mod m1 of two order-3 recurrences modulo the primes
# m1 = 2^31 - 1 and m2 = 2145483479, period about 2^185. mt19937 (like taus2 and gfsr4)
# is linear over GF(2): its output bits obey XOR recurrences, the structure TestU01's
# linear-complexity and matrix-rank tests detect (mt19937 fails its LinearComp tests).
# cmrg is linear over the integers mod m instead: what structure it has is a lattice
# of its points in the unit cube, which its multipliers were chosen to make fine
# (the spectral test), and no bit-level one, so an artefact of one generator's
# structure would not reproduce under the other. Its construction is MRG32k3a's
# (L'Ecuyer 1999: the same two order-3 components, moduli near 2^32), which passes
# every test of TestU01's SmallCrush, Crush and BigCrush batteries (L'Ecuyer and
# Simard, ACM TOMS 33, 2007), as do the family's MRG31k3p and MRG63k3a; TestU01
# implements cmrg itself too (its CombMRG96). Its words have 31 bits; GSL's ziggurat
# takes two per Gaussian, which lib/math/randn.c draws in bulk like mt19937's (the same
# doubles: 11 ns a variate instead of 21 ns by GSL's calls; mt19937 3 to 4 ns).
# Measured one run at a time (this machine, 2026-12-04, at load 7 to 8 from other
# sessions), the 35 runs of each generator as listed below: mt19937 4.2 CPU s, cmrg
# 5.1 s, RANLUX at luxury level 1 (ranlxd1, the generator before) 13.2 s. The whole
# table, interleaved, two runs each: 32.5, 29.4 CPU s before (ranlxd1, and none of
# --cond 1, --no-fd, --no-exact below), 12.6, 11.8 s now. GSL's mrg (L'Ecuyer, Blouin and Couture 1993: one
# order-5 recurrence mod 2^31 - 1, two nonzero multipliers, no bulk path) took 5.0 s;
# cmrg is kept for being a combination of two components, the construction MRG32k3a
# refined. ROBUST_GENERATORS="mt19937 ranlxd1" (or ranlxd2) gives RANLUX again.
SEEDS=${ROBUST_SEEDS:-"1 2 3 4 5"}
GENERATORS=${ROBUST_GENERATORS:-"mt19937 cmrg"}

# ID|options|macro|label  (one line per number; runs are shared per ID+options)
# Options restrict a run to what its number needs, with the headline's own draws:
# naiveWidth is the exact re-weighting's (100,000 pairs per width whatever --draws
# is: --draws 128 only shrinks naive's sweep, whose plain d* only bounds its rule);
# qkInvQueryChangeOrth is the point cond(R) = 1 alone (--cond 1: its draws, whose
# stream depends on the point's coordinates only, lib/run/sweep.c; 0.02 CPU s a run
# instead of 0.14 s (mt19937) on the 17-point cond grid); keyBiasGradRatioRope needs no
# central differences (--no-fd: they draw nothing; 0.02 CPU s a run instead of 0.2 s);
# lptTiedAcc is the point (d_k = 2, S) alone (--budgets 1: the same 10 heads as the full
# run), without the exact tied heads' control (--no-exact: its own streams; 0.12 CPU s of
# a 0.6 s run). tests/test_point_alone.sh checks --cond 1, --no-fd and --no-exact.
NUMBERS="concentration|--draws 64|concNormSlope|concentration: log-log slope of mean ||x||^2 (full d grid, 64 draws per d)
concentration|--draws 64|concDotSlope|concentration: log-log slope of rms(x.y) (full d grid, 64 draws per d)
naive_self_attention|--T 12 --draws 128|naiveWidth|naive_self_attention: width d* where the mean self-weight crosses 0.995 at T = 12 (exact re-weighting, 100,000 pairs per width, as in the headline)
random_projections|--T 16 --draws 1024|rpTMeanWorst|random_projections: T x mean self-weight at T = 16 (d = 64, d_k = 16; 1024 draws)
score_asymmetry|--draws 256|asymIndep|score_asymmetry: mean relative asymmetry, independent W_Q, W_K (256 draws)
key_bias|--draws 64 --no-fd|keyBiasGradRatioRope|key_bias: mean ||dL/db_K|| / ||dL/db_Q|| with RoPE (64 draws)
qk_invariance|--draws 64 --cond 1|qkInvQueryChangeOrth|qk_invariance: mean relative change of Q, orthogonal R (64 draws)
learned_previous_token|--dk 2 --budgets 1 --no-exact|lptTiedAcc|learned_previous_token: held-out accuracy of a tied head at d_k = 2 (10 trained heads, 1600 steps; the full budget alone, the point of the verdict)"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/robustness.XXXXXX") || exit 3
trap 'rm -rf "$tmp"' EXIT INT TERM
jobs_max=$(nproc 2>/dev/null || echo 2)

# ---- 1. run every (ID, options) once per seed and generator ----------------
# The runs (70, of 0.01 to 0.6 CPU s) go to a pool of jobs_max workers (xargs -P): a worker
# takes the next run as soon as its last one ends, so no core waits for the slowest run of a
# batch. Each run writes only its own folder, so the order they finish in changes nothing.
printf '%s\n' "$NUMBERS" | awk -F'|' '!seen[$1 "|" $2]++ { print $1 "|" $2 }' > "$tmp/list"
k=0
: > "$tmp/jobs"
while IFS='|' read -r id opts; do
    k=$((k + 1))
    for gen in $GENERATORS; do
        for seed in $SEEDS; do
            dir="$tmp/run$k.$gen.$seed"
            mkdir -p "$dir"
            if [ ! -x "$bin/$id" ]; then echo missing > "$dir/status"; continue; fi
            printf '%s|%s|%s|%s|%s\n' "$dir" "$bin/$id" "$seed" "$gen" "$opts" >> "$tmp/jobs"
        done
    done
done < "$tmp/list"
# one job: DIR|PROGRAM|SEED|GENERATOR|OPTIONS (the options split at blanks)
# shellcheck disable=SC2016
xargs -d '\n' -P "$jobs_max" -n 1 sh -c 'set -f; IFS="|"; set -- $1; unset IFS
    OMP_NUM_THREADS=1 "$2" --out "$1" --quiet --seed "$3" --rng "$4" $5 2> "$1/stderr"
    echo $? > "$1/status"' sh < "$tmp/jobs" || :

# ---- 2. one CSV row per number and run -----------------------------------
csv="$tmp/robustness.csv"
echo "number,id,options,macro,seed,rng,kind,measured,ci_low,ci_high,tolerance,draws,verdict,status,nature" > "$csv"
failed=0
printf '%s\n' "$NUMBERS" | while IFS='|' read -r id opts macro label; do
    k=$(awk -F'|' -v key="$id|$opts" '$0 == key { print NR; exit }' "$tmp/list")
    for gen in $GENERATORS; do
        for seed in $SEEDS; do
            dir="$tmp/run$k.$gen.$seed"
            st=$(cat "$dir/status" 2>/dev/null || echo missing)
            awk -v label="$label" -v id="$id" -v opts="$opts" -v macro="$macro" -v seed="$seed" \
                -v gen="$gen" -v st="$st" '
                # split one CSV line into f[1..n], honouring "quoted, fields" and ""
                function csvsplit(line, f,    n, i, c, q, cur) {
                    n = 1; cur = ""; q = 0
                    for (i = 1; i <= length(line); i++) {
                        c = substr(line, i, 1)
                        if (q) {
                            if (c == "\"") {
                                if (substr(line, i + 1, 1) == "\"") { cur = cur "\""; i++ } else q = 0
                            } else cur = cur c
                        } else if (c == "\"") q = 1
                        else if (c == ",") { f[n++] = cur; cur = "" }
                        else cur = cur c
                    }
                    f[n] = cur
                    return n
                }
                function q(s) { gsub(/"/, "\"\"", s); return "\"" s "\"" }
                NR > 1 && csvsplit($0, f) >= 17 && f[16] == macro {
                    # id,kind,quantity,expected,measured,ci_low,ci_high,tolerance,draws,seed,
                    # verdict,rule,bound_lo,bound_hi,rule_text,macro,run_dependent
                    print q(label) "," id "," q(opts) "," macro "," seed "," gen "," f[2] "," f[5] "," \
                          f[6] "," f[7] "," f[8] "," f[9] "," f[11] "," st "," f[19]
                    found = 1
                }
                END {
                    if (!found)
                        print q(label) "," id "," q(opts) "," macro "," seed "," gen ",,,,,,,," \
                              (st == "0" || st == "1" ? "no such macro" : st) ",exact"
                }' "$dir/$id.verdicts.csv" 2>/dev/null >> "$csv" ||
            echo "\"$label\",$id,\"$opts\",$macro,$seed,$gen,,,,,,,,$st,exact" >> "$csv"
        done
    done
done

# ---- 3. the Markdown summary and table -----------------------------------
md="$tmp/robustness.md"
awk -v seeds="$SEEDS" -v gens="$GENERATORS" '
function csvsplit(line, f,    n, i, c, q, cur) {
    n = 1; cur = ""; q = 0
    for (i = 1; i <= length(line); i++) {
        c = substr(line, i, 1)
        if (q) {
            if (c == "\"") { if (substr(line, i + 1, 1) == "\"") { cur = cur "\""; i++ } else q = 0 }
            else cur = cur c
        } else if (c == "\"") q = 1
        else if (c == ",") { f[n++] = cur; cur = "" }
        else cur = cur c
    }
    f[n] = cur
    return n
}
function fmt(x) { return (x == "") ? "" : sprintf("%.5g", x + 0) }
function esc(s) { gsub(/\|/, "\\|", s); return s }
BEGIN {
    # 99.9% points of chi-square with 1..9 degrees of freedom
    split("10.828 13.816 16.266 18.467 20.515 22.458 24.322 26.124 27.877", chi, " ")
}
NR == 1 { next }
{
    csvsplit($0, f)
    # number,id,options,macro,seed,rng,kind,measured,ci_low,ci_high,tolerance,draws,verdict,status
    key = f[1]
    if (!(key in idx)) { idx[key] = ++nk; name[nk] = key; macro[nk] = f[4] }
    i = idx[key]; n = ++cnt[i]
    seed[i, n] = f[5]; gen[i, n] = f[6]; kind[i, n] = f[7]; v[i, n] = f[8]
    lo[i, n] = f[9]; hi[i, n] = f[10]; tol[i, n] = f[11]; ver[i, n] = f[13]; st[i, n] = f[14]
}
END {
    print "## Robustness of the headline numbers"
    print ""
    print "Each number below was measured again under 5 seeds (" seeds ") and 2 generators (" \
          gens "), each run restricted to the point that carries the number (`tools/report/robustness.sh`)."
    print "**Agree** means, for a Monte Carlo number, that the 10 values are consistent with one " \
          "common value: Cochran'"'"'s Q = sum_k (v_k - v)^2 / se_k^2 (v the inverse-variance pooled " \
          "value, se_k from each 95% CI) is at most the 99.9% point of chi-square with n - 1 " \
          "degrees of freedom (27.88 for n = 10); for an exact check, that every run passes its rule."
    print ""
    print "| number | pooled value | pooled 95% CI | smallest .. largest | Q (df) | agree |"
    print "|---|---|---|---|---|---|"
    for (i = 1; i <= nk; i++) {
        sw = 0; swv = 0; ok = 0; allpass = 1; mc = 1; vmin = ""; vmax = ""
        for (k = 1; k <= cnt[i]; k++) {
            if (v[i, k] == "") { allpass = 0; continue }
            ok++
            x = v[i, k] + 0
            if (vmin == "" || x < vmin) vmin = x
            if (vmax == "" || x > vmax) vmax = x
            if (ver[i, k] != "PASS") allpass = 0
            if (lo[i, k] == "" || hi[i, k] == "") { mc = 0; continue }
            se = (hi[i, k] - lo[i, k]) / (2 * 1.959963984540054)
            if (se <= 0) { mc = 0; continue }
            w[k] = 1 / (se * se); sw += w[k]; swv += w[k] * x
        }
        if (ok == 0) {
            printf "| %s | | | | | no runs (%s) |\n", esc(name[i]), st[i, 1]
            continue
        }
        if (mc && sw > 0) {
            m = swv / sw; Q = 0
            for (k = 1; k <= cnt[i]; k++) if (v[i, k] != "") Q += w[k] * (v[i, k] - m) ^ 2
            df = ok - 1
            crit = (df >= 1 && df <= 9) ? chi[df] : 27.877
            agree = (ok == cnt[i] && Q <= crit) ? "**yes**" : "**no**"
            pm = 1.959963984540054 / sqrt(sw)
            printf "| %s | %s | [%s, %s] | %s .. %s | %.2f (%d) | %s |\n", esc(name[i]), fmt(m),
                   fmt(m - pm), fmt(m + pm), fmt(vmin), fmt(vmax), Q, df, agree
        } else {
            agree = (ok == cnt[i] && allpass) ? "**yes** (every run passes)" : "**no**"
            printf "| %s | | | %s .. %s | | %s |\n", esc(name[i]), fmt(vmin), fmt(vmax), agree
        }
    }
    print ""
    print "Every run (the runs are smaller than the full experiment, so their CIs are wider):"
    print ""
    print "| number | seed | generator | value | 95% CI (exact checks: tolerance and verdict) |"
    print "|---|---|---|---|---|"
    for (i = 1; i <= nk; i++)
        for (k = 1; k <= cnt[i]; k++) {
            band = (lo[i, k] != "") ? "[" fmt(lo[i, k]) ", " fmt(hi[i, k]) "]" : \
                   (tol[i, k] != "" ? "tol " fmt(tol[i, k]) ": " ver[i, k] : "")
            if (v[i, k] == "") band = "(" st[i, k] ")"
            printf "| %s | %s | %s | %s | %s |\n", esc(name[i]), seed[i, k], gen[i, k],
                   fmt(v[i, k]), band
        }
}' "$csv" > "$md"

for d in "$tmp"/run*; do
    s=$(cat "$d/status" 2>/dev/null || echo 3)
    case "$s" in 0|1|missing) ;; *) failed=1; echo "robustness: a run failed ($(basename "$d")): $(head -c 300 "$d/stderr")" >&2 ;; esac
done

# how make verify compares each column (lib/run/table.h): the numbers by the
# verdict row's own nature (its last column), the rest exactly
schema="$tmp/robustness.schema.csv"
{ echo "column,nature,lo,hi,bound"
  for c in number id options macro seed rng kind; do echo "$c,exact,,,"; done
  for c in measured ci_low ci_high; do echo "$c,row,ci_low,ci_high,tolerance"; done
  echo "tolerance,computed,,,"
  for c in draws verdict status nature; do echo "$c,exact,,,"; done; } > "$schema"

# ---- 4. into place, atomically --------------------------------------------
cp "$schema" "$out/.robustness.schema.csv.tmp.$$" && mv "$out/.robustness.schema.csv.tmp.$$" "$out/robustness.schema.csv" &&
cp "$csv" "$out/.robustness.csv.tmp.$$" && mv "$out/.robustness.csv.tmp.$$" "$out/robustness.csv" &&
cp "$md" "$out/.robustness.md.tmp.$$" && mv "$out/.robustness.md.tmp.$$" "$out/robustness.md" || exit 3
sh "$(dirname "$0")/../reproduce/written.sh" "$out/robustness.schema.csv" "$out/robustness.csv" "$out/robustness.md"
echo "robustness: $(printf '%s\n' "$NUMBERS" | wc -l) numbers x $(echo $SEEDS | wc -w) seeds x $(echo $GENERATORS | wc -w) generators -> $out/robustness.{csv,md}"
exit $failed
