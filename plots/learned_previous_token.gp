# learned_previous_token.gp - held-out accuracy of a trained previous-token
# head against its width d_k = d_v, with separate keys and values and with
# tied ones (W_V = W_K, so k_j = v_j), after the same Adam budget; 95% CI
# bands over seeds (union with the Wilson interval of the pooled predictions).
# Data: learned_previous_token.csv (sweep.h: one row per (d_k, steps); columns read
#       by name: d_k, steps, sep_acc_mean, tied_acc_mean and the seed CIs
#       sep_acc_ci_lo/_hi, tied_acc_ci_lo/_hi); parameters from learned_previous_token.meta.
# size: 6.5,3.9
# slide: 5.6,2.4
meta_id = 'learned_previous_token'
f = datadir.'/learned_previous_token.csv'
S = meta('steps'); V = meta('n_vocab'); T = meta('T'); N = meta('seeds')
set datafile columnheaders
stats f using "d_k" nooutput
wmin = STATS_min; wmax = STATS_max
# the rows of the full budget S (header kept; columns found by name)
awkname = "NR == 1 {for (i = 1; i <= NF; i++) c[$i] = i; print; next}"
rows = sprintf("< awk -F, -v S=%d '%s $c[\"steps\"] == S' '%s'", S, awkname, f)
kind(t) = t ? "tied" : "sep"
set title sprintf("Tied keys and values (k_j = v_j) need a wider head\n" . \
                  "{/*0.8 previous token, causal mask, W_O trained too;}\n" . \
                  "{/*0.8 n_{vocab} = %d, T = %d; %d Adam steps; %d seeds; 95%% CI}", V, T, S, N)
set xlabel "head width d_k = d_v"
set ylabel (SLIDE ? "accuracy" : "held-out accuracy")
set logscale x 2
set xrange [wmin / 1.15:wmax * 1.15]
if (wmin == wmax) { set xtics (sprintf("%d", wmin) wmin) }
set yrange [0:1.16]
set ytics 0, (SLIDE ? 0.5 : 0.2), 1
# direct labels at width 2 (or the smallest width run), placed from the data
val(t, w) = system(sprintf("awk -F, -v S=%d -v w=%d -v k=%s_acc_mean " . \
                           "'%s $c[\"steps\"] == S && $c[\"d_k\"] == w {print $c[k]}' '%s' " . \
                           "| tail -n +2", S, w, kind(t), awkname, f))
lw = (val(0, 2) ne "") ? 2 : wmin
set label 1 "separate W_K, W_V" at lw, real(val(0, lw)) left offset -0.5, 0.8 tc rgb col_v front
set label 2 "tied W_V = W_K" at lw, real(val(1, lw)) left offset 1.0, -0.2 tc rgb col_k front
set label 3 "chance 1/n_{vocab}" at wmax, 1.0 / V right offset 0, 0.7 tc rgb '#555555' front
if (SLIDE) {
    unset title   # the slide's frame title states the claim
    set tmargin 1; set bmargin 3.6
    set yrange [0:1.4]
    set label 1 at wmin, 1.0 left offset -0.5, 0.6
    # "tied" to the right of its point at width 2, below the line that rises from
    # it to width 3 (under it, it reached the chance line and the frame's bottom);
    # the chance label just above its line at the right, under "tied"
    set label 2 at lw, real(val(1, lw)) left offset 3.0, 0.9
    set label 3 at wmax, 1.0 / V right offset 0, 0.6
}
plot rows using "d_k":"sep_acc_ci_lo":"sep_acc_ci_hi" with filledcurves fc rgb col_v notitle, \
     rows using "d_k":"tied_acc_ci_lo":"tied_acc_ci_hi" with filledcurves fc rgb col_k notitle, \
     rows using "d_k":"sep_acc_mean" with linespoints ls 1 lc rgb col_v notitle, \
     rows using "d_k":"tied_acc_mean" with linespoints ls 3 lc rgb col_k notitle, \
     1.0 / V with lines ls 9 notitle
