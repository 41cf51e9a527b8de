# random_projections.gp - with independent random projections W_Q, W_K the
# weight a token keeps for itself is about 1/T: T times the mean self-weight
# against T (95% CI band), at 1 for "no preference for itself". For
# contrast, the raw head's self-weight at the same T and width is about T
# times larger (it is 1 at d = 64: the raw panel of the heatmap figure).
# Data: random_projections.csv (main sweep; columns by name: T, draws, T_self_mean,
# T_self_lo, T_self_hi), random_projections.meta (d, d_k).
# size: 6.5,3.4
# slide: 5.6,2.4
f = datadir.'/random_projections.csv'
meta_id = 'random_projections'
set datafile columnheaders   # columns by name (sweep.h: T, ..., draws, T_self_mean, _lo, _hi, ...)
stats f using "T" name "TT" nooutput
stats f using "draws" name "N" nooutput
set title "With two random projections, a token keeps only about 1/T for itself" offset -3,0
set lmargin 9
set xlabel "sequence length T"
set ylabel (SLIDE ? "T × self-weight" : "T × mean self-weight")
set logscale x 2
one = (TT_records == 1)          # a point run (--T 32): one labelled value with its CI
lo = one ? TT_min / 4 : TT_min / 1.3; hi = one ? TT_max * 4 : TT_max * 1.3
set xrange [lo:hi]
set xtics ("2" 2, "4" 4, "8" 8, "16" 16, "32" 32, "64" 64, "128" 128, "256" 256, "512" 512, "1024" 1024, \
           "2048" 2048, "4096" 4096)
set yrange [*<0.9:1.1<*]   # at least 0.9 .. 1.1, wider when a run with few draws needs it
set ytics 0.9, (SLIDE ? 0.1 : 0.05), 1.1
set format y "%.2f"
set arrow 1 from lo, 1 to hi, 1 nohead ls 9
set label 1 (SLIDE ? "exactly 1/T" : "1 = exactly 1/T") at hi, 1 right offset -0.5,-0.8 font ',9'
if (!SLIDE) {
    # draws per T: one count, or the range the CI target chose (sweep_ci_target)
    ndraws = (N_min == N_max) ? sprintf("%d draws per T", N_max) : sprintf("%d to %d draws per T", N_min, N_max)
    set label 2 sprintf("d = %d, d_k = %d, %s, 95%% CI", meta('d'), meta('d_k'), ndraws) \
        at graph 0.03, 0.92 left font ',9'
}
if (one) {
    stats f using "T_self_mean" name "M" nooutput
    stats f using "T_self_lo" name "L" nooutput
    stats f using "T_self_hi" name "H" nooutput
    set label 3 sprintf("T = %d: %.3f\n95%% CI [%.3f, %.3f]", TT_min, M_min, L_min, H_min) \
        at graph 0.03, graph (SLIDE ? 0.88 : 0.74) left
    set yrange [(L_min - 0.02 < 0.9 ? L_min - 0.02 : 0.9):(H_min + 0.02 > 1.1 ? H_min + 0.02 : 1.1)]
    set label 1 at lo, 1 left offset 0.5,-0.8
}
if (SLIDE) { unset title }   # the slide's frame title states the claim
if (one) {
    plot f using "T":"T_self_mean":"T_self_lo":"T_self_hi" with yerrorbars lc rgb '#1f4e9c' dt 1 pt 7 ps 1.0 lw 2 notitle
} else {
    plot f using "T":"T_self_lo":"T_self_hi" with filledcurves ls 2 notitle, \
         f using "T":"T_self_mean" with linespoints ls 2 ps 0.6 notitle
}
