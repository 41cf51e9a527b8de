# random_projections.gp - with independent random projections W_Q, W_K the
# weight a token keeps for itself is about 1/T: T times the mean self-weight
# against T (95% CI band), at 1 for "no preference for itself". For
# contrast, the raw head's self-weight at the same T and width is about T
# times larger (it is 1 at d = 64: the raw panel of the heatmap figure).
# Data: random_projections.csv (main sweep), random_projections.meta (d, d_k).
# size: 6.5,3.4
f = datadir.'/random_projections.csv'
meta_id = 'random_projections'
stats f skip 1 using 1 name "TT" nooutput
stats f skip 1 using 6 name "N" nooutput
set title "With two random projections, a token keeps only about 1/T for itself" offset -3,0
set lmargin 8
set xlabel "sequence length T"
set ylabel "T × mean self-weight"
set logscale x 2
lo = TT_min / 1.3; hi = TT_max * 1.3
set xrange [lo:hi]
set xtics ("2" 2, "4" 4, "8" 8, "16" 16, "32" 32, "64" 64, "128" 128, "256" 256, "512" 512, "1024" 1024)
set yrange [*<0.9:1.1<*]   # at least 0.9 .. 1.1, wider when a run with few draws needs it
set ytics 0.9, 0.05, 1.1
set format y "%.2f"
set arrow 1 from lo, 1 to hi, 1 nohead ls 9
set label 1 "1 = exactly 1/T" at hi, 1 right offset -0.5,-0.8 font ',9'
set label 2 sprintf("d = %d, d_k = %d, %d draws per T, 95%% CI", meta('d'), meta('d_k'), N_max) \
    at graph 0.03, 0.92 left font ',9'
if (SLIDE) { unset title }   # the slide's frame title states the claim
plot f skip 1 using 1:12:13 with filledcurves ls 2 notitle, \
     f skip 1 using 1:11 with linespoints ls 2 ps 0.6 notitle
