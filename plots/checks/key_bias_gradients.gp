# checks/key_bias_gradients.gp - per draw, ||∂L/∂b_K|| against ||∂L/∂b_Q|| on log
# axes, with the rule lines: without RoPE the key bias's gradient sits at
# rounding level, with RoPE after the bias it is of the order of b_Q's.
# Data: key_bias_draws.csv (sweep.h's per-draw table: T, d, d_k, d_v, rope, draw, then one
# column per statistic; read by name: rope, dbq, dbk).
# size: 6.5,4.5
f = datadir.'/key_bias_draws.csv'
set datafile columnheaders
set title "Key-bias gradient per draw, against rounding (check)"
set xlabel "||∂L/∂b_Q||"
set ylabel "||∂L/∂b_K||"
set logscale xy
set format x "10^{%L}"
set format y "10^{%L}"
set yrange [1e-18:1e3]
set ytics 1e-18, 1e3
set key at graph 0.98, graph 0.66 right top box opaque
floor = 1e-20
clamp(y) = y > floor ? y : floor
plot x with lines ls 9 dt 1 title "equal norms", \
     1e-12 * x with lines ls 9 dt 3 title "10^{-12} of ||∂L/∂b_Q||", \
     f using (column("rope") == 1 ? column("dbq") : 1/0):(clamp(column("dbk"))) with points ls 3 title "with RoPE", \
     f using (column("rope") == 0 ? column("dbq") : 1/0):(clamp(column("dbk"))) with points ls 2 pt 6 title "without RoPE"
