# ov_invariance_rounding.gp - check plot: W_V -> W_V R, W_O -> R^{-1} W_O
# changes W_OV and the head's output O W_O only by rounding, which grows like
# cond(R) eps: the relative changes in units of cond(R) eps (mean with its 95%
# CI, and the worst draw) against the verdict's allowance C = 4 (T + d + 2 d_v).
# Data: ov_invariance.csv (cond, draws, v (3-6), wov (7-10), y (11-14),
# wov_units (15-18), y_units (19-22), allowed_units (23)).
# size: 6.5,4
f = datadir.'/ov_invariance.csv'
stats f skip 1 using 1 nooutput
cmin = STATS_min; cmax = STATS_max
stats f skip 1 using 23 nooutput
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
     f skip 1 using 1:20:21 with filledcurves lc rgb '#000000' notitle, \
     f skip 1 using 1:19 with linespoints ls 1 title "O W_O, mean and 95% CI", \
     f skip 1 using 1:22 with points ls 1 pt 6 title "O W_O, worst draw", \
     f skip 1 using 1:15 with linespoints ls 3 title "W_{OV}, mean", \
     f skip 1 using 1:18 with points ls 3 pt 8 title "W_{OV}, worst draw"
