#!/bin/sh
# test_reproduce_out.sh - make reproduce never removes a file it did not write.
# purpose: make reproduce OUT=DIR keeps your files, refuses a foreign folder, prunes only its own
#
# Small reproduces (ONLY=concentration DRAWS=200, about 1 s of CPU each, most of it the
# figures) into private folders check issue 24's rules (tools/reproduce/prune_results.sh,
# Makefile reproduce):
#   1. a non-empty folder without the suite's manifest is refused, unchanged;
#   2. with FORCE=1, unrelated files (top level and nested, old and new
#      timestamps, names like the suite's) survive byte for byte, and again
#      on the next reproduce (now with a manifest, no FORCE);
#   3. a file the previous reproduce wrote (listed in its manifest) and this
#      one did not is removed; entries outside the folder never are (checked in
#      step 9's reproduce: one reproduce fewer, each about 1 s of CPU);
#   4. an exported OUT (or FORCE, ONLY, DRAWS) redirects nothing: make reproduce and
#      make figures still name results/ and out/, with every experiment's own draws;
#   5. ONLY or DRAWS with results/ is refused before anything is written;
#   6. the first line of make reproduce names the folder; each experiment
#      prints its name, time and verdicts; the last line the total;
#   7. results/ before its first manifest (a scratch git checkout): the files
#      git tracks there count as the suite's earlier output;
#   8. files you save, touch or create in the folder *while* a reproduce runs
#      are not recorded in its manifest and survive the next reproduce (the
#      manifest comes from what each writer recorded, not from a scan);
#   9. a killed program's journal in the folder is rolled forward first;
#      a manifest entry through a symlink inside the folder (ext/thesis.tex,
#      ext -> elsewhere) or a symlink file is refused: the file outside stays;
#  10. VERIFY_OUT (tools/verify/verify.sh --prepare-out, what make verify does before
#      its rerun) follows the same rules: a foreign folder is refused, your
#      files there stay, only what the previous verify wrote is removed, a
#      symlinked entry is refused.
set -u
cd "$(dirname "$0")/.." || exit 2
T=$(mktemp -d "${TMPDIR:-/tmp}/att-reproduce-out.XXXXXX") || exit 2
trap 'rm -rf "$T"' EXIT
trap 'exit 130' INT TERM
BIN=${ATT_BIN_DIR:-${BIN:-bin}}
BUILD=${BUILD:-build}
MK="make --no-print-directory BIN=$BIN BUILD=$BUILD"
# the reproduces below: concentration with 200 draws (its default 4096 was a third of each
# reproduce's CPU); the rules checked are the folder's, not the numbers'
Q="ONLY=concentration DRAWS=200"
npass=0 nfail=0
pass() { npass=$((npass + 1)); echo "ok    $1"; }
fail() { nfail=$((nfail + 1)); echo "FAIL  $1"; shift; for l in "$@"; do echo "      $l"; done; }

# the user's own files: checksums of each, and the list of names
own_sums() { (cd "$1" && for f in $2; do sha256sum "$f" 2>/dev/null || echo "absent $f"; done); }
tree_sum() { (cd "$1" && find . -type f -exec sha256sum {} + | LC_ALL=C sort | sha256sum); }

D="$T/lecture"
mkdir -p "$D/notes/old" "$D/figures"
printf 'todo: slides for Tuesday\n' >"$D/todo.txt"
printf '\\section{Attention}\n' >"$D/notes/lecture1.tex"
printf 'ancient\n' >"$D/notes/old/2001.txt"
printf 'mine\n' >"$D/concentration_mine.csv"          # a name like the suite's
printf 'mine\n' >"$D/figures/my_plot.png"
touch -d 2001-01-01 "$D/todo.txt" "$D/notes/old/2001.txt" "$D/figures/my_plot.png"
touch -d '+1 hour' "$D/notes/lecture1.tex"            # newer than any run
OWN="todo.txt notes/lecture1.tex notes/old/2001.txt concentration_mine.csv figures/my_plot.png"
own_sums "$D" "$OWN" >"$T/own.before"

# 1. refused: not empty, no manifest
before=$(tree_sum "$D")
$MK reproduce OUT="$D" $Q >"$T/out1" 2>&1
rc=$?
if [ "$rc" -ne 0 ] && grep -q "refusing OUT '$D'" "$T/out1" && grep -q 'FORCE=1' "$T/out1" &&
   [ "$(tree_sum "$D")" = "$before" ] && [ ! -e "$D/.reproduce-manifest" ]; then
    pass "a non-empty folder without a manifest is refused, untouched (exit $rc)"
