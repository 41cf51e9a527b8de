# two_queries_four_keys: the section's interactive figure, frozen.
# Left: queries and keys in their plane (arrows from the origin). Middle: the
# 2 x 4 attention matrix A = softmax(s q.k) with the weights written in the
# cells. Right: the four values and the two outputs, each output joined to
# every value by a line whose width is the weight: o_i = sum_j a_ij v_j.
# Query i, its row of A and its output o_i share one line style (q1/o1 black
# solid with circles, q2/o2 red dashed with triangles); keys are grey dashed.
# size: 14,5
vec = datadir.'/two_queries_four_keys_vectors.csv'
att = datadir.'/two_queries_four_keys_A.csv'

# the scale s and a square range that holds every vector (at least [-4, 4])
stats att using 5 nooutput
s = STATS_max
stats vec using (abs($3) > abs($4) ? abs($3) : abs($4)) nooutput
R = ceil(STATS_max + 0.5) > 4 ? ceil(STATS_max + 0.5) : 4

isq(n) = strcol(1) eq n
first(c) = substr(strcol(1), 1, 1) eq c

set multiplot layout 1,3 margins 0.04,0.98,0.14,0.88 spacing 0.07,0
set style line 11 lc rgb '#000000' lw 3 dt 1 pt 7 ps 2.2    # q1, o1
set style line 12 lc rgb '#b2182b' lw 3 dt 4 pt 9 ps 2.4    # q2, o2
set style line 13 lc rgb '#6a6a6a' lw 2 dt 2                # keys
set style line 14 lc rgb '#1f4e9c' pt 5 ps 1.6              # values
set style arrow 1 head filled size char 1.2,20 ls 11
set style arrow 2 head filled size char 1.2,20 ls 12
set style arrow 3 head filled size char 1.0,20 ls 13
unset key

# ---- panel 1: queries and keys -------------------------------------------
set title sprintf('queries q_i and keys k_j (score s q·k, s = %g)', s)
set size ratio -1
set xrange [-R:R]; set yrange [-R:R]
set xtics R > 6 ? 2 : 1; set ytics R > 6 ? 2 : 1
set xlabel 'first coordinate'; set ylabel 'second coordinate'
set xzeroaxis lt -1 lw 1; set yzeroaxis lt -1 lw 1
plot vec using (0):(0):(first('k') ? $3 : NaN):4 with vectors as 3, \
     ''  using (0):(0):(isq('q1') ? $3 : NaN):4 with vectors as 1, \
     ''  using (0):(0):(isq('q2') ? $3 : NaN):4 with vectors as 2, \
     ''  using (first('k') ? $3 : NaN):4:(sprintf('k_%s', substr(strcol(1), 2, 2))) \
         with labels offset char 1.2,0.8 tc rgb '#404040', \
     ''  using (first('q') ? $3 : NaN):4:(sprintf('q_%s', substr(strcol(1), 2, 2))) \
         with labels offset char 1.2,0.8 font ':Bold'

# ---- panel 2: the attention matrix -----------------------------------------
set title 'weights A = softmax(s Q K^T), rows sum to 1'
set size ratio 0.62
set xrange [0.5:4.5]; set yrange [2.5:0.5]
set xtics ('k_1' 1, 'k_2' 2, 'k_3' 3, 'k_4' 4) scale 0
set ytics ('q_1' 1, 'q_2' 2) scale 0
set xlabel 'key j'; set ylabel 'query i'
unset xzeroaxis; unset yzeroaxis
unset grid
set cbrange [0:1]
unset colorbox    # the weights are written in the cells
# white text on the dark cells, black on the light ones; tiny weights in e-notation
wfmt(w) = (w > 0 && w < 0.0005) ? sprintf('%.0e', w) : sprintf('%.3f', w)
plot att using 4:3:7 with image, \
     ''  using 4:3:($7 >= 0.55 ? wfmt($7) : '') with labels font ':Bold' tc rgb '#ffffff', \
     ''  using 4:3:($7 < 0.55 ? wfmt($7) : '') with labels font ':Bold' tc rgb '#000000', \
     ''  using 4:($3 + 0.28):($7 >= 0.55 ? sprintf('score %.3g', $6) : '') with labels tc rgb '#ffffff', \
     ''  using 4:($3 + 0.28):($7 < 0.55 ? sprintf('score %.3g', $6) : '') with labels tc rgb '#000000'
set grid

# ---- panel 3: values and outputs -----------------------------------------
set title 'values v_j and outputs o_i = {/Symbol S}_j a_{ij} v_j'
set label 1 'line width {/Symbol \265} a_{ij}' at graph 0.03,0.05 front
set size ratio -1
set xrange [-R:R]; set yrange [-R:R]
set xtics R > 6 ? 2 : 1; set ytics R > 6 ? 2 : 1
set xlabel 'first coordinate'; set ylabel 'second coordinate'
set xzeroaxis lt -1 lw 1; set yzeroaxis lt -1 lw 1
# spokes o_i -> v_j (row r of the A file), width proportional to a_ij;
# gnuplot has no variable width for vectors, so one plot per spoke
array W[8]
stats att skip 1 using (W[int($0) + 1] = $7, $0) nooutput
plot for [r=0:7] att skip 1 every ::r::r \
         using ($7 > 0.005 ? $10 : NaN):11:($8 - $10):($9 - $11) \
         with vectors nohead ls (r < 4 ? 11 : 12) lw (0.5 + 6 * W[r + 1]), \
     vec using (first('v') ? $3 : NaN):4 with points ls 14, \
     ''  using (first('v') ? $3 : NaN):4:(sprintf('v_%s', substr(strcol(1), 2, 2))) \
         with labels offset char 1.4,0.8 tc rgb '#1f4e9c', \
     ''  using (isq('o1') ? $3 : NaN):4 with points ls 11, \
     ''  using (isq('o2') ? $3 : NaN):4 with points ls 12, \
     ''  using (first('o') ? $3 : NaN):4:(sprintf('o_%s', substr(strcol(1), 2, 2))) \
         with labels offset char -1.6,-1.1 font ':Bold'
unset label 1
unset multiplot
