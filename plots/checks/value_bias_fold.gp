# checks/value_bias_fold.gp - folding the value bias into the output bias, b_O' = b_O + b_V W_O:
# the error of the folded output on random softmax heads (rows of A sum to 1)
# against the negative control (elementwise-sigmoid weights, rows do not sum
# to 1), both relative to the size of the folded term max|b_V W_O|.
# Histograms of log10(error) over the same random heads.
# Data: value_bias_draws.csv (one row per head; columns read by name).
# size: 6.5,4.2
f = datadir.'/value_bias_draws.csv'
set datafile columnheaders
stats f using "fold_err_vs_bias" nooutput
N = STATS_records
w = 0.25                                   # bin width in decades
bin(x) = w * floor(log10(x) / w) + w / 2
set title sprintf("Folding b_V into b_O, %d random heads (check)", N)
set xlabel "folding error  max|Y_{unfolded} − Y_{folded}| / max|b_V W_O|"
set ylabel "heads per 1/4 decade"
set logscale x
set format x "10^{%T}"
set xrange [1e-17:1e3]
set yrange [0:*]
set xtics 1e4   # every other decade: 10^{−16} and its neighbours do not fit side by side
set mxtics 10
set key at graph 0.5, graph 0.85 center box opaque samplen 2
set boxwidth 1.0 relative
eps = 2.220446049250313e-16
set arrow from eps, graph 0 to eps, graph 1 nohead ls 9
set label "machine ε" at eps, graph 0.6 left offset 0.4, 0
set arrow from 1e-3, graph 0 to 1e-3, graph 1 nohead lw 2 dt 1 lc rgb '#b2182b'
set label "control rule: ≥ 10^{-3}" at 1e-3, graph 0.55 right offset -0.5, 0
plot f using (10**bin(column("fold_err_vs_bias"))):(1.0) smooth frequency with boxes lw 1 dt 1 lc rgb '#1f4e9c' \
        fs solid 0.55 border lc rgb '#1f4e9c' title "softmax (rows sum to 1)", \
     f using (10**bin(column("control_err_vs_bias"))):(1.0) smooth frequency with boxes lw 1 dt 1 lc rgb '#b2182b' \
        fs pattern 4 border lc rgb '#b2182b' title "sigmoid control"
