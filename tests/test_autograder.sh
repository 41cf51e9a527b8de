#!/bin/sh
# test_autograder.sh - make autograder's zip, run as Gradescope runs it.
# purpose: the Gradescope zip: no solutions; full marks, 0, and hostile files in its layout
#
# Builds build/autograder.zip (tools/make/autograder.sh), checks it holds setup.sh, run_autograder,
# the grader and the C sources, and no solution (by name or by content). Then, in a private
# mount namespace (bwrap as root: a tmpfs root, the host's /usr and /etc read-only, a /proc
# with parts covered, as Docker's is: the grader's sandbox then gets no /proc), it lays
# the zip out as Gradescope does (/autograder/source, /autograder/run_autograder,
# /autograder/submission/, /autograder/results/), runs setup.sh once (it compiles the C head;
# OPT=-O0 here: 1.4 CPU s to compile against 2.25 at -O1, and the solution's grading takes the
# same CPU with either build, 1.0 s, as the grader's calls of bin/shapes are short) and
# run_autograder on:
# the reference solution (10/10), the starter (0), and three hostile files: one that writes
# its own results.json with full marks, one that runs the solutions from the repository, one
# that forges the grader's reply (0 each, a results.json in Gradescope's form, the forged file gone). make check runs the
# solution and the results.json forger (the attack on Gradescope's own layout); make
# check-all (ATT_CHECK_ALL=1) all five (the battery grades the other attacks in make check). With a secret seed and a
# hidden test (AUTOGRADER_SEED, AUTOGRADER_HIDE), results.json shows neither the seed nor the
# test before the due date.
# Needs root (Gradescope runs as root; the outer namespace is made with root's rights).
set -u
cd "$(dirname "$0")/.." || exit 2
BUILD=${BUILD:-build}
[ "$(id -u)" = 0 ] || { echo "test_autograder: skipped: needs root (as Gradescope runs it)"; exit 0; }
command -v bwrap >/dev/null 2>&1 ||
    { echo "test_autograder: bwrap is needed (the grader's sandbox): sh tools/deps.sh as root" >&2; exit 1; }
PY=/usr/bin/python3
W=$(mktemp -d "${TMPDIR:-/tmp}/test-autograder.XXXXXX") || exit 2
trap 'rm -rf "$W"' EXIT
fails=0 checks=0
ok() { checks=$((checks + 1)); }
bad() { checks=$((checks + 1)); fails=$((fails + 1)); echo "FAIL  $*"; }
json() { "$PY" -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if eval(sys.argv[2]) else 1)' "$1" "$2"; }

make --no-print-directory autograder BUILD="$BUILD" AUTOGRADER_SEED=31337 AUTOGRADER_HIDE=fused.batched \
    >"$W/make.out" 2>&1 || { cat "$W/make.out"; echo "test_autograder: make autograder failed"; exit 1; }
Z=$BUILD/autograder.zip
"$PY" - "$Z" exercises/solutions/section_4_2.py <<'PY' && ok || bad "the zip's contents"
import sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
names = z.namelist()
sol = open(sys.argv[2], "rb").read()
need = {"setup.sh", "run_autograder", "exercises/grade.py", "src/tools/attention.c",
        "src/experiments/shapes.c", "build.sh", "config.sh"}
bad = [n for n in names if "solution" in n or z.read(n) == sol]
if need - set(names) or bad:
    sys.exit("missing %s, solutions %s" % (sorted(need - set(names)), bad))
if not z.getinfo("run_autograder").external_attr >> 16 & 0o100:
    sys.exit("run_autograder is not executable")
PY

# Gradescope's layout, in a tmpfs root of a private mount namespace
A=$W/autograder
mkdir -p "$A/source" "$A/submission" "$A/results"
(cd "$A/source" && "$PY" -m zipfile -e "$(cd - >/dev/null && pwd)/$Z" .) || { echo "test_autograder: unzip failed"; exit 1; }
chmod +x "$A/source/setup.sh" "$A/source/run_autograder" "$A/source/build.sh"
cp "$A/source/run_autograder" "$A/run_autograder"
gs() {   # gs CMD: run CMD as Gradescope would, /autograder being $A
    set --  --ro-bind /usr /usr --ro-bind /etc /etc --bind "$A" /autograder --tmpfs /tmp \
        --proc /proc --unshare-pid --dev /dev --die-with-parent --setenv OPT -O0 --chdir /autograder "$@"
    for d in bin lib lib32 lib64 libx32 sbin; do
        if [ -L "/$d" ]; then set -- --symlink "$(readlink "/$d")" "/$d" "$@"
        elif [ -d "/$d" ]; then set -- --ro-bind "/$d" "/$d" "$@"; fi
    done
    bwrap "$@"
}
# setup.sh's compile (1.4 CPU s), once per set of inputs: the two programs it built are kept in
# $BUILD/autograder-bin/KEY (KEY: the zip's C sources and build.sh, the compiler, the libraries'
# flags, OPT); a later run with the same KEY puts them into bin/ and build.sh only checks them
# (ATT_AUTOGRADER_PREBUILT=1). make check-all (ATT_CHECK_ALL=1) always compiles.
key=$( { (cd "$A/source" && find src build.sh -type f | LC_ALL=C sort | xargs sha256sum)
         cc --version; pkg-config --cflags --libs gsl openblas; echo O0; } | sha256sum | cut -c1-16)
