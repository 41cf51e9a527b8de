# random_projections_heatmap.gp - one draw, the same 12 tokens (d = 64, X
# with N(0, 1) entries): the attention matrix A = softmax(S) with raw scores
# S = X X^T (every token looks at itself: the bright diagonal) next to the
# one with random projections S = (X W_Q)(X W_K)^T, d_k = 16, W ~ N(0, 1/d)
# (the diagonal is nothing special any more). Row i = query token i; each
# row sums to 1.
# Data: random_projections_A.csv (panel, i, j, a).
# size: 11,5.2
f = datadir.'/random_projections_A.csv'
set multiplot layout 1, 2 title "One draw of 12 tokens (d = 64): attention weights a_{ij}, raw vs projected"
set size ratio -1
set xrange [0.5:12.5]
set yrange [12.5:0.5]
set xtics 1, 1, 12 scale 0
set ytics 1, 1, 12 scale 0
set grid noxtics noytics
set xlabel "key token j"
set ylabel "query token i"
set cbrange [0:1]
set cbtics 0, 0.25, 1
unset cblabel
set style fill solid 1.0 noborder
set tics nomirror
unset key
set title "raw: S = X X^T"
plot f skip 1 using ((strcol(1) eq 'raw') ? $3 : 1/0):2:($3 - 0.5):($3 + 0.5):($2 - 0.5):($2 + 0.5):4 \
     with boxxyerror fc palette
set title "projected: S = (X W_Q)(X W_K)^T, d_k = 16  (○: own position)"
plot f skip 1 using ((strcol(1) eq 'projected') ? $3 : 1/0):2:($3 - 0.5):($3 + 0.5):($2 - 0.5):($2 + 0.5):4 \
     with boxxyerror fc palette, \
     f skip 1 using ((strcol(1) eq 'projected' && $2 == $3) ? $3 : 1/0):2 with points pt 6 ps 2.2 lc rgb '#b2182b' lw 2
unset multiplot
