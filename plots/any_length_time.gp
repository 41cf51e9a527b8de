# any_length: time of one head vs sequence length T, log-log.
# The tiled head (online softmax, never the T x T matrix) against the plain one
# (which holds it), with slope-2 (T^2) and slope-1 (T) guides through the
# tiled head's longest run. Data: any_length_timing.csv (machine-dependent).
# size: 6.5,4.5
f = datadir.'/any_length_timing.csv'
# the longest tiled run anchors the guides
Tmax = 0; tmax = 0
set table $dummy
plot f using (($1 > Tmax) ? (Tmax = $1, tmax = $3) : 0, 0):(0) with points
unset table
set logscale xy
set format x '10^{%L}'
set format y '10^{%L}'
set xrange [3:2e5]
set xlabel 'sequence length T (tokens)'
set ylabel 'time of one forward pass (s)'
set title "One head, d = d_k = d_v = 64, one fixed set of weights\n{/*0.8 wall clock on this CPU; the plain head stops where its T x T matrices stop fitting}"
set key top left
plot tmax * (x / Tmax)**2 with lines ls 9 title 'slope 2 (T^2)', \
     tmax * (x / Tmax) with lines ls 9 dt 3 lc rgb '#999999' title 'slope 1 (T)', \
     f using 1:8 with linespoints ls 3 title 'plain head (holds S, A: T x T)', \
     f using 1:3 with linespoints ls 1 title 'tiled head (online softmax)'
