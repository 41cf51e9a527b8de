#!/bin/sh
# test_grade_hostile.sh - the hostile-submission battery: every file in tests/grade/hostile_*.py
# and broken_*.py graded in the sandbox, three at a time.
# purpose: the grader's hostile battery: no false points, nothing changed outside, always a JSON
#
# For each file: exit 1 (a failed test, never a grader error or a hang; for a file graded in a
# folder, 0 points in the folder's summary and no grader error), 0 points in results.json, a
# message saying what happened, and a time bound (per file, or per folder). After all of them: the
# victim file outside the sandbox is intact, no escape file exists, bin/shapes and
# bin/attention are unchanged, the repository's files are unchanged, no process a file
# started survives, and no output holds the grader's environment. The attacks: reading the
# solutions (open, sys.path, os.walk of /), a patched json.dumps sending one answer, emptying
# the runner's cases, a forged reply on the result pipe (no answers; an array with no
# numbers and strings), ndarray subclasses that lie about their shape and astype, writes
# through dir_fd, mkfifo and mknod outside, finding the grader through /proc and replacing
# bin/shapes, filling its folder, /dev/shm and /dev, sys.exit, os._exit, an infinite loop (in a function, and at import: every test
# then fails at once, within one timeout), a fork bomb (os.fork, ctypes' fork), subprocess,
# _posixsubprocess, a process in its own session, os.kill of the parent and of -1, sockets,
# 20 GB, stdout and stderr flooding, /proc/1/environ, printing, NaN, wrong types, a syntax
# error, an exception, a slow file (the submission's budget), a probe of its file descriptors, a new user namespace (unshare, clone).
# Run from anywhere: sh tests/test_grade_hostile.sh   (BIN=bin-x for another build)
set -u
cd "$(dirname "$0")/.." || exit 2
BIN=${BIN:-bin}
[ -x "$BIN/attention" ] && [ -x "$BIN/shapes" ] ||
    { echo "test_grade_hostile: $BIN/attention and $BIN/shapes are needed: make all" >&2; exit 1; }
command -v bwrap >/dev/null 2>&1 ||
    { echo "test_grade_hostile: bwrap is needed (the grader's sandbox): sh tools/deps.sh as root" >&2; exit 1; }
. tests/python3.sh
W=$(mktemp -d "${TMPDIR:-/tmp}/test-grade-hostile.XXXXXX") || exit 2
trap 'rm -rf "$W"' EXIT
fails=0 checks=0
ok() { checks=$((checks + 1)); }
bad() { checks=$((checks + 1)); fails=$((fails + 1)); echo "FAIL  $*"; }
# the interpreter with NumPy and the sandbox, found once (each grader run would look again)
GRADE_SUITE=test_grade_hostile . tests/grade_env.sh
export W BIN
export ATT_GRADE_TEST_SECRET=s3cr3t-$$
# the grader and the JSON checks need only the standard library: -S skips site-packages' .pth
# files at each start (a pyenv Python here: 46 against 16 ms of CPU; 38 checks)
json() { "$PY" -S -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if eval(sys.argv[2]) else 1)' "$1" "$2"; }
bins_sum() { cat "$BIN/shapes" "$BIN/attention" | cksum; }
bins_before=$(bins_sum)
# a victim file and escape paths of this run alone (another run may be grading at the same time)
echo victim >"$W/victim.txt"
mkdir "$W/escdir"
FILL="-e s|@VICTIM@|$W/victim.txt|g -e s|@ESCAPE@|$W/escape.txt|g -e s|@ESCDIR@|$W/escdir|g"
git status --porcelain --untracked-files=all >"$W/git-before" 2>/dev/null
# the files that end by a timeout or the budget are graded one per grader run (each is timed);
# the others (--test fused.single --timeout 30) as folders of submissions, three folders, so
# that the grader starts three times rather than once per file; the
# runs go three at a time. A loop gets LOOP_T s: long enough for NumPy's import in the
# sandbox on a loaded machine (about 0.15 s idle, 0.3 s at a load of 4.5 on 2 cores), short
# because it spins for all of it (the three files that spin took 1.5 CPU s more at LOOP_T=1.5)
LOOP_T=1
mkdir "$W/h" "$W/orig" "$W/p1" "$W/p2" "$W/p3"
i=0
for f in tests/grade/hostile_*.py tests/grade/broken_*.py; do
    n=$(basename "$f" .py)
    # shellcheck disable=SC2086
    sed $FILL -e "s|@ROOT@|$(pwd)|g" -e "s|@SUBS@|$(pwd)/tests/grade|g" -e "s|@GRADES@|$W|g" "$f" >"$W/orig/$n.py"
    # the import loop runs every test: one timeout for all of them
    case $n in
    *import_loop*) d=h; echo "one $n --timeout $LOOP_T" ;;
    # the slow file's first test, timed out, uses the whole budget (a budget longer than the
    # timeout left a remnant that NumPy's import may not fit on a loaded machine: a
    # message that depended on the load)
    *slow*) d=h; echo "one $n --timeout $LOOP_T --budget $LOOP_T" ;;
    *loop*|*ctypes*) d=h; echo "one $n --test fused.single --timeout $LOOP_T" ;;
    *) i=$((i % 3 + 1)); d=p$i ;;
    esac
    cp "$W/orig/$n.py" "$W/$d/$n.py"
