#!/bin/sh
# latex.sh SOURCE OUTDIR - build doc/<name>.tex into OUTDIR/<name>.pdf with
# pdflatex, citing OUTDIR/claims.tex and OUTDIR/figures/. Fails (and leaves
# the old PDF) on a LaTeX error, an undefined macro, a missing figure, or an
# undefined reference. The commit the results come from is printed in it.
set -eu
src=$1; out=$2
name=$(basename "$src" .tex)
command -v pdflatex >/dev/null 2>&1 || { echo "latex: pdflatex is missing (make $name installs it)" >&2; exit 1; }
tmp=$(mktemp -d /tmp/attn-latex.XXXXXX)
trap 'rm -rf "$tmp"' EXIT INT TERM
commit=$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
absout=$(cd "$out" && pwd); absdoc=$(cd "$(dirname "$src")" && pwd)
# TEXINPUTS: the doc sources, then the results (claims.tex, figures/)
for pass in 1 2; do
    if ! TEXINPUTS="$absdoc//:$absout//:" SOURCE_DATE_EPOCH=0 FORCE_SOURCE_DATE=1 \
        pdflatex -interaction=nonstopmode -halt-on-error -output-directory "$tmp" -jobname "$name" \
        "\\def\\resultscommit{$commit}\\def\\resultsdir{$absout}\\input{$absdoc/$name.tex}" >"$tmp/stdout" 2>&1; then
        grep -A4 '^!' "$tmp/$name.log" >&2 || tail -20 "$tmp/stdout" >&2
        echo "latex: $src failed (log above)" >&2; exit 1
    fi
done
if grep -E "Warning: (Reference|Citation).*undefined|There were undefined references|File .* not found" "$tmp/$name.log" >&2; then
    echo "latex: $src has undefined references or missing files" >&2; exit 1
fi
mv "$tmp/$name.pdf" "$out/$name.pdf"
echo "document $out/$name.pdf"
