# long_sequences_tail.gp - check figure: why T E[a_ii] has no finite limit.
# The limit is E[1/|det(I - W_K^T W_Q)|]; it is infinite when det has a
# positive density at 0, i.e. when P(|det| < eps) falls like eps (slope 1 on
# log-log axes) as eps -> 0. Left: P(|det| < eps) per configuration with its
# Wilson 95% interval (a zero count is drawn at its upper bound, open
# symbol); the dotted line has slope 1 for comparison, through the smallest
# nonzero estimate of the first configuration. Right: the mean of 1/|det| over
# |det| >= eps, which keeps growing as eps falls (logarithmically, when the
# density at 0 is positive).
# Data: long_sequences_tail.csv (config, eps, p_below, p_lo, p_hi,
#       trunc_mean, trunc_lo, trunc_hi), long_sequences.csv (configurations).
# size: 6.5,3.6
t = datadir.'/long_sequences_tail.csv'
f = datadir.'/long_sequences.csv'
stats t skip 1 using 1 name "C" nooutput
NC = int(C_max) + 1
cfgcol(k, col) = real(system(sprintf("awk -F, 'NR > 1 && $1 == %d {print $%d; exit}' '%s'", k, col, f)))
short(k) = sprintf("%d, %d, %.2g", cfgcol(k, 2), cfgcol(k, 3), cfgcol(k, 4)**2)
# the slope-1 guide: through the smallest eps with a nonzero count (config 0)
e0 = real(system(sprintf("awk -F, 'NR > 1 && $1 == 0 && $3 > 0 {e = $2; p = $3} END {print e}' '%s'", t)))
p0 = real(system(sprintf("awk -F, 'NR > 1 && $1 == 0 && $3 > 0 {e = $2; p = $3} END {print p}' '%s'", t)))
sel(k, v) = (column(1) == k) ? v : NaN
set multiplot layout 1, 2 title "Check: det(I - W_K^T W_Q) near 0\n{/*0.85 a density at 0 makes the mean of 1/|det|, the limit of T × self-weight, infinite}" \
    margins 0.17, 0.97, 0.22, 0.74 spacing 0.18, 0   # room for 10^{−4}: a minus sign is wider than a hyphen
set logscale xy
set format x '10^{%L}'; set format y '10^{%L}'
set xlabel "ε"
set ylabel "P(|det| < ε)" offset -0.5, 0   # gnuplot spaces it by characters: 10^{−4}'s minus sign is wider
set key top left reverse Left font ',8' samplen 1 spacing 0.9
set title "P(|det| < ε), 95% Wilson CI" font ',9'
plot for [k = 0:NC - 1] t skip 1 using 2:(sel(k, $3 > 0 ? $3 : NaN)):(sel(k, $4 > 0 ? $4 : $3 / 10)):(sel(k, $5)) \
         with yerrorbars ls (k + 1) pt 7 ps 0.5 title short(k), \
     for [k = 0:NC - 1] t skip 1 using 2:(sel(k, $3 == 0 ? $5 : NaN)) with points ls (k + 1) pt 6 ps 0.7 notitle, \
     (x <= 1 ? p0 * x / e0 : NaN) with lines ls 9 dt 3 title "slope 1"
unset logscale y; set format y '%.2f'
set ylabel "mean 1/|det|, |det| ≥ ε" offset 1, 0
set title "truncated mean" font ',9'
unset key
plot for [k = 0:NC - 1] t skip 1 using 2:(sel(k, $6)):(sel(k, $7)):(sel(k, $8)) with yerrorlines ls (k + 1) pt 7 ps 0.5 notitle
unset multiplot
