# shapes.gp - one head's matrices drawn to scale, each block one small square
# per entry, with its shape written beside it. Top: the fused projection
# X W_QKV = [Q | K | V], W_QKV = [W_Q | W_K | W_V] split into its three
# column blocks; bottom: S = Q K^T and A = softmax(S) are T_q x T_k, O = A V
# is T_q x d_v. The weights hold no T. Sizes: shapes.meta (the first
# self-attention configuration bin/shapes checked: T, d, d_k, d_v).
# size: 6.5,4.6
meta_id = 'shapes'
T = int(meta('T')); d = int(meta('d')); dk = int(meta('d_k')); dv = int(meta('d_v'))
n = 2 * dk + dv
gap = 2.6
# block(id, x0, y0 (top), w, h, colour, name, shape): a filled rectangle with
# its name above and its shape below
block(id, x0, y0, w, h, c, name, shp) = sprintf( \
  "set object %d rect from %g,%g to %g,%g fc rgb '%s' fs solid 0.45 border lc rgb '#000000' lw 1 back; \
   set label %d '%s' at %g,%g center; set label %d \"%s\" at %g,%g center font ',8.5'", \
  id, x0, y0 - h, x0 + w, y0, c, id, name, x0 + w / 2.0, y0 + 0.9, id + 100, shp, x0 + w / 2.0, y0 - h - 1.6)
op(id, x, y, s) = sprintf("set label %d '%s' at %g,%g center", id + 200, s, x, y)
# element grid: thin lines every entry (rows and columns) inside a block
grid(id, x0, y0, w, h) = sprintf( \
  "do for [i=1:%d] { set arrow from %g+i,%g to %g+i,%g nohead lc rgb '#ffffff' lw 0.5 front }; \
   do for [j=1:%d] { set arrow from %g,%g-j to %g,%g-j nohead lc rgb '#ffffff' lw 0.5 front }", \
   w - 1, x0, y0, x0, y0 - h, h - 1, x0, y0, x0 + w, y0)

# top row: X (T, d) . W_QKV (d, 2 d_k + d_v) = [Q | K | V] (T, 2 d_k + d_v)
y1 = 0
x = 0
eval block(1, x, y1, d, T, '#bbbbbb', 'X', sprintf('%d × %d\nT × d', T, d)); eval grid(1, x, y1, d, T)
x = x + d + gap; eval op(1, x - gap / 2, y1 - T / 2.0, '·')
xw = x
eval block(2, x, y1, dk, d, col_q, 'W_Q', ''); eval grid(2, x, y1, dk, d)
eval block(3, x + dk, y1, dk, d, col_k, 'W_K', ''); eval grid(3, x + dk, y1, dk, d)
eval block(4, x + 2 * dk, y1, dv, d, col_v, 'W_V', ''); eval grid(4, x + 2 * dk, y1, dv, d)
set label 300 sprintf("{/*0.85 W_{QKV}: d × (2 d_k + d_v) = %d × %d}", d, n) at xw + n / 2.0, y1 - d - 2.0 center
set label 303 "{/*0.85 W_Q, W_K: d × d_k;  W_V: d × d_v}" at xw + n / 2.0, y1 - d - 3.9 center
x = x + n + gap; eval op(2, x - gap / 2, y1 - T / 2.0, '=')
eval block(5, x, y1, dk, T, col_q, 'Q', ''); eval grid(5, x, y1, dk, T)
eval block(6, x + dk, y1, dk, T, col_k, 'K', ''); eval grid(6, x + dk, y1, dk, T)
eval block(7, x + 2 * dk, y1, dv, T, col_v, 'V', ''); eval grid(7, x + 2 * dk, y1, dv, T)
set label 302 '{/*0.85 one product X W_{QKV}, then split into columns}' at (xw + x + n) / 2.0, y1 + 2.9 center
set label 301 sprintf("{/*0.85 Q, K: T × d_k = %d × %d}\n{/*0.85 V: T × d_v = %d × %d}", T, dk, T, dv) at x + n / 2.0, y1 - T - 1.6 center
xmax1 = x + n

# bottom row: Q (T_q, d_k) . K^T (d_k, T_k) = S (T_q, T_k) -> A -> A . V = O (T_q, d_v)
y2 = y1 - d - 7.5
x = 0
eval block(11, x, y2, dk, T, col_q, 'Q', sprintf('%d × %d\nT_q × d_k', T, dk)); eval grid(11, x, y2, dk, T)
x = x + dk + gap; eval op(11, x - gap / 2, y2 - T / 2.0, '·')
eval block(12, x, y2, T, dk, col_k, 'K^T', sprintf('%d × %d\nd_k × T_k', dk, T)); eval grid(12, x, y2, T, dk)
x = x + T + gap; eval op(12, x - gap / 2, y2 - T / 2.0, '=')
eval block(13, x, y2, T, T, '#6b9bd1', 'S', sprintf('%d × %d\nT_q × T_k', T, T)); eval grid(13, x, y2, T, T)
x = x + T + 2.4 * gap; eval op(13, x - 1.2 * gap, y2 - T / 2.0 + 0.2, '{/*0.85 softmax}')
set arrow 310 from x - 2.0 * gap, y2 - T / 2.0 - 0.9 to x - 0.4 * gap, y2 - T / 2.0 - 0.9 lc rgb '#555555' size 0.5,25
eval block(14, x, y2, T, T, '#08306b', 'A', sprintf('%d × %d\nT_q × T_k', T, T)); eval grid(14, x, y2, T, T)
x = x + T + gap; eval op(14, x - gap / 2, y2 - T / 2.0, '·')
eval block(15, x, y2, dv, T, col_v, 'V', sprintf('%d × %d\nT_k × d_v', T, dv)); eval grid(15, x, y2, dv, T)
x = x + dv + gap; eval op(15, x - gap / 2, y2 - T / 2.0, '=')
eval block(16, x, y2, dv, T, col_o, 'O', sprintf('%d × %d\nT_q × d_v', T, dv)); eval grid(16, x, y2, dv, T)
xmax = (x + dv > xmax1 ? x + dv : xmax1)

set title sprintf("The weights hold no T; S and A are T_q × T_k; O is T_q × d_v\n{/*0.85 one head drawn to scale, one square per entry: T = %d, d = %d, d_k = %d, d_v = %d}", T, d, dk, dv)
unset border; unset tics; unset grid; unset key; unset colorbox
set size ratio -1
set xrange [-1:xmax + 1]
set yrange [y2 - T - 4.2:y1 + 3.2]
set lmargin 1; set rmargin 1; set bmargin 0.5
plot NaN notitle
