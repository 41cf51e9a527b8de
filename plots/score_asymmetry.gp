# score_asymmetry.gp - lecture figure: how asymmetric are the scores,
# ||S - S^T||_F / ||S||_F, for four ways of making them. Raw dot products and
# tied projections are exactly symmetric; a symmetric W_QK (with W_Q != W_K)
# is symmetric up to rounding; independent W_Q, W_K give O(1) asymmetry. One
# point per draw (the first 400, spread sideways), the mean of each case with
# its 95% CI, and the prediction sqrt(2 (T-1)(1-1/d) / (T+2/d)) for the last.
# Data: score_asymmetry_draws.csv (draw, raw, tied, symmetric, independent),
#       score_asymmetry.csv (case, index, draws, mean, ci_lo, ci_hi, min, max, ...).
# size: 6.5,4
f = datadir.'/score_asymmetry_draws.csv'
g = datadir.'/score_asymmetry.csv'
meta_id = 'score_asymmetry'
T = meta('T'); d = meta('d')
pred = sqrt(2.0 * (T - 1) * (1 - 1.0 / d) / (T + 2.0 / d))
stats g skip 1 using 8 nooutput
ymax = STATS_max
stats g skip 1 using 3 nooutput
n = int(STATS_min)
set title "Learned scores need not be symmetric"
set ylabel "asymmetry  ‖S − S^T‖ / ‖S‖"
set yrange [-0.05 : (ymax > 1.6 ? ymax : 1.6) * 1.12]
set xrange [0.4 : 5.2]
set xtics ("raw\nx_i · x_j" 1, "tied\nW_Q = W_K" 2, "symmetric\nW_{QK}" 3, "independent\nW_Q, W_K" 4)
set xtics nomirror scale 0 offset 0, -0.3 font ",9"
set grid noxtics
set bmargin 4.5
set label 1 sprintf("T = %g tokens, d = %g, d_k = %g; %d draws", T, d, meta('d_k'), n) at graph 0.02, graph 0.95 left font ',9'
jit(i) = 0.5 * ((i * 0.6180339887498949) - floor(i * 0.6180339887498949) - 0.5)
set arrow 1 from 3.7, pred to 4.35, pred nohead ls 9 lw 1.5 front
set label 2 sprintf("prediction\n%.3f", pred) at 4.4, pred left font ',9'
plot f every ::0::399 using (1 + jit($1)):2 with points ls 1 pt 7 ps 0.3 notitle, \
     f every ::0::399 using (2 + jit($1)):3 with points ls 2 pt 7 ps 0.3 notitle, \
     f every ::0::399 using (3 + jit($1)):4 with points ls 4 pt 7 ps 0.3 notitle, \
     f every ::0::399 using (4 + jit($1)):5 with points ls 3 pt 7 ps 0.3 notitle, \
     g skip 1 using ($2 == 4 ? $2 : 1/0):4:5:6 with yerrorbars ls 1 pt 7 ps 0.8 lw 2 notitle, \
     g skip 1 using ($2 == 4 ? $2 : 1/0):($4 - 0.42):(sprintf("mean %.3f", $4)) with labels font ',9' notitle, \
     g skip 1 using ($2 <= 2 ? $2 : 1/0):(0.12):($10 == $3 ? "exactly 0" : sprintf("≤ %.0e", $8)) with labels font ',9' notitle, \
     g skip 1 using ($2 == 3 ? $2 : 1/0):(0.12):(sprintf("≤ %.0e", $8)) with labels font ',9' notitle
