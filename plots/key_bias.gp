# key_bias.gp - per draw, the gradient of the loss with respect to the key
# bias against the one for the query bias. Without RoPE ||dL/db_K|| sits at
# rounding level (about 1e-15 of ||dL/db_Q||): the key bias gets no gradient.
# With RoPE after the bias the two are of the same order.
# Data: key_bias_draws.csv (rope, draw, norm_dbq, norm_dbk, ratio, fd_err, out_change).
# size: 7,5.2
f = datadir.'/key_bias_draws.csv'
set title "Gradient of the key bias vs the query bias, one point per draw"
set xlabel "||{/Symbol \266}L/{/Symbol \266}b_Q||_2"
set ylabel "||{/Symbol \266}L/{/Symbol \266}b_K||_2"
set logscale xy
set format x "10^{%L}"
set format y "10^{%L}"
set xrange [0.1:100]
set yrange [1e-18:1e3]
set ytics 1e-18, 1e3
set key at graph 0.98, graph 0.60 right top box opaque spacing 1.1
floor = 1e-20
clamp(y) = y > floor ? y : floor
set label "rule: ratio <= 10^{-12}\n(zero gradient)" at 60, 3e-13 right
set label "rule: ratio >= 10^{-3}" at 60, 5e-3 right
plot x with lines ls 9 dt 1 lw 2 title "||{/Symbol \266}L/{/Symbol \266}b_K|| = ||{/Symbol \266}L/{/Symbol \266}b_Q||", \
     1e-3 * x with lines ls 9 dt 2 lw 2 notitle, \
     1e-12 * x with lines ls 9 dt 3 lw 2 notitle, \
     f skip 1 using ($1 == 1 ? $3 : 1/0):(clamp($4)) with points ls 3 pt 9 ps 0.8 title "with RoPE (after the bias)", \
     f skip 1 using ($1 == 0 ? $3 : 1/0):(clamp($4)) with points ls 2 pt 6 ps 0.8 title "without RoPE"
