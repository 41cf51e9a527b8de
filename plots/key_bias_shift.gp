# key_bias_shift.gp - one query's row of scores with and without the key bias:
# every score moves by the same constant q_i . b_K (left), so the softmax
# weights do not move at all (right). One random head of the key_bias run
# (no RoPE), query i = 0; the shift from key_bias.meta.
# Data: key_bias_shift.csv (j, score_without, score_with, weight_without, weight_with).
# size: 6.5,3.9
meta_id = 'key_bias'
shift = meta('shift_example')
f = datadir.'/key_bias_shift.csv'
stats f skip 1 using 1 nooutput
T = STATS_records
set multiplot layout 1,2 title main(sprintf("Adding b_K shifts a row of scores by one constant,\nq_0·b_K = %.2f: the softmax weights do not move", shift)) \
    margins 0.10,0.98,0.24,0.76 spacing 0.12,0
set style fill solid 1.0 border -1
set boxwidth 0.38
set xrange [-0.6:T - 0.4]
set xtics (T > 12 ? (T > 40 ? 10 : 4) : 1) scale 0
set xlabel "key j" offset 0,0.4
unset key
set label 1 "light bars: without b_K      dark bars: with b_K" at screen 0.5, screen 0.05 center
set grid ytics
set title "scores s_{0j}"
set xzeroaxis lt -1
plot f skip 1 using ($1 - 0.2):2 with boxes lc rgb '#9ecae1', \
     '' skip 1 using ($1 + 0.2):3 with boxes lc rgb '#08306b'
unset label 1
set title "weights a_{0j} = softmax"
set yrange [0:*]
plot f skip 1 using ($1 - 0.2):4 with boxes lc rgb '#9ecae1', \
     '' skip 1 using ($1 + 0.2):5 with boxes lc rgb '#08306b'
unset multiplot