else
    fail "refusal of a non-empty folder without a manifest" "exit $rc" "$(head -5 "$T/out1")"
fi

# 2. FORCE=1: the user's files survive byte for byte, twice
$MK reproduce OUT="$D" $Q FORCE=1 >"$T/out2" 2>&1
rc=$?
own_sums "$D" "$OWN" >"$T/own.after"
if [ "$rc" -eq 0 ] && cmp -s "$T/own.before" "$T/own.after" && [ -f "$D/concentration.verdicts.csv" ] &&
   [ -f "$D/figures/concentration.png" ] && [ -f "$D/.reproduce-manifest" ]; then
    pass "FORCE=1: the reproduce ran and every unrelated file survived byte for byte"
else
    fail "FORCE=1 reproduce" "exit $rc" "$(tail -5 "$T/out2")" "$(diff "$T/own.before" "$T/own.after")"
fi
if grep -qE '^[0-9]+ [0-9]+ concentration.csv$' "$D/.reproduce-manifest" && ! grep -q -e todo.txt -e lecture1 -e _mine -e my_plot "$D/.reproduce-manifest"; then
    pass "the manifest lists the suite's files and none of the user's"
else
    fail "manifest contents" "$(cat "$D/.reproduce-manifest")"
fi
first=$(head -n 1 "$T/out2")
[ "$first" = "reproduce: writing into $D" ] && pass "the first line names the folder" ||
    fail "first line of make reproduce" "'$first'"
grep -qE '^reproduce: +concentration +[0-9]+\.[0-9] s +(\(cpu +[0-9]+\.[0-9] s\) +)?[0-9]+ PASS' "$T/out2" &&
    pass "progress: the experiment's name, time and verdicts" ||
    fail "progress line of concentration" "$(grep concentration "$T/out2")"
grep -qE "^reproduce: done in [0-9]+ s: [0-9]+ files in $D" "$T/out2" && pass "progress: the total at the end" ||
    fail "the total line" "$(tail -2 "$T/out2")"

# an empty folder is accepted without FORCE: the refusal test of make reproduce's first step
# (prune_results.sh begin, as the Makefile calls it; the step above that refuses is the same
# call), not a whole reproduce (one less, 0.8 s of CPU: the rest of a reproduce is the same
# in an empty folder as in any other)
mkdir -p "$T/empty"
ONLY=concentration DRAWS=200 sh tools/reproduce/prune_results.sh begin "$T/empty" "" >"$T/out4" 2>&1 &&
    [ -d "$T/empty" ] && pass "an empty folder is accepted" ||
    fail "reproduce into an empty folder" "$(tail -3 "$T/out4")"

# 4. an exported OUT (FORCE, ONLY, DRAWS) redirects nothing (make -n: nothing runs; -B: every
#    experiment's recipe is printed even when results/ is newer than bin/, as after a reproduce)
before=$(tree_sum "$D")
OUT="$D" FORCE=1 ONLY=concentration DRAWS=200 $MK -n -B reproduce >"$T/out5" 2>&1
if grep -q 'prune_results.sh begin "results" "0"' "$T/out5" && ! grep -qF "$D" "$T/out5" &&
   grep -q 'run_one.sh concentration ' "$T/out5" && ! grep -q -e '--draws' -e 'DRAWS="200"' "$T/out5"; then
    pass "an exported OUT/FORCE/ONLY/DRAWS does not redirect make reproduce (results/, default draws)"
else
    fail "exported OUT" "$(grep prune_results "$T/out5")"
fi
OUT="$D" $MK -n figures >"$T/out6" 2>&1
grep -q 'figures.sh "out"' "$T/out6" && ! grep -qF "$D" "$T/out6" &&
    pass "an exported OUT does not redirect make figures (it names out/)" ||
    fail "exported OUT and make figures" "$(cat "$T/out6")"
[ "$(tree_sum "$D")" = "$before" ] && pass "the exported folder is untouched" || fail "the exported folder changed"

# 5. ONLY with results/: refused before anything is written
rbefore=$(tree_sum results)
$MK reproduce ONLY=concentration >"$T/out7" 2>&1
rc=$?
if [ "$rc" -ne 0 ] && grep -q 'private OUT' "$T/out7" && [ "$(tree_sum results)" = "$rbefore" ]; then
    pass "ONLY with results/ is refused, results/ untouched"
