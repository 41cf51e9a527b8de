# previous_token_head.gp - exercise 4.2b: the attention matrix of the
# hand-built previous-token head on one random sequence (n_vocab = 8, T = 12).
# Every position t >= 1 puts (almost) all its weight on t - 1: the band just
# below the diagonal. Position 0 has no previous token and a zero query, so
# it spreads its weight uniformly (1/T). Right axis: the token each position
# receives (argmax of its output), which is the previous token.
# Data, read by column name: previous_token_head_A.csv (i, j, token_i, token_j, weight),
#       previous_token_head_tokens.csv (t, token, label, prev_label, output_argmax, output_label, weight_prev).
# size: 6.5,5.8
# slide: 2.9,2.6
fa = datadir.'/previous_token_head_A.csv'
ft = datadir.'/previous_token_head_tokens.csv'
stats ft using "t" nooutput
T = STATS_max + 1
meta_id = 'previous_token_head'
set title sprintf("Every position attends to the one before it\n{/*0.85 a hand-built head on one random sequence of T = %d tokens}\n{/*0.85 position 0 has no previous token and spreads 1/T}", T)
set xlabel "keys: position j (token)"
set ylabel "queries: position t (token)"
set y2label "token received (argmax of o_t)" offset -1, 0
set xrange [-0.5:T-0.5]
set yrange [T-0.5:-0.5]
set y2range [T-0.5:-0.5]
set cbrange [0:1]
set cblabel "weight a_{tj}"
set cbtics 0.2
unset colorbox
set grid noxtics noytics
set xtics scale 0
set ytics scale 0 nomirror
set y2tics scale 0
set size ratio -1
set lmargin at screen 0.16
set rmargin at screen 0.83
set tmargin at screen 0.84
set bmargin at screen 0.17
set xlabel offset 0, -0.9
set border 0
unset key
# the diagonal t = j (dashed) and a frame around the matrix
set arrow from -0.5, -0.5 to T-0.5, T-0.5 nohead front ls 9 lc rgb '#999999'
set object rectangle from -0.5, -0.5 to T-0.5, T-0.5 front fillstyle empty border lc rgb '#000000' lw 1
if (SLIDE) {
    # slide: the matrix and its band; positions every 3, no token letters
    # and no numbers in the cells (twelve rows do not fit at 11 pt)
    unset title
    unset y2label; unset y2tics
    set xlabel "key j" offset 0, 0.5
    set ylabel "query t" offset 1.5, 0
    set xtics 0, 3 scale 0 offset 0, 0.3; set ytics 0, 3 scale 0
    set lmargin at screen 0.24; set rmargin at screen 0.80
    set tmargin at screen 0.97; set bmargin at screen 0.29
    # a heatmap has its colour bar (no numbers in the cells here)
    set colorbox user origin 0.85, 0.30 size 0.04, 0.52
    set cbtics ('0' 0, '1' 1) scale 0
    # the bar's name on top of it (beside it, it passed the page's edge)
    unset cblabel
    set label 30 "a_{tj}" at screen 0.86, screen 0.95 center
    plot fa using "j":"i":"weight" with image pixels
} else {
w = 'weight'   # the tables' columns by name
plot fa using "j":"i":w with image pixels, \
     fa using "j":"i":(column(w) > 0.5 ? sprintf("{/*0.8 %s}", column(w) < 1 ? sprintf("%.3f", column(w))[2:5] : "1") : ""):(column(w) > 0.5 ? 0xffffff : 0x000000) \
        with labels tc rgb variable, \
     ft using ((T - 1) / 2.0):(column("t") == 0 ? 0 : 1/0):(sprintf("1/T = %.3f on every key", 1.0 / T)) with labels, \
     ft using "t":(1/0):xticlabels(sprintf("%d\n%s", column("t"), strcol("label"))) with points, \
     ft using (1/0):"t":yticlabels(sprintf("%d %s", column("t"), strcol("label"))) with points, \
     ft using (1/0):"t":y2ticlabels(column("t") == 0 ? "mix" : strcol("output_label")) axes x1y2 with points
}
