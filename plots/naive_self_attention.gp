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
# Data: naive_self_attention.csv (columns by name: T, d, self_weight_mean, self_ci_lo/hi,
# leak_mean, leak_ci_lo/hi, shown), naive_self_attention.meta (T, d_star...).
# size: 6.5,3.6
# slide: 5.6,2.4
f = datadir.'/naive_self_attention.csv'
meta_id = 'naive_self_attention'
HT = meta('T')
has_dstar = strlen(metas('d_star')) > 0
# the exact d* at the headline T (naive_self_attention_exact.csv, an exact
# re-weighting, when the run wrote it), else the Monte Carlo one of the .meta
fx = datadir.'/naive_self_attention_exact.csv'
xrow = system(sprintf("test -f '%s' && awk -F, 'NR > 1 && $1 == %d {print $3, $4, $5}' '%s'", fx, HT, fx))
DS = words(xrow) == 3 ? real(word(xrow, 1)) : (has_dstar ? meta('d_star') : NaN)
DSL = words(xrow) == 3 ? real(word(xrow, 2)) : (has_dstar ? meta('d_star_lo') : NaN)
DSH = words(xrow) == 3 ? real(word(xrow, 3)) : (has_dstar ? meta('d_star_hi') : NaN)
has_dstar = DS == DS
all = system(sprintf("cut -d, -f1 '%s' | tail -n +2 | sort -un | tr '\n' ' '", f))
nall = words(all)
TS = nall <= 3 ? all : sprintf("%s %d %s", word(all, 1), HT, word(all, nall))
nT = words(TS)
Tmax = real(word(TS, nT))
set datafile columnheaders
stats f using "d" name "D" nooutput
dall = system(sprintf("cut -d, -f2 '%s' | tail -n +2 | sort -un | wc -l", f))
oned = int(dall) == 1          # a run at one width (--d 8): draw against T instead
ex(d) = 2**(-d / 2.0 - 1)                   # exact at T = 2
law(d, T) = (T - 1) * 2**(-d / 2.0 - 1)     # large d: T - 1 rivals, each as at T = 2
sel(T, v) = (column("T") == T ? v : 1/0)
shown(T, v) = (column("T") == T && column("shown") == 1 ? v : 1/0)
set samples 200