done >"$W/jobs"
for d in p1 p2 p3; do echo "folder $d --test fused.single --timeout 30"; done >>"$W/jobs"
# shellcheck disable=SC2016
xargs -P 3 -L 1 sh -c 'k=$1 n=$2; shift 2; s=$(date +%s)
    if [ "$k" = one ]; then f=$W/h/$n.py j=$W/$n.json; else f=$W/$n j=$W/$n.grades; mkdir "$j"; fi
    "$0" -S exercises/grade.py "$f" "$@" --bin "$BIN" --json "$j" >"$W/$n.out" 2>&1
    echo $? >"$W/$n.st"; echo $(( $(date +%s) - s )) >"$W/$n.took"' "$PY" <"$W/jobs"
# a folder's run: its output split at each file's header into NAME.out, NAME.json moved up,
# NAME.st 1 when the summary gives it 0 points without a grader error
for d in p1 p2 p3; do
    [ "$(cat "$W/$d.st")" = 1 ] && ok || { bad "folder $d: exit $(cat "$W/$d.st"), expected 1"; cat "$W/$d.out"; }
    [ "$(cat "$W/$d.took")" -le 120 ] && ok || bad "folder $d: the grader took $(cat "$W/$d.took") s"
    awk -v W="$W" -v d="$d" 'index($0, "grade.py " W "/" d "/") == 1 { f = $2; sub(/.*\//, "", f); sub(/\.py$/, "", f) }
        /^submission +points$/ { f = "" } f != "" { print > (W "/" f ".out") }' "$W/$d.out"
    for f in "$W/$d"/*.py; do
        n=$(basename "$f" .py)
        mv "$W/$d.grades/$n.json" "$W/$n.json" 2>/dev/null
        grep -Eq "^$n\.py +0/2\$" "$W/$d.out" && echo 1 >"$W/$n.st" ||
            echo "'$(grep -E "^$n\.py " "$W/$d.out")' in folder $d's summary" >"$W/$n.st"
        mv "$f" "$W/h/$n.py"
    done
done

# the results.json files with 0 points and a list of tests, all read by one Python (not one
# start per file: 38 starts were 0.6 s of CPU)
"$PY" -S -c 'import json, os, sys
for p in sys.argv[1:]:
    try:
        with open(p) as f:
            d = json.load(f)
        if d["score"] == 0 and d["tests"]:
            print(os.path.basename(p)[:-len(".json")])
    except Exception:
        pass' "$W"/*.json >"$W/zero"
for f in tests/grade/hostile_*.py tests/grade/broken_*.py; do
    n=${f##*/} n=${n%.py}
    st=$(cat "$W/$n.st" 2>/dev/null || echo none)
    [ "$st" = 1 ] && grep -qxF "$n" "$W/zero" && ok ||
        { bad "$n: exit $st, expected 1 (a failed test) with 0 points and a results.json"; cat "$W/$n.out"; }
    [ ! -f "$W/$n.took" ] || { [ "$(cat "$W/$n.took")" -le 60 ] && ok || bad "$n: the grader took $(cat "$W/$n.took") s"; }
    cmp -s "$W/h/$n.py" "$W/orig/$n.py" && ok || bad "$n: the submission's own file changed"
    want=
    case $n in
    hostile_ctypes|hostile_loop) want="did not finish within $LOOP_T s" ;;
    hostile_dirfd) want="wrote outside: []" ;;
    hostile_environ) want="environ:" ;;
    hostile_exit) want="sys.exit(0)" ;;
    hostile_fd_write|hostile_print) want="printed on stdout" ;;
    hostile_find_grader) want="processes seen:" ;;
    hostile_fill) want="/dev/shm: 0 MiB, then Read-only file system" ;;
    hostile_flood) want="more than 64 MiB" ;;
    hostile_forge_reply) want="not what the grader's runner sends" ;;
    hostile_forge_values) want="with 0 numbers (it needs 14)" ;;
    hostile_fork) want="Resource temporarily unavailable" ;;
    hostile_import_loop) want="did not finish importing within $LOOP_T s" ;;
    hostile_json_first) want="1 answer for 4 cases" ;;
    hostile_kill|hostile_subprocess|hostile_posixsubprocess|hostile_setsid) want="returned shape (7, 6)" ;;
    hostile_main_calls) want="0 answers for 4 cases" ;;
    hostile_memory) want="ran out of memory" ;;
    hostile_nan) want="is nan" ;;
    hostile_os_exit) want="ended its process" ;;
    hostile_peek) want="FileNotFoundError" ;;
    hostile_read_solutions|hostile_results|hostile_write|hostile_write_import) want="No such file or directory" ;;
    hostile_socket) want="raised PermissionError" ;;
    hostile_subclass) want="returned shape (0,)" ;;
    hostile_syspath) want="No module named 'section_4_2'" ;;
    hostile_types) want="not a NumPy array" ;;
    hostile_walk) want="found no solutions" ;;
    hostile_userns) want="unshare -1 errno 1; clone -1 errno 1" ;;
    broken_syntax) want="SyntaxError" ;;
    broken_slow) want="total time budget of $LOOP_T s is used up" ;;
    broken_exception) want="raised ValueError" ;;
    # /dev/null, stdout, stderr, the result pipe and listdir's own: five, whatever numbers the
    # result pipe gets from the grader's own table (a CI with no stdin shifts it)
    broken_fds) want="open fds [0, 1, 2, N, M]: exactly one pipe beyond 0 to 2" ;;
    *) bad "$n: no expected message in this test: add one" ;;
    esac
    if [ "$n" = broken_fds ]; then
        grep -E "open fds \[0, 1, 2, [0-9]+, [0-9]+\]: \['/dev/null', 'pipe:\[[0-9]+\]', 'pipe:\[[0-9]+\]'(, '(\?|pipe:\[[0-9]+\])'){2}\]" \
            "$W/$n.out" | grep -q "'?'" && ok || { bad "$n: the message does not say '$want'"; cat "$W/$n.out"; }
        continue
    fi
    [ -z "$want" ] || grep -qF "$want" "$W/$n.out" && ok || { bad "$n: the message does not say '$want'"; cat "$W/$n.out"; }
