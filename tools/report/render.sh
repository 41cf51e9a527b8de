#!/bin/sh
# render.sh SCRIPT OUTDIR NAME - render a gnuplot script into
# OUTDIR/figures/NAME.{pdf,svg,png} (a script under plots/checks/ goes into
# OUTDIR/figures/checks/) and, for a lecture figure (plots/*.gp), a second
# time at slide geometry into OUTDIR/figures/slides/NAME.{pdf,png}.
#
# One geometry for the three formats: the PDF is rendered once (pdfcairo,
# fontscale 1, so 10 pt in the script is 10 pt on the page), then the PNG
# (pdftoppm, 200 dpi) and the SVG (pdftocairo) are made from it, so markers,
# line widths and fonts look the same in all three. One typeface (DejaVu
# Sans, which has the Greek letters too: write them as UTF-8).
#
# The script reads its data as datadir.'/file.csv' (and the run's parameters
# from datadir.'/ID.meta') and sets no terminal. A line "# size: W,H" (inches,
# default 6.5,4: a text column) sets the print page. A lecture figure the deck
# uses has a line "# slide: W,H": 5.6,2.4 (142 x 61 mm, the frame's width
# under a title and three lines) or 2.9,2.6 (74 x 66 mm, beside a text
# column); only those get a slide version.
# The slide version is drawn with slide = 1, a 9 pt base font scaled by
# 1.25 (text 11.25 pt, a ",9" label too, subscripts 9 pt) and no main title
# (main() in style.gnuplot returns "", scripts test SLIDE: the frame title is
# the claim). The deck includes it at its natural size
# (\includegraphics{slides/NAME}, no width= or height=), so a point in the
# script is a point on the slide. ATT_NO_SLIDES=1 skips the slide version.
#
# Beside each PDF, frames/NAME.txt records the plot frame ("frame x0 x1 y0
# y1", points from the top left, as pdftotext -bbox counts) of a single-plot
# figure with a border, for tests/test_layout.sh. Each file is written to a
# temporary and renamed, so a failed render leaves the old figure. Every
# path written is printed: "figure DIR/NAME.{pdf,png,svg}".
set -eu
script=$1; out=$2; name=$3
case "$script" in */checks/*) dir="$out/figures/checks"; slides=0 ;; *) dir="$out/figures"; slides=1 ;; esac
[ "${ATT_NO_SLIDES:-0}" = 1 ] && slides=0
style="$(dirname "$0")/../../plots/style.gnuplot"
for tool in gnuplot pdftoppm pdftocairo; do
    command -v $tool >/dev/null 2>&1 || { echo "render: $tool is missing (make deps installs it)" >&2; exit 1; }
done
# check_data: every table the script reads (datadir.'/NAME.csv') that exists
# must be whole before gnuplot sees it: its last line ended, every row as
# many cells as the header (a quoted cell counts once). Otherwise name the
# CSV and what is wrong, and draw nothing (a table cut short mid-row gives
# gnuplot's raw warnings instead). A missing or header-only table may be
# fine (a point run writes fewer tables; scripts test for them): gnuplot
# runs, and if it fails, tables_note names them.
tables=$(sed -n "s/.*datadir *\. *'\/\([A-Za-z0-9_.]*\.csv\)'.*/\1/p" "$script" | sort -u)
check_data() {
    for csv in $tables; do
        f="$out/$csv"
        [ -f "$f" ] || continue
        why=$(LC_ALL=C awk -F, '
            function cells(s) { gsub(/"([^"]|"")*"/, "q", s); return split(s, a, ",") }
            NR == 1 { n = cells($0); next }
            { c = cells($0); if (c != n) { printf "row %d has %d cells, the header %d", NR, c, n; exit } }' "$f")
        [ -n "$why" ] || [ ! -s "$f" ] || [ -z "$(tail -c 1 "$f")" ] || why="its last line is not ended"
        if [ -n "$why" ]; then
            echo "render: $script cannot be drawn: $f is cut short or damaged: $why (rerun its experiment)" >&2; return 1
        fi
    done
}
check_data || exit 1
# tables_note: the tables the script reads, and which of them are missing or hold no rows
tables_note() {
    note="tables: $(echo $tables)"
    for csv in $tables; do
        if [ ! -f "$out/$csv" ]; then note="$note; $csv does not exist"
        elif [ "$(wc -l <"$out/$csv")" -le 1 ]; then note="$note; $csv has no rows"; fi
    done
    echo "$note"
}
geometry() { # geometry KEY DEFAULT_W DEFAULT_H: prints "W H" in inches
    g=$(sed -n "s/^# $1: *\([0-9.]*\) *, *\([0-9.]*\).*/\1 \2/p" "$script" | head -n 1)
    [ -n "$g" ] || g="$2 $3"
    echo "$g"
}
tmps=""
trap 'for t in $tmps; do rm -f "$t.pdf" "$t.png" "$t.svg" "$t.err" "$t.frames"; done' EXIT INT TERM
# draw DIR SLIDE W H FONTSCALE [BASE]: render into DIR/NAME.*, print what was written
draw() {
    d=$1; sl=$2; w=$3; h=$4; fs=$5; base=${6:-10}
    mkdir -p "$d/frames"
    tmp="$d/.$name.tmp.$$"; tmps="$tmps $tmp"
    frame='unset print'
    grep -qE 'multiplot|unset border|set border 0' "$script" || frame="set print '$tmp.frames'; \
print sprintf('frame %.2f %.2f %.2f %.2f', GPVAL_TERM_XMIN, GPVAL_TERM_XMAX, \
GPVAL_TERM_YSIZE / GPVAL_TERM_SCALE - GPVAL_TERM_YMAX, GPVAL_TERM_YSIZE / GPVAL_TERM_SCALE - GPVAL_TERM_YMIN); unset print"
    if ! gnuplot -e "datadir='$out'; slide=$sl" \
            -e "set terminal pdfcairo enhanced color font 'DejaVu Sans,$base' fontscale $fs linewidth 1 size ${w}in,${h}in" \
            -e "set output '$tmp.pdf'" -e "load '$style'" "$script" -e "$frame" 2>"$tmp.err"; then
        cat "$tmp.err" >&2
        echo "render: $script failed on the data in $out/ ($(tables_note); a table cut short at a row boundary shows here too: rerun its experiment)" >&2
        exit 1
    fi
    if grep -v '^ *$' "$tmp.err" | grep -qiv 'warning: empty'; then cat "$tmp.err" >&2; fi
    # reproducible PDFs: cairo stamps the time of the run; a fixed date of the
    # same length keeps the file's byte offsets valid
    LC_ALL=C sed -i 's/(D:[0-9]\{14\}Z)/(D:19700101000000Z)/' "$tmp.pdf"
    pdftoppm -png -r 200 -singlefile "$tmp.pdf" "$tmp"
    [ "$sl" = 1 ] || pdftocairo -svg "$tmp.pdf" "$tmp.svg"
    mv "$tmp.pdf" "$d/$name.pdf"; mv "$tmp.png" "$d/$name.png"
    [ "$sl" = 1 ] || mv "$tmp.svg" "$d/$name.svg"
    if [ -s "$tmp.frames" ]; then mv "$tmp.frames" "$d/frames/$name.txt"; else rm -f "$tmp.frames" "$d/frames/$name.txt"; fi
    # the record of what make reproduce wrote (tools/reproduce/prune_results.sh)
    svg=$d/$name.svg; [ "$sl" = 1 ] && svg=
    sh "$(dirname "$0")/../reproduce/written.sh" "$d/$name.pdf" "$d/$name.png" $svg "$d/frames/$name.txt"
    if [ "$sl" = 1 ]; then echo "figure $d/$name.{pdf,png}"; else echo "figure $d/$name.{pdf,png,svg}"; fi
}
set -- $(geometry size 6.5 4)
draw "$dir" 0 "$1" "$2" 1
if [ $slides = 1 ] && grep -q '^# slide:' "$script"; then
    set -- $(geometry slide 5.6 2.4)
    draw "$out/figures/slides" 1 "$1" "$2" 1.25 9
fi
