# bilinear_low_rank.gp - lecture figure: the singular values of
# W_QK = W_Q W_K^T (one random head per width d_k), relative to the largest:
# exactly d_k of them are nonzero, then the rest are 0 (rounding, ~1e-16, is
# invisible on this linear axis: plots/checks/bilinear_low_rank_spectra.gp
# shows it on a log axis). Each curve is labelled where it drops.
# Data: bilinear_low_rank_spectra.csv (i, then sigma_i/sigma_1 of W_QK, one
# column "d_k=N" per width, then of W_OV), bilinear_low_rank.csv (d, d_k, ...).
# size: 6.5,4
# slide: 2.9,2.6
f = datadir.'/bilinear_low_rank_spectra.csv'
g = datadir.'/bilinear_low_rank.csv'
# the columns by name (d, d_k), whatever their order in this run's table
col(name) = sprintf("NR == 1 {for (i = 1; i <= NF; i++) if ($i == \"%s\") c = i}", name)
dks = system(sprintf("awk -F, '%s NR > 1 {printf \"%%s \", $c}' '%s'", col("d_k"), g))
n = words(dks)
D = real(system(sprintf("awk -F, '%s NR == 2 {print $c}' '%s'", col("d"), g)))
set title "W_{QK} = W_Q W_K^T has rank at most d_k"
set label 1 sprintf("d = %g, one random head per width;\nthe number: d_k, where the curve falls to 0", D) at graph 0.98, graph 0.92 right font ',9'
set xlabel "index i of the singular value"
set ylabel "σ_i / σ_1"
set logscale x 2
set xrange [0.8 : D * 1.25]
set yrange [-0.03 : 1.08]
set xtics 1, 2
set mxtics 1
set ytics 0, 0.25, 1
last(k) = word(dks, k) + 0
if (SLIDE) {
    unset title   # the slide's frame title states the claim
    set label 1 "curves: d_k" at graph 0.98, graph 0.92 right
    set xlabel "singular value index i"
    set ylabel "σ_i/σ_1" offset 1.4, 0
    set xtics 1, 4
    set ytics 0, 0.5, 1
    set lmargin at screen 0.32; set rmargin at screen 0.96
    set bmargin at screen 0.30; set tmargin at screen 0.97
    set xlabel offset -2.2, 0.6; set xtics offset 0, 0.4
}
# each curve labelled with its d_k just right of where it falls to 0 (at
# i = d_k + 1), below every curve still standing there; every second label one
# line higher, so that neighbours an octave apart (16, 32) do not run together
set datafile columnheaders   # the spectra by column name: i, then "d_k=N" per width
sv(k) = column(sprintf("d_k=%d", last(k)))
plot for [k = 1:n] f using (column("i")):(sv(k)) with lines ls k notitle, \
     for [k = 1:n] f using (column("i") == last(k) + 1 ? column("i") : 1/0):(0):(sprintf("%d", last(k))) \
       with labels left offset 0.2, (k % 2 ? 0.7 : 1.8) font ',9' tc ls k notitle
