# naive_self_attention.gp - raw self-attention (Q = K = V = X): the mean
# weight a token keeps for itself, against the width d, for several sequence
# lengths T. Left: the self-weight itself. Right: the weight that goes to the
# other tokens, 1 - a_ii, on a log scale, where the section's 99.5% is the
# line 0.005; shaded bands are 95% CIs. The marked point is the headline
# configuration (chosen by the program: T = 12, the section's example
# sentence, and the d closest to 99.5%).
# Data: naive_self_attention.csv (T, d, draws, self_weight, lo, hi, leak, lo, hi, ...),
#       naive_self_attention_headline.csv (T, d, draws, self_weight, ...).
# size: 12,5
f = datadir.'/naive_self_attention.csv'
h = datadir.'/naive_self_attention_headline.csv'
stats h skip 1 using 1 name "HT" nooutput
stats h skip 1 using 2 name "HD" nooutput
stats h skip 1 using 4 name "HW" nooutput
# 1 - a_ii at d = 768 for the headline T (how many nines the raw head reaches)
stats f skip 1 using ($1 == HT_mean && $2 == 768 ? $7 : 1/0) name "L768" nooutput

TS = "2 12 64 256"
nT = words(TS)
sel(T, v) = ($1 == T ? v : 1/0)
pos(y) = y > 0 ? y : 1/0

set multiplot layout 1, 2 title "Raw self-attention: how much weight a token keeps for itself (X with N(0, 1) entries, S = X X^T)"

# ---- left: the self-weight ------------------------------------------------
set title "mean self-weight a_{ii}"
set xlabel "width d"
set ylabel "a_{ii}"
set logscale x 2
set xrange [1.95:66]
set xtics ("2" 2, "4" 4, "8" 8, "16" 16, "32" 32, "64" 64)
set yrange [0:1.02]
set ytics 0, 0.1, 1
set key bottom right box opaque spacing 1.1 samplen 2.5 title "sequence length"
set arrow 1 from 2, 0.995 to 64, 0.995 nohead ls 9 dt 2 lw 2
set label 1 "99.5%" at 2.2, 0.965 left
set label 2 sprintf("headline:\nd = %d, T = %d", HD_mean, HT_mean) at 26, 0.86 left
set arrow 3 from 26, 0.87 to HD_mean * 1.04, HW_mean - 0.01 ls 9 dt 1 lw 1.5
plot for [k=1:nT] f skip 1 using (sel(int(word(TS, k)), $2)):4 with linespoints ls k ps 1.0 \
       title sprintf("T = %s", word(TS, k)), \
     h skip 1 using 2:4 with points pt 6 ps 3 lc rgb '#000000' lw 2 notitle
unset label 2
unset arrow 3

# ---- right: the weight on the other tokens --------------------------------
set title "weight on the other tokens, 1 - a_{ii}"
set ylabel "1 - a_{ii}"
set logscale y
set format y "10^{%L}"
set xrange [2:48]
set xtics ("2" 2, "4" 4, "8" 8, "16" 16, "32" 32)
set yrange [1e-6:1]
set ytics 1e-6, 10, 1
set key bottom left box opaque spacing 1.1 samplen 2.5 title "sequence length"
unset arrow 1
set arrow 1 from 2, 0.005 to 48, 0.005 nohead ls 9 dt 2 lw 2
set arrow 2 from 2, 0.001 to 48, 0.001 nohead ls 9 dt 3 lw 1.5
set label 1 "0.005 (99.5%)" at 2.2, 0.0072 left
set label 3 "0.001 (99.9%)" at 2.2, 0.00066 left
set label 4 sprintf("d = 768, T = %d:\n1 - a_{ii} ≈ 10^{%d}", HT_mean, floor(log10(L768_mean))) \
    at 46, 0.08 right
set style fill transparent solid 0.25 noborder
plot for [k=1:nT] f skip 1 using (sel(int(word(TS, k)), $2)):(pos($8)):9 \
       with filledcurves ls k notitle, \
     for [k=1:nT] f skip 1 using (sel(int(word(TS, k)), $2)):7 with linespoints ls k ps 1.0 \
       title sprintf("T = %s", word(TS, k)), \
     h skip 1 using 2:(1 - $4) with points pt 6 ps 3 lc rgb '#000000' lw 2 notitle
unset multiplot
