#!/bin/sh
# test_grade.sh - exercises/grade.py can tell right from wrong, and contains
# what it runs.
# purpose: the exercises' grader: solutions pass, the starter and known-wrong variants fail, hostile files are contained
#
#   1. the reference solutions get full marks (exit 0, results.json all max);
#   2. the untouched starter fails every test, each with a message naming the
#      stub or the placeholder (exit 1);
#   3. every known-wrong variant in tests/grade/wrong_*.py (transposed weights,
#      scores and output shapes, the count with W_O; a head attending to
#      itself, off by one, transposed, too soft, values reading the position;
#      nn.Linear's layout, a missing scale, the wrong split order, a batch
#      mixing sequences, float32) loses points on its exercise, and the
#      mistakes the grader diagnoses are named;
#   4. every hostile or broken file in tests/grade/ (sys.exit, os._exit, an
#      infinite loop, a fork bomb, subprocess, _posixsubprocess, ctypes,
#      os.kill of the grader, writes and a removal outside its folder, output
#      on stdout and on fd 1, NaN, wrong types, 80 GB, syntax error, an
#      exception, a probe of its open file descriptors: only its own) is a failed test with its message and exit 1, never a hang
#      or a grader error; no file outside the child's folder changes (a victim
#      file, escape paths, the student's file, the repository) and no child
#      folder is left behind;
#   5. a folder of submissions: one JSON each and a line per submission;
#   6. exercises/prev_token_csv.py writes the 4.2b head as CSV and the command
#      it prints shows row t's weight 0.999 on t - 1 (the README recipe);
#   7. usage errors exit 2; a failure's replay command reproduces it.
# Run from anywhere: sh tests/test_grade.sh   (BIN=bin-x for another build)
set -u
cd "$(dirname "$0")/.." || exit 2
BIN=${BIN:-bin}
[ -x "$BIN/attention" ] && [ -x "$BIN/shapes" ] ||
    { echo "test_grade: $BIN/attention and $BIN/shapes are needed: build them first (make all)" >&2; exit 1; }
PY=python3
command -v "$PY" >/dev/null 2>&1 || PY=/usr/bin/python3
W=$(mktemp -d "${TMPDIR:-/tmp}/test-grade.XXXXXX") || exit 2
trap 'rm -rf "$W"; rm -f /tmp/att_grade_victim.txt /tmp/att_grade_escape.txt' EXIT
# the grader's child folders go to a folder of this run alone, so that counting them is not
# disturbed by another run of the grader on the machine; it is open as /tmp is (the student's
# code runs as another user, which must reach its folder)
mkdir "$W/tmp" && chmod 711 "$W" && chmod 1777 "$W/tmp" && export TMPDIR="$W/tmp" || exit 2
fails=0 checks=0
ok() { checks=$((checks + 1)); }
bad() { checks=$((checks + 1)); fails=$((fails + 1)); echo "FAIL  $*"; }
G() { "$PY" exercises/grade.py "$@" --bin "$BIN"; }
# the interpreter with NumPy, found once (the grader would look for it every run)
ATT_PYTHON=$("$PY" -c 'import sys; sys.path.insert(0, "exercises"); import grade; print(grade.find_python()[0])') ||
    { echo "test_grade: no Python with NumPy (apt-get install python3-numpy)" >&2; exit 1; }
export ATT_PYTHON

# a JSON field check: json FILE PYTHON-EXPRESSION-over-d (prints nothing if true)
json() { "$PY" -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if eval(sys.argv[2]) else 1)' "$1" "$2"; }

# ---- 1. the reference solutions ---------------------------------------------
G exercises/solutions/section_4_2.py --json "$W/sol.json" >"$W/sol.out" 2>&1; st=$?
[ $st -eq 0 ] && ok || { bad "solutions: exit $st, expected 0"; cat "$W/sol.out"; }
json "$W/sol.json" 'd["score"] == 10 and len(d["tests"]) == 6 and all(t["score"] == t["max_score"] > 0 and t["name"] and t["output"] for t in d["tests"])' &&
    ok || bad "solutions: results.json is not full marks in Gradescope's form"
