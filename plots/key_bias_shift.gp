# key_bias_shift.gp - one query's row of scores with and without the key bias:
# every score moves by the same constant q_i . b_K (left), so the softmax
# weights do not move at all (right). One random head of the key_bias run
# (no RoPE), query i = 0; the shift from key_bias.meta.
# Data: key_bias_shift.csv (j, score_without, score_with, weight_without, weight_with),
# read by name.
# size: 6.5,3.9
# slide: 2.9,2.6
meta_id = 'key_bias'
shift = meta('shift_example')
f = datadir.'/key_bias_shift.csv'
set datafile columnheaders   # columns by name
stats f using "j" nooutput
T = STATS_records
if (SLIDE) {
    set multiplot layout 1,2 margins 0.23,0.98,0.43,0.86 spacing 0.21,0   # room for labels such as −16 (a minus sign is wider than a hyphen)
    set xlabel "key j" offset 0, 0.9   # on both panels, under their ticks
} else {
set multiplot layout 1,2 title main(sprintf("Adding b_K shifts a row of scores by one constant (q_0·b_K = %.2f):\nthe softmax weights do not move", shift)) \
    margins 0.10,0.98,0.24,0.72 spacing 0.12,0
}
set style fill solid 1.0 border -1
set boxwidth 0.38
set xrange [-0.6:T - 0.4]
set xtics 0, (T > 12 ? (T > 40 ? 10 : 4) : (SLIDE ? 2 : 1)) scale 0 offset 0, (SLIDE ? 0.3 : 0)   # a start, then the step: '(1)' alone would be one tick at 1
if (!SLIDE) { set xlabel "key j" offset 0,0.4 }
unset key
set label 1 (SLIDE ? "light: without b_K\ndark: with b_K" : "light bars: without b_K      dark bars: with b_K") at screen 0.5, screen (SLIDE ? 0.18 : 0.05) center
set grid ytics
set title (SLIDE ? "scores" : "scores s_{0j}") font (SLIDE ? ',9' : '') offset 0, (SLIDE ? -0.6 : 0)
stats f using "score_without" name "S0" nooutput
stats f using "score_with" name "S1" nooutput
span = (S0_max > S1_max ? S0_max : S1_max) - (S0_min < S1_min ? S0_min : S1_min)
sstep = span > 12 ? 10 : (span > 6 ? 5 : 2)
if (SLIDE) { set ytics sstep }   # at most about four labels on the small slide
set xzeroaxis lt -1
plot f using (column("j") - 0.2):"score_without" with boxes lc rgb '#9ecae1', \
     '' using (column("j") + 0.2):"score_with" with boxes lc rgb '#08306b'
unset label 1
set title (SLIDE ? "weights" : "weights a_{0j} = softmax") font (SLIDE ? ',9' : '') offset 0, (SLIDE ? -0.6 : 0)
wstep = SLIDE ? 0.5 : 0.25   # weights in [0, 1]: at most five labels
set ytics wstep
set yrange [0:*]
plot f using (column("j") - 0.2):"weight_without" with boxes lc rgb '#9ecae1', \
     '' using (column("j") + 0.2):"weight_with" with boxes lc rgb '#08306b'
unset multiplot
