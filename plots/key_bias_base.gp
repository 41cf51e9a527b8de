# key_bias_base.gp - with RoPE applied after the biases, the key bias is no
# longer a constant shift of each row of scores, so its gradient is not zero:
# the ratio ||dL/db_K|| / ||dL/db_Q|| (mean over random heads, 95% CI bars)
# against the RoPE base (log axis). It stays of order one at every base: the
# contrast with the exactly-zero gradient without RoPE, not a constant of
# attention (its size depends on the set-up).
# Data: key_bias_base.csv (sweep.h's layout, read by name: base, draws, ratio_mean,
# ratio_lo, ratio_hi).
# size: 6.5,3.4
# needs: key_bias_base.csv (make figures leaves this figure out of a run without the base sweep)
f = datadir.'/key_bias_base.csv'
if (system(sprintf("test -s '%s' && echo 1", f)) ne "1") {
    # a run without this table (an older binary, or options that skip it)
    set label 1 "this run wrote no key_bias_base.csv (a RoPE base sweep)" at graph 0.5, graph 0.5 center noenhanced
    unset xtics; unset ytics; set border 0
    plot [0:1][0:1] NaN notitle
    exit
}
set datafile columnheaders
stats f using "base" name "B" nooutput
stats f using "draws" name "N" nooutput
set title "With RoPE after it, b_K has a gradient of order one"
set xlabel "RoPE base"
set ylabel "||∂L/∂b_K|| / ||∂L/∂b_Q||"
set logscale x 10
set format x '10^{%L}'
set xrange [B_min / 3 : B_max * 3]
set yrange [0:1.2]
set ytics 0, 0.25, 1
set label 1 sprintf("%d random heads per base, 95%% CI;\nwithout RoPE the ratio is 0", N_min) at graph 0.03, graph 0.90 left font ',9'
plot f using "base":"ratio_mean":"ratio_lo":"ratio_hi" with yerrorbars lc rgb '#1f4e9c' pt 7 ps 0.8 notitle, \
     f using "base":"ratio_mean" with lines ls 2 notitle