else
    fail "ONLY with results/" "exit $rc" "$(cat "$T/out7")"
fi
$MK reproduce DRAWS=200 >"$T/out7d" 2>&1
rc=$?
if [ "$rc" -ne 0 ] && grep -q 'DRAWS=200 .*private OUT' "$T/out7d" && [ "$(tree_sum results)" = "$rbefore" ]; then
    pass "DRAWS with results/ is refused, results/ untouched"
else
    fail "DRAWS with results/" "exit $rc" "$(cat "$T/out7d")"
fi
if grep -q '^command: .* --draws 200$' "$D/concentration.meta"; then
    pass "DRAWS=200 runs the experiment with --draws 200"
else
    fail "DRAWS=200 and the experiment's command" "$(grep command "$D/concentration.meta")"
fi
$MK reproduce OUT="$T/x" ONLY=no_such_claim >"$T/out8" 2>&1
[ $? -ne 0 ] && grep -q "unknown experiment" "$T/out8" && [ ! -e "$T/x" ] &&
    pass "ONLY with an unknown ID is refused" || fail "ONLY=no_such_claim" "$(cat "$T/out8")"

# a file where the folder should be
printf 'x\n' >"$T/afile"
$MK reproduce OUT="$T/afile" ONLY=concentration >"$T/out9" 2>&1
[ $? -ne 0 ] && grep -q "is not a folder" "$T/out9" && [ "$(cat "$T/afile")" = x ] &&
    pass "OUT that is a file is refused" || fail "OUT=a file" "$(cat "$T/out9")"

# 7. results/ of a checkout before its first manifest: the files git tracks
# there are the suite's earlier output (stale ones are removed; bench.md,
# which make bench writes, stays); untracked files are never touched. A
# scratch checkout with a copy of tools/reproduce/prune_results.sh stands for this one.
C="$T/checkout"
mkdir -p "$C/tools/reproduce" "$C/results/figures"
cp tools/reproduce/prune_results.sh tools/reproduce/written.sh "$C/tools/reproduce/"
for f in kept.csv stale.csv figures/stale.png bench.md; do printf 'committed %s\n' "$f" >"$C/results/$f"; done
printf 'mine\n' >"$C/results/my_notes.txt"
(cd "$C" && git init -q && git add tools results/kept.csv results/stale.csv results/figures/stale.png results/bench.md &&
    git -c user.email=t@t -c user.name=t commit -q -m results) >/dev/null 2>&1
if [ -d "$C/.git" ]; then
    sh "$C/tools/reproduce/prune_results.sh" begin "$C/results" >/dev/null 2>&1
    BUILD="$BUILD" sh "$C/tools/reproduce/prune_results.sh" open "$C/results" >/dev/null 2>&1
    # the steps of a reproduce record what they write (ATT_WRITE_LOG)
    printf 'rewritten\n' >"$C/results/kept.csv.tmp" && mv "$C/results/kept.csv.tmp" "$C/results/kept.csv"
    printf 'new\n' >"$C/results/new.csv"
    ATT_WRITE_LOG="$C/results/.reproduce-written" sh "$C/tools/reproduce/written.sh" "$C/results/kept.csv" "$C/results/new.csv"
    sh "$C/tools/reproduce/prune_results.sh" end "$C/results" >"$T/out10" 2>&1
    if [ ! -e "$C/results/stale.csv" ] && [ ! -e "$C/results/figures/stale.png" ] &&
       [ -f "$C/results/bench.md" ] && [ "$(cat "$C/results/my_notes.txt")" = mine ] &&
       grep -qE '^[0-9]+ [0-9]+ new.csv$' "$C/results/.reproduce-manifest" &&
       grep -qE '^[0-9]+ [0-9]+ kept.csv$' "$C/results/.reproduce-manifest" &&
       ! grep -q my_notes "$C/results/.reproduce-manifest"; then
        pass "results/ without a manifest: stale tracked files removed, bench.md and untracked files kept"
    else
        fail "results/ without a manifest (bootstrap from git)" "$(cat "$T/out10")" "$(ls -R "$C/results" | tr '\n' ' ')"
    fi
fi

