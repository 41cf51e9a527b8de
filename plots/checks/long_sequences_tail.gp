# long_sequences_tail.gp - check figure: why T E[a_ii] has no finite limit.
# The limit is E[1/|det(I - W_K^T W_Q)|]; it is infinite when det has a
# positive density at 0, i.e. when P(|det| < eps) falls like eps (slope 1 on
# log-log axes) as eps -> 0. Left: P(|det| < eps) per configuration with its
# Wilson 95% interval (a zero count is drawn at its upper bound, open
# symbol); the dotted line has slope 1 for comparison, through the smallest
# nonzero estimate of the first configuration. Right: the mean of 1/|det| over
# |det| >= eps, which keeps growing as eps falls (logarithmically, when the
# density at 0 is positive).
# Data, columns by their header names: long_sequences_tail.csv (config, eps,
#       p_below, p_lo, p_hi, trunc_mean, trunc_lo, trunc_hi), long_sequences.csv
#       (config, d, d_k, scale).
# size: 6.5,3.6
t = datadir.'/long_sequences_tail.csv'
f = datadir.'/long_sequences.csv'
stats t using "config" name "C" nooutput
NC = int(C_max) + 1
# AWKH: an awk program's start that maps the header's names to their columns, c[name]
AWKH = "NR == 1 { for (k = 1; k <= NF; k++) c[$k] = k; next }"
# configuration k's value in the column named col of long_sequences.csv
cfgcol(k, col) = real(system(sprintf("awk -F, '%s $c[\"config\"] == %d { print $c[\"%s\"]; exit }' '%s'", AWKH, k, col, f)))
short(k) = sprintf("%d, %d, %.2g", cfgcol(k, "d"), cfgcol(k, "d_k"), cfgcol(k, "scale")**2)
# the slope-1 guide: through the smallest eps with a nonzero count (config 0)
last0(col) = real(system(sprintf("awk -F, '%s $c[\"config\"] == 0 && $c[\"p_below\"] > 0 { v = $c[\"%s\"] } END { print v }' '%s'", AWKH, col, t)))
e0 = last0("eps")
p0 = last0("p_below")
sel(k, v) = (column("config") == k) ? v : NaN
set multiplot layout 1, 2 title "Check: det(I - W_K^T W_Q) near 0\n{/*0.85 a density at 0 makes the mean of 1/|det|, the limit of T × self-weight, infinite}" \
    margins 0.17, 0.97, 0.22, 0.74 spacing 0.18, 0   # room for 10^{−4}: a minus sign is wider than a hyphen
set logscale xy
set format x '10^{%L}'; set format y '10^{%L}'
set xlabel "ε"
set ylabel "P(|det| < ε)" offset -0.5, 0   # gnuplot spaces it by characters: 10^{−4}'s minus sign is wider
set key top left reverse Left font ',8' samplen 1 spacing 0.9
set title "P(|det| < ε), 95% Wilson CI" font ',9'
p(c) = column(c)
plot for [k = 0:NC - 1] t using "eps":(sel(k, p("p_below") > 0 ? p("p_below") : NaN)) \
         :(sel(k, p("p_lo") > 0 ? p("p_lo") : p("p_below") / 10)):(sel(k, p("p_hi"))) \
         with yerrorbars ls (k + 1) pt 7 ps 0.5 title short(k), \
     for [k = 0:NC - 1] t using "eps":(sel(k, p("p_below") == 0 ? p("p_hi") : NaN)) \
         with points ls (k + 1) pt 6 ps 0.7 notitle, \
     (x <= 1 ? p0 * x / e0 : NaN) with lines ls 9 dt 3 title "slope 1"
unset logscale y; set format y '%.2f'
set ylabel "mean 1/|det|, |det| ≥ ε" offset 1, 0
set title "truncated mean" font ',9'
unset key
plot for [k = 0:NC - 1] t using "eps":(sel(k, column("trunc_mean"))):(sel(k, column("trunc_lo"))) \
         :(sel(k, column("trunc_hi"))) with yerrorlines ls (k + 1) pt 7 ps 0.5 notitle
unset multiplot
