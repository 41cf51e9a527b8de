# previous_token_head.gp - exercise 4.2b: the attention matrix of the
# hand-built previous-token head on one random sequence (n_vocab = 8, T = 12).
# Every position t >= 1 puts (almost) all its weight on t - 1: the band just
# below the diagonal. Position 0 has no previous token and a zero query, so
# it spreads its weight uniformly (1/T). Right axis: the token each position
# receives (argmax of its output), which is the previous token.
# Data: previous_token_head_A.csv (i, j, token_i, token_j, weight),
#       previous_token_head_tokens.csv (t, token, label, prev_label, output_argmax, output_label, weight_prev).
# size: 7,6.2
fa = datadir.'/previous_token_head_A.csv'
ft = datadir.'/previous_token_head_tokens.csv'
stats ft using 1 nooutput
T = STATS_max + 1
set title sprintf("Previous-token head on one random sequence (T = %d, 8 token types)\n{/*0.8 t ≥ 1 attends to t - 1 (band below the diagonal); t = 0 has no previous token: 1/T each}", T)
set xlabel "key position j (token)"
set ylabel "query position t (token)"
set y2label "token received: argmax of o_t" offset -1, 0
set xrange [-0.5:T-0.5]
set yrange [T-0.5:-0.5]
set y2range [T-0.5:-0.5]
set cbrange [0:1]
set cblabel "weight a_{tj}"
set cbtics 0.2
set colorbox user origin screen 0.87, screen 0.2 size screen 0.03, screen 0.6
set grid noxtics noytics
set xtics scale 0
set ytics scale 0 nomirror
set y2tics scale 0
set size ratio -1
set lmargin at screen 0.11
set rmargin at screen 0.74
set tmargin at screen 0.88
set bmargin at screen 0.13
set xlabel offset 0, -0.6
set border 0
unset key
# the diagonal t = j (dashed) and a frame around the matrix
set arrow from -0.5, -0.5 to T-0.5, T-0.5 nohead front ls 9 lc rgb '#999999'
set object rectangle from -0.5, -0.5 to T-0.5, T-0.5 front fillstyle empty border lc rgb '#000000' lw 1
plot fa using 2:1:5 with image pixels, \
     fa using 2:1:($5 > 0.05 ? sprintf("{/*0.6 %.3f}", $5) : ""):($5 > 0.5 ? 0xffffff : 0x000000) \
        with labels tc rgb variable, \
     ft using 1:(1/0):xticlabels(sprintf("%d\n%s", $1, strcol(3))) with points, \
     ft using (1/0):1:yticlabels(sprintf("%d %s", $1, strcol(3))) with points, \
     ft using (1/0):1:y2ticlabels($1 == 0 ? "mix" : strcol(6)) axes x1y2 with points
