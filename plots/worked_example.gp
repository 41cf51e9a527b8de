# worked_example.gp - the attention matrix of the "the cat sat" head as a
# labelled heatmap: queries (rows) x keys (columns); each cell shows the
# weight a_ij and, below it, the score s_ij it came from.
# Data: worked_example_A.csv (i, j, query, key, score, weight, closed_form).
# size: 6,5
f = datadir.'/worked_example_A.csv'
stats f using (abs($5)) nooutput
set title sprintf("Worked example: A = softmax(QK^T) on \"the cat sat\" (query factor %g)", STATS_max)
set xlabel "key j (the token attended to)"
set ylabel "query i (the token attending)"
set xrange [-0.5:2.5]
set yrange [2.5:-0.5]
set xtics ("{/*1.3 the}" 0, "{/*1.3 cat}" 1, "{/*1.3 sat}" 2) scale 0
set ytics ("{/*1.3 the}" 0, "{/*1.3 cat}" 1, "{/*1.3 sat}" 2) scale 0
set grid noxtics noytics
set cbrange [0:1]
set cblabel "weight a_{ij}"
set cbtics 0.2
set size ratio -1
unset key
set border 0
# dark cells get white text, light cells black text (readable in greyscale)
plot f using 2:1:6 with image pixels, \
     f using 2:1:(sprintf("{/*1.5 %.3f}\n{/*0.9 s = %g}", $6, $5)):($6 > 0.5 ? 0xffffff : 0x000000) \
       with labels tc rgb variable
