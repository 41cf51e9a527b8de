#!/bin/sh
# test_grade.sh - exercises/grade.py can tell right from wrong, gives no points a
# hostile file does not earn, and refuses to grade without a sandbox.
# purpose: the exercises' grader: solutions pass, the starter and known-wrong variants fail, hostile files are contained
#
#   1. the reference solutions get full marks (exit 0, results.json all max), in the sandbox;
#   2. the untouched starter fails every test, each with a message naming the stub or the
#      placeholder (exit 1);
#   3. every known-wrong variant in tests/grade/wrong_*.py loses points on its exercise, and
#      the mistake is named: transposed weights called a transpose, a head attending to
#      itself, off by one, too soft, values reading the position, the weight on t - 1 not
#      printed beside "needs" when it passes, nn.Linear's layout, a missing scale, 1/sqrt(d_k)
#      named as such, the wrong split order, a batch's K.T named (and not called nn.Linear),
#      float32 (make check grades one known-wrong variant of each test it names, make
#      check-all, ATT_CHECK_ALL=1, all of them);
#   4. (the hostile battery, tests/test_grade_hostile.sh, also in make check, grades every
#      hostile file: reading the solutions, a forged reply, a fork bomb, ...; this suite grades
#      none of them twice);
#   5. a folder of submissions: one JSON each whatever a file does; a file that looks for the
#      other submissions and the grades sees neither;
#   6. without a sandbox (a bwrap that is missing, or one that fails) an untrusted file is
#      refused with exit 3, a message naming bubblewrap and a JSON; --trusted grades it (make
#      check tries --trusted with the failing bwrap, make check-all with both);
#   7. a secret seed is never printed (header, results.json, replay line); --hide marks a test
#      after_due_date; usage errors exit 2; a failure's replay command reproduces it;
#   8. exercises/prev_token_csv.py writes the 4.2b head as CSV and the command it prints shows
#      row t's weight 0.999 on t - 1 (the README recipe).
# Runs the grader two at a time. Run from anywhere: sh tests/test_grade.sh (BIN=bin-x for another build)
set -u
cd "$(dirname "$0")/.." || exit 2
BIN=${BIN:-bin}
[ -x "$BIN/attention" ] && [ -x "$BIN/shapes" ] ||
    { echo "test_grade: $BIN/attention and $BIN/shapes are needed: build them first (make all)" >&2; exit 1; }
command -v bwrap >/dev/null 2>&1 ||
    { echo "test_grade: bwrap is needed (the grader's sandbox): sh tools/deps.sh as root" >&2; exit 1; }
. tests/python3.sh
# (open to read: the fake bwrap of part 6 runs as nobody when the grader is root)
W=$(mktemp -d "${TMPDIR:-/tmp}/test-grade.XXXXXX") && chmod 755 "$W" || exit 2
trap 'rm -rf "$W"' EXIT
fails=0 checks=0
ok() { checks=$((checks + 1)); }
bad() { checks=$((checks + 1)); fails=$((fails + 1)); echo "FAIL  $*"; }
# the grader and the JSON checks need only the standard library: -S skips site-packages' .pth
# files at each start (a pyenv Python here: 46 against 16 ms of CPU for a JSON check)
G() { "$PY" -S exercises/grade.py "$@" --bin "$BIN"; }
# the interpreter with NumPy and the sandbox, found once (each grader run would look again)
GRADE_SUITE=test_grade . tests/grade_env.sh
# a secret in the grader's environment: no submission may read it
export ATT_GRADE_TEST_SECRET=s3cr3t-$$

