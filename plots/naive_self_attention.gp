# naive_self_attention.gp - raw self-attention (Q = K = V = X, X with N(0, 1)
# entries, S = X X^T): the mean weight a token keeps for itself rises with
# the width d. Left: the self-weight for a short, the headline and a long
# sequence, with 95% CI bands and the 99.5% level; the headline's d* (where
# it crosses 0.995) with its CI. Right: the weight left for the other tokens,
# 1 - a_ii, on a log scale: Monte Carlo only where its relative standard
# error is <= max_rse (column `shown`: beyond, the mean is carried by rare
# draws a sample misses), the exact T = 2 curve 2^(-d/2-1) and the large-d
# law (T - 1) 2^(-d/2-1) for the longest T: T - 1 rivals, each rarely close,
# each taking the exact T = 2 mean 2^(-d/2-1) (the contour figure's law).
# Data: naive_self_attention.csv, naive_self_attention.meta (T, d_star...).
# size: 6.5,3.6
f = datadir.'/naive_self_attention.csv'
meta_id = 'naive_self_attention'
HT = meta('T')
has_dstar = strlen(metas('d_star')) > 0
all = system(sprintf("cut -d, -f1 '%s' | tail -n +2 | sort -un | tr '\n' ' '", f))
nall = words(all)
TS = nall <= 3 ? all : sprintf("%s %d %s", word(all, 1), HT, word(all, nall))
nT = words(TS)
Tmax = real(word(TS, nT))
stats f skip 1 using 2 name "D" nooutput
dlo = D_min; dhi = D_max > 64 ? (D_min < 40 ? 48 : D_max * 1.3) : D_max * 1.1
if (dhi <= dlo) { dhi = dlo * 1.5; dlo = dlo / 1.5 }
sel(T, v) = ($1 == T ? v : 1/0)
dlab = D_min < 8 && D_max >= 8 ? 8 : D_min   # where the curves are labelled
shown(T, v) = ($1 == T && $12 == 1 ? v : 1/0)

set multiplot layout 1, 2 title main("Raw vectors attend to themselves") font ',12'
set lmargin 8.5; set rmargin 5.5
set xtics 10 offset 0,0.3
set mxtics 2
# ---- left: the self-weight --------------------------------------------------
set title "weight a token keeps for itself"
set xlabel "width d"
set ylabel "mean a_{ii}"
set xrange [dlo:dhi]
set yrange [0:1.05]
set ytics 0, 0.25, 1
set key at graph 0.98, 0.66 right samplen 1.5 spacing 1.0 font ',9' reverse Left opaque nobox
set arrow 1 from dlo, 0.995 to dhi, 0.995 nohead ls 9
set label 1 "99.5%" at dhi, 0.995 left offset 0.3,0 font ',9'
if (has_dstar) {
    set object 1 rect from meta('d_star_lo'), 0 to meta('d_star_hi'), 1.05 fs solid 0.35 noborder fc rgb '#1f4e9c' behind
    set arrow 2 from meta('d_star'), 0 to meta('d_star'), 0.995 nohead lc rgb '#1f4e9c' lw 1 dt 3
    set label 2 sprintf("99.5%% at\nd* = %.1f\n(T = %d)", meta('d_star'), HT) at meta('d_star') + 2.5, 0.3 left font ',9'
}
plot for [k=1:nT] f skip 1 using (sel(real(word(TS, k)), $2)):5:6 with filledcurves ls k notitle, \
     for [k=1:nT] f skip 1 using (sel(real(word(TS, k)), $2)):4 with linespoints ls k ps 0.5 \
         title sprintf("T = %s", word(TS, k))
unset object 1
unset label 1; unset label 2; unset arrow 1; unset arrow 2
unset key
# ---- right: the weight on the other tokens ------------------------------------
set title "weight left for the other tokens"
set ylabel "mean 1 - a_{ii}"
set logscale y
set format y "10^{%L}"
set yrange [1e-8:1]
set ytics 1e-8, 100, 1
set arrow 1 from dlo, 0.005 to dhi, 0.005 nohead ls 9
set label 1 "0.5%" at dhi, 0.005 left offset 0.3,0 font ',9'
set samples 200
ex(d) = 2**(-d / 2.0 - 1)
law(d) = (Tmax - 1) * 2**(-d / 2.0 - 1)   # the same law as the contour figure: (T - 1) times the exact T = 2 value
xe = dlo + 0.62 * (dhi - dlo); xl = dlo + 0.45 * (dhi - dlo)
set label 4 "exact, T = 2" at xe, ex(xe) left offset 0.5,-0.9 font ',9'
set label 5 sprintf("law, T = %d", Tmax) at xl, law(xl) left offset 0.8,0.4 font ',9'
set label 6 "Monte Carlo shown where\nits error is ≤ 10%" at graph 0.04, 0.22 left font ',9'
plot ex(x) with lines lc rgb '#000000' lw 1.2 dt 1 notitle, \
     law(x) with lines ls 9 lw 1.5 dt 2 notitle, \
     for [k=1:nT] f skip 1 using (shown(real(word(TS, k)), $2)):($8 > 0 ? $8 : $7 / 10):9 with filledcurves ls k notitle, \
     for [k=1:nT] f skip 1 using (shown(real(word(TS, k)), $2)):7 with linespoints ls k ps 0.5 notitle
unset multiplot
