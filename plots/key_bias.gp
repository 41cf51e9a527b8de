# key_bias.gp - the key bias's gradient relative to the query bias's,
# ||∂L/∂b_K|| / ||∂L/∂b_Q||, one point per random head: without RoPE every
# point is at zero (rounding, at most 1e-13); with RoPE after the bias the
# ratio spreads around its mean (marked with its 95% CI).
# Data (sweep.h's layouts, read by name): key_bias_draws.csv (rope, draw,
# ratio), key_bias.csv (row rope = 0: ratio_max; row rope = 1: ratio_mean,
# ratio_lo, ratio_hi); sizes from key_bias.meta.
# size: 6.5,3.6
# slide: 2.9,2.6
meta_id = 'key_bias'
f = datadir.'/key_bias_draws.csv'
s = datadir.'/key_bias.csv'
set datafile columnheaders   # columns by name (sweep.h's layout)
stats s every ::0::0 using "ratio_max" nooutput
max0 = STATS_max
stats s every ::1::1 using "ratio_mean" nooutput
mean1 = STATS_max
stats s every ::1::1 using "ratio_lo" nooutput
lo1 = STATS_max
stats s every ::1::1 using "ratio_hi" nooutput
hi1 = STATS_max
stats f using "ratio" nooutput
top = STATS_max
set title "The key bias changes nothing: its gradient is zero\n(unless RoPE comes after it)"
set xlabel sprintf("||∂L/∂b_K|| / ||∂L/∂b_Q|| per random head (T = %g, d = %g)", meta('T'), meta('d'))
set xrange [-0.05:top * 1.05]
set yrange [-0.7:1.7]
set ytics ("without RoPE" 0, "RoPE after b_K" 1) scale 0
set grid noytics
unset key
# deterministic jitter from the draw index (golden-ratio sequence)
jit(i) = 0.28 * ((i * 0.6180339887) - floor(i * 0.6180339887) - 0.5)
set label sprintf("all at 0: at most %.1e (rounding)", max0) at 0.04 * top, 0.45 left
set label sprintf("mean %.2f (95%% CI %.2f to %.2f)", mean1, lo1, hi1) at mean1, 1.5 left
if (SLIDE) {
    unset title   # the slide's frame title states the claim
    unset label
    set ytics ("none" 0, "RoPE" 1) scale 0
    set yrange [-0.7:1.95]
    # the plotted quantity is the ratio of the two gradient norms, not the
    # key bias's gradient itself (a lecturer read "gradient of b_K" as such)
    set xlabel "‖∂L/∂b_K‖ / ‖∂L/∂b_Q‖" offset 0, 0.6
    set xtics 1 offset 0, 0.4
    set lmargin at screen 0.26; set rmargin at screen 0.95
    set bmargin at screen 0.30; set tmargin at screen 0.97
    set label "all 0" at 0.04 * top, 0.45 left
    set label "of order 1" at mean1, 1.55 left offset -1, 0   # the ratio's size is set by the set-up (issue 18)
}
plot f using "ratio":(column("rope") + jit(column("draw"))) with points ls 2 pt 6 ps 0.5, \
     s every ::1::1 using "ratio_mean":(1):"ratio_lo":"ratio_hi" with xerrorbars ls 1 pt 7 ps 1.2 lw 2