# a JSON field check: json FILE PYTHON-EXPRESSION-over-d (prints nothing if true)
json() { "$PY" -S -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if eval(sys.argv[2]) else 1)' "$1" "$2"; }
# batch: lines "NAME FILE ARGS..." on stdin; grades each (two at a time) into $W/NAME.{out,json,st}
batch() {
    # shellcheck disable=SC2016
    xargs -P 2 -L 1 sh -c 'n=$1 f=$2; shift 2; s=$(date +%s)
        "$0" -S exercises/grade.py "$f" "$@" --bin "$BIN" --json "$W/$n.json" >"$W/$n.out" 2>&1
        echo $? >"$W/$n.st"; echo $(( $(date +%s) - s )) >"$W/$n.took"' "$PY"
}
export W BIN
# fill in the paths a hostile file needs (the repository, a folder of submissions, the grades)
# shellcheck disable=SC2086
template() { sed $FILL -e "s|@ROOT@|$(pwd)|g" -e "s|@SUBS@|$W/subs|g" -e "s|@GRADES@|$W/grades|g" "$1"; }
bins_sum() { cat "$BIN/shapes" "$BIN/attention" | cksum; }
bins_before=$(bins_sum)
# a victim file and escape paths of this run alone (another run may be grading at the same time)
echo victim >"$W/victim.txt"
mkdir "$W/escdir"
FILL="-e s|@VICTIM@|$W/victim.txt|g -e s|@ESCAPE@|$W/escape.txt|g -e s|@ESCDIR@|$W/escdir|g"
git status --porcelain --untracked-files=all >"$W/git-before" 2>/dev/null

# ---- 1, 2, 3: the solutions, the starter, the known-wrong variants, two at a time -------
# the variants graded: all in make check-all; in make check one of each test (shapes.random,
# prev_token.small, fused.single, fused.batched), each a different diagnosis
WRONG='tests/grade/wrong_*.py'   # (a pattern, expanded where it is used)
[ "${ATT_CHECK_ALL:-0}" = 1 ] || WRONG="tests/grade/wrong_shapes_transposed_weights.py tests/grade/wrong_prev_self.py
    tests/grade/wrong_fused_noscale.py tests/grade/wrong_fused_batch_kT.py"
{
    echo "sol exercises/solutions/section_4_2.py"
    echo "start exercises/section_4_2.py"
    for f in $WRONG; do
        case $f in
        *shapes*) t=shapes.random ;;
        *prev*) t=prev_token.small ;;
        *fused_batch*) t=fused.batched ;;
        *fused*) t=fused.single ;;
        esac
        echo "$(basename "$f" .py) $f --test $t"
    done
} | batch
[ "$(cat "$W/sol.st")" -eq 0 ] && ok || { bad "solutions: exit $(cat "$W/sol.st"), expected 0"; cat "$W/sol.out"; }
json "$W/sol.json" 'd["score"] == 10 and len(d["tests"]) == 6 and all(t["score"] == t["max_score"] > 0 and t["name"] and t["output"] for t in d["tests"])' &&
    ok || bad "solutions: results.json is not full marks in Gradescope's form"
grep -q "total 10/10" "$W/sol.out" && grep -q "sandbox bwrap" "$W/sol.out" && ok ||
    bad "solutions: no 'total 10/10' line, or not graded in the sandbox"
echo "test_grade: the solutions took $(cat "$W/sol.took") s (wall, two gradings at a time)"
[ "$(cat "$W/start.st")" -eq 1 ] && ok || bad "starter: exit $(cat "$W/start.st"), expected 1"
json "$W/start.json" 'd["score"] == 0 and all(t["score"] == 0 for t in d["tests"]) and all(("the starter" in t["output"]) for t in d["tests"])' &&
    ok || { bad "starter: not every test failed with a message naming the stub or the placeholder"; cat "$W/start.out"; }
for f in $WRONG; do
    [ -f "$f" ] || { bad "$f: no such known-wrong variant"; continue; }
    n=$(basename "$f" .py)
    [ "$(cat "$W/$n.st")" -eq 1 ] && json "$W/$n.json" 'd["score"] < sum(t["max_score"] for t in d["tests"])' && ok ||
        { bad "$f: exit $(cat "$W/$n.st"), expected 1 with points lost"; cat "$W/$n.out"; }
    want='' not=''
    case $f in
    *fused_transposed*) want="nn.Linear" ;;
    *fused_noscale*) want="ignores the scale" not="1/sqrt" ;;
    *fused_sqrtdk*) want="uses 1/sqrt(d_k) = " not="ignores the scale" ;;
    *fused_split_noscale*) want="no single known mistake" not="split order is wrong" ;;
    *fused_split*) want="split order is wrong" ;;
    *fused_float32*) want="float64" ;;
    *fused_batch_kT*) want="right for 2-D arrays only" not="nn.Linear" ;;
    *prev_self*) want="attending to itself" ;;
    *prev_next*) want="off by one" ;;
    *prev_transposed*) want="W_Q is transposed" ;;
    *prev_soft*) want="too soft" ;;
    *prev_values*) want="(enough: > 0.5)" not="needs > 0.5" ;;
    *params*) want="no W_O" ;;
    *transposed_weights*) want="that is the transpose" ;;
    esac
    [ -z "$want" ] || { grep -qF "$want" "$W/$n.out" && ok || { bad "$f: the message does not say '$want'"; cat "$W/$n.out"; }; }
    [ -z "$not" ] || { grep -qF "$not" "$W/$n.out" && { bad "$f: the message says '$not'"; cat "$W/$n.out"; } || ok; }
