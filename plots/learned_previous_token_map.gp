# learned_previous_token_map.gp - the attention a trained head learned, mean
# over the held-out sequences (seed 0, width map_dk of the .meta), with
# separate keys and values (left) and tied ones (right, W_V = W_K). The
# causal mask leaves the upper triangle empty; the band just below the
# diagonal is the weight on the previous position.
# Data: learned_previous_token_A.csv (query, key, separate, tied).
# size: 6.5,4.6
meta_id = 'learned_previous_token'
f = datadir.'/learned_previous_token_A.csv'
set datafile columnheaders   # columns read by name (the CSV's header)
W = meta('map_dk'); T = meta('T'); S = meta('steps')
set multiplot layout 1, 2 margins 0.12, 0.98, 0.17, 0.79 spacing 0.13, 0 \
    title sprintf("A learned head attends to the previous position\n" . \
                  "{/*0.8 mean weights on held-out sequences (causal mask, W_O trained too)}\n" . \
                  "{/*0.8 d_k = d_v = %d, %d Adam steps, seed 0}", W, S)
set xrange [-0.5:T-0.5]
set yrange [T-0.5:-0.5]
set cbrange [0:1]
set size ratio -1
set xtics 1 scale 0
set ytics 1 scale 0
set grid noxtics noytics
set border 0
set xlabel "keys (position j)"
set ylabel "queries (position t)"
unset colorbox
set object 1 rectangle from -0.5, -0.5 to T-0.5, T-0.5 front fillstyle empty \
    border lc rgb '#000000' lw 1
cell(v) = v >= 0.995 ? "{/*0.8 1}" : v >= 0.005 ? sprintf("{/*0.8 .%02.0f}", 100 * v) : ""
set title "separate W_K, W_V"
plot f using (column("key")):(column("query")):(column("separate")) with image pixels, \
     f using (column("key")):(column("query")):(cell(column("separate"))):(column("separate") > 0.5 ? 0xffffff : 0x000000) with labels tc rgb variable
set title "tied W_V = W_K (k_j = v_j)"
plot f using (column("key")):(column("query")):(column("tied")) with image pixels, \
     f using (column("key")):(column("query")):(cell(column("tied"))):(column("tied") > 0.5 ? 0xffffff : 0x000000) with labels tc rgb variable
unset multiplot
