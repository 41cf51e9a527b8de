# any_length_agreement.gp (check) - max |O_tiled - O_plain| against the
# rounding tolerance of each T where both heads ran (any_length.csv).
# size: 6.5,4
f = datadir.'/any_length.csv'
set title "Tiled head = plain head to rounding, wherever both ran"
set logscale xy
set format x '10^{%L}'
set format y '10^{%L}'
set xlabel 'sequence length T'
set ylabel 'max |O_{tiled} - O_{plain}|'
set key top left
plot f using 1:($4 == $4 ? $4 : NaN) with linespoints ls 5 title 'tolerance (tol.h)', \
     f using 1:($3 == $3 ? ($3 > 0 ? $3 : 1e-17) : NaN) with linespoints ls 1 title 'measured'
