# learned_previous_token_steps.gp - held-out accuracy against the training
# budget (Adam steps, checkpoints S/16 .. S) at the width map_dk of the .meta,
# separate against tied keys and values; 95% CI bands. Each budget is its own
# point (d_k, steps) with its own seeds: a curve of means, not one head's history.
# Data: learned_previous_token.csv (sweep.h; by name: d_k, steps, sep_acc_mean,
#       tied_acc_mean, sep_acc_ci_lo/_hi, tied_acc_ci_lo/_hi).
# size: 6.5,3.6
meta_id = 'learned_previous_token'
f = datadir.'/learned_previous_token.csv'
W = meta('map_dk'); S = meta('steps'); N = meta('seeds')
set datafile columnheaders
awkname = "NR == 1 {for (i = 1; i <= NF; i++) c[$i] = i; print; next}"
rows = sprintf("< awk -F, -v W=%d '%s $c[\"d_k\"] == W' '%s'", W, awkname, f)
kind(t) = t ? "tied" : "sep"
set title sprintf("At width %d, tied keys and values learn slowly\n" . \
                  "{/*0.8 d_k = d_v = %d; %d seeds per point; 95%% CI bands}", W, W, N)
set xlabel sprintf("Adam steps (%d sequences each)", meta("batch"))
set ylabel "held-out accuracy"
set logscale x 2
set xrange [S / 16 / 1.3:S * 1.3]
set xtics S / 16, 2, S
set yrange [0:1.16]
set ytics 0, 0.2, 1
# direct labels, placed from the data (first and middle checkpoints)
val(t, k) = system(sprintf("awk -F, -v W=%d -v k=%d -v m=%s_acc_mean " . \
                           "'%s $c[\"d_k\"] == W && $c[\"steps\"] == k {print $c[m]}' '%s' " . \
                           "| tail -n +2", W, k, kind(t), awkname, f))
set label 1 "separate W_K, W_V" at S / 16, real(val(0, S / 16)) left offset -0.5, 0.8 \
    tc rgb col_v front
set label 2 "tied W_V = W_K" at S / 4, real(val(1, S / 4)) left offset 1.0, -0.4 tc rgb col_k front
plot rows using "steps":"sep_acc_ci_lo":"sep_acc_ci_hi" with filledcurves fc rgb col_v notitle, \
     rows using "steps":"tied_acc_ci_lo":"tied_acc_ci_hi" with filledcurves fc rgb col_k notitle, \
     rows using "steps":"sep_acc_mean" with linespoints ls 1 lc rgb col_v notitle, \
     rows using "steps":"tied_acc_mean" with linespoints ls 3 lc rgb col_k notitle
