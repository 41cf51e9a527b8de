#!/bin/sh
# test_verify.sh - make verify's comparison (tools/verify/verify.sh --compare, i.e.
# build/tools/csvcmp by each column's stored nature) holds on another CPU and still
# catches a real change:
#   1. every experiment (small draws; naive_self_attention and long_sequences,
#      pure Monte Carlo without BLAS products, are left to make verify) is run
#      with the machine's default OpenBLAS kernel, then again with
#      OPENBLAS_CORETYPE=Haswell, =Sandybridge and =Prescott (set here only,
#      for those runs): every result file of the reruns agrees with the first run;
#   2. planted changes in a copy of the first run are caught, each naming its
#      file and column: a Monte Carlo claim number moved by one CI half-width
#      (and by 1/5 of it), a rounding-level identity residual 100 times larger,
#      an exact count changed by 1, an outcome PASS -> FAIL, a Monte Carlo
#      column of a data CSV moved beyond its CI, a schema whose nature was
#      loosened, a trained head's accuracy moved by more than its seed spread;
#   2b. each nature at the edge of its tolerance, on small tables (csvcmp);
#   3. verify's advice on a failure does not tell the user to commit their own
#      machine's numbers.
# purpose: verify holds across BLAS kernels, fails a plant
set -u
cd "$(dirname "$0")/.." || exit 2
BIN=${ATT_BIN_DIR:-bin}; BUILD=${BUILD:-build}
pass=0; fail=0
ok() { pass=$((pass + 1)); }
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }
T=$(mktemp -d /tmp/attn-verify-test.XXXXXX)
trap 'rm -rf "$T"' EXIT INT TERM
[ -x "$BUILD/tools/csvcmp" ] || { echo "test_verify: build first (make all)"; exit 2; }

IDS="concentration random_projections score_asymmetry bilinear_low_rank qk_invariance key_bias
     query_bias value_bias worked_example shapes previous_token_head fused_qkv any_length
     two_queries_four_keys ov_invariance learned_previous_token"
