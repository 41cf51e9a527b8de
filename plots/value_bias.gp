# value_bias.gp - b_V just shifts every output. One random head of the
# value_bias run (five tokens): how far each output moves along b_V when b_V
# is added, in units of b_V. With softmax weights (rows sum to 1) every output
# moves by exactly b_V, so b_V folds into the output bias; with elementwise-
# sigmoid weights (the control) output i moves by (sum_j a_ij) b_V.
# Data: value_bias_example.csv (i, token, softmax_shift, row_sum), read by name.
# size: 6.5,3.6
f = datadir.'/value_bias_example.csv'
set datafile columnheaders   # columns by name
stats f using "row_sum" nooutput
top = STATS_max > 1 ? STATS_max : 1
set title "b_V just shifts every output, because each row of A sums to 1"
set ylabel "shift of o_i along b_V (units of b_V)"
set xlabel "token i"
set yrange [0:top * 1.5]
set label "dark: softmax weights (rows sum to 1)\nlight: sigmoid weights, the control (rows do not)" at graph 0.02, graph 0.93 left
set xrange [-0.6:4.6]
set style fill solid 1.0 border -1
set boxwidth 0.36
set grid ytics
unset key
set xtics scale 0
set arrow from -0.6, 1 to 4.6, 1 nohead ls 9
plot f using (column("i") - 0.19):"softmax_shift":xtic(strcol("token")) with boxes lc rgb '#2e7d32', \
     '' using (column("i") + 0.19):"row_sum" with boxes lc rgb '#c7e9c0', \
     '' using (column("i") - 0.19):"softmax_shift":(sprintf('%.3f', column("softmax_shift"))) \
        with labels offset 0,0.7 font ',8', \
     '' using (column("i") + 0.19):"row_sum":(sprintf('%.2f', column("row_sum"))) \
        with labels offset 0,0.7 font ',8'