done

# ---- 5. a folder of submissions -----------------------------------------------------------
mkdir -p "$W/subs" "$W/grades"
cp exercises/solutions/section_4_2.py "$W/subs/alice_secret.py"
cp exercises/section_4_2.py "$W/subs/bob.py"
template tests/grade/hostile_peek.py >"$W/subs/carol.py"
cp tests/grade/hostile_forge_values.py "$W/subs/dave.py"
G "$W/subs" --test fused.single --json "$W/grades" >"$W/f.out" 2>&1; st=$?
[ $st -eq 1 ] && grep -Eq '^alice_secret\.py +2/2$' "$W/f.out" && grep -Eq '^bob\.py +0/2$' "$W/f.out" &&
    grep -Eq '^carol\.py +0/2$' "$W/f.out" && grep -Eq '^dave\.py +0/2$' "$W/f.out" && ok ||
    { bad "a folder: exit $st, expected 1 with alice_secret.py 2/2, bob.py, carol.py, dave.py 0/2"; cat "$W/f.out"; }
for s in alice_secret:2 bob:0 carol:0 dave:0; do
    json "$W/grades/${s%:*}.json" "d['score'] == ${s#*:}" && ok || bad "a folder: grades/${s%:*}.json is not ${s#*:} points"
done
# carol listed what she could see: not alice's file, not the grades
grep -q "seen:" "$W/grades/carol.json" && ! grep -q "alice_secret\|bob.py\|\.json" "$W/grades/carol.json" && ok ||
    { bad "a folder: a submission saw the other submissions or the grades"; cat "$W/grades/carol.json"; }
