# two_queries_four_keys: the section's interactive figure, frozen (the page
# results/explorer.html is the live one).
# Left: queries (blue, solid) and keys (orange, dashed) as arrows from the
# origin. Middle: the 2 x 4 weights A = softmax(s Q K^T), weight and score in
# each cell, keys across, queries down. Right: the values (green squares) and
# the outputs (black circles), each output joined to every value by a dashed
# spoke as thick as the weight: o_i = sum_j a_ij v_j, a weighted average.
# Data: two_queries_four_keys_vectors.csv (name, plane, x, y),
#       two_queries_four_keys_A.csv (query, key, i, j, scale, score, weight,
#       v_x, v_y, o_x, o_y); the scale from two_queries_four_keys.meta.
# size: 6.5,5.6
# slide: 5.6,2.4
meta_id = 'two_queries_four_keys'
vec = datadir.'/two_queries_four_keys_vectors.csv'
att = datadir.'/two_queries_four_keys_A.csv'
set datafile columnheaders   # columns read by name (the CSVs' headers)
s = meta('scale')

# a square range that holds every vector (at least [-4, 4])
stats vec using (abs(column("x")) > abs(column("y")) ? abs(column("x")) : abs(column("y"))) nooutput
R = ceil(STATS_max + 0.5) > 4 ? ceil(STATS_max + 0.5) : 4
first(c) = substr(strcol("name"), 1, 1) eq c
isname(n) = strcol("name") eq n
# a query's or key's label sits r (plot units) beyond the arrow's tip, in
# the arrow's direction turned 30 degrees counter-clockwise: every arrow
# starts at the origin, so a label placed outward meets no other arrow (unless
# two point almost the same way) and no other label (q1 = (1, 0.5) beside
# k1 = (2, 0) and k2 = (0, 2) included), and the turn keeps a key on an axis
# (k1..k4) off the axis line; a zero vector's label goes up and to the right
nrm(x, y) = sqrt(x * x + y * y)
lx(x, y, r) = nrm(x, y) > 0 ? x + r * (x * cos(pi / 6) - y * sin(pi / 6)) / nrm(x, y) : x + r
ly(x, y, r) = nrm(x, y) > 0 ? y + r * (x * sin(pi / 6) + y * cos(pi / 6)) / nrm(x, y) : y + r

