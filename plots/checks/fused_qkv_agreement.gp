# fused_qkv_agreement.gp (check) - every agreement check of fused_qkv
# (fused vs separate, vs per-head, (out, in) storage, batched vs one by one)
# for every case, as max |difference| / its tolerance (fused_qkv.csv, read by name).
# size: 6.5,5
f = datadir.'/fused_qkv.csv'
set datafile columnheaders   # columns by name
# max_abs_err / tolerance per row (an error of 0 drawn at 1e-6, the axis)
ratio(e, t) = t > 0 ? (e > 0 ? e / t : 1e-6) : NaN
abbr(c) = c eq 'fused_vs_separate' ? 'vs 3 products' : c eq 'fused_vs_per_head' ? 'vs per head' : c eq 'out_in_vs_fused' ? '(out, in)' : 'batched'
set title "Fused, per-head, (out, in) and batched agree to rounding\n{/*0.85 max |difference| / tolerance for every case (below 1: within it)}"
set logscale y
set format y '10^{%L}'
set yrange [1e-6:1e4]
set ytics (1e-6, 1e-4, 1e-2, 1)
set ylabel 'max |difference| / tolerance'
set xtics rotate by 90 right font ',8' noenhanced   # 90 degrees: the names stay apart (and checkable)
set bmargin 13
set xrange [-0.7:19.7]
set rmargin 2
set key at graph 0.02, graph 0.98 left top opaque box
plot 1 with lines ls 9 title 'tolerance', \
     f using 0:(ratio(column("max_abs_err"), column("tolerance"))):xticlabels(sprintf('%s: %s', strcol("case"), abbr(strcol("check")))) \
       with points ls 1 title 'measured (0 drawn at the axis)'