if (SLIDE) {
    set multiplot layout 1, 2 margins 0.16, 0.97, 0.36, 0.91 spacing 0.20, 0
} else {
    set multiplot layout 1, 2 title main("Raw vectors attend to themselves") font ',12' \
        margins 0.15, 0.97, 0.24, 0.78 spacing 0.17, 0
}
set mxtics 2
if (!oned) {
    dlo = D_min; dhi = D_max > 64 ? (D_min < 40 ? 48 : D_max * 1.3) : D_max * 1.1
    if (dhi <= dlo) { dhi = dlo * 1.5; dlo = dlo / 1.5 }
    set xlabel "width d"
    set xrange [dlo:dhi]
    if (dhi - dlo < 20) { set xtics autofreq } else { set xtics 10 }
} else {
    Tlo = real(word(all, 1)) / 1.5; Thi = real(word(all, nall)) * 1.5
    set xlabel sprintf("length T, d = %d", D_min)
    set logscale x 2
    set xrange [Tlo:Thi]
    set xtics 4 
}
# ---- left: the self-weight --------------------------------------------------
if (!SLIDE) { set title "weight a token keeps for itself" font ',9' }
set ylabel (SLIDE ? "self-weight a_{ii}" : "mean a_{ii}") offset (SLIDE ? 1.6 : 1.5),0
set yrange [0:1.05]
set ytics 0, (SLIDE ? 0.5 : 0.25), 1
set key at graph 0.97, graph 0.04 right bottom samplen 1.5 spacing 1.0 font ',9' reverse Left nobox
# the level: dotted and light (the law on the right is the dashed line)
set arrow 1 from graph 0, first 0.995 to graph 1, first 0.995 nohead lc rgb '#888888' lw 1 dt 3
set label 1 "99.5%" at graph 0.97, first 0.995 right offset 0,-0.7 font ',9'
if (has_dstar && !oned) {
    set object 1 rect from DSL, 0 to DSH, 1.05 fs solid 0.35 noborder fc rgb '#1f4e9c' behind
    set arrow 2 from DS, 0 to DS, 0.995 nohead lc rgb '#1f4e9c' lw 1 dt 3
    if (!SLIDE) {
        set label 2 sprintf("99.5%% at d* = %.2f\n(T = %d)", DS, HT) \
            at graph 0.97, graph 0.62 right font ',9'
    }
}
if (SLIDE && !oned) {
    # slide: no key box (its sample lines crossed the last curve's rise):
    # each length named in its curve's colour at the lower right, where every
    # curve has already reached 1, kept clear of the rises (opaque boxes)
    unset key
    set style textbox opaque noborder margins 1, 1
    do for [k=1:nT] { set label 10 + k sprintf("T = %s", word(TS, k)) at graph 0.96, graph 0.06 + 0.17 * (nT - k) right tc ls k font ',9' boxed }
}
if (!oned) {
    plot for [k=1:nT] f using (sel(real(word(TS, k)), column("d"))):"self_ci_lo":"self_ci_hi" with filledcurves ls k notitle, \
         for [k=1:nT] f using (sel(real(word(TS, k)), column("d"))):"self_weight_mean" with linespoints ls k ps 0.5 \
             title sprintf("T = %s", word(TS, k))
} else {
    unset key
    plot f using "T":"self_weight_mean":"self_ci_lo":"self_ci_hi" with yerrorbars lc rgb '#1f4e9c' dt 1 pt 7 ps 0.7 notitle, \
         f using "T":"self_weight_mean" with lines ls 2 notitle
}
unset object 1
unset label 1; unset label 2; unset arrow 1; unset arrow 2
do for [k=1:nT] { unset label 10 + k }
unset key
# ---- right: the weight on the other tokens ------------------------------------
if (!SLIDE) { set title "weight left for the others" font ',9' }
set ylabel (SLIDE ? "1 − a_{ii}" : "mean 1 − a_{ii}") offset 0.5,0   # a minus sign, not a hyphen
set logscale y
set format y "10^{%L}"
set yrange [1e-8:1]
set ytics 1e-8, (SLIDE ? 1e4 : 100), 1
set arrow 1 from graph 0, first 0.005 to graph 1, first 0.005 nohead lc rgb '#888888' lw 1 dt 3
# above its line at the right: the curves there have passed below 0.5%
set label 1 "0.5%" at graph 0.97, first 0.005 right offset 0,0.7 font ',9'
if (!oned && SLIDE) {
    # slide: each line named beside it, in the empty space on its far side
    # from the data: "law" under the dashed line near the right edge, between
    # it and the solid line (clear of the dotted 0.5% level above), "exact
    # T = 2" below the solid line (log axis: a factor is a fixed distance)
    xl = dlo + 0.87 * (dhi - dlo); xe = dlo + 0.42 * (dhi - dlo)
    set label 5 "law" at xl, law(xl, Tmax) / 12 center font ',9'
    set label 6 "exact T = 2" at xe, ex(xe) / 2500 center font ',9'
}
if (!oned) {
    # print: a small key in the empty lower left: which line is which
    if (!SLIDE) {
        set label 5 sprintf("dashed: law, T = %d\nsolid: exact, T = 2\nMonte Carlo where\nits error ≤ 10%%", Tmax) \
            at graph 0.04, graph 0.36 left font ',9'
    }
    plot ex(x) with lines lc rgb '#000000' lw 1.2 dt 1 notitle, \
         law(x, Tmax) with lines ls 9 lw 1.5 dt 2 notitle, \
         for [k=1:nT] f using (shown(real(word(TS, k)), column("d"))):(column("leak_ci_lo") > 0 ? column("leak_ci_lo") : column("leak_mean") / 10):"leak_ci_hi" with filledcurves ls k notitle, \
         for [k=1:nT] f using (shown(real(word(TS, k)), column("d"))):"leak_mean" with linespoints ls k ps 0.5 notitle
} else {
    set label 5 "dashed: law" at graph 0.97, graph 0.08 right font ',9'
    plot law(D_min, x) with lines ls 9 lw 1.5 dt 2 notitle, \
         f using "T":(column("leak_mean") > 0 ? column("leak_mean") : 1/0):(column("leak_ci_lo") > 0 ? column("leak_ci_lo") : column("leak_mean") / 10):"leak_ci_hi" with yerrorbars lc rgb '#1f4e9c' dt 1 pt 7 ps 0.7 notitle
}
unset multiplot
