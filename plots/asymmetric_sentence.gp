# asymmetric_sentence.gp - lecture figure: the section's opening sentence with
# experiment: score_asymmetry
# a small hand-made head (experiments/score_asymmetry.c). Left: the raw scores
# x_i . x_j, symmetric, so "it" and "animal" are paired the same both ways.
# Right: the head's attention weights A = softmax(x_i W_QK x_j^T): "it" puts
# most of its weight on "animal", "animal" almost none on "it". (The slide
# shows the head's scores instead, the evidence that survives row
# normalisation; see the slide branch.) The two cells
# are boxed and their values written in them, all in one format (0.933, not
# .93 beside .006 and 0.5).
# Data, read by column name: score_asymmetry_sentence.csv (qi, ki, query, key,
# raw_score, raw_weight, score, weight), written by bin/score_asymmetry.
# size: 6.5,4.2
# slide: 5.6,2.6
f = datadir.'/score_asymmetry_sentence.csv'
set datafile columnheaders
# awk's columns by the header's names too: c["query"] is the column named query
AWK = "awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } "
tokens = system(sprintf(AWK."$c[\"qi\"] == 0 {printf \"%%s \", $c[\"key\"]}' '%s'", f))
n = words(tokens)
stats f using ((strcol("query") eq "it" && strcol("key") eq "animal") ? column("qi") : 1/0) nooutput
it = int(STATS_max)
stats f using ((strcol("query") eq "animal" && strcol("key") eq "it") ? column("qi") : 1/0) nooutput
an = int(STATS_max)
stats f using "raw_score" nooutput
smax = STATS_max
stats f using ((strcol("query") eq "it" && strcol("key") eq "animal") ? column("weight") : 1/0) nooutput
a_ia = STATS_max
stats f using ((strcol("query") eq "animal" && strcol("key") eq "it") ? column("weight") : 1/0) nooutput
a_ai = STATS_max
stats f using ((strcol("query") eq "it" && strcol("key") eq "animal") ? column("raw_score") : 1/0) nooutput
s_ia = STATS_max
stats f using "score" name "HS" nooutput   # the head's largest score (before any range: stats obeys them)
if (SLIDE) {
# slide: only the two rows the claim is about ("animal", "it"), as two
# strips over the same keys: the raw scores x_i . x_j above (symmetric:
# the two boxed cells hold the same number), the hand-made head's scores
# s_ij = x_i W_QK x_j^T below (one-way: 6 against 0). Scores, not weights:
# the weights of row i are divided by row i's own sum, so even the raw
# weights differ both ways (0.117 against 0.083); the scores are the
# evidence. Every cell's value is written in it (no colour bar needed).
ya(q) = (q eq "animal") ? 0 : (q eq "it") ? 1 : NaN
set xrange [-0.5 : n - 0.5]
set yrange [1.5 : -0.5]
set xtics () scale 0
do for [i = 1:n] { set xtics add (word(tokens, i) i - 1) }
set ytics ("animal" 0, "it" 1) scale 0
set grid noxtics noytics
set border lw 0.8
unset colorbox
unset key
set style fill solid 1.0 noborder
set object 1 rect from an - 0.5, 0.5 to an + 0.5, 1.5 front fs empty border lc rgb '#e6861c' lw 2.5
set object 2 rect from it - 0.5, -0.5 to it + 0.5, 0.5 front fs empty border lc rgb '#e6861c' lw 2.5
# a cell's value: "1.25", "0.5", "6"; white on the darkest cells
val(x) = (x == int(x)) ? sprintf("%d", int(x)) : sprintf("%g", x)
ink(x, top) = (x > 0.55 * top) ? 0xffffff : 0x000000
set multiplot
set lmargin at screen 0.16; set rmargin at screen 0.99
set tmargin at screen 0.885; set bmargin at screen 0.695
set title "raw scores x_i · x_j: symmetric" font ',9' offset 0,-0.9
unset xtics
set cbrange [0 : smax]
plot f using "ki":(ya(strcol("query"))):(0.5):(0.5):"raw_score" with boxxyerror fc palette notitle, \
     f using "ki":(ya(strcol("query"))):(val(column("raw_score"))):(ink(column("raw_score"), smax)) with labels tc rgb variable font ',9' notitle
set tmargin at screen 0.595; set bmargin at screen 0.405
set title "scores of a hand-made head: one-way" font ',9' offset 0,-0.9
set xtics () rotate by 90 right scale 0
do for [i = 1:n] { set xtics add (word(tokens, i) i - 1) }
set cbrange [0 : HS_max]
plot f using "ki":(ya(strcol("query"))):(0.5):(0.5):"score" with boxxyerror fc palette notitle, \
     f using "ki":(ya(strcol("query"))):(val(column("score"))):(ink(column("score"), HS_max)) with labels tc rgb variable font ',9' notitle
unset multiplot
} else {
set xrange [-0.5 : n - 0.5]
set yrange [n - 0.5 : -0.5]

set xtics () rotate by 90 right font ',8' scale 0
set ytics () font ',8' scale 0
do for [i = 1:n] { set xtics add (word(tokens, i) i - 1); set ytics add (word(tokens, i) i - 1) }
set xlabel "keys" offset 0, 0.6
set ylabel "queries" offset 1.5, 0
set grid noxtics noytics
set border lw 0.8
unset colorbox
box(x, y) = sprintf("set object %d rect from %g, %g to %g, %g front fs empty border lc rgb '#e6861c' lw 2.5", \
                    1 + int(x + 20 * y), x - 0.5, y - 0.5, x + 0.5, y + 0.5)
eval box(an, it)
eval box(it, an)
set size noratio
set multiplot title main("“it” attends to “animal”; “animal” does not attend to “it”")
set bmargin at screen 0.24
set tmargin at screen 0.76
set lmargin at screen 0.18
set rmargin at screen 0.48
set title "raw scores x_i · x_j: symmetric" font ',9'
set label 11 sprintf("%.3f", s_ia) at it - 4.0, an center font ',9' front
set label 12 sprintf("%.3f", s_ia) at an + 2.5, it center font ',9' front
set cbrange [0 : smax]
plot f using "ki":"qi":"raw_score" with image notitle
set lmargin at screen 0.62
set rmargin at screen 0.92
# the head's scores, not its weights: weights are divided by their row's
# sum, so even raw weights differ both ways (0.117 against 0.083)
set title "scores of a hand-made head:\none-way" font ',9'
s_cell(q, k) = 0 + system(sprintf(AWK."$c[\"query\"] == \"%s\" && $c[\"key\"] == \"%s\" {print $c[\"score\"]}' '%s'", q, k, f))
set label 11 sprintf("%g", s_cell("animal", "it")) at it - 2.0, an center font ',9' front
set label 12 sprintf("%g", s_cell("it", "animal")) at an + 2.5, it center font ',9' front
set cbrange [0 : HS_max]
set ylabel ""
plot f using "ki":"qi":"score" with image notitle
unset multiplot
}
