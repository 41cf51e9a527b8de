# score_asymmetry.gp - lecture figure: how asymmetric are the scores,
# ||S - S^T||_F / ||S||_F, for four ways of making them. Raw dot products and
# tied projections are exactly symmetric; a symmetric W_QK (with W_Q != W_K)
# is symmetric up to rounding; independent W_Q, W_K give O(1) asymmetry. One
# point per draw (the first 400, spread sideways), the mean of each case with
# its 95% CI, and the prediction sqrt(2 (T-1)(1-1/d) / (T+2/d)) for the last.
# Data, read by column name: score_asymmetry_draws.csv (T, d, d_k, draw, raw,
#       tied, symmetric, independent, tol_*, zero_*: one row per draw),
#       score_asymmetry.csv (ONE row: T, d, d_k, draws, then <case>_mean, _lo,
#       _hi, _min, _max, _n for the cases raw tied symmetric independent, the
#       same for tol_<case> and zero_<case>; zero_<case>_mean = the fraction of
#       draws exactly 0).
# size: 6.5,4
f = datadir.'/score_asymmetry_draws.csv'
g = datadir.'/score_asymmetry.csv'
set datafile columnheaders
# one value per case from the one-row summary: <case>_mean, _lo, _hi, _max, zero_<case>_mean
cases = "raw tied symmetric independent"
do for [k in cases] {
    do for [st in "mean lo hi max"] {
        stats g using (column(k.'_'.st)) nooutput
        eval sprintf("%s_%s = STATS_max", k, st)
    }
    stats g using (column('zero_'.k.'_mean')) nooutput
    eval sprintf("zero_%s = STATS_max", k)
}
stats g using "T" nooutput
T = STATS_max
stats g using "d" nooutput
d = STATS_max
stats g using "d_k" nooutput
dk = STATS_max
stats g using "draws" nooutput
n = int(STATS_max)
pred = sqrt(2.0 * (T - 1) * (1 - 1.0 / d) / (T + 2.0 / d))
ymax = independent_max
# the words under an exactly symmetric case: "exactly 0" when every draw is 0
zlabel(z, m) = z == 1 ? "exactly 0" : sprintf("≤ %.0e", m)
set title "Learned scores need not be symmetric"
set ylabel "asymmetry  ‖S − S^T‖ / ‖S‖"
set yrange [-0.05 : (ymax > 1.6 ? ymax : 1.6) * 1.12]
set xrange [0.4 : 5.2]
set xtics ("raw\nx_i · x_j" 1, "tied\nW_Q = W_K" 2, "symmetric\nW_{QK}" 3, "independent\nW_Q, W_K" 4)
set xtics nomirror scale 0 offset 0, -0.3 font ",9"
set grid noxtics
set bmargin 4.5
set label 1 sprintf("T = %g tokens, d = %g, d_k = %g; %d draws", T, d, dk, n) at graph 0.02, graph 0.95 left font ',9'
jit(i) = 0.5 * ((i * 0.6180339887498949) - floor(i * 0.6180339887498949) - 0.5)
set arrow 1 from 3.7, pred to 4.35, pred nohead ls 9 lw 1.5 front
set label 2 sprintf("prediction\n%.3f", pred) at 4.4, pred left font ',9'
set label 3 zlabel(zero_raw, raw_max) at 1, 0.12 center font ',9'
set label 4 zlabel(zero_tied, tied_max) at 2, 0.12 center font ',9'
set label 5 sprintf("≤ %.0e", symmetric_max) at 3, 0.12 center font ',9'
set label 6 sprintf("mean %.3f", independent_mean) at 4, independent_mean - 0.42 center font ',9'
# the first 400 draws (data rows 0..399; the header is not a row)
plot f every ::0::399 using (1 + jit(column("draw"))):"raw" with points ls 1 pt 7 ps 0.3 notitle, \
     f every ::0::399 using (2 + jit(column("draw"))):"tied" with points ls 2 pt 7 ps 0.3 notitle, \
     f every ::0::399 using (3 + jit(column("draw"))):"symmetric" with points ls 4 pt 7 ps 0.3 notitle, \
     f every ::0::399 using (4 + jit(column("draw"))):"independent" with points ls 3 pt 7 ps 0.3 notitle, \
     g using (4):"independent_mean":"independent_lo":"independent_hi" with yerrorbars ls 1 pt 7 ps 0.8 lw 2 notitle
