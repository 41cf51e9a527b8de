#!/bin/sh
# latex.sh SOURCE OUTDIR - build doc/<name>.tex into OUTDIR/<name>.pdf with
# pdflatex, from the results already in OUTDIR (claims.tex, figures/): it
# never runs an experiment. LaTeX is run until its references settle (the
# .aux, .toc, .nav and .out files stop changing; at most 5 passes), so the
# contents and every reference are right. Like latexmk, it starts from the
# auxiliary files of the last build (kept in $BUILD/doc/aux-NAME-PAPER/): when
# the first pass writes back exactly every auxiliary file it read, it read its
# own settled references and is the last one (the usual case: one pass instead
# of two or three); otherwise passes go on until they settle, and a first pass
# that fails on the kept files is run again without them. Fails, leaving the old PDF, on a
# LaTeX error, an undefined macro or reference, a missing file, or contents
# that do not settle.
#   PAPER=letter   US Letter for the notes (default A4; the deck is 16:9)
# The PDF names the commit its results were produced at (the git: line of
# OUTDIR/*.meta), not the commit it was built at.
set -eu
src=$1; out=$2
name=$(basename "$src" .tex)
command -v pdflatex >/dev/null 2>&1 || { echo "latex: pdflatex is missing (sh tools/deps.sh tex installs it)" >&2; exit 1; }
[ -f "$out/claims.tex" ] || { echo "latex: $out/claims.tex is missing (make reproduce writes it)" >&2; exit 1; }
case "${PAPER:-a4}" in
    a4|A4) paper=a4paper ;;
    letter|Letter) paper=letterpaper ;;
    *) echo "latex: PAPER must be a4 or letter, not '${PAPER}'" >&2; exit 2 ;;
esac
tmp=$(mktemp -d /tmp/attn-latex.XXXXXX)
trap 'rm -rf "$tmp"' EXIT INT TERM
commit=$(sed -n 's/^git: *//p' "$out"/*.meta 2>/dev/null | sort -u | tr '\n' ' ' | sed 's/ *$//; s/ /, /g')
[ -n "$commit" ] || commit=unknown
absout=$(cd "$out" && pwd); absdoc=$(cd "$(dirname "$src")" && pwd); absrepo=$(cd "$absdoc/.." && pwd)
state() { cat "$tmp/$name.aux" "$tmp/$name.toc" "$tmp/$name.nav" "$tmp/$name.out" 2>/dev/null | cksum; }
# every auxiliary file a pass reads and writes (not the log, the PDF or pdflatex's output)
auxstate() { (cd "$tmp" && for f in "$name".*; do case "$f" in *.log|*.pdf) ;; *) [ -f "$f" ] && cksum "$f" ;; esac; done); }
case "${BUILD:-build}" in /*) cache=$BUILD ;; *) cache=$absrepo/${BUILD:-build} ;; esac
cache="$cache/doc/aux-$name-$paper"
seeded=0
if [ -d "$cache" ] && cp "$cache/$name".* "$tmp/" 2>/dev/null; then seeded=1; fi
prev=none; [ $seeded = 1 ] && prev=$(state) && seedaux=$(auxstate)
pass=0
while :; do
    pass=$((pass + 1))
    # TEXINPUTS: the doc sources, then the results (claims.tex)
    if ! TEXINPUTS="$absdoc//:$absout:" SOURCE_DATE_EPOCH=0 FORCE_SOURCE_DATE=1 max_print_line=1000 \
        pdflatex -interaction=nonstopmode -halt-on-error -output-directory "$tmp" -jobname "$name" \
        "\\def\\resultscommit{$commit}\\def\\resultsdir{$absout}\\def\\repodir{$absrepo}\\def\\papersize{$paper}\\input{$absdoc/$name.tex}" >"$tmp/stdout" 2>&1; then
        if [ $seeded = 1 ] && [ $pass = 1 ]; then
            # the kept files of an older source may not load: start again from none
            rm -f "$tmp/$name".*; seeded=0; prev=none; pass=0; continue
        fi
        grep -A4 '^!' "$tmp/$name.log" >&2 || tail -20 "$tmp/stdout" >&2
        echo "latex: $src failed (log above)" >&2; exit 1
    fi
    now=$(state)
    # settled: the first pass from the kept files wrote them back unchanged, or two
    # passes in a row wrote the same references
    [ $seeded = 1 ] && [ $pass = 1 ] && [ "$(auxstate)" = "$seedaux" ] && break
    [ "$now" = "$prev" ] && [ "$pass" -ge 2 ] && break
    [ "$pass" -lt 5 ] || { echo "latex: $src: references still change after 5 passes" >&2; exit 1; }
    prev=$now
done
if grep -E "Warning: (Reference|Citation).*undefined|There were undefined references|File .* not found" "$tmp/$name.log" >&2; then
    echo "latex: $src has undefined references or missing files" >&2; exit 1
fi
# what a reader should know: figures not yet drawn for the slide, missing solutions
grep -h "Package lecture Warning" "$tmp/$name.log" | sed "s/^Package lecture Warning: /latex: $name: /; s/\.$//" | sort -u >&2 || true
mv "$tmp/$name.pdf" "$out/$name.pdf"
# the settled auxiliary files, for the next build's first pass (each file whole: a copy, then
# a rename; a set mixed from two builds only costs passes)
if mkdir -p "$cache" 2>/dev/null; then
    rm -f "$cache/$name".*
    for f in "$tmp/$name".*; do
        case "$f" in *.log|*.pdf) continue ;; esac
        b=$(basename "$f"); cp "$f" "$cache/.$b.$$" && mv "$cache/.$b.$$" "$cache/$b" || :
    done
fi
sh "$(dirname "$0")/../reproduce/written.sh" "$out/$name.pdf"
echo "document $out/$name.pdf ($pass passes)"
