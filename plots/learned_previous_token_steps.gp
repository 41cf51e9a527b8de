# learned_previous_token_steps.gp - held-out accuracy against the training
# budget (Adam steps, checkpoints S/16 .. S) at the width map_dk of the .meta,
# separate against tied keys and values; 95% CI bands.
# Data: learned_previous_token.csv (dk, tied, steps, ..., accuracy, acc_lo, acc_hi, ...).
# size: 6.5,3.6
meta_id = 'learned_previous_token'
f = datadir.'/learned_previous_token.csv'
W = meta('map_dk'); S = meta('steps'); N = meta('seeds')
rows(t) = sprintf("< awk -F, -v W=%d -v t=%d 'NR > 1 && $1 == W && $2 == t' '%s'", W, t, f)
set title sprintf("At width %d, tied keys and values learn slowly\n{/*0.8 d_k = d_v = %d; %d seeds per point; 95%% CI bands}", W, W, N)
set xlabel sprintf("Adam steps (%d sequences each)", meta("batch"))
set ylabel "held-out accuracy"
set logscale x 2
set xrange [S / 16 / 1.3:S * 1.3]
set xtics S / 16, 2, S
set yrange [0:1.16]
set ytics 0, 0.2, 1
# direct labels, placed from the data (first and middle checkpoints)
val(t, k) = system(sprintf("awk -F, -v W=%d -v t=%d -v k=%d 'NR > 1 && $1 == W && $2 == t && $3 == k {print $6}' '%s'", W, t, k, f))
set label 1 "separate W_K, W_V" at S / 16, real(val(0, S / 16)) left offset -0.5, 0.8 tc rgb col_v front
set label 2 "tied W_V = W_K" at S / 4, real(val(1, S / 4)) left offset 1.0, -0.4 tc rgb col_k front
plot rows(0) using 3:7:8 with filledcurves fc rgb col_v notitle, \
     rows(1) using 3:7:8 with filledcurves fc rgb col_k notitle, \
     rows(0) using 3:6 with linespoints ls 1 lc rgb col_v notitle, \
     rows(1) using 3:6 with linespoints ls 3 lc rgb col_k notitle
