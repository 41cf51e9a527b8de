# fused_qkv: time of one fused projection X W_QKV vs three separate ones
# (X W_Q, X W_K, X W_V), and vs 3 H per-head ones, at GPT-2 widths
# (d = 768, d_k = d_v = 64), 1 and 12 heads. Median of repeated runs.
# A CPU measurement (OpenBLAS); the section's statement is about GPUs.
# Data: fused_qkv_timing.csv (machine-dependent).
# size: 11,5.2
f = datadir.'/fused_qkv_timing.csv'
set multiplot layout 1,2 title "Measured on this CPU (OpenBLAS dgemm, double), not a GPU: the section's claim is about GPUs\n{/*0.85 projection of T tokens at GPT-2 widths d = 768, d_k = d_v = 64; median of repeated runs}"
set logscale x 2
set xrange [48:5500]
set xtics (64, 256, 1024, 4096)
set xlabel 'tokens T' offset 0,0.4
set bmargin 7.5
set key below maxrows 3 width -2

set logscale y
set format y '10^{%L}'
set ylabel 'time per projection (ms)'
plot f using 1:($2 == 1 ? 1e3 * $5 : NaN) with linespoints ls 2 title '1 head: 3 products', \
     f using 1:($2 == 1 ? 1e3 * $4 : NaN) with linespoints ls 1 title '1 head: 1 fused', \
     f using 1:($2 == 12 ? 1e3 * $6 : NaN) with linespoints ls 4 title '12 heads: 36 per-head', \
     f using 1:($2 == 12 ? 1e3 * $5 : NaN) with linespoints ls 3 title '12 heads: 3 products', \
     f using 1:($2 == 12 ? 1e3 * $4 : NaN) with linespoints ls 1 pt 4 title '12 heads: 1 fused'

unset logscale y
set format y '%g'
set yrange [0:*]
set ylabel 'time separate / time fused'
plot 1 with lines ls 9 title 'no gain', \
     f using 1:($2 == 1 ? $10 : NaN) with linespoints ls 2 title '1 head: 3 products', \
     f using 1:($2 == 12 ? $10 : NaN) with linespoints ls 3 title '12 heads: 3 products', \
     f using 1:($2 == 12 ? $11 : NaN) with linespoints ls 4 title '12 heads: 36 per-head'
unset multiplot
