# ov_invariance_rounding.gp - check plot: W_V -> W_V R, W_O -> R^{-1} W_O
# changes W_OV and the head's output O W_O only by rounding, which grows like
# cond(R) eps: the relative changes in units of cond(R) eps (mean with its 95%
# CI, and the worst draw) against the verdict's allowance C = 4 (T + d + 2 d_v).
# Data: ov_invariance.csv, read by column name: cond, <stat>_mean, _lo, _hi,
# _max of wov_units and y_units, and allowed_units = C.
# size: 6.5,4
f = datadir.'/ov_invariance.csv'
set datafile columnheaders
stats f using "cond" nooutput
cmin = STATS_min; cmax = STATS_max
stats f using "allowed_units" nooutput
C = STATS_max
set title "Rounding of W_{OV} and O W_O, in units of cond(R) ε"
set xlabel "cond(R)"
set ylabel "relative change / (cond(R) ε)"
set logscale xy
set format x "10^{%L}"
set format y "10^{%L}"
set xrange [cmin / 3.0 : cmax * 3.0]
set yrange [1e-2 : C * 5]
set key top right box opaque
plot C with lines ls 9 title sprintf("allowed C = %g", C), \
     f using "cond":"y_units_lo":"y_units_hi" with filledcurves lc rgb '#000000' notitle, \
     f using "cond":"y_units_mean" with linespoints ls 1 title "O W_O, mean and 95% CI", \
     f using "cond":"y_units_max" with points ls 1 pt 6 title "O W_O, worst draw", \
     f using "cond":"wov_units_mean" with linespoints ls 3 title "W_{OV}, mean", \
     f using "cond":"wov_units_max" with points ls 3 pt 8 title "W_{OV}, worst draw"