if (SLIDE) {
# slide: three panels in a row, queries and keys | weights | values and
# outputs; weights at lecture precision (.87), no scores (the frame says
# them); each plane zoomed to its own vectors, labels away from the origin
stats vec using ((first('q') || first('k')) ? (abs(column("x")) > abs(column("y")) ? abs(column("x")) : abs(column("y"))) : NaN) name "QK" nooutput
Rq = QK_max + 1.6
stats vec using ((first('v') || first('o')) ? (abs(column("x")) > abs(column("y")) ? abs(column("x")) : abs(column("y"))) : NaN) name "VO" nooutput
Rv = VO_max + 1.0
set multiplot
set style arrow 1 head filled size screen 0.025,25 lw 3 lc rgb col_q dt 1
set style arrow 2 head filled size screen 0.025,25 lw 2.5 lc rgb col_k dt 2
unset key
unset xtics; unset ytics; unset grid
set origin 0, 0; set size 0.30, 1
set lmargin 0.5; set rmargin 0.5; set tmargin 1.5; set bmargin 0.5
set title 'queries, keys' font ',9'
set size ratio -1
set xrange [-Rq:Rq]; set yrange [-Rq:Rq]
set xzeroaxis lt -1 lw 0.8; set yzeroaxis lt -1 lw 0.8
plot vec using (0):(0):(first('k') ? column("x") : NaN):(column("y")) with vectors as 2, \
     ''  using (0):(0):(first('q') ? column("x") : NaN):(column("y")) with vectors as 1, \
     ''  using (first('k') ? lx(column("x"), column("y"), 1.0) : NaN):(ly(column("x"), column("y"), 1.0)):(strcol("name")) with labels center tc rgb '#a85a00', \
     ''  using (first('q') ? lx(column("x"), column("y"), 1.0) : NaN):(ly(column("x"), column("y"), 1.0)):(strcol("name")) with labels center font ':Bold' tc rgb col_q
set origin 0.30, 0.04; set size 0.39, 0.92
set lmargin 3.5; set rmargin 0.5; set tmargin 1.5; set bmargin 1.5
set title 'weights a_{ij}' font ',9'
set size noratio
set xrange [0.5:4.5]; set yrange [2.5:0.5]
set xtics ('k1' 1, 'k2' 2, 'k3' 3, 'k4' 4) scale 0
set ytics ('q1' 1, 'q2' 2) scale 0
unset xzeroaxis; unset yzeroaxis
@PAL_SEQ
unset colorbox
set cbrange [0:1]
lect(w) = w >= 0.995 ? "1" : sprintf(".%02.0f", 100 * w)     # lecture precision
plot att using (column("j")):(column("i")):(column("weight")) with image, \
     ''  using (column("j")):(column("i")):(lect(column("weight"))):(column("weight") > 0.5 ? 0xffffff : 0x000000) with labels font ',9' tc rgb variable
unset xtics; unset ytics
set origin 0.69, 0; set size 0.31, 1
set lmargin 0.5; set rmargin 0.5; set tmargin 1.5; set bmargin 0.5
set title 'values, outputs' font ',9'
set size ratio -1
set xrange [-Rv:Rv]; set yrange [-Rv:Rv]
set xzeroaxis lt -1 lw 0.8; set yzeroaxis lt -1 lw 0.8
# each output's name beside its circle, on the side its spokes leave free:
# o1 above (its spokes go left, up-right and down), o2 to the right; so v1's
# and v3's names go below their squares, v2's and v4's above
vup(n) = n eq 'v2' || n eq 'v4'
vdown(n) = n eq 'v1' || n eq 'v3'
set style line 21 lc rgb col_o dt 2
set style line 22 lc rgb col_o dt 3
array W[8]
stats att using (W[int($0) + 1] = column("weight"), $0) nooutput
plot for [r=0:7] att every ::r::r \
         using (column("weight") > 0.005 ? column("o_x") : NaN):(column("o_y")):(column("v_x") - column("o_x")):(column("v_y") - column("o_y")) \
         with vectors nohead ls (r < 4 ? 21 : 22) lw (0.4 + 4 * W[r + 1]), \
     vec using (first('v') ? column("x") : NaN):(column("y")) with points pt 5 ps 1.0 lc rgb col_v, \
     ''  using (vup(strcol("name")) ? column("x") : NaN):(column("y")):(strcol("name")) with labels offset char 0,0.9 tc rgb col_v font ':Bold', \
     ''  using (vdown(strcol("name")) ? column("x") : NaN):(column("y")):(strcol("name")) with labels offset char 0,-0.9 tc rgb col_v font ':Bold', \
     ''  using (first('o') ? column("x") : NaN):(column("y")) with points pt 6 ps 1.1 lw 2 lc rgb col_o, \
     ''  using (strcol("name") eq 'o1' ? column("x") : NaN):(column("y")):(strcol("name")) with labels center offset char 0,1.0 font ':Bold', \
     ''  using (strcol("name") eq 'o2' ? column("x") : NaN):(column("y")):(strcol("name")) with labels left offset char 0.8,0 font ':Bold'
unset multiplot
} else {
# the two planes side by side, the weights below them
set multiplot title main("{/:Bold Each output is a weighted average of the values}")
set style arrow 1 head filled size screen 0.012,25 lw 2.5 lc rgb col_q dt 1
set style arrow 2 head filled size screen 0.012,25 lw 2.0 lc rgb col_k dt 2
unset key

# ---- panel 1: queries and keys -------------------------------------------
set origin 0, 0.36; set size 0.5, 0.58
set lmargin 4; set rmargin 1; set tmargin 2; set bmargin 2
set title sprintf('queries and keys (scale β = %g)', s)
set size ratio -1
set xrange [-R:R]; set yrange [-R:R]
set xtics R > 6 ? 4 : 2; set ytics R > 6 ? 4 : 2
set xzeroaxis lt -1 lw 0.8; set yzeroaxis lt -1 lw 0.8
plot vec using (0):(0):(first('k') ? column("x") : NaN):(column("y")) with vectors as 2, \
     ''  using (0):(0):(first('q') ? column("x") : NaN):(column("y")) with vectors as 1, \
     ''  using (first('k') ? lx(column("x"), column("y"), 0.6) : NaN):(ly(column("x"), column("y"), 0.6)):(strcol("name")) with labels center tc rgb '#a85a00', \
     ''  using (first('q') ? lx(column("x"), column("y"), 0.6) : NaN):(ly(column("x"), column("y"), 0.6)):(strcol("name")) with labels center font ':Bold' tc rgb col_q

# ---- panel 2: the weights --------------------------------------------------
set origin 0.08, 0; set size 0.84, 0.37
set lmargin 12; set rmargin 2; set tmargin 2; set bmargin 3
set title 'weights a_{ij} = softmax_j(s_{ij}), s_{ij} = β q_i·k_j; rows sum to 1'
set size noratio
set xrange [0.5:4.5]; set yrange [2.5:0.5]
set xtics ('k1' 1, 'k2' 2, 'k3' 3, 'k4' 4) scale 0
set ytics ('q1' 1, 'q2' 2) scale 0
set xlabel 'keys' offset 0,0.3; set ylabel 'queries' offset -1,0
unset xzeroaxis; unset yzeroaxis
unset grid
@PAL_SEQ
unset colorbox    # the weights are written in the cells
wfmt(w) = (w > 0 && w < 0.0005) ? sprintf('%.0e', w) : sprintf('%.3f', w)
set cbrange [0:1]
plot att using (column("j")):(column("i")):(column("weight")) with image, \
     ''  using (column("j")):(column("i") - 0.14):(wfmt(column("weight"))):(column("weight") > 0.5 ? 0xffffff : 0x000000) with labels font ':Bold' tc rgb variable, \
     ''  using (column("j")):(column("i") + 0.26):(sprintf('s_{%d%d} = %.3g', column("i"), column("j"), column("score"))):(column("weight") > 0.5 ? 0xffffff : 0x000000) with labels font ',9' tc rgb variable
set grid
unset xlabel; unset ylabel

# ---- panel 3: values and outputs -----------------------------------------
set origin 0.5, 0.36; set size 0.5, 0.58
set lmargin 4; set rmargin 1; set tmargin 2; set bmargin 2
set title 'values and outputs'
set size ratio -1
set xrange [-R:R]; set yrange [-R:R]
set xtics R > 6 ? 4 : 2; set ytics R > 6 ? 4 : 2
set xzeroaxis lt -1 lw 0.8; set yzeroaxis lt -1 lw 0.8
# spokes o_i -> v_j, width proportional to a_ij (one plot per spoke: gnuplot
# has no variable line width); o1's spokes long dashes, o2's short
set style line 21 lc rgb col_o dt 2
set style line 22 lc rgb col_o dt 3
array W[8]
stats att using (W[int($0) + 1] = column("weight"), $0) nooutput
plot for [r=0:7] att every ::r::r \
         using (column("weight") > 0.005 ? column("o_x") : NaN):(column("o_y")):(column("v_x") - column("o_x")):(column("v_y") - column("o_y")) \
         with vectors nohead ls (r < 4 ? 21 : 22) lw (0.4 + 4 * W[r + 1]), \
     vec using (first('v') ? column("x") : NaN):(column("y")) with points pt 5 ps 0.9 lc rgb col_v, \
     ''  using (first('v') ? column("x") : NaN):(column("y")):(strcol("name")) with labels offset char 1.1,0.6 tc rgb col_v font ':Bold', \
     ''  using (first('o') ? column("x") : NaN):(column("y")) with points pt 6 ps 1.0 lw 2 lc rgb col_o, \
     ''  using (first('o') ? column("x") : NaN):(column("y")):(strcol("name")) with labels offset char 1.1,-0.7 font ':Bold'
unset multiplot
}
