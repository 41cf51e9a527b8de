# style.gnuplot - loaded before every figure script by tools/render.sh.
# Readable at slide size and in greyscale: thick lines, distinct dash and point
# types, dark colours that differ in lightness.
set encoding utf8
set border lw 1.5
set tics nomirror out
set grid back lc rgb '#d0d0d0' lw 1 dt 3
set key top left box opaque samplen 3 spacing 1.2
set style line 1 lc rgb '#000000' lw 2.5 dt 1 pt 7 ps 1.0
set style line 2 lc rgb '#1f4e9c' lw 2.5 dt 2 pt 5 ps 1.0
set style line 3 lc rgb '#b2182b' lw 2.5 dt 4 pt 9 ps 1.1
set style line 4 lc rgb '#4d9221' lw 2.5 dt 5 pt 13 ps 1.1
set style line 5 lc rgb '#7f7f7f' lw 2.5 dt 3 pt 11 ps 1.1
set style line 6 lc rgb '#8c510a' lw 2.5 dt 6 pt 3 ps 1.1
set style line 9 lc rgb '#555555' lw 1.5 dt 2            # reference lines
set datafile separator ','
set datafile commentschars '#'
set datafile missing ''
# sequential greyscale-safe palette for heatmaps (white -> dark blue)
set palette defined (0 '#ffffff', 0.5 '#6b9bd1', 1 '#08306b')
