# worked_example.gp - the attention matrix of the "the cat sat" head as a
# labelled heatmap: queries (rows) x keys (columns), each cell with its weight
# a_ij and the score s_ij it came from. The query factor from the run's .meta.
# Data: worked_example_A.csv (i, j, query, key, score, weight, closed_form), read by name.
# size: 5.5,4.4
meta_id = 'worked_example'
c = meta('factor')
f = datadir.'/worked_example_A.csv'
set datafile columnheaders   # columns by name
set title sprintf("A verb looks for its noun, a noun for its article (c = %g)", c)
set xlabel "keys"
set ylabel "queries"
set xrange [-0.5:2.5]
set yrange [2.5:-0.5]
set xtics ("the" 0, "cat" 1, "sat" 2) scale 0
set ytics ("the" 0, "cat" 1, "sat" 2) scale 0
set grid noxtics noytics
@PAL_SEQ
unset colorbox
set size ratio -1
unset key
set border 0
# dark cells get white text, light cells black text (readable in greyscale)
plot f using "j":"i":"weight" with image, \
     '' using "j":"i":(sprintf("{/*1.3 %.3f}\n{/*0.85 s = %g}", column("weight"), column("score"))) \
        :(column("weight") > 0.5 ? 0xffffff : 0x000000) with labels tc rgb variable
