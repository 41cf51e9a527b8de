# qk_invariance_rounding.gp - check plot: W_Q -> W_Q R, W_K -> W_K R^{-T}: what changes and what does not.
# The products W_QK, S and O change only by rounding, growing like cond(R) eps
# (mean over draws with its 95% CI band, and the worst draw); the queries Q
# themselves change by O(1), and for non-orthogonal R so does their Gram
# matrix Q Q^T (lengths and angles between queries).
# Data: qk_invariance.csv (one row per cond(R)), read by column name: cond,
# <stat>_mean, _lo, _hi, _max of wqk, s, o, q, gram, and allowed_units = C.
# size: 6.5,5.5
f = datadir.'/qk_invariance.csv'
set title "Rounding under W_Q R, W_K R^{-T}"
set xlabel "cond(R)"
set ylabel "||new − old||_F / ||old||_F"
set logscale xy
set format x "10^{%L}"
set format y "10^{%L}"
set xrange [0.5:3e8]
set yrange [1e-17:1e9]
set ytics 1e-16, 1e4
set rmargin at screen 0.54
set key at screen 0.99, graph 1.0 right top vertical Left reverse box opaque spacing 1.2 samplen 2 width -4 font ",8"
set xtics 1, 1e4
eps = 2.220446049250313e-16
set datafile columnheaders
# C = 4 (d + 2 d_k), the verdict's allowance, from the allowed_units column
stats f using "allowed_units" nooutput
C = STATS_max
plot C * eps * x with lines ls 9 dt 3 lw 2 title sprintf("C cond(R) ε, C = %g (allowed)", C), \
     eps * x with lines ls 9 dt 1 lw 2 title "cond(R) ε", \
     f using "cond":"q_lo":"q_hi" with filledcurves lc rgb '#d8d8d8' notitle, \
     f using "cond":"q_mean" with linespoints ls 1 title "Q, mean", \
     f using "cond":"gram_lo":"gram_hi" with filledcurves lc rgb '#d8d8d8' notitle, \
     f using "cond":"gram_mean" with linespoints ls 5 title "Q Q^T, mean", \
     f using "cond":"s_lo":"s_hi" with filledcurves lc rgb '#c6d4ea' notitle, \
     f using "cond":"s_mean" with linespoints ls 2 title "S, mean and 95% CI", \
     f using "cond":"s_max" with points ls 2 pt 4 ps 0.9 title "S, worst draw", \
     f using "cond":"o_lo":"o_hi" with filledcurves lc rgb '#ecc9cc' notitle, \
     f using "cond":"o_mean" with linespoints ls 3 title "O, mean and 95% CI", \
     f using "cond":"o_max" with points ls 3 pt 8 ps 0.9 title "O, worst draw", \
     f using "cond":"wqk_mean" with linespoints ls 4 title "W_{QK}, mean"
