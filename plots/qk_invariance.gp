# qk_invariance.gp - lecture figure: W_Q -> W_Q R, W_K -> W_K R^{-T} moves the
# queries by O(1) (more as R gets less orthogonal) while the scores change
# only by rounding. Mean over the draws with its 95% CI band, against cond(R)
# (cond 1: an orthogonal R).
# Data: qk_invariance.csv, read by column name (engine layout: T, d, d_k, d_v,
# cond, draws, then <stat>_mean, _lo, _hi, _min, _max, _n for wqk, s, o, q,
# gram, wqk_units, s_units, o_units, then allowed_units); q_* are the queries,
# s_* the scores.
# size: 6.5,4
f = datadir.'/qk_invariance.csv'
meta_id = 'qk_invariance'
set datafile columnheaders
stats f using "cond" nooutput
cmin = STATS_min; cmax = STATS_max
stats f using "q_mean" nooutput
qlast = STATS_max
stats f using "s_mean" nooutput
slast = STATS_max > 1e-17 ? STATS_max : 1e-17
clamp(y) = y > 1e-17 ? y : 1e-17
stats f using "draws" nooutput
draws = STATS_min
# the run's sizes, from the table (one value per run)
stats f using "d" nooutput
d = STATS_min
stats f using "d_k" nooutput
dk = STATS_min
stats f using "T" nooutput
T = STATS_min
set title "Only W_{QK} matters: queries move, scores do not"
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
set label 1 sprintf("%d heads per point;\nd = %g, d_k = %g, T = %g", draws, d, dk, T) \
    at graph 0.02, graph 0.62 left font ',9'
set label 2 "queries Q" at graph 1.03, first qlast left tc rgb col_q
set label 3 "scores S" at graph 1.03, first slast left
set label 4 "(rounding only)" at graph 1.03, first slast / 300.0 left font ',9'
plot f using "cond":"q_lo":"q_hi" with filledcurves lc rgb col_q notitle, \
     f using "cond":"q_mean" with linespoints ls 2 lc rgb col_q notitle, \
     f using "cond":(clamp(column("s_lo"))):(clamp(column("s_hi"))) with filledcurves lc rgb '#000000' notitle, \
     f using "cond":(clamp(column("s_mean"))) with linespoints ls 1 notitle