# 8. files saved, touched or created while a reproduce runs are never the suite's (in the
# lecture folder of step 2: its second reproduce, with a manifest and no FORCE)
printf 'before\n' >"$D/old_mine.txt"; touch -d 2001-01-01 "$D/old_mine.txt"
$MK reproduce OUT="$D" $Q >"$T/out12" 2>&1 &
mk=$!
i=0 during=0
while [ $i -lt 600 ]; do
    if [ -f "$D/.reproduce-start" ]; then
        touch "$D/old_mine.txt"                          # touched
        printf 'saved\n' >"$D/thesis.tex"                # created
        printf 'edited\n' >"$D/concentration_notes.csv"  # a name like the suite's
        mkdir -p "$D/figures/mine"; printf 'x\n' >"$D/figures/mine/sketch.png"
        kill -0 "$mk" 2>/dev/null && [ -f "$D/.reproduce-start" ] && during=1
        break
    fi
    sleep 0.02; i=$((i + 1))
done
wait "$mk"; rc=$?
if [ "$during" = 1 ] && [ "$rc" -eq 0 ] &&
   ! grep -q -e old_mine -e thesis.tex -e concentration_notes -e sketch.png "$D/.reproduce-manifest" &&
   grep -qE '^[0-9]+ [0-9]+ concentration.csv$' "$D/.reproduce-manifest"; then
    pass "files touched or created during a reproduce are not in its manifest"
else
    fail "files touched during a reproduce" "during $during, exit $rc" "$(grep -e old_mine -e thesis -e notes -e sketch "$D/.reproduce-manifest")"
fi
own_sums "$D" "$OWN" >"$T/own.after"
cmp -s "$T/own.before" "$T/own.after" && pass "second reproduce (manifest, no FORCE): unrelated files byte-identical" ||
    fail "second reproduce changed the user's files" "$(diff "$T/own.before" "$T/own.after")"
# 9. (in the same next reproduce) entries through symlinks: never followed out of the folder
mkdir -p "$T/elsewhere"
printf 'my thesis\n' >"$T/elsewhere/thesis.tex"; printf 'data\n' >"$T/elsewhere/data.csv"
ln -s "$T/elsewhere" "$D/ext"; ln -s "$T/elsewhere/data.csv" "$D/link.csv"
# the worst case: entries that carry the outside files' own inode and size
{ echo "$(stat -c '%i %s' "$T/elsewhere/thesis.tex") ext/thesis.tex"; echo ext/thesis.tex
  echo "$(stat -c '%i %s' "$T/elsewhere/data.csv") link.csv"; echo link.csv; } >>"$D/.reproduce-manifest"
# 3. (in the same next reproduce) a stale entry of the previous manifest is removed, entries
# outside the folder never are; the user's files stay
printf 'old\n' >"$D/gone_experiment.csv"
printf 'old\n' >"$D/figures/gone_plot.png"
printf 'outside\n' >"$T/outside.txt"
{ echo gone_experiment.csv; echo figures/gone_plot.png; echo ../outside.txt; echo "$T/outside.txt"
  # (and with the outside file's own inode and size, as a record of a real write would carry)
  echo "$(stat -c '%i %s' "$T/outside.txt") ../outside.txt"
  echo "$(stat -c '%i %s' "$T/outside.txt") $T/outside.txt"; } >>"$D/.reproduce-manifest"
# and a killed program's release (its journal) in the folder: make reproduce rolls it forward first
mkdir -p "$D/.att-run.999999999"; printf 'whole\n' >"$D/.att-run.999999999/1.recovered.csv"
printf '0\t1\t1.recovered.csv\t-\trecovered.csv\n' >"$D/.att-run.999999999/journal"
$MK reproduce OUT="$D" $Q >"$T/out13" 2>&1; rc=$?
own_sums "$D" "$OWN" >"$T/own.after"
if [ "$rc" -eq 0 ] && [ ! -e "$D/gone_experiment.csv" ] && [ ! -e "$D/figures/gone_plot.png" ] &&
   grep -q "removing $D/gone_experiment.csv" "$T/out13"; then
    pass "files of the previous manifest that this run did not write are removed"
else
    fail "pruning of the previous manifest's stale files" "exit $rc" "$(tail -5 "$T/out13")"
fi
[ -f "$T/outside.txt" ] && pass "manifest entries outside the folder are never removed" ||
    fail "a manifest entry outside the folder was removed"
cmp -s "$T/own.before" "$T/own.after" && pass "third reproduce: unrelated files byte-identical" ||
    fail "third reproduce changed the user's files" "$(diff "$T/own.before" "$T/own.after")"
