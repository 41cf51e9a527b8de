# query_bias_pref.gp - how strong the query bias's preference is: with
# W_Q = 0 every row of A is the same distribution softmax(K b_Q); its total
# variation distance from uniform (mean over random heads, 95% CI band)
# against u = sigma(b_Q) ||W_K||_F, the typical size of the added scores,
# on a log axis. Small biases barely prefer anything, large ones pick a key.
# Data: query_bias_pref.csv (sweep.h's layout, read by name: u, draws, tv_mean, tv_lo, tv_hi).
# size: 6.5,3.6
# needs: query_bias_pref.csv (make figures leaves this figure out of a run without the bias-size sweep)
f = datadir.'/query_bias_pref.csv'
if (system(sprintf("test -s '%s' && echo 1", f)) ne "1") {
    # a run without this table (an older binary, or options that skip it)
    set label 1 "this run wrote no query_bias_pref.csv (a sweep of the bias size)" at graph 0.5, graph 0.5 center noenhanced
    unset xtics; unset ytics; set border 0
    plot [0:1][0:1] NaN notitle
    exit
}
set datafile columnheaders
stats f using "u" name "U" nooutput
stats f using "draws" name "H" nooutput
set title "A larger query bias, a stronger shared preference over keys"
set xlabel "size of the added scores, σ(b_Q) ‖W_K‖_F"
set ylabel "distance from uniform (TV)"
set logscale x 10
set format x '10^{%L}'
set xrange [U_min / 1.5 : U_max * 1.5]
set yrange [0:1]
set ytics 0, 0.25, 1
set label 1 sprintf("%d random heads per point; 95%% CI band", H_min) at graph 0.03, graph 0.92 left font ',9'
set label 2 "0: every key the same weight" at graph 0.97, graph 0.06 right font ',9'
one = (U_records == 1)
if (one) {
    stats f using "tv_mean" name "M" nooutput; stats f using "tv_lo" name "L" nooutput; stats f using "tv_hi" name "HI" nooutput
    set label 3 sprintf("u = %g: %.3f [%.3f, %.3f]", U_min, M_min, L_min, HI_min) at U_min, M_min left offset 1, 0
    plot f using "u":"tv_mean":"tv_lo":"tv_hi" with yerrorbars lc rgb '#1f4e9c' pt 7 ps 0.8 notitle
} else {
    plot f using "u":"tv_lo":"tv_hi" with filledcurves ls 2 notitle, \
         f using "u":"tv_mean" with linespoints ls 2 ps 0.6 notitle
}
