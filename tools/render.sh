#!/bin/sh
# render.sh SCRIPT OUTDIR NAME - render plots/NAME.gp into OUTDIR/figures/NAME.{pdf,svg,png}.
# The script reads data as datadir.'/file.csv' and does not set a terminal;
# a line "# size: W,H" (inches, default 6,4) sets the canvas. Each figure is
# written to a temporary and renamed, so a failed render leaves the old one.
set -eu
script=$1; out=$2; name=$3
dir="$out/figures"; mkdir -p "$dir"
size=$(sed -n 's/^# size: *\([0-9.]*\) *, *\([0-9.]*\).*/\1 \2/p' "$script" | head -n 1)
[ -n "$size" ] || size="6 4"
w=${size% *}; h=${size#* }
pxw=$(awk -v w="$w" 'BEGIN{printf "%d", w*200}'); pxh=$(awk -v h="$h" 'BEGIN{printf "%d", h*200}')
svw=$(awk -v w="$w" 'BEGIN{printf "%d", w*120}'); svh=$(awk -v h="$h" 'BEGIN{printf "%d", h*120}')
style="$(dirname "$script")/style.gnuplot"
render() { # terminal-spec extension
    tmp="$dir/.$name.$2.tmp.$$"
    if gnuplot -e "datadir='$out'; set terminal $1; set output '$tmp'" -e "load '$style'" "$script" 2>"$tmp.err"; then
        if grep -v '^$' "$tmp.err" | grep -qiv 'warning: empty\|^ *$'; then cat "$tmp.err" >&2; fi
        # reproducible PDFs: cairo stamps the time of the run; a fixed date of
        # the same length keeps the file's byte offsets valid
        [ "$2" = pdf ] && LC_ALL=C sed -i 's/(D:[0-9]\{14\}Z)/(D:19700101000000Z)/' "$tmp"
        mv "$tmp" "$dir/$name.$2"; rm -f "$tmp.err"
    else
        cat "$tmp.err" >&2; rm -f "$tmp" "$tmp.err"; echo "render: $script failed ($2)" >&2; exit 1
    fi
}
render "pdfcairo enhanced color font 'Helvetica,11' size ${w}in,${h}in" pdf
render "svg enhanced font 'Helvetica,13' size $svw,$svh background '#ffffff'" svg
render "pngcairo enhanced color font 'Helvetica,24' size $pxw,$pxh linewidth 2" png
echo "figure $name"
