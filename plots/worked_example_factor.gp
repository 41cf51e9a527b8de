# worked_example_factor.gp - the query factor c is a temperature: the weight
# the winner gets, e^c/(e^c+2), and each of the two others, 1/(e^c+2),
# computed by the head (points) beside the closed forms (lines).
# Data: worked_example_factor.csv (factor, winner, other, winner_closed, other_closed).
# size: 6,4.5
f = datadir.'/worked_example_factor.csv'
set title "Worked example: the query factor c sets how sharp the lookup is"
set xlabel "query factor c"
set ylabel "attention weight"
set xrange [0:10]
set yrange [0:1.05]
set xtics 1
set ytics 0.1
set key at graph 0.98, graph 0.87 right top box opaque spacing 1.1
w(c) = exp(c) / (exp(c) + 2)
o(c) = 1 / (exp(c) + 2)
set arrow from 3, 0 to 3, 1.0 nohead ls 9
set label "section's c = 3:\nwinner 0.909\neach other 0.045" at 3.2, 0.24 left
set arrow from 0, 1.0/3 to 10, 1.0/3 nohead ls 9 dt 3 lc rgb '#999999'
set label "c = 0: uniform, 1/3 each" at 9.8, 0.37 right
set samples 400
# every 5::1 - every fifth row after the header line: c = 0, 0.5, ..., 10
plot w(x) with lines ls 1 title "winner e^c/(e^c+2), by hand", \
     o(x) with lines ls 2 title "other 1/(e^c+2), by hand", \
     f every 5::1 using 1:2 with points ls 3 ps 1.4 title "winner a(sat, cat), head", \
     f every 5::1 using 1:3 with points ls 4 ps 1.4 title "other a(sat, the), head"
