# learned_previous_token.gp - held-out accuracy of a trained previous-token
# head against its width d_k = d_v, with separate keys and values and with
# tied ones (W_V = W_K, so k_j = v_j), after the same Adam budget; 95% CI
# bands over seeds (union with the Wilson interval of the pooled predictions).
# Data: learned_previous_token.csv (dk, tied, steps, seeds, predictions,
#       accuracy, acc_lo, acc_hi, weight_prev, weight_lo, weight_hi);
#       parameters from learned_previous_token.meta.
# size: 6.5,3.9
# slide: 5.6,2.4
meta_id = 'learned_previous_token'
f = datadir.'/learned_previous_token.csv'
S = meta('steps'); V = meta('n_vocab'); T = meta('T'); N = meta('seeds')
stats f using 1 skip 1 nooutput
wmin = STATS_min; wmax = STATS_max
# the rows of the full budget S, one stream per kind of head (tied 0 / 1)
rows(t) = sprintf("< awk -F, -v S=%d -v t=%d 'NR > 1 && $3 == S && $2 == t' '%s'", S, t, f)
set title sprintf("Tied keys and values (k_j = v_j) need a wider head\n{/*0.8 previous token, causal mask, W_O trained too;}\n{/*0.8 n_{vocab} = %d, T = %d; %d Adam steps; %d seeds; 95%% CI}", V, T, S, N)
set xlabel "head width d_k = d_v"
set ylabel (SLIDE ? "accuracy" : "held-out accuracy")
set logscale x 2
set xrange [wmin / 1.15:wmax * 1.15]
if (wmin == wmax) { set xtics (sprintf("%d", wmin) wmin) }
set yrange [0:1.16]
set ytics 0, (SLIDE ? 0.5 : 0.2), 1
# direct labels at width 2 (or the smallest width run), placed from the data
val(t, w) = system(sprintf("awk -F, -v S=%d -v t=%d -v w=%d 'NR > 1 && $3 == S && $2 == t && $1 == w {print $6}' '%s'", S, t, w, f))
lw = (val(0, 2) ne "") ? 2 : wmin
set label 1 "separate W_K, W_V" at lw, real(val(0, lw)) left offset -0.5, 0.8 tc rgb col_v front
set label 2 "tied W_V = W_K" at lw, real(val(1, lw)) left offset 1.0, -0.2 tc rgb col_k front
set label 3 "chance 1/n_{vocab}" at wmax, 1.0 / V right offset 0, 0.7 tc rgb '#555555' front
if (SLIDE) {
    unset title   # the slide's frame title states the claim
    set tmargin 1; set bmargin 3.6
    set yrange [0:1.4]
    set label 1 at wmin, 1.0 left offset -0.5, 0.6
    set label 2 at lw, real(val(1, lw)) left offset 1.0, 0.3
    set label 3 at wmax, 1.0 / V right offset 0, 0.6
}
plot rows(0) using 1:7:8 with filledcurves fc rgb col_v notitle, \
     rows(1) using 1:7:8 with filledcurves fc rgb col_k notitle, \
     rows(0) using 1:6 with linespoints ls 1 lc rgb col_v notitle, \
     rows(1) using 1:6 with linespoints ls 3 lc rgb col_k notitle, \
     1.0 / V with lines ls 9 notitle
