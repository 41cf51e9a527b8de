#!/bin/sh
# test_docs.sh - the lecture's documents build from results files alone.
# purpose: make slides handout: four PDFs from results/, no experiment rerun, A4 or Letter
#
#   1. `make -n slides handout` names no bin/ program and no figure render:
#      the documents depend on results/, never on bin/;
#   2. from a copy of results/ (its claims.tex rewritten by this checkout's
#      report, as make reproduce would), the deck, the notes deck, the student
#      handout and the instructor notes build; the deck is 16:9 with 25 to 45
#      frames, the notes are A4, and PAPER=letter makes them Letter;
#   3. the student handout holds no solutions, no commands, no How we know
#      appendix and no commit; the instructor notes hold them, and a speaker
#      note under the frames; exercises are named by function; a command
#      copies with "--", not an en dash;
#   4. tools/report/latex.sh from the last build's auxiliary files: one pass, the same text; kept
#      files that no longer load are dropped.
# Skipped (passes) without pdflatex or pdfinfo.
set -u
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
for tool in pdflatex pdfinfo pdftotext; do
    command -v $tool >/dev/null 2>&1 || { echo "test_docs: skipped ($tool is missing; sh tools/deps.sh tex installs TeX)"; exit 0; }
done
[ -x "$BUILD/tools/report" ] || { echo "test_docs: $BUILD/tools/report is missing (make all builds it)" >&2; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/test_docs.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
fail=0
no() { printf 'FAIL test_docs: %s\n' "$*" >&2; fail=1; }

# 1. a dry run names no experiment and no figure render
dry=$(make -n slides handout OUT="$tmp/out" 2>&1)
printf '%s\n' "$dry" | grep -E '(^|[ /])bin/|render\.sh|--out ' >/dev/null &&
    no "make -n slides handout would run: $(printf '%s\n' "$dry" | grep -E '(^|[ /])bin/|render\.sh|--out ' | head -n 1)"

# 2. the four documents from a copy of the results (skipped when results/ was
# written with another verdict format than this report reads)
mkdir -p "$tmp/probe"; echo x >"$tmp/probe/p.verdicts.csv"
header=$("$BUILD/tools/report" --out "$tmp/probe" --check p 2>&1 | sed -n 's/^  //p' | head -n 1)
if [ "$(head -n 1 results/concentration.verdicts.csv)" != "$header" ]; then
    echo "test_docs: results/ predates this checkout's verdict format (make reproduce rewrites it): documents not built"
    [ $fail = 0 ] && echo "PASS test_docs (dry run only)"
    exit $fail
fi
mkdir -p "$tmp/out"
cp -r results/. "$tmp/out/"
rm -f "$tmp/out"/*.pdf
ids=$(cd "$tmp/out" && ls *.verdicts.csv | sed 's/\.verdicts\.csv$//')
# shellcheck disable=SC2086
"$BUILD/tools/report" --out "$tmp/out" $ids >"$tmp/report.log" 2>&1 || { cat "$tmp/report.log" >&2; no "report failed"; }
if ! make --no-print-directory slides handout OUT="$tmp/out" >"$tmp/make.log" 2>&1; then
    cat "$tmp/make.log" >&2; no "make slides handout failed"
fi
for d in slides slides-notes handout instructor; do
    [ -s "$tmp/out/$d.pdf" ] || no "$d.pdf was not built"
done
if [ -s "$tmp/out/slides.pdf" ]; then
    pages=$(pdfinfo "$tmp/out/slides.pdf" | sed -n 's/^Pages: *//p')
    size=$(pdfinfo "$tmp/out/slides.pdf" | sed -n 's/^Page size: *\([0-9.]*\) x \([0-9.]*\).*/\1 \2/p')
    [ "$pages" -ge 25 ] && [ "$pages" -le 45 ] || no "the deck has $pages pages, not 25 to 45"
    case "$size" in 453.5*" "255.1*) ;; *) no "the deck is $size pt, not 160 x 90 mm" ;; esac
fi
for d in handout instructor; do
    [ -s "$tmp/out/$d.pdf" ] && { pdfinfo "$tmp/out/$d.pdf" | grep -q 'Page size:.*(A4)' || no "$d.pdf is not A4"; }
