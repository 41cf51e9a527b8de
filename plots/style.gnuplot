# style.gnuplot - loaded before every figure script by tools/report/render.sh.
#
# Lecture figures: the title states the claim; text is 10 pt at the size the
# script sets (a 6.5 in text column prints it at 10 pt; a slide is wider than
# tall and scales it up or slightly down); one typeface; colours that differ
# in lightness, with dash patterns and point shapes as a second channel, so
# that a greyscale print still separates them.
set encoding utf8
set minussign   # tick labels with a minus sign (U+2212), not a hyphen
set border lw 1.2
set tics nomirror out scale 0.6
set grid back lc rgb '#dddddd' lw 0.8 dt 1
set key noautotitle
set key top left nobox samplen 2.5 spacing 1.1
set title offset 0,-0.3
# line styles: black, dark blue, orange, mid grey, dark red, light blue
# (grey values about 0, 30, 60, 55, 35, 70 %)
set style line 1 lc rgb '#000000' lw 2.0 dt 1 pt 7 ps 0.7
set style line 2 lc rgb '#1f4e9c' lw 2.0 dt 2 pt 5 ps 0.7
set style line 3 lc rgb '#e6861c' lw 2.0 dt 4 pt 9 ps 0.8
set style line 4 lc rgb '#8c8c8c' lw 2.0 dt 5 pt 13 ps 0.8
set style line 5 lc rgb '#8b1a1a' lw 2.0 dt 3 pt 11 ps 0.8
set style line 6 lc rgb '#7fb2e5' lw 2.0 dt 6 pt 3 ps 0.8
set style line 9 lc rgb '#555555' lw 1.0 dt 2            # reference lines
# Monte Carlo CI bands: "with filledcurves" in the line's colour, light
set style fill transparent solid 0.22 noborder
# one colour per entity across every figure: queries, keys, values, outputs
col_q = '#1f4e9c'
col_k = '#e6861c'
col_v = '#2e7d32'
col_o = '#000000'
set datafile separator ','
set datafile commentschars '#'
set datafile missing ''
# heatmaps of weights in [0, 1]: white -> dark blue (sequential)
PAL_SEQ = "set palette defined (0 '#ffffff', 0.5 '#6b9bd1', 1 '#08306b'); set cbrange [0:1]"
# signed matrices (W_QK, W_OV): blue - white - red (diverging, centred on 0)
PAL_DIV = "set palette defined (-1 '#2166ac', 0 '#ffffff', 1 '#b2182b')"
@PAL_SEQ
set cbrange [*:*]
# meta(key): a number from the run's <id>.meta ("key: value"), so titles and
# annotations follow the run: meta_id must be set first, e.g. meta_id = 'random_projections'
meta(key) = real(system(sprintf("sed -n 's/^%s: *//p' '%s/%s.meta' | head -n 1", key, datadir, meta_id)))
metas(key) = system(sprintf("sed -n 's/^%s: *//p' '%s/%s.meta' | head -n 1", key, datadir, meta_id))
# slide = 1 when tools/report/render.sh draws the slide version (16:9, larger text):
# main(s) is the figure's main title, which a slide drops (its frame title
# states the claim); SLIDE lets a script choose a slide layout.
SLIDE = exists("slide") ? slide : 0
main(s) = SLIDE ? "" : s
