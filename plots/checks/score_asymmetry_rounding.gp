# score_asymmetry_rounding.gp - check plot: the relative asymmetry ||S - S^T||_F / ||S||_F of every
# draw, for four ways of making the scores (one strip each, points spread
# sideways so they can be seen). Raw scores and tied projections are exactly
# symmetric (drawn on the "exactly 0" line); a symmetric W_QK built on purpose
# is symmetric up to rounding (~1e-16, far below its tolerance, the short bar);
# independent W_Q, W_K give O(1) asymmetry (the mean's 95% CI is the bar
# through the strip; the dashed line is the rule's 0.5).
# Data: score_asymmetry_draws.csv (draw, raw, tied, symmetric, independent),
#       score_asymmetry.csv (per case: mean, CI, tol_min, exact_zeros).
# size: 6.5,4.5
f = datadir.'/score_asymmetry_draws.csv'
g = datadir.'/score_asymmetry.csv'
set title "Check: asymmetry per draw against its rounding tolerance" font ",9"
set ylabel "||S - S^T||_F / ||S||_F"
set logscale y
set format y "10^{%L}"
set yrange [1e-20:1e3]
set ytics 1e-16, 1e4
set ytics add ("exactly 0" 1e-19)
set xrange [0.4:4.6]
set xtics ("raw" 1, "tied" 2, "symmetric" 3, "independent" 4)
set xtics nomirror scale 0 offset 0, -0.3 font ",9"
set bmargin 3
set key at graph 0.98, graph 0.62 right top box opaque spacing 1.0 font ",9"
zero = 1e-19
clamp(y) = y > 0 ? y : zero
# deterministic sideways spread from the draw index (golden-ratio sequence)
jit(i) = 0.56 * ((i * 0.6180339887498949) - floor(i * 0.6180339887498949) - 0.5)
set arrow from 0.4, 0.5 to 4.6, 0.5 nohead ls 9 dt 2
set label "0.5: the rule for independent" at 4.55, 0.09 right font ",9"
plot f skip 1 using (1 + jit($1)):(clamp($2)) with points ls 1 pt 7 ps 0.35 notitle, \
     f skip 1 using (2 + jit($1)):(clamp($3)) with points ls 2 pt 5 ps 0.35 notitle, \
     f skip 1 using (3 + jit($1)):(clamp($4)) with points ls 4 pt 13 ps 0.35 notitle, \
     f skip 1 using (4 + jit($1)):(clamp($5)) with points ls 3 pt 9 ps 0.35 notitle, \
     g skip 1 using ($2 <= 3 ? $2 : 1/0):9:(0.34):(0) with vectors nohead lc rgb "#555555" lw 5 title "tolerance 16 n ε ρ", \
     g skip 1 using ($2 <= 3 ? $2 - 0.34 : 1/0):9:(0.68):(0) with vectors nohead lc rgb "#555555" lw 5 notitle, \
     g skip 1 using ($2 == 4 ? $2 : 1/0):4:5:6 with yerrorbars ls 1 pt 7 ps 1.2 lw 3 title "mean and 95% CI", \
     g skip 1 using ($2 == 3 ? $2 : 1/0):(1e-17):(sprintf("max %.1e", $8)) with labels font ",9" notitle
