# score_asymmetry_rounding.gp - check plot: the relative asymmetry ||S - S^T||_F / ||S||_F of every
# draw, for four ways of making the scores (one strip each, points spread
# sideways so they can be seen). Raw scores and tied projections are exactly
# symmetric (drawn on the "exactly 0" line); a symmetric W_QK built on purpose
# is symmetric up to rounding (~1e-16, far below its tolerance, the short bar);
# independent W_Q, W_K give O(1) asymmetry (the mean's 95% CI is the bar
# through the strip; the dashed line is the rule's 0.5).
# Data, read by column name: score_asymmetry_draws.csv (T, d, d_k, draw, raw,
#       tied, symmetric, independent, tol_*, zero_*: one row per draw),
#       score_asymmetry.csv (ONE row: per case <case>_mean, _lo, _hi, _max and
#       tol_<case>_min, the smallest tolerance over the draws).
# size: 6.5,4.5
f = datadir.'/score_asymmetry_draws.csv'
g = datadir.'/score_asymmetry.csv'
set datafile columnheaders
# one value per case from the one-row summary
do for [k in "raw tied symmetric independent"] {
    do for [st in "mean lo hi max"] {
        stats g using (column(k.'_'.st)) nooutput
        eval sprintf("%s_%s = STATS_max", k, st)
    }
    stats g using (column('tol_'.k.'_min')) nooutput
    eval sprintf("tol_%s = STATS_max", k)
}
set title "Check: asymmetry per draw against its rounding tolerance" font ",9"
set ylabel "||S − S^T||_F / ||S||_F"
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
set label sprintf("max %.1e", symmetric_max) at 3, 1e-17 center font ",9"
# the tolerance bars (cases 1-3: exactly or rounding-level symmetric) from a
# three-point pseudo-file: x = case, y = tol_<case>_min
tol(i) = i == 1 ? tol_raw : (i == 2 ? tol_tied : tol_symmetric)
plot f using (1 + jit(column("draw"))):(clamp(column("raw"))) with points ls 1 pt 7 ps 0.35 notitle, \
     f using (2 + jit(column("draw"))):(clamp(column("tied"))) with points ls 2 pt 5 ps 0.35 notitle, \
     f using (3 + jit(column("draw"))):(clamp(column("symmetric"))) with points ls 4 pt 13 ps 0.35 notitle, \
     f using (4 + jit(column("draw"))):(clamp(column("independent"))) with points ls 3 pt 9 ps 0.35 notitle, \
     '+' using ($0 + 1 - 0.34):(tol($0 + 1)):(0.68):(0) every ::0::2 with vectors nohead lc rgb "#555555" lw 5 title "tolerance 16 n ε ρ", \
     g using (4):"independent_mean":"independent_lo":"independent_hi" with yerrorbars ls 1 pt 7 ps 1.2 lw 3 title "mean and 95% CI"