done
if make --no-print-directory handout OUT="$tmp/out" PAPER=letter >"$tmp/letter.log" 2>&1; then
    pdfinfo "$tmp/out/handout.pdf" | grep -q 'Page size:.*(letter)' || no "PAPER=letter did not make a Letter handout"
else
    cat "$tmp/letter.log" >&2; no "make handout PAPER=letter failed"
fi
make --no-print-directory handout OUT="$tmp/out" PAPER=a5 >/dev/null 2>"$tmp/a5.log" && no "PAPER=a5 was accepted"
grep -q "PAPER must be a4 or letter" "$tmp/a5.log" || no "PAPER=a5 is refused without saying why"

# 3. what each version holds
if [ -s "$tmp/out/instructor.pdf" ] && [ -s "$tmp/out/handout.pdf" ]; then
    pdftotext "$tmp/out/handout.pdf" "$tmp/h.txt"; pdftotext "$tmp/out/instructor.pdf" "$tmp/i.txt"
    grep -q '^Solutions$' "$tmp/h.txt" && no "the student handout prints the solutions"
    grep -q 'Rerun:' "$tmp/h.txt" && no "the student handout prints commands"
    grep -q 'Exercise 4.2b' "$tmp/h.txt" || no "the student handout does not state Exercise 4.2b"
    # the student's notes stop at the exercises: the evidence appendix and the
    # commit its numbers came from are the instructor's (issue 31)
    grep -q 'How we know' "$tmp/h.txt" && no "the student handout holds the How we know appendix"
    grep -qi 'commit' "$tmp/h.txt" && no "the student handout names a commit"
    grep -q 'How we know' "$tmp/i.txt" || no "the instructor notes have no How we know appendix"
    # one name per exercise: the function's (and the section's Exercise 4.2b)
    for ex in attention_shapes previous_token_head fused_self_attention; do
        grep -q "$ex" "$tmp/h.txt" || no "the student handout does not name the exercise $ex"
    done
    grep -qE 'Code [12]' "$tmp/h.txt" "$tmp/i.txt" && no "an exercise is still called Code 1 or Code 2"
    # a command copies as typed: --out, not an en dash
    grep -q 'Rerun: .*–' "$tmp/i.txt" && no "a Rerun command prints an en dash (copy-paste fails)"
    grep -q 'Rerun: bin/[a-z_]* --out out' "$tmp/i.txt" || no "no Rerun command reads 'bin/ID --out out'"
    grep -q '^Solutions$' "$tmp/i.txt" || no "the instructor notes print no solutions"
    grep -q 'Rerun:' "$tmp/i.txt" || no "the instructor notes print no commands"
    n=$(grep -c '^Say:' "$tmp/i.txt")
    [ "$n" -ge 25 ] || no "the instructor notes hold $n speaker notes (want one per frame)"
fi
# 4. latex.sh starts from the last build's auxiliary files (BUILD/doc/aux-NAME-PAPER/): settled
# ones give one pass and the same text; kept files that no longer load are dropped, not an error
if [ -s "$tmp/out/claims.tex" ]; then
    lx() { BUILD="$tmp/b" PAPER=a4 sh tools/report/latex.sh doc/handout.tex "$tmp/out" 2>>"$tmp/lx.err"; }
    lx >"$tmp/lx1" && pdftotext "$tmp/out/handout.pdf" "$tmp/lx1.txt" || no "latex.sh failed with no kept files"
    lx >"$tmp/lx2" && pdftotext "$tmp/out/handout.pdf" "$tmp/lx2.txt" || no "latex.sh failed from its kept files"
    grep -q '(1 passes)' "$tmp/lx2" || no "latex.sh from settled kept files: $(cat "$tmp/lx2"), not 1 pass"
    cmp -s "$tmp/lx1.txt" "$tmp/lx2.txt" || no "latex.sh from kept files: the handout's text differs"
    printf '%s\n' '\attUndefinedMacro' >>"$tmp/b/doc/aux-handout-a4paper/handout.aux"
    lx >"$tmp/lx3" && pdftotext "$tmp/out/handout.pdf" "$tmp/lx3.txt" || no "latex.sh failed on kept files that do not load"
    cmp -s "$tmp/lx1.txt" "$tmp/lx3.txt" || no "latex.sh from kept files that do not load: the handout's text differs"
fi
[ $fail = 0 ] && echo "PASS test_docs"
exit $fail
