# worked_example_circuits.gp - the worked example read as circuits: W_QK =
# W_Q W_K^T (which query feature looks for which key feature) and W_OV =
# W_V W_O (which feature is copied onto which), as 4 x 4 heatmaps over the
# features; beside them the weights A and the outputs O = A V on "the cat sat".
# W_O is our choice (the section gives none): it writes the value columns
# (is-animal, is-determiner) back onto the animal and determiner features.
# Data (read by name): worked_example_circuits.csv (matrix, row, col, row_label,
# col_label, value) and worked_example_A.csv, worked_example_O.csv; the query
# factor from worked_example.meta.
# size: 6.5,6.2
meta_id = 'worked_example'
c = meta('factor')
fc = datadir.'/worked_example_circuits.csv'
fa = datadir.'/worked_example_A.csv'
fo = datadir.'/worked_example_O.csv'
set datafile columnheaders   # columns by name
feat = "('det' 0, 'noun' 1, 'verb' 2, 'animal' 3)"
tok = "('the' 0, 'cat' 1, 'sat' 2)"
# rows of the long-form file: W_O 0-7, W_QK 8-23, W_OV 24-39 (the header not counted)
txt(v) = v == 0 ? '·' : sprintf('%.3g', v)
ink(v, top) = abs(v) > 0.55 * top ? 0xffffff : 0x000000
set multiplot title sprintf("A verb looks for its noun: the worked example as circuits (c = %g)", c)
panel(x0, x1, y0, y1) = sprintf('set lmargin at screen %g; set rmargin at screen %g; set bmargin at screen %g; set tmargin at screen %g', x0, x1, y0, y1)
unset key
unset colorbox
set grid noxtics noytics
set border 1+2+4+8 lw 0.8
set tics scale 0

# ---- W_QK ----------------------------------------------------------------
eval panel(0.20, 0.48, 0.59, 0.88)
set title "W_{QK} = W_Q W_K^T"
set palette defined (0 '#ffffff', 0.5 '#6b9bd1', 1 '#08306b')
top = c > 0 ? c : 1
set cbrange [0:top]
set xrange [-0.5:3.5]; set yrange [3.5:-0.5]
set xtics @feat norotate font ',8'   # horizontal: four short names fit
set ytics @feat
set xlabel 'key feature' offset 0,0.6; set ylabel 'query feature'
plot fc every ::8::23 using "col":"row":"value" with image, \
     '' every ::8::23 using "col":"row":(txt(column("value"))):(ink(column("value"), top)) \
        with labels tc rgb variable

# ---- W_OV ----------------------------------------------------------------
eval panel(0.67, 0.97, 0.59, 0.88)
set title "W_{OV} = W_V W_O"
set cbrange [0:1]
set xlabel 'feature written' offset 0,0.6; set ylabel 'feature read'
plot fc every ::24::39 using "col":"row":"value" with image, \
     '' every ::24::39 using "col":"row":(txt(column("value"))):(ink(column("value"), 1)) \
        with labels tc rgb variable

# ---- A -------------------------------------------------------------------
eval panel(0.20, 0.48, 0.13, 0.40)
set title "A = softmax(Q K^T)"
set xrange [-0.5:2.5]; set yrange [2.5:-0.5]
set xtics @tok norotate
set ytics @tok
set xlabel 'keys'; set ylabel 'queries'
plot fa using "j":"i":"weight" with image, \
     '' using "j":"i":(sprintf('%.3f', column("weight"))):(ink(column("weight"), 1)) \
        with labels tc rgb variable

# ---- O -------------------------------------------------------------------
eval panel(0.67, 0.97, 0.13, 0.40)
set title "O = A V"
set xrange [-0.5:1.5]
set xtics ('is animal' 0, 'is det' 1)
set xlabel 'output coordinate'; set ylabel 'queries'
set style fill solid 1.0 noborder
plot fo using (0):"i":(0.5):(0.5):"animal" with boxxyerror fc palette, \
     '' using (1):"i":(0.5):(0.5):"det" with boxxyerror fc palette, \
     '' using (0):"i":(sprintf('%.3f', column("animal"))):(ink(column("animal"), 1)) \
        with labels tc rgb variable, \
     '' using (1):"i":(sprintf('%.3f', column("det"))):(ink(column("det"), 1)) \
        with labels tc rgb variable
unset multiplot
