# long_sequences.gp - "about 1/T" at long sequences: T times the mean
# self-weight against T (log axis), one curve per (d, d_k, c) with its 95% CI
# band; the annealed law P(T) of the same draws as a thin dashed line; the
# plateau L it tends to as a tick at the right edge; 1 (exactly 1/T) and
# 1.05 (the 5% line). Direct labels at the right end of each curve.
# Data: long_sequences.csv and long_sequences.meta (works on a point run).
# size: 6.5,4.2
f = datadir.'/long_sequences.csv'
meta_id = 'long_sequences'
N = meta('draws')
NC = meta('configs')
TM = meta('Tmax')
c1 = (NC > 1) ? 1 : 0
X1 = meta(sprintf('config%d_cross', c1))
str_cross = (X1 == X1) ? sprintf("ends near T ≈ %.0f", X1) : sprintf("holds to T = %.0f", TM)
set title sprintf("“About 1/T” slowly fails: self-weight × T climbs toward a plateau above 1\n(within 5%% %s at d = %d, d_k = %d, c = %.2f; %d draws per point)", \
    str_cross, meta(sprintf('config%d_d', c1)), meta(sprintf('config%d_dk', c1)), meta(sprintf('config%d_scale', c1)), N)
set xlabel "sequence length T"
set ylabel "T × mean self-weight"
set logscale x 10
set format x "10^{%T}"
set xrange [1.5:TM * 60]
set yrange [0.85:1.45]
set ytics 0.9, 0.1, 1.4
set format y "%.2f"
set key off
set style fill transparent solid 0.2 noborder
set arrow 1 from 1.5, 1 to TM, 1 nohead ls 9 dt 2 lw 1.5
set arrow 2 from 1.5, 1.05 to TM, 1.05 nohead ls 9 dt 3 lw 1.5
set label 1 "exactly 1/T" at 2, 0.985 left font ",9"
set label 2 "5% above 1/T" at 2, 1.065 left font ",9"

sel(k, v) = (column(1) == k) ? v : NaN
do for [k = 0:NC - 1] {
    L = meta(sprintf('config%d_limit', k))
    set label 10 + k sprintf("d=%d, d_k=%d, c=%.2g: L = %.3f", meta(sprintf('config%d_d', k)), \
        meta(sprintf('config%d_dk', k)), meta(sprintf('config%d_scale', k)), L) at TM * 1.3, (L < 1.44 ? L : 1.44) left font ",8" tc ls (k + 1)
    set arrow 10 + k from TM * 0.7, L to TM * 1.2, L nohead ls (k + 1) lw 3
}
plot for [k = 0:NC - 1] f skip 1 using 5:(sel(k, $9)):(sel(k, $10)) with filledcurves ls (k + 1) notitle, \
     for [k = 0:NC - 1] f skip 1 using 5:(sel(k, $11)) with lines ls (k + 1) dt 2 lw 1 notitle, \
     for [k = 0:NC - 1] f skip 1 using 5:(sel(k, $8)) with linespoints ls (k + 1) ps 0.8 notitle
