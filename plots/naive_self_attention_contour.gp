# naive_self_attention_contour.gp - where raw self-attention reaches 99.5%:
# the width d*(T) at which the mean self-weight crosses 0.995 (points, with
# 95% CI bars) against the sequence length T, and the large-d law
# E[1 - a_ii] = (T - 1) 2^(-d/2-1) (exact at T = 2) solved for 0.5%:
# d* = 2 log2((T - 1) / 0.01), a line of slope 2 per doubling of T - 1 (a
# fixed-T, large-d law: along the contour the local rise falls below 2).
# The points are the exact d*(T) with its CI and local rise when the run
# wrote naive_self_attention_exact.csv, else the Monte Carlo contour and the
# fitted slope of the .meta.
# Data: naive_self_attention_exact.csv (T, draws, d_star, lo, hi, ...,
#       slope_local) or naive_self_attention_contour.csv (T, level, d_star,
#       lo, hi, ...) and naive_self_attention.meta (slope, slope_ci).
# size: 6.5,3.4
# slide: 5.6,2.4
c = datadir.'/naive_self_attention_contour.csv'
x = datadir.'/naive_self_attention_exact.csv'
meta_id = 'naive_self_attention'
have = system(sprintf("test -f '%s' && echo 1 || echo 0", c)) eq "1"
# the exact d*(T) (an exact re-weighting of the T = 2 law, with its CI and
# its local rise per doubling of T - 1) when the run wrote it; else the
# Monte Carlo contour
exact = system(sprintf("test -f '%s' && echo 1 || echo 0", x)) eq "1"
src = exact ? x : c
set title "Longer sequences need wider vectors to stay self-focused"
set xlabel "sequence length T"
set ylabel (SLIDE ? "width d*" : "width d* for 99.5%") offset (SLIDE ? 1 : 0),0
set lmargin (SLIDE ? 8 : 9)
set logscale x 2
set xrange [1.7:300]
set xtics ("2" 2, "4" 4, "8" 8, "16" 16, "32" 32, "64" 64, "128" 128, "256" 256)
set yrange [8:34]
set ytics 10, (SLIDE ? 10 : 5), 30
# the large-d law at fixed T: E[1 - a_ii] = (T - 1) 2^(-d/2-1) = 0.005
law(T) = T >= 2 ? 2 * log((T - 1) / 0.01) / log(2) : 1/0
set samples 300
if (SLIDE) { unset title }   # the slide's frame title states the claim
if (!have && !exact) {
    set label 1 "this run has one width: no contour" at graph 0.5, 0.5 center
    plot law(x) with lines ls 9 lw 1.5 notitle
} else {
    if (exact) {
        # the local rise per doubling of T - 1 along the contour, first and last
        r1 = system(sprintf("awk -F, 'NR > 1 && $11 != \"\" {print $11; exit}' '%s'", x))
        r2 = system(sprintf("awk -F, 'NR > 1 && $11 != \"\" {v = $11} END {print v}' '%s'", x))
        s = (r1 ne "" && r2 ne "") ? sprintf(SLIDE ? "rise per doubling: %.2f to %.2f" : \
            "local rise per doubling of T − 1: %.2f to %.2f (law: 2)", real(r1), real(r2)) : ""
    } else {
        s = strlen(metas('slope')) > 0 ? sprintf(SLIDE ? "measured: %.2f ± %.2f per doubling" : \
            "measured rise: %.2f ± %.2f per doubling of T − 1 (law: 2)", meta('slope'), meta('slope_ci')) : ""
    }
    set label 1 (SLIDE ? "dashed: large-d law" : "dashed: the large-d law d* = 2 log_2((T − 1) / 0.01)") at graph 0.03, graph 0.90 left font ',9'
    # the measured rise is the frame's to state (at lecture precision); the
    # slide draws only the points and the law
    if (!SLIDE) { set label 2 s at graph 0.97, graph 0.10 right font ',9' }
    plot law(x) with lines ls 9 lw 1.5 notitle, \
         src using "T":"d_star":"d_star_lo":"d_star_hi" with yerrorbars ls 2 pt 7 ps 0.6 notitle, \
         src using "T":"d_star" with points ls 2 pt 7 ps 0.6 notitle
}
