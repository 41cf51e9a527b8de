# query_bias.gp - the query bias is a preference over keys that every query
# shares. Left: the scores b_Q adds, S(b_Q) - S(0) = 1 (K b_Q)^T, identical in
# every row. Right: with W_Q = 0 every query is b_Q, and every row of A is the
# same distribution softmax(K b_Q). One random head of the query_bias run
# (self-attention on six tokens); its preference from query_bias.meta.
# Data: query_bias_example.csv (i, j, query, key, score_shift, weight_zero_query),
# read by name.
# size: 6.5,4.2
# slide: 2.9,2.6
meta_id = 'query_bias'
tv = meta('example_pref_tv')
f = datadir.'/query_bias_example.csv'
set datafile columnheaders   # columns by name
stats f using "i" nooutput
T = int(sqrt(STATS_records) + 0.5)
stats f using (abs(column("score_shift"))) nooutput
smax = STATS_max
if (SLIDE) {
# slide: the weights with W_Q = 0 alone (every query is b_Q): six identical
# rows, keys and queries named; a thin colour bar (0 to 1) on top in place of
# a title, the axes named by labels placed on the page
unset key
set colorbox horizontal user origin 0.50, 0.905 size 0.36, 0.04
# its two ends are written beside it (no ticks: see below)
set label 24 "0" at screen 0.485, screen 0.925 right font ',9'
set label 25 "1" at screen 0.875, screen 0.925 left font ',9'
set grid noxtics noytics
set border 0
set tics scale 0
set xrange [-0.5:T - 0.5]
set yrange [T - 0.5:-0.5]
set size noratio
set lmargin at screen 0.27; set rmargin at screen 0.98
set bmargin at screen 0.33; set tmargin at screen 0.84
set label 21 "weight" at screen 0.42, screen 0.925 right font ',9'
set label 22 "queries" at screen 0.05, screen 0.585 center rotate by 90   # placed, whatever the tick widths
set label 23 "keys" at screen 0.625, screen 0.07 center
set xtics rotate by 40 right offset 0.6, 0.2 font ',8'   # 10 pt, slanted: six keys side by side ("the" and "mat" collided level)
@PAL_SEQ
unset cbtics   # after the palette, which sets them
set cbrange [0:1]
plot f using "j":"i":"weight_zero_query":xtic(strcol("key")):ytic(strcol("query")) with image
} else {
set multiplot layout 1,2 title main(sprintf("The query bias is a preference over keys that every query shares\n(distance from uniform, total variation: %.2f)", tv)) \
    margins 0.13,0.99,0.17,0.78 spacing 0.13,0
unset key
unset colorbox
set grid noxtics noytics
set border 0
set tics scale 0
set xrange [-0.5:T - 0.5]
set yrange [T - 0.5:-0.5]
set size ratio -1
set xlabel "keys" offset 0,0.5
set ylabel "queries"
fmtw(v) = v < 0.005 ? '0' : substr(sprintf('%.2f', v), 2, 4)
ink(v, top) = abs(v) > 0.55 * top ? 0xffffff : 0x000000
set title "added scores b_Q·k_j"
@PAL_DIV
set cbrange [-smax:smax]
plot f using "j":"i":"score_shift":xtic(strcol("key")):ytic(strcol("query")) with image, \
     '' using "j":"i":(sprintf('{/*0.8 %.1f}', column("score_shift"))):(ink(column("score_shift"), smax)) \
        with labels tc rgb variable
set title "weights with W_Q = 0"
@PAL_SEQ
plot f using "j":"i":"weight_zero_query":xtic(strcol("key")):ytic(strcol("query")) with image, \
     '' using "j":"i":(sprintf('{/*0.8 %s}', fmtw(column("weight_zero_query")))):(ink(column("weight_zero_query"), 1)) \
        with labels tc rgb variable
unset multiplot
}