grep -q "total 10/10" "$W/sol.out" && ok || bad "solutions: no 'total 10/10' line"

# ---- 2. the untouched starter ----------------------------------------------------
G exercises/section_4_2.py --json "$W/start.json" >"$W/start.out" 2>&1; st=$?
[ $st -eq 1 ] && ok || bad "starter: exit $st, expected 1"
json "$W/start.json" 'd["score"] == 0 and all(t["score"] == 0 for t in d["tests"]) and all(("the starter" in t["output"]) for t in d["tests"])' &&
    ok || { bad "starter: not every test failed with a message naming the stub or the placeholder"; cat "$W/start.out"; }

# ---- 3. known-wrong variants ---------------------------------------------------------
for f in tests/grade/wrong_*.py; do
    case $f in
    *shapes*) t="--test shapes.random" ;;
    *prev*) t="--test prev_token.small" ;;
    *fused_batch*) t="--test fused.batched" ;;
    *fused*) t="--test fused.single" ;;
    esac
    # shellcheck disable=SC2086
    G "$f" $t --json "$W/w.json" >"$W/w.out" 2>&1; st=$?
    [ $st -eq 1 ] && json "$W/w.json" 'd["score"] < sum(t["max_score"] for t in d["tests"])' && ok ||
        { bad "$f: exit $st, expected 1 with points lost"; cat "$W/w.out"; }
    want=
    case $f in
    *fused_transposed*) want="nn.Linear" ;;
    *fused_noscale*) want="ignores the scale" ;;
    *fused_split*) want="split order is wrong" ;;
    *fused_float32*) want="float64" ;;
    *prev_self*) want="attending to itself" ;;
    *prev_next*) want="off by one" ;;
    *prev_transposed*) want="transposed?" ;;
    *prev_soft*) want="too soft" ;;
    *prev_values*) want="token part" ;;
    *params*) want="no W_O" ;;
    esac
    [ -z "$want" ] || { grep -qF "$want" "$W/w.out" && ok || { bad "$f: the message does not say '$want'"; cat "$W/w.out"; }; }
done

# ---- 4. hostile and broken files -------------------------------------------------------
cp exercises/solutions/section_4_2.py "$W/repo-before.py"
git status --porcelain --untracked-files=all >"$W/git-before" 2>/dev/null
for f in tests/grade/hostile_*.py tests/grade/broken_*.py; do
    echo victim >/tmp/att_grade_victim.txt
    rm -f /tmp/att_grade_escape.txt
    cp "$f" "$W/student-copy.py"
    before=$(ls -d "$TMPDIR"/grade-student-* 2>/dev/null | wc -l)
    start=$(date +%s)
    # a generous limit, so that a loaded machine never turns a refusal into a
    # timeout; the infinite loop gets 3 s
    case $f in *loop*) lim=3 ;; *) lim=30 ;; esac
    G "$f" --test fused.single --timeout $lim --json "$W/h.json" >"$W/h.out" 2>&1; st=$?
    took=$(( $(date +%s) - start ))
    [ $st -eq 1 ] && json "$W/h.json" 'd["score"] == 0' && ok ||
        { bad "$f: exit $st, expected 1 (a failed test)"; cat "$W/h.out"; }
    [ $took -le 60 ] && ok || bad "$f: the grader took $took s"
    [ "$(cat /tmp/att_grade_victim.txt 2>/dev/null)" = victim ] && ok || bad "$f: the victim file outside the folder changed"
    [ ! -e /tmp/att_grade_escape.txt ] && [ ! -e "${TMPDIR}/att_grade_escape.txt" ] && ok || bad "$f: a file was written outside the folder"
    cmp -s "$f" "$W/student-copy.py" && ok || bad "$f: the student's own file changed"
    after=$(ls -d "$TMPDIR"/grade-student-* 2>/dev/null | wc -l)
    [ "$after" -le "$before" ] && ok || bad "$f: a child folder was left behind"
    want=
    case $f in
    *hostile_exit*) want="sys.exit(0)" ;;
    *os_exit*) want="ended its process" ;;
    *loop*) want="did not finish within 3 s" ;;
    *fork*) want="start a process (os.fork)" ;;
    *_subprocess*) want="start a process" ;;
    *posixsubprocess*) want="_posixsubprocess" ;;
    *ctypes*) want="ctypes" ;;
    *kill*) want="send a signal" ;;
    *print*|*fd_write*) want="printed on stdout" ;;
    *write*) want="writing outside the working folder" ;;
    *nan*) want="is nan" ;;
    *types*) want="not a NumPy array" ;;
    *memory*) want="memory" ;;
    *syntax*) want="SyntaxError" ;;
    *exception*) want="raised ValueError" ;;
    # stdin, stdout (a file in its folder), stderr, the result pipe, listdir's own
    *fds*) want="open fds [0, 1, 2, 3, 4]" ;;
    esac
    grep -qF "$want" "$W/h.out" && ok || { bad "$f: the message does not say '$want'"; cat "$W/h.out"; }