cache=$BUILD/autograder-bin/$key prebuilt=0
if [ "${ATT_CHECK_ALL:-0}" != 1 ] && [ -x "$cache/shapes" ] && [ -x "$cache/attention" ]; then
    mkdir -p "$A/source/bin" && cp "$cache/shapes" "$cache/attention" "$A/source/bin/" && prebuilt=1
fi
gs --setenv ATT_AUTOGRADER_PREBUILT $prebuilt bash /autograder/source/setup.sh >"$W/setup.out" 2>&1 &&
    [ -x "$A/source/bin/shapes" ] && [ -x "$A/source/bin/attention" ] && ok ||
    { bad "setup.sh failed"; tail -20 "$W/setup.out"; exit 1; }
# (kept only from a compile: the newest set of inputs, the older ones removed)
if [ $prebuilt = 0 ]; then
    rm -rf "$BUILD/autograder-bin" && mkdir -p "$cache.new" &&
        cp "$A/source/bin/shapes" "$A/source/bin/attention" "$cache.new/" && mv "$cache.new" "$cache"
fi
sed "s|@ROOT@|$(pwd)|g" tests/grade/hostile_read_solutions.py >"$W/hostile_read_solutions.py"
RUNS="solution:exercises/solutions/section_4_2.py:10 results:tests/grade/hostile_results.py:0"
[ "${ATT_CHECK_ALL:-0}" = 1 ] && RUNS="$RUNS starter:exercises/section_4_2.py:0
    read:$W/hostile_read_solutions.py:0 forge:tests/grade/hostile_forge_reply.py:0"
for s in $RUNS; do
    n=${s%%:*} rest=${s#*:}; f=${rest%:*} want=${rest##*:}
    rm -rf "$A/submission" "$A/results" && mkdir -p "$A/submission" "$A/results"
    cp "$f" "$A/submission/section_4_2.py"
    gs /autograder/run_autograder >"$W/$n.out" 2>&1; st=$?
    R=$A/results/results.json
    [ $st -eq 0 ] && json "$R" "d['score'] == $want and len(d['tests']) == 6 and all('max_score' in t for t in d['tests'])" && ok ||
        { bad "$n: run_autograder exit $st, expected results.json with $want points"; cat "$W/$n.out" "$R" 2>/dev/null; }
    ! grep -q "31337\|forged" "$R" && ok || bad "$n: results.json shows the secret seed or a forged output"
    json "$R" '[t.get("visibility") for t in d["tests"]].count("after_due_date") == 1 and d["tests"][5]["visibility"] == "after_due_date"' &&
        ok || bad "$n: fused.batched is not hidden until the due date"
    cp "$R" "$W/$n.json" 2>/dev/null
    grep -q "sandbox bwrap (no /proc)" "$R" && ok || bad "$n: not graded in the sandbox (without /proc)"
done
grep -q "No such file or directory" "$W/results.json" && { [ "${ATT_CHECK_ALL:-0}" != 1 ] ||
    grep -q "No such file or directory" "$W/read.json"; } && ok || bad "the hostile files' messages do not say they found nothing"
# no submission file: a results.json that says so
rm -rf "$A/submission" "$A/results" && mkdir -p "$A/submission" "$A/results"
echo "notes" >"$A/submission/README.txt"
gs /autograder/run_autograder >"$W/none.out" 2>&1
json "$A/results/results.json" 'd["score"] == 0 and "no section_4_2.py" in d["output"]' && ok ||
    { bad "an empty submission: no results.json saying so"; cat "$W/none.out"; }

echo "test_autograder: $checks checks, $fails failed"
[ $fails -eq 0 ]