done
# the import loop: all six tests failed, within one timeout (not six)
json "$W/hostile_import_loop.json" 'len(d["tests"]) == 6 and all("not run it again" in t["output"] for t in d["tests"])' && ok ||
    bad "hostile_import_loop: not every test says the import is not run again"
[ "$(cat "$W/hostile_import_loop.took")" -le 20 ] && ok || bad "hostile_import_loop took $(cat "$W/hostile_import_loop.took") s (one $LOOP_T s timeout expected)"
# the budget: every test ran or was refused, within about LOOP_T s of the student's code
json "$W/broken_slow.json" 'len(d["tests"]) == 6' && [ "$(cat "$W/broken_slow.took")" -le 25 ] && ok ||
    bad "broken_slow: not six tests within the budget ($(cat "$W/broken_slow.took") s)"
# what the process saw: nothing of the grader, the repository or the submissions
sed -n 's/.*processes seen: \(.*\) (hostile_find_grader.py.*/\1/p' "$W/hostile_find_grader.out" >"$W/seen"
grep -q "bwrap" "$W/seen" && ! grep -q "grade.py\|$(pwd)" "$W/seen" && ok ||
    { bad "hostile_find_grader saw the grader's process (or nothing at all)"; cat "$W/seen"; }
grep -q "REPLACED" "$W/hostile_find_grader.json" && bad "hostile_find_grader replaced a binary" || ok
grep -q "wrong_fused\|hostile_kill" "$W/hostile_peek.json" && bad "hostile_peek listed the other submissions" || ok
grep -l "$ATT_GRADE_TEST_SECRET" "$W"/*.out "$W"/*.json >/dev/null 2>&1 && bad "a file read the grader's environment" || ok
# afterwards: nothing outside the sandboxes changed, nothing still runs
[ "$(cat "$W/victim.txt" 2>/dev/null)" = victim ] && ok || bad "the victim file outside the sandbox changed"
[ ! -e "$W/escape.txt" ] && [ -z "$(ls "$W/escdir")" ] && [ ! -e "$(pwd)/att_grade_escape.txt" ] && ok ||
    bad "a file was written outside the sandbox"
[ "$(bins_sum)" = "$bins_before" ] && ok || bad "bin/shapes or bin/attention changed"
git status --porcelain --untracked-files=all >"$W/git-after" 2>/dev/null
cmp -s "$W/git-before" "$W/git-after" && ok || { bad "the repository's files changed"; diff "$W/git-before" "$W/git-after"; }
# a process the sandbox's end is still killing may linger a moment: polled for up to 1 s (ten
# looks), so that one that outlived the grader is seen at every look, and a clean run waits
# for none (a fixed sleep 1 waited a second every run)
k=0
while pgrep -f "sleep 77.123" >/dev/null 2>&1 && [ $k -lt 10 ]; do sleep 0.1; k=$((k + 1)); done
[ $k -lt 10 ] && ok || bad "a process a submission started outlived the grader"

echo "test_grade_hostile: $(ls "$W"/h/*.py | wc -l) files, $checks checks, $fails failed"
[ $fails -eq 0 ]