done
git status --porcelain --untracked-files=all >"$W/git-after" 2>/dev/null
cmp -s "$W/git-before" "$W/git-after" && ok || { bad "the repository's files changed while hostile files were graded"; diff "$W/git-before" "$W/git-after"; }

# ---- 5. a folder of submissions ----------------------------------------------------------
mkdir -p "$W/subs" "$W/grades"
cp exercises/solutions/section_4_2.py "$W/subs/alice.py"
cp exercises/section_4_2.py "$W/subs/bob.py"
G "$W/subs" --test shapes.gpt2 --json "$W/grades" >"$W/f.out" 2>&1; st=$?
[ $st -eq 1 ] && grep -Eq '^alice\.py +1/1$' "$W/f.out" && grep -Eq '^bob\.py +0/1$' "$W/f.out" && ok ||
    { bad "a folder: exit $st, expected 1 with alice.py 1/1 and bob.py 0/1"; cat "$W/f.out"; }
json "$W/grades/alice.json" 'd["score"] == 1' && json "$W/grades/bob.json" 'd["score"] == 0' && ok ||
    bad "a folder: grades/alice.json and grades/bob.json are not 1 and 0 points"

# ---- 6. the 4.2b recipe: prev_token_csv.py, then the command it prints ------------------
"$PY" exercises/prev_token_csv.py exercises/solutions/section_4_2.py --words "the cat sat on the mat" \
    --out "$W/mine" >"$W/p.out" 2>&1 && cmd=$(sed -n 2p "$W/p.out") &&
    sh -c "$BIN/attention ${cmd#bin/attention }" >"$W/pa.out" 2>&1
st=$?
# row "cat" of A: weight 0.999 on "the" (t - 1); row "mat" of O: largest on "the"
[ $st -eq 0 ] && grep -Eq '^cat +0\.999 ' "$W/pa.out" && grep -Eq '^mat +0\.9992 ' "$W/pa.out" && ok ||
    { bad "prev_token_csv.py and the command it prints (exit $st)"; cat "$W/p.out" "$W/pa.out"; }

# ---- 7. usage and replay ------------------------------------------------------------------
G "$W/no-such-file.py" >/dev/null 2>&1; st=$?
[ $st -eq 2 ] && ok || bad "a missing file: exit $st, expected 2"
G exercises/solutions/section_4_2.py --test no.such.test >/dev/null 2>&1; st=$?
[ $st -eq 2 ] && ok || bad "an unknown test: exit $st, expected 2"
G tests/grade/wrong_fused_noscale.py --test fused.single --seed 7 >"$W/r1.out" 2>&1
replay=$(sed -n 's/.*replay: //p' "$W/r1.out" | head -1)
if [ -n "$replay" ]; then
    # shellcheck disable=SC2086
    $replay --bin "$BIN" >"$W/r2.out" 2>&1
    grep FAIL "$W/r1.out" >"$W/r1.f"; grep FAIL "$W/r2.out" >"$W/r2.f"
    [ -s "$W/r1.f" ] && cmp -s "$W/r1.f" "$W/r2.f" && ok || bad "the replay command does not reproduce the failure"
else
    bad "a failed test prints no replay command"
fi

echo "test_grade: $checks checks, $fails failed"
[ $fails -eq 0 ]
