# bilinear_low_rank_spectra.gp - check plot: singular values of W_QK = W_Q W_K^T and of
# W_OV = W_V W_O (one draw per width), relative to the largest. Exactly
# d_k (d_v) of them are of order 1; the rest sit at rounding level, ~1e-16,
# far below the 1e-10 cut used to count the rank.
# Data: bilinear_low_rank_spectra.csv (i, then sigma_i/sigma_1 of W_QK, one
# column "d_k=N" per width, then of W_OV, "d_v=N").
# size: 11,5
f = datadir.'/bilinear_low_rank_spectra.csv'
# the widths from bilinear_low_rank.csv's column d_k; the spectra's columns by name
g = datadir.'/bilinear_low_rank.csv'
col(name) = sprintf("NR == 1 {for (i = 1; i <= NF; i++) if ($i == \"%s\") c = i}", name)
dks = system(sprintf("awk -F, '%s NR > 1 {printf \"%%s \", $c}' '%s'", col("d_k"), g))
n = words(dks)
qk(k) = sprintf("d_k=%d", word(dks, k) + 0)
ov(k) = sprintf("d_v=%d", word(dks, k) + 0)
stats datadir.'/bilinear_low_rank.csv' using "d" nooutput   # the column named d (the table's first column is T in newer runs)
D = int(STATS_max)
zero = 1e-24
clamp(y) = y > 0 ? y : zero
set logscale y
set format y "10^{%L}"
set yrange [3e-25:10]
set ytics 1e-20, 1e4
set ytics add ("exactly 0" 1e-24)
set xrange [0:D + 1]
set xtics 0, D / 8, D
set key at graph 0.99, graph 0.97 right top box opaque spacing 1.25 samplen 2
set multiplot layout 1, 2 title sprintf("Spectra of the two circuits of one head (d = %d): rank = width of the bottleneck", D)
set title "QK circuit  W_{QK} = W_Q W_K^T"
set xlabel "index i"
set ylabel "σ_i / σ_1"
set arrow 1 from 0, 1e-10 to D + 1, 1e-10 nohead ls 9
set label 1 "rank cut 10^{-10}" at 0.25 * D, 6e-10 left offset 0, -1
set datafile columnheaders
plot for [k=1:n] f using (column("i")):(clamp(column(qk(k)))) with linespoints ls k ps 0.6 \
     title qk(k)
set title "OV circuit  W_{OV} = W_V W_O"
set ylabel ""
plot for [k=1:n] f using (column("i")):(clamp(column(ov(k)))) with linespoints ls k ps 0.6 \
     title ov(k)
unset multiplot
