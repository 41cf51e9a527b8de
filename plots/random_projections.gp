# random_projections.gp - with independent random projections W_Q, W_K the
# self-weight is about 1/T: T times the mean self-weight against T, with its
# 95% CI band. 1 (the dashed line) would be exactly 1/T; the dotted lines are
# the verdict's band [0.95, 1.05]. Also T times the fraction of rows whose
# largest score is their own (the hard-max version of the same question;
# its CI, not drawn, is about 1.4 times wider).
# Data: random_projections.csv (main sweep: d = 64, d_k = 16, W ~ N(0, 1/d)).
# size: 7,5
f = datadir.'/random_projections.csv'
stats f skip 1 every ::0::0 using 6 name "N" nooutput

set title sprintf("Random projections: self-weight × T  (d = 64, d_k = 16, %d draws per T)", N_max)
set xlabel "sequence length T"
set ylabel "T × mean self-weight a_{ii}"
set logscale x 2
set xrange [1.8:290]
set xtics ("2" 2, "3" 3, "4" 4, "8" 8, "16" 16, "32" 32, "64" 64, "128" 128, "256" 256)
set yrange [0.93:1.07]
set ytics 0.94, 0.02, 1.06
set format y "%.2f"
set key top left box opaque spacing 1.2 samplen 2.5
set style fill transparent solid 0.25 noborder
set arrow 1 from 1.8, 1 to 290, 1 nohead ls 9 dt 2 lw 2
set arrow 2 from 1.8, 1.05 to 290, 1.05 nohead ls 9 dt 3 lw 1.5
set arrow 3 from 1.8, 0.95 to 290, 0.95 nohead ls 9 dt 3 lw 1.5
set label 1 "exactly 1/T" at 200, 0.993 right
set label 2 "verdict band [0.95, 1.05]" at 200, 1.044 right

plot f skip 1 using 1:12:13 with filledcurves ls 1 notitle, \
     f skip 1 using 1:16 with linespoints ls 2 ps 1.2 title "T × fraction of rows whose argmax is self", \
     f skip 1 using 1:11 with linespoints ls 1 ps 1.3 title "T × mean self-weight (95% CI band)"
