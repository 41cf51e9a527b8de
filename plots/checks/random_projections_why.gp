# random_projections_why.gp - why the self-weight is not exactly 1/T. Left:
# T = 16, d_k = 4, W ~ N(0, 1/d): T x mean self-weight against the width d,
# next to the control where each token's own key is replaced by the key of a
# fresh token (exactly 1/T by symmetry). The excess over the control roughly
# halves when d doubles. Right: the same against the sharpness of the
# softmax (the standard deviation of a score, c^2 sqrt(d_k) for weights
# N(0, c^2/d)), for d = 16 and 64; dashed: the second-order (soft softmax)
# prediction 1 + (1 - 1/T)(1 - 2/T) sd^2 / d. Bands are 95% CIs.
# Data: random_projections_width.csv, random_projections_scale.csv (by name: d,
# score_sd, T_self_mean/_lo/_hi, T_control_mean/_lo/_hi).
# size: 6.5,4
# needs: random_projections_width.csv random_projections_scale.csv (a run with --T, --d, --dk,
#   --scale or --control runs the main sweep only: make figures leaves this figure out)
w = datadir.'/random_projections_width.csv'
s = datadir.'/random_projections_scale.csv'
T = 16.0
soft(x, d) = 1 + (1 - 1/T) * (1 - 2/T) * x**2 / d

set datafile columnheaders   # columns by name (sweep.h: T, d, d_k, scale, draws, T_self_mean, ...)
set multiplot layout 1, 2 title "The own key's excess over 1/T (T = 16, d_k = 4)" font ',10'
set style fill transparent solid 0.25 noborder
set ylabel "T × mean self-weight"
set yrange [0.96:1.14]
set ytics 0.96, 0.02, 1.14
set format y "%.2f"
set key top right nobox spacing 1.0 samplen 2 font ',8'

# ---- left: the width ----
set title "width (score sd 2)" font ',9'
set xlabel "width d"
set logscale x 2
set xrange [3.5:300]
set xtics ("4" 4, "16" 16, "64" 64, "256" 256)
set arrow 1 from 3.5, 1 to 300, 1 nohead ls 9 dt 2 lw 2
plot w using "d":"T_control_lo":"T_control_hi" with filledcurves ls 2 notitle, \
     w using "d":"T_control_mean" with linespoints ls 2 ps 1.2 title "control: fresh key", \
     w using "d":"T_self_lo":"T_self_hi" with filledcurves ls 1 notitle, \
     w using "d":"T_self_mean" with linespoints ls 1 ps 1.3 title "own key"

# ---- right: the sharpness ----
set title "sharpness" font ',9'
set xlabel "score sd, c^2 √d_k"
set xrange [0.45:18]
set xtics ("0.5" 0.5, "1" 1, "2" 2, "4" 4, "8" 8, "16" 16)
unset arrow 1
set arrow 1 from 0.45, 1 to 18, 1 nohead ls 9 dt 2 lw 2
set samples 200
plot [0.45:18] s using (column("d") == 16 ? column("score_sd") : 1/0):"T_self_lo":"T_self_hi" with filledcurves ls 1 notitle, \
     s using (column("d") == 16 ? column("score_sd") : 1/0):"T_self_mean" with linespoints ls 1 ps 1.3 title "d = 16", \
     s using (column("d") == 64 ? column("score_sd") : 1/0):"T_self_lo":"T_self_hi" with filledcurves ls 3 notitle, \
     s using (column("d") == 64 ? column("score_sd") : 1/0):"T_self_mean" with linespoints ls 3 ps 1.3 title "d = 64", \
     s using "score_sd":"T_control_mean" with points ls 2 pt 6 ps 1.3 title "controls", \
     [0.45:1.1] soft(x, 16) with lines ls 1 dt 3 lw 2 title "2nd order", \
     [0.45:2.2] soft(x, 64) with lines ls 3 dt 3 lw 2 notitle
unset multiplot
