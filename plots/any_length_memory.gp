# any_length: peak resident memory vs sequence length T, log-log, above a
# T = 1 run of the same head (libraries, threads, BLAS buffers). Guides: slope
# 1 (T) through the tiled head's longest run, slope 2 (T^2) through the plain
# head's longest run; open triangles: what the plain head would need where it
# was not run (its S, A and projections, from any_length.csv).
# Data: any_length_timing.csv (machine-dependent), any_length.csv.
# size: 6.5,4.5
f = datadir.'/any_length_timing.csv'
g = datadir.'/any_length.csv'
Tmax = 0; mmax = 0; Pmax = 0; pmax = 0
set table $dummy
plot f using (($1 > Tmax) ? (Tmax = $1, mmax = $7) : 0, \
              ($11 == $11 && $1 > Pmax) ? (Pmax = $1, pmax = $12) : 0, 0):(0) with points
unset table
MiB = 1048576.0
set logscale xy
set format x '10^{%L}'
set format y '10^{%L}'
set xrange [3:2e5]
set yrange [0.01:1e6]
set xlabel 'sequence length T (tokens)'
set ylabel 'peak resident memory above a T = 1 run (MiB)'
set title "One head, d = d_k = d_v = 64, double precision\n{/*0.8 peak RSS of one child process per T (ru\\_maxrss)}"
set key top left
plot pmax / MiB * (x / Pmax)**2 with lines ls 9 title 'slope 2 (T^2)', \
     mmax / MiB * (x / Tmax) with lines ls 9 dt 3 lc rgb '#999999' title 'slope 1 (T)', \
     256 with lines ls 5 dt 4 lw 1.5 title '256 MiB (performance target)', \
     f using 1:($12 > 0 ? $12 / MiB : NaN) with linespoints ls 3 title 'plain head (holds S, A: T x T)', \
     g using 1:($1 > Pmax ? $4 / MiB : NaN) with points lc rgb '#b2182b' pt 8 ps 1.5 lw 1.5 title 'plain head, memory it would need', \
     f using 1:($7 > 0 ? $7 / MiB : NaN) with linespoints ls 1 title 'tiled head (online softmax)'
