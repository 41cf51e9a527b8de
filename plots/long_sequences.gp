# long_sequences.gp - "about 1/T" at long sequences: T times the mean
# self-weight against T (log axis), one curve per (d, d_k, c) with its 95% CI
# band; the annealed law P(T) of the same draws as a thin dashed line; the
# plateau L = E[1/|det(I - W_K^T W_Q)|] it tends to as a bar at the right;
# 1 (exactly 1/T) and 1.05 (5% above). Direct labels, no legend.
# The section's scale (d = 64, d_k = 16, c = 1) is left out of this figure:
# its CI at the default draws is too wide to show a curve (see the notes);
# a point run (--d/--dk/--scale) shows its one configuration.
# Data: long_sequences.csv and long_sequences.meta.
# size: 6.5,4.2
f = datadir.'/long_sequences.csv'
meta_id = 'long_sequences'
N = meta('draws')
NC = meta('configs')
TM = meta('Tmax')
k0 = (NC > 1) ? 1 : 0
xs = metas(sprintf('config%d_cross', k0))
X1 = (xs eq '' || xs eq 'nan' || xs eq '-nan') ? NaN : real(xs)
cfg(k) = sprintf("d = %d, d_k = %d, c² = %.2g", meta(sprintf('config%d_d', k)), \
    meta(sprintf('config%d_dk', k)), meta(sprintf('config%d_scale', k))**2)
short(k) = sprintf("%d, %d, %.2g", meta(sprintf('config%d_d', k)), \
    meta(sprintf('config%d_dk', k)), meta(sprintf('config%d_scale', k))**2)
num(key) = (metas(key) eq '' || metas(key) eq 'nan' || metas(key) eq '-nan') ? NaN : real(metas(key))
sig2(x) = (x == x) ? floor(x / 10**(floor(log10(x)) - 1) + 0.5) * 10**(floor(log10(x)) - 1) : x
XL = num(sprintf('config%d_cross_lo', k0))
XH = num(sprintf('config%d_cross_hi', k0))
str_hi = (XH == XH) ? sprintf("%.0f", sig2(XH)) : sprintf("beyond %.0f", TM)
str_cross = (X1 == X1) ? sprintf("past 5%% from T ≈ %.0f [%.0f, %s]", sig2(X1), sig2(XL), str_hi) : sprintf("within 5%% up to T = %.0f", TM)
set title sprintf("“About 1/T” fails slowly: T × self-weight climbs to a plateau L\n%s (d, d_k, c² = %s)", \
    str_cross, short(k0))
set xlabel sprintf("sequence length T  (%d draws per point)", N)
set ylabel "T × mean self-weight"
set logscale x 10
set xrange [1.5:TM * 400]
set xtics () nomirror
do for [p = 0:int(log10(TM) + 1e-9)] { set xtics add (sprintf("10^{%d}", p) 10**p) }
set mxtics 10
set yrange [0.9:1.12]
set ytics 0.9, 0.05, 1.1
if (NC == 1) { set autoscale y; set ytics autofreq }
set format y "%.2f"
set key off
set style fill transparent solid 0.2 noborder
set arrow 1 from 1.5, 1 to TM * 1.5, 1 nohead ls 9 dt 2 lw 1.5
set arrow 2 from 1.5, 1.05 to TM * 1.5, 1.05 nohead ls 9 dt 3 lw 1.5
set label 1 "exactly 1/T" at TM * 1.9, 0.998 left font ",9"
set label 2 "5% above 1/T" at TM * 1.9, 1.048 left font ",9"
set label 4 "plateau L (d, d_k, c²):" at TM * 1.9, 1.097 left font ",9"
set label 3 "thin dashed: the law P(T), the same draws" at 2, 0.912 left font ",9"
# labels at their plateau, pushed apart where two plateaus nearly coincide
gap = 0.012
array Y[NC]
do for [k = k0:NC - 1] { Y[k + 1] = meta(sprintf('config%d_limit', k)) }
do for [it = 1:NC] { do for [i = k0:NC - 1] { do for [j = k0:NC - 1] {
    if (i != j && Y[j + 1] >= Y[i + 1] && Y[j + 1] - Y[i + 1] < gap) { Y[j + 1] = Y[i + 1] + gap }
} } }
do for [k = k0:NC - 1] {
    L = meta(sprintf('config%d_limit', k))
    set label 10 + k sprintf("%.3f (%s)", L, short(k)) at TM * 1.9, Y[k + 1] left font ",9" tc ls (k + 1)
    set arrow 10 + k from TM * 1.2, L to TM * 1.7, L nohead ls (k + 1) lw 3
}
sel(k, v) = (column(1) == k) ? v : NaN
if (SLIDE) { unset title }   # the slide's frame title states the claim
plot for [k = k0:NC - 1] f skip 1 using 5:(sel(k, $9)):(sel(k, $10)) with filledcurves ls (k + 1) notitle, \
     for [k = k0:NC - 1] f skip 1 using 5:(sel(k, $11)) with lines ls (k + 1) dt 2 lw 1 notitle, \
     for [k = k0:NC - 1] f skip 1 using 5:(sel(k, $8)) with linespoints ls (k + 1) ps 0.7 notitle
