# worked_example_factor.gp - the query factor c is a temperature: the weight
# the winner gets, e^c/(e^c+2), and each of the two others, 1/(e^c+2),
# computed by the head (points) on the closed forms (lines); the run's factor
# (worked_example.meta) is marked.
# Data: worked_example_factor.csv (factor, winner, other, winner_closed, other_closed),
# read by name.
# size: 6.5,4
# slide: 2.9,2.6
meta_id = 'worked_example'
c0 = meta('factor')
f = datadir.'/worked_example_factor.csv'
set datafile columnheaders   # columns by name
w(c) = 1 / (1 + 2 * exp(-c))
o(c) = exp(-c) / (1 + 2 * exp(-c))
set title "The query factor is a temperature: large c picks the noun"
set xlabel "query factor c"
set ylabel "attention weight of sat"
set xrange [0:10]
set yrange [0:1.05]
set xtics 1
set ytics 0.2
unset key
set samples 400
if (c0 >= 0 && c0 <= 10) {
    set arrow from c0, 0 to c0, 1.0 nohead ls 9
    set label sprintf("c = %g: %.3f on cat,\n%.3f on each other", c0, w(c0), o(c0)) at c0 + 0.2, 0.6 left
}
set label "on its noun (cat)" at 9.9, 0.9 right tc rgb '#000000'
set label "on each other token" at 9.9, 0.09 right tc rgb '#1f4e9c'
set label "c = 0: 1/3 each" at 0.25, 0.36 left
# every 5 - every fifth row: c = 0, 0.5, ..., 10
if (SLIDE) {
    unset title   # the slide's frame title states the claim
    unset label
    set ylabel "weight of sat" offset 2.0, 0
    set xlabel "query factor c" offset 0, 0.6
    set xtics 0, 5, 10 offset 0, 0.4; set ytics 0, 0.5, 1
    set lmargin at screen 0.31; set rmargin at screen 0.92
    set bmargin at screen 0.30; set tmargin at screen 0.97
    if (c0 >= 0 && c0 <= 10) { set arrow from c0, 0 to c0, 1.0 nohead ls 9 }
    set label "on cat" at 9.8, 0.86 right tc rgb '#000000'
    # two short lines at the right, clear of the squares (which fall below 0.1 by c = 2.5)
    set label "on each\nother" at 9.8, 0.27 right tc rgb '#1f4e9c'
}
plot w(x) with lines ls 1, o(x) with lines ls 2, \
     f every 5 using "factor":"winner" with points ls 1 pt 6 ps 1.2, \
     f every 5 using "factor":"other" with points ls 2 pt 4 ps 1.2
