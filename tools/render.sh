#!/bin/sh
# render.sh SCRIPT OUTDIR NAME - render a gnuplot script into
# OUTDIR/figures/NAME.{pdf,svg,png} (a script under plots/checks/ goes into
# OUTDIR/figures/checks/).
#
# One geometry for the three formats: the PDF is rendered once (pdfcairo,
# fontscale 1, so 10 pt in the script is 10 pt on the page), then the PNG
# (pdftoppm, 200 dpi) and the SVG (pdftocairo) are made from it, so markers,
# line widths and fonts look the same in all three. One typeface (DejaVu
# Sans, which has the Greek letters too: write them as UTF-8).
#
# The script reads its data as datadir.'/file.csv' (and the run's parameters
# from datadir.'/ID.meta') and sets no terminal. A line "# size: W,H" (inches,
# default 6.5,4: a text column) sets the page. Each file is written to a
# temporary and renamed, so a failed render leaves the old figure.
set -eu
script=$1; out=$2; name=$3
case "$script" in */checks/*) dir="$out/figures/checks" ;; *) dir="$out/figures" ;; esac
mkdir -p "$dir"
size=$(sed -n 's/^# size: *\([0-9.]*\) *, *\([0-9.]*\).*/\1 \2/p' "$script" | head -n 1)
[ -n "$size" ] || size="6.5 4"
w=${size% *}; h=${size#* }
style="$(dirname "$0")/../plots/style.gnuplot"
for tool in gnuplot pdftoppm pdftocairo; do
    command -v $tool >/dev/null 2>&1 || { echo "render: $tool is missing (make deps installs it)" >&2; exit 1; }
done
tmp="$dir/.$name.tmp.$$"
trap 'rm -f "$tmp.pdf" "$tmp.png" "$tmp.svg" "$tmp.err"' EXIT INT TERM
if ! gnuplot -e "datadir='$out'" \
        -e "set terminal pdfcairo enhanced color font 'DejaVu Sans,10' fontscale 1 linewidth 1 size ${w}in,${h}in" \
        -e "set output '$tmp.pdf'" -e "load '$style'" "$script" 2>"$tmp.err"; then
    cat "$tmp.err" >&2; echo "render: $script failed" >&2; exit 1
fi
if grep -v '^ *$' "$tmp.err" | grep -qiv 'warning: empty'; then cat "$tmp.err" >&2; fi
# reproducible PDFs: cairo stamps the time of the run; a fixed date of the
# same length keeps the file's byte offsets valid
LC_ALL=C sed -i 's/(D:[0-9]\{14\}Z)/(D:19700101000000Z)/' "$tmp.pdf"
pdftoppm -png -r 200 -singlefile "$tmp.pdf" "$tmp"
pdftocairo -svg "$tmp.pdf" "$tmp.svg"
mv "$tmp.pdf" "$dir/$name.pdf"; mv "$tmp.png" "$dir/$name.png"; mv "$tmp.svg" "$dir/$name.svg"
echo "figure $name"