args_of() {
    case "$1" in
    any_length) echo "--max-T 2000 --timing-max-T 5" ;;
    fused_qkv) echo "--no-timing" ;;
    learned_previous_token) echo "--draws 4 --seeds 3 --steps 160" ;;
    worked_example|shapes|two_queries_four_keys) echo "" ;;
    *) echo "--draws 128" ;;
    esac
}
run_all() { # dir [CORETYPE]
    for id in $IDS; do
        [ -x "$BIN/$id" ] || { echo "  note: $BIN/$id not built; skipped"; continue; }
        mkdir -p "$1/$id"
        # shellcheck disable=SC2046
        if [ -n "${2:-}" ]; then OPENBLAS_CORETYPE=$2 "$BIN/$id" $(args_of "$id") --out "$1/$id" --quiet >/dev/null 2>"$1/$id.err"
        else "$BIN/$id" $(args_of "$id") --out "$1/$id" --quiet >/dev/null 2>"$1/$id.err"; fi
        st=$?
        [ $st -le 1 ] || bad "$id ${2:-default kernel}: exit $st: $(head -3 "$1/$id.err")"
    done
}
compare_all() { # old new label
    for d in "$1"/*/; do
        id=$(basename "$d")
        if sh tools/verify/verify.sh --compare "$1/$id" "$2/$id" >"$T/cmp.out" 2>&1; then ok
        else bad "$3: $id moved:"; sed -n '1,12p' "$T/cmp.out"; fi
    done
}

# ---- 1. other kernels agree ----------------------------------------------------
# Haswell and Sandybridge (the issue's), and Prescott (SSE3 only): one of them differs from
# any x86-64 machine's default kernel
KERNELS=${KERNELS:-Haswell Sandybridge Prescott}
run_all "$T/ref"
echo "test_verify: default kernel ($(sed -n 's/^blas: //p' "$T/ref/qk_invariance/qk_invariance.meta")) against $KERNELS"
for ct in $KERNELS; do
    run_all "$T/$ct" "$ct"
    # the rerun really used that kernel (OpenBLAS names it in the provenance)
    if grep -q "^blas: .*$ct" "$T/$ct/qk_invariance/qk_invariance.meta" 2>/dev/null; then ok
    else bad "OPENBLAS_CORETYPE=$ct: the provenance names $(sed -n 's/^blas: //p' "$T/$ct/qk_invariance/qk_invariance.meta")"; fi
    compare_all "$T/ref" "$T/$ct" "OPENBLAS_CORETYPE=$ct"
done
# a kernel change moves the numbers at all (else step 1 proves nothing)
if cmp -s "$T/ref/qk_invariance/qk_invariance.csv" "$T/Sandybridge/qk_invariance/qk_invariance.csv"; then
    echo "  note: qk_invariance.csv is byte-identical under Sandybridge (this CPU's default kernel may be Sandybridge)"
else ok; fi

# ---- 2. planted changes are caught -----------------------------------------------
# plant FILE LINE COLUMN NEWVALUE what: copy ref, set one cell, compare, expect a named move
plant() {
    file=$1; line=$2; col=$3; value=$4; what=$5
    id=$(dirname "$file")
    rm -rf "$T/plant"; cp -r "$T/ref/$id" "$T/plant"
    python3 - "$T/plant/$(basename "$file")" "$line" "$col" "$value" <<'EOF' || { bad "$what: could not plant"; return; }
import csv, sys
path, line, col, value = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
rows = list(csv.reader(open(path, newline='')))
rows[line - 1][rows[0].index(col)] = value
with open(path, 'w', newline='') as f:
    csv.writer(f, lineterminator='\n').writerows(rows)
EOF
    if sh tools/verify/verify.sh --compare "$T/ref/$id" "$T/plant" >"$T/cmp.out" 2>&1; then
        bad "$what: not caught"
    elif grep -q "$(basename "$file") line $line, column $col" "$T/cmp.out"; then ok
    else bad "$what: caught but not named: $(head -3 "$T/cmp.out")"; fi
}
cell() { # file line column
    python3 - "$T/ref/$1" "$2" "$3" <<'EOF'
import csv, sys
rows = list(csv.reader(open(sys.argv[1], newline='')))
print(rows[int(sys.argv[2]) - 1][rows[0].index(sys.argv[3])])
EOF
}
row_of() { # file macro: the line of a verdict row
    awk -F, -v m="$2" '{ for (i = 1; i <= NF; i++) if ($i == m) { print NR; exit } }' "$T/ref/$1"
}
V=concentration/concentration.verdicts.csv
l=$(row_of $V concNormSlope)
m=$(cell $V "$l" measured); lo=$(cell $V "$l" ci_low); hi=$(cell $V "$l" ci_high)
plant $V "$l" measured "$(python3 -c "print(repr($m + ($hi - $lo) / 2))")" "a Monte Carlo claim moved by one CI half-width"
plant $V "$l" measured "$(python3 -c "print(repr($m + ($hi - $lo) / 10))")" "a Monte Carlo claim moved by 1/5 of its half-width"
plant $V "$l" ci_high "$(python3 -c "print(repr($hi + ($hi - $lo)))")" "a CI end moved"
V=qk_invariance/qk_invariance.verdicts.csv
l=$(row_of $V qkInvWqkErrMax)
plant $V "$l" measured "$(python3 -c "print(repr(100 * $(cell $V "$l" measured)))")" "a rounding-level residual 100 x larger"
plant $V "$l" verdict FAIL "an outcome PASS -> FAIL"
V=shapes/shapes.verdicts.csv
l=$(row_of $V shapesGPTTwoHead)
plant $V "$l" measured "$(($(cell $V "$l" measured) + 1))" "an exact count + 1"
# data CSVs: the first column of a nature, found in the schema (not by its name)
first_of() { # file nature: "column lo hi" of the first such column whose row-2 value is non-zero
    python3 - "$T/ref/$1" "$2" <<'EOF'
import csv, sys
path, nat = sys.argv[1], sys.argv[2]
rows = list(csv.reader(open(path, newline='')))
schema = csv.DictReader(open(path[:-4] + '.schema.csv', newline=''))
for r in schema:
    c = r['column']
    if r['nature'] != nat or c in (r['lo'], r['hi']):
        continue
    v = rows[1][rows[0].index(c)]
    if v not in ('', '0'):
        print(c, r['lo'] or '-', r['hi'] or '-')
        break
EOF
}
D=concentration/concentration.csv
set -- $(first_of $D mc)
if [ $# -eq 3 ]; then
    plant $D 2 "$1" "$(python3 -c "print(repr($(cell $D 2 "$1") + $(cell $D 2 "$3") - $(cell $D 2 "$2")))")" \
          "a Monte Carlo column ($1) of a data CSV moved by its CI width"
else bad "concentration.csv has no mc column in its schema"; fi
D=qk_invariance/qk_invariance.csv
set -- $(first_of $D rounding)
if [ $# -eq 3 ]; then
    plant $D 2 "$1" "$(python3 -c "print(repr(1000 * $(cell $D 2 "$1")))")" "a rounding column ($1) of a data CSV 1000 x larger"
else bad "qk_invariance.csv has no rounding column in its schema"; fi
D=learned_previous_token/learned_previous_token_draws.csv
plant $D 2 sep_acc "$(python3 -c "print(repr($(cell $D 2 sep_acc) - 0.3))")" "a trained head's accuracy 0.3 lower"
# a schema loosened (mc -> run) is itself a change
S=concentration/concentration.schema.csv
plant $S 4 nature run "a column's nature loosened in the schema"

# ---- 2b. each nature at its boundary (csvcmp on small tables) --------------------
u=$T/unit; mkdir -p "$u"
printf 'column,nature,lo,hi,bound\nk,exact,,,\nc,computed,,,\nm,mc,lo,hi,\nlo,mc,lo,hi,\nhi,mc,lo,hi,\nr,rounding,,,b\nb,computed,,,\ng,exact,,,\ns,training,group:g,,\nt,run,,,\n' > "$u/x.schema.csv"
printf 'k,c,m,lo,hi,r,b,g,s,t\n7,1.5,10,9,11,2e-16,1e-13,a,0.5,3\n7,1.5,10,9,11,2e-16,1e-13,a,0.7,3\n' > "$u/x.csv"
case_() { # what expect(0|1) row col value
    what=$1; want=$2; shift 2
    python3 - "$u/x.csv" "$u/y.csv" "$@" <<'EOF'
import csv, sys
rows = list(csv.reader(open(sys.argv[1], newline='')))
line, col, value = int(sys.argv[3]), sys.argv[4], sys.argv[5]
rows[line - 1][rows[0].index(col)] = value
csv.writer(open(sys.argv[2], 'w', newline=''), lineterminator='\n').writerows(rows)
EOF
    "$BUILD/tools/csvcmp" "$u/x.csv" "$u/y.csv" >"$u/out" 2>&1; st=$?
    if [ $st -eq "$want" ]; then ok; else bad "csvcmp $what: exit $st, expected $want: $(cat "$u/out")"; fi
}
case_ "exact +1" 1 2 k 8
case_ "computed within 1e-9" 0 2 c 1.5000000001
case_ "computed beyond 1e-9" 1 2 c 1.500000002
case_ "mc by 0.09 half-width" 0 2 m 10.09
case_ "mc by 0.11 half-width" 1 2 m 10.11
case_ "rounding x 3" 0 2 r 6e-16
case_ "rounding to 0 (floor bound/100)" 0 2 r 0
case_ "rounding x 100 (20 x its floor)" 1 2 r 2e-14
case_ "rounding above its bound" 1 2 r 2e-13
case_ "training within the group's sd (0.14)" 0 2 s 0.6
case_ "training beyond the group's sd" 1 2 s 0.8
case_ "run not compared" 0 2 t 300
printf 'column,nature,lo,hi,bound\nk,nonsense,,,\n' > "$u/z.schema.csv"; printf 'k\n1\n' > "$u/z.csv"
"$BUILD/tools/csvcmp" "$u/z.csv" "$u/z.csv" >"$u/out" 2>&1; st=$?
if [ $st -eq 2 ] && grep -q "unknown nature 'nonsense'" "$u/out"; then ok; else bad "a bad schema: exit $st: $(cat "$u/out")"; fi

# ---- 3. the advice on a failure ------------------------------------------------
if grep -n "commit" tools/verify/verify.sh | grep -v "Do not commit\|names the commit\|^ *#" | grep -qi "and commit\|then commit\|commit results"; then
    bad "verify.sh still advises committing results"
else ok; fi
sh tools/verify/verify.sh --compare "$T/ref/shapes" "$T/ref/concentration" >/dev/null 2>"$T/advice"
if grep -qi "do not commit your machine" "$T/advice"; then ok; else bad "verify --compare prints no advice on a failure: $(cat "$T/advice")"; fi

echo "test_verify: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
