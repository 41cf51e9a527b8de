# any_length_time.gp - time of one forward pass against T, log-log, both
# heads on ONE thread each (the same threading; each (head, T) in its own
# process): median of 3 to --reps runs (as many as the median's spread
# needed, any_length_timing.csv's tiled_reps, plain_reps) with min-max bars. Both grow like T^2 for
# large T (the slope-2 guide through the tiled head's longest timed run); the
# tiled head never holds the T x T matrix, so it goes on where the plain one
# stops. Data: any_length_timing.csv (machine-dependent), any_length.meta.
# size: 6.5,4.2
meta_id = 'any_length'
f = datadir.'/any_length_timing.csv'
set datafile columnheaders   # columns read by name (any_length_timing.csv's header)
tmed(x) = column('tiled_median_seconds'); pmed(x) = column('plain_median_seconds')
stats f using (tmed(0) == tmed(0) ? column('T') : NaN) nooutput
Tt = STATS_max
stats f using (column('T') == Tt ? tmed(0) : NaN) nooutput
tt = STATS_max
stats f using (pmed(0) == pmed(0) ? column('T') : NaN) nooutput
Tp = STATS_max
stats f using (column('T') == Tp ? pmed(0) : NaN) nooutput
tp = STATS_max
set title sprintf("Time grows like T² in both heads\n" . \
                  "{/*0.85 one pass (d = %d), one thread each: " . \
                  "median, min–max of %d–%d runs}", \
    int(meta('d')), int(meta('reps_min')), int(meta('reps_max')))
set logscale xy
set format x '10^{%L}'
set format y '10^{%L}'
set xrange [3:Tt * 10]
# headroom above the longest timed run, where 'tiled head' is written (its time sets the top)
set yrange [*:tt * 5]
set xlabel 'sequence length T (tokens)'
set ylabel 'time (s)'
set key off
set label 1 'tiled head' at Tt * 1.3, tt left tc ls 1
set label 2 "plain head" at Tp * 1.4, tp / 2.5 left tc ls 3
set label 3 'slope 2 (T²)' at Tt / 3, tt / 9 * 4 right tc rgb '#555555'
plot sample [x=Tt / 30:Tt] tt * (x / Tt)**2 with lines ls 9, \
     f using 'T':'plain_median_seconds':'plain_min_seconds':'plain_max_seconds' with yerrorbars ls 3, \
     f using 'T':'plain_median_seconds' with lines ls 3, \
     f using 'T':'tiled_median_seconds':'tiled_min_seconds':'tiled_max_seconds' with yerrorbars ls 1, \
     f using 'T':'tiled_median_seconds' with lines ls 1
