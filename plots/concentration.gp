# concentration.gp - the self-score ||x||^2 grows like d, the score with
# another vector x.y only like sqrt(d): on log-log axes, slopes 1 and 1/2.
# Points: Monte Carlo means with 95% CI bars (mostly smaller than the
# symbols); lines: the exact laws d, sqrt(2d) and sqrt(d); the legend gives
# each fitted slope with its 95% CI.
# Data: concentration.csv (one row per d), concentration_fit.csv (slopes).
# size: 7,5.2
f = datadir.'/concentration.csv'
g = datadir.'/concentration_fit.csv'

# the fitted slopes and their se, rows 1..3 of the fit file: norm2_mean, norm2_spread, dot_rms
stats g skip 1 every ::0::0 using 3 name "b1" nooutput
stats g skip 1 every ::1::1 using 3 name "b2" nooutput
stats g skip 1 every ::2::2 using 3 name "b3" nooutput
stats g skip 1 every ::0::0 using 4 name "s1" nooutput
stats g skip 1 every ::1::1 using 4 name "s2" nooutput
stats g skip 1 every ::2::2 using 4 name "s3" nooutput
z = 1.959963984540054

set title "Score of a vector with itself vs with another vector (entries N(0, 1))"
set xlabel "width d"
set ylabel "size of the score"
set logscale xy 2
set format x "%g"
set format y "%g"
set xrange [1.6:4400]
set yrange [0.8:6000]
set xtics ("2" 2, "8" 8, "32" 32, "128" 128, "512" 512, "2048" 2048)
set ytics ("1" 1, "4" 4, "16" 16, "64" 64, "256" 256, "1024" 1024, "4096" 4096)
set key top left box opaque spacing 1.25 samplen 2.5 width -4

# the exact laws, labelled at the right end
set label 11 "d" at 4900, 4096 left
set label 12 "√(2d)" at 4900, 90.5 left
set label 13 "√d" at 4900, 64 left
set rmargin 8
# GPT-2's width: the self-score is ~27 standard deviations above the others
set arrow 20 from 768, 0.8 to 768, 6000 nohead ls 9 dt 3 lw 1.5
set label 21 "d = 768: ‖x‖^2 ≈ 768,\nx·y ≈ ±28" at 700, 2.0 right
plot x with lines ls 9 dt 2 lw 1.5 notitle, \
     sqrt(2 * x) with lines ls 9 dt 2 lw 1.5 notitle, \
     sqrt(x) with lines ls 9 dt 2 lw 1.5 title "exact law", \
     f skip 1 using 1:3:4:5 with yerrorbars ls 1 pt 7 ps 1.5 \
       title sprintf("mean ‖x‖^2:  slope %.3f ± %.3f", b1_mean, z * s1_mean), \
     f skip 1 using 1:6:7:8 with yerrorbars ls 3 pt 9 ps 1.6 \
       title sprintf("spread of ‖x‖^2:  slope %.3f ± %.3f", b2_mean, z * s2_mean), \
     f skip 1 using 1:9:10:11 with yerrorbars ls 2 pt 5 ps 1.3 \
       title sprintf("spread of x·y (rms):  slope %.3f ± %.3f", b3_mean, z * s3_mean)