grep -l "$ATT_GRADE_TEST_SECRET" "$W/f.out" "$W"/grades/*.json >/dev/null 2>&1 &&
    bad "a submission of the folder read the grader's environment" || ok

# ---- 6. no sandbox: refused unless --trusted -------------------------------------------------
printf '#!/bin/sh\necho "bwrap: No permissions to create new namespace" >&2\nexit 1\n' >"$W/failing-bwrap"
chmod +x "$W/failing-bwrap"
for b in "$W/no-such-bwrap" "$W/failing-bwrap"; do
    ATT_GRADE_BWRAP=$b G exercises/solutions/section_4_2.py --test shapes.gpt2 --json "$W/nb.json" >"$W/nb.out" 2>&1; st=$?
    [ $st -eq 3 ] && grep -q "refusing to run" "$W/nb.out" && grep -q "apt-get install bubblewrap" "$W/nb.out" &&
        grep -q -- "--trusted" "$W/nb.out" && json "$W/nb.json" 'd["score"] == 0 and "refusing" in d["output"]' && ok ||
        { bad "no sandbox ($b): exit $st, expected 3 with a refusal naming bubblewrap and --trusted, and a JSON"; cat "$W/nb.out"; }
    # --trusted grades it, the same code after either refusal: make check tries it after one
    [ "$b" = "$W/failing-bwrap" ] || [ "${ATT_CHECK_ALL:-0}" = 1 ] || continue
    ATT_GRADE_BWRAP=$b G exercises/solutions/section_4_2.py --test shapes.gpt2 --trusted >"$W/nt.out" 2>&1; st=$?
    [ $st -eq 0 ] && grep -q "NO SANDBOX" "$W/nt.out" && ok ||
        { bad "no sandbox ($b), --trusted: exit $st, expected 0 without a sandbox"; cat "$W/nt.out"; }
done
# make grade is the student's own command: it passes --trusted
grep -A3 '^grade:' Makefile | grep -q -- '--trusted' && ok || bad "make grade does not pass --trusted"

# ---- 7. a secret seed, hidden tests, usage and replay ----------------------------------------
G tests/grade/wrong_fused_noscale.py --test fused.single --seed 987654321 --hide fused.single \
    --json "$W/sec.json" >"$W/sec.out" 2>&1; st=$?
[ $st -eq 1 ] && ! grep -q 987654321 "$W/sec.out" "$W/sec.json" && grep -q "secret seed" "$W/sec.json" && ok ||
    { bad "a secret seed: exit $st, expected 1 and the seed nowhere in the output or results.json"; cat "$W/sec.out"; }
json "$W/sec.json" 'd["tests"][0]["visibility"] == "after_due_date"' && ok || bad "--hide: the test is not after_due_date"
echo 424242 >"$W/seed"
G tests/grade/wrong_fused_noscale.py --test fused.single --seed-file "$W/seed" >"$W/sf.out" 2>&1
! grep -q 424242 "$W/sf.out" && grep -q FAIL "$W/sf.out" && ok || bad "--seed-file: the seed is printed, or nothing failed"
G "$W/no-such-file.py" >/dev/null 2>&1; st=$?
[ $st -eq 2 ] && ok || bad "a missing file: exit $st, expected 2"
G exercises/solutions/section_4_2.py --test no.such.test >/dev/null 2>&1; st=$?
[ $st -eq 2 ] && ok || bad "an unknown test: exit $st, expected 2"
# the failure to replay: part 3's grading of wrong_fused_noscale.py (public seed, fused.single)
cp "$W/wrong_fused_noscale.out" "$W/r1.out"
replay=$(sed -n 's/.*replay: //p' "$W/r1.out" | head -1)
if [ -n "$replay" ]; then
    # its arguments run by $PY (the printed python3 may be a launcher: a pyenv shim costs 0.3 s)
    # shellcheck disable=SC2086
    "$PY" -S ${replay#python3 } --bin "$BIN" >"$W/r2.out" 2>&1
    grep FAIL "$W/r1.out" >"$W/r1.f"; grep FAIL "$W/r2.out" >"$W/r2.f"
    [ -s "$W/r1.f" ] && cmp -s "$W/r1.f" "$W/r2.f" && ok || bad "the replay command does not reproduce the failure"
else
    bad "a failed test prints no replay command"
fi

# ---- 8. the 4.2b recipe: prev_token_csv.py, then the command it prints ------------------
"$PY" exercises/prev_token_csv.py exercises/solutions/section_4_2.py --words "the cat sat on the mat" \
    --out "$W/mine" >"$W/p.out" 2>&1 && cmd=$(sed -n 2p "$W/p.out") &&
    sh -c "$BIN/attention ${cmd#bin/attention }" >"$W/pa.out" 2>&1
st=$?
# row "cat" of A: weight 0.999 on "the" (t - 1); row "mat" of O: largest on "the"
[ $st -eq 0 ] && grep -Eq '^cat +0\.999 ' "$W/pa.out" && grep -Eq '^mat +0\.9992 ' "$W/pa.out" && ok ||
    { bad "prev_token_csv.py and the command it prints (exit $st)"; cat "$W/p.out" "$W/pa.out"; }

# ---- nothing outside the sandboxes changed ---------------------------------------------------
[ "$(cat "$W/victim.txt" 2>/dev/null)" = victim ] && [ ! -e "$W/escape.txt" ] && [ -z "$(ls "$W/escdir")" ] && ok ||
    bad "the victim file changed or a file was written outside the sandbox"
[ "$(bins_sum)" = "$bins_before" ] && ok || bad "bin/shapes or bin/attention changed"
git status --porcelain --untracked-files=all >"$W/git-after" 2>/dev/null
cmp -s "$W/git-before" "$W/git-after" && ok || { bad "the repository's files changed while files were graded"; diff "$W/git-before" "$W/git-after"; }

echo "test_grade: $checks checks, $fails failed"
[ $fails -eq 0 ]