# (recovered.csv is the suite's then, and as this reproduce does not write it, it is pruned at the end)
if [ ! -e "$D/.att-run.999999999" ] && grep -q "rolled forward" "$T/out13" &&
   grep -q "removing $D/recovered.csv" "$T/out13" &&
   [ "$(grep -n 'rolled forward' "$T/out13" | cut -d: -f1)" -lt "$(grep -n '^reproduce:  *concentration' "$T/out13" | cut -d: -f1)" ]; then
    pass "make reproduce first rolls a killed run's journal forward, and records its file as the suite's"
else
    fail "make reproduce and a killed run's journal" "$(ls -A "$D" | tr '\n' ' ')" "$(grep -i -e note -e recover "$T/out13")"
fi
if [ "$rc" -eq 0 ] && [ -f "$D/old_mine.txt" ] && [ "$(cat "$D/thesis.tex" 2>/dev/null)" = saved ] &&
   [ -f "$D/concentration_notes.csv" ] && [ -f "$D/figures/mine/sketch.png" ]; then
    pass "... and the next reproduce keeps all of them"
else
    fail "the next reproduce removed a file touched during the previous one" "exit $rc" "$(grep removing "$T/out13")"
fi
if [ "$rc" -eq 0 ] && [ "$(cat "$T/elsewhere/thesis.tex")" = "my thesis" ] && [ -f "$T/elsewhere/data.csv" ] &&
   [ -L "$D/link.csv" ] && grep -q "not removing $D/ext/thesis.tex" "$T/out13"; then
    pass "a manifest entry through a symlink (ext -> elsewhere, a symlinked file) is refused; the files outside stay"
else
    fail "symlinked manifest entries" "exit $rc" "$(grep -e removing -e ext/ "$T/out13")"
fi

# 10. VERIFY_OUT by the same rules
V="$T/verify-out"; mkdir -p "$V"; printf 'mine\n' >"$V/mine.txt"
VERIFY_OUT="$V" BUILD=$BUILD sh tools/verify/verify.sh --prepare-out >"$T/out15" 2>&1; rc=$?
[ "$rc" -eq 2 ] && grep -q "refusing VERIFY_OUT" "$T/out15" && [ "$(ls -A "$V")" = mine.txt ] &&
    pass "VERIFY_OUT: a non-empty folder that no verify wrote is refused, untouched" ||
    fail "VERIFY_OUT refusal" "exit $rc" "$(cat "$T/out15")"
rm -f "$V/mine.txt"
VERIFY_OUT="$V" BUILD=$BUILD sh tools/verify/verify.sh --prepare-out >"$T/out16" 2>&1 || fail "VERIFY_OUT prepare" "$(cat "$T/out16")"
# a verify's rerun (recorded as make verify records it), then your files beside it
ATT_WRITE_LOG="$(cd "$V" && pwd -P)/.reproduce-written" "$BIN/concentration" --out "$V" --quiet --draws 200
sh tools/reproduce/prune_results.sh end "$V" >/dev/null 2>&1
printf 'mine\n' >"$V/mine.txt"; printf 'notes\n' >"$V/concentration_mine.csv"
ln -s "$T/elsewhere" "$V/ext"
echo "$(stat -c '%i %s' "$T/elsewhere/thesis.tex") ext/thesis.tex" >>"$V/.reproduce-manifest"
VERIFY_OUT="$V" BUILD=$BUILD sh tools/verify/verify.sh --prepare-out >"$T/out17" 2>&1; rc=$?
if [ "$rc" -eq 0 ] && [ ! -e "$V/concentration.csv" ] && [ ! -e "$V/concentration.verdicts.csv" ] &&
   [ "$(cat "$V/mine.txt")" = mine ] && [ -f "$V/concentration_mine.csv" ] &&
   [ "$(cat "$T/elsewhere/thesis.tex")" = "my thesis" ] && grep -q "not removing $V/ext/thesis.tex" "$T/out17"; then
    pass "VERIFY_OUT: the previous verify's files are removed, yours stay, a symlinked entry is refused"
else
    fail "VERIFY_OUT clearing" "exit $rc" "$(cat "$T/out17")" "$(ls -A "$V" | tr '\n' ' ')"
fi

echo "test_reproduce_out: $npass passed, $nfail failed"
[ "$nfail" -eq 0 ]
