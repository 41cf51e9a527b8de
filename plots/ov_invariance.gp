# ov_invariance.gp - lecture figure: W_V -> W_V R, W_O -> R^{-1} W_O moves the
# values by O(1) (more as R gets less orthogonal) while the head's output
# O W_O changes only by rounding. Mean over the draws with its 95% CI band,
# against cond(R) (cond 1: an orthogonal R).
# Data: ov_invariance.csv, read by column name (engine layout: T, d, d_k, d_v,
# cond, draws, then <stat>_mean, _lo, _hi, _min, _max, _n for v, wov,
# y = O W_O, wov_units, y_units, then allowed_units).
# size: 6.5,4
f = datadir.'/ov_invariance.csv'
meta_id = 'ov_invariance'
set datafile columnheaders
stats f using "cond" nooutput
cmin = STATS_min; cmax = STATS_max
stats f using "v_mean" nooutput
qlast = STATS_max
stats f using "y_mean" nooutput
slast = STATS_max > 1e-17 ? STATS_max : 1e-17
clamp(y) = y > 1e-17 ? y : 1e-17
stats f using "draws" nooutput
draws = STATS_min
# the run's sizes, from the table (one value per run)
stats f using "d" nooutput
d = STATS_min
stats f using "d_v" nooutput
dv = STATS_min
stats f using "T" nooutput
T = STATS_min
set title "Only W_{OV} matters: V and O = AV move, O W_O does not"
set xlabel "condition number of R   (1: R = c × an orthogonal matrix)"
set ylabel "relative change  ‖new − old‖ / ‖old‖" offset 1,-0.8 font ",9"
set logscale xy
set format x "10^{%L}"
set format y "10^{%L}"
set xrange [cmin / 3.0 : cmax * 3.0]
set xtics 1, 100
set mxtics 10
set mytics 4
set yrange [1e-17 : 1e5]
set ytics 1e-16, 1e4
set rmargin 14
set lmargin 10
set label 1 sprintf("%d heads per point;\nd = %g, d_v = %g, T = %g", draws, d, dv, T) \
    at graph 0.02, graph 0.62 left font ',9'
set label 2 "values V" at graph 1.03, first qlast left tc rgb col_v
set label 3 "output O W_O" at graph 1.03, first slast left
set label 4 "(rounding only)" at graph 1.03, first slast / 300.0 left font ',9'
plot f using "cond":"v_lo":"v_hi" with filledcurves lc rgb col_v notitle, \
     f using "cond":"v_mean" with linespoints ls 2 lc rgb col_v notitle, \
     f using "cond":(clamp(column("y_lo"))):(clamp(column("y_hi"))) with filledcurves lc rgb '#000000' notitle, \
     f using "cond":(clamp(column("y_mean"))) with linespoints ls 1 notitle
