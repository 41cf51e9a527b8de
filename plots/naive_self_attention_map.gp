# naive_self_attention_map.gp - the (d, T) map of raw self-attention: colour
# is the number of nines of the mean self-weight, -log10(1 - a_ii) (2.3 nines
# = 99.5%). The lines are where the mean self-weight crosses 0.995 (the
# section's number) and 0.999, interpolated between grid widths, with the
# 95% CI of the crossing width as horizontal bars. The star is the headline
# configuration. The colour scale stops at 6 nines (99.9999%); at d = 768
# the self-weight is 1 to more than 200 digits.
# Data: naive_self_attention.csv (cell edges in columns 14-17),
#       naive_self_attention_contour.csv (T, level, d_star, lo, hi),
#       naive_self_attention_headline.csv.
# size: 7.5,5.2
f = datadir.'/naive_self_attention.csv'
c = datadir.'/naive_self_attention_contour.csv'
h = datadir.'/naive_self_attention_headline.csv'
nines(leak) = leak > 1e-6 ? -log10(leak) : 6

set title "Raw self-attention: where the self-weight reaches 99.5%"
set xlabel "width d"
set ylabel "sequence length T"
set logscale x 2
set logscale y 2
set xrange [1.7:900]
set yrange [1.6:620]
set xtics ("2" 2, "4" 4, "8" 8, "16" 16, "32" 32, "64" 64, "128" 128, "256" 256, "768" 768)
set ytics ("2" 2, "4" 4, "8" 8, "12" 12, "16" 16, "32" 32, "64" 64, "128" 128, "256" 256)
set grid noxtics noytics
set cbrange [0:6]
set cbtics 0, 1, 6
set palette maxcolors 12
set cblabel "nines of the self-weight,  -log_{10}(1 - a_{ii})"
set colorbox user origin graph 1.04, graph 0 size character 2, graph 1
set rmargin 12
# the catalogue's "self-weight >= 0.999 for d >= 32": the 0.999 line must stay left of d = 32
set arrow 5 from 32, 1.6 to 32, 362 nohead lc rgb '#000000' lw 2 dt 3 front
set label 5 "d = 32" at 34, 2.2 left front textcolor rgb '#ffffff'
set key at graph 0.01, graph 0.99 left top horizontal box opaque spacing 1.2 samplen 2 width -1

plot f skip 1 using 2:1:14:15:16:17:(nines($7)) with boxxyerror fs solid 1.0 noborder \
       fc palette notitle, \
     c skip 1 using ($2 == 0.995 ? $3 : 1/0):1 with lines lc rgb '#000000' lw 4 dt 1 notitle, \
     c skip 1 using ($2 == 0.995 ? $3 : 1/0):1:4:5 with xerrorbars lc rgb '#000000' lw 2 pt 7 ps 0.8 \
       title "a_{ii} = 0.995", \
     c skip 1 using ($2 == 0.999 ? $3 : 1/0):1 with lines lc rgb '#b2182b' lw 3 dt (6,3) notitle, \
     c skip 1 using ($2 == 0.999 ? $3 : 1/0):1:4:5 with xerrorbars lc rgb '#b2182b' lw 2 pt 5 ps 0.8 \
       title "a_{ii} = 0.999", \
     h skip 1 using 2:1 with points pt 3 ps 3.5 lw 3 lc rgb '#000000' \
       title "headline"
