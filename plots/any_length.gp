# any_length.gp - one set of weights (d = d_k = d_v = 64) runs at every T from
# 5 to 100,000: the bytes each run allocates (counted by lib/math/mem.h),
# log-log. The tiled head (online softmax) grows like T; the plain head holds
# S and A (T x T) and grows like T^2: dashed, what S and A alone would need
# beyond the largest T it ran at (2 x 8 T^2 bytes).
# It illustrates the verdict row anyLengthMemSlope (memory linear in T); the
# headline, anyLengthRowErr (sampled rows of the T = 100,000 output against
# o_i = sum_j a_ij v_j, tiled_row_check in lib/fast/tiled.h), is a number
# of the claims table that no figure draws (figures/checks/any_length_agreement
# draws the tiled head against the plain one at T <= 4096).
# Data: any_length_timing.csv (counted bytes: they include each thread's
# tiles, so they depend on the thread count), any_length.meta.
# size: 6.5,4.2
# slide: 5.6,2.4
meta_id = 'any_length'
f = datadir.'/any_length_timing.csv'
set datafile columnheaders   # columns read by name (the CSV's header)
MiB = 1048576.0
# 100000 -> "100,000"
thousands(n) = n >= 1000 ? sprintf("%d,%03d", int(n) / 1000, int(n) % 1000) : sprintf("%d", int(n))
stats f using (column("T")) nooutput
Tmax = STATS_max
Tmin = STATS_min
stats f using (column("plain_counted_bytes") == column("plain_counted_bytes") ? column("T") : NaN) nooutput
Pmax = STATS_max
stats f using (column("T") == Tmax ? column("tiled_counted_bytes") : NaN) nooutput
tmem = STATS_max
stats f using (column("T") == Pmax ? column("plain_counted_bytes") : NaN) nooutput
pmem = STATS_max
sub = sprintf("{/*0.85 memory one head allocates (d = %d, double): tiled ∝ T, plain ∝ T²}", \
              int(meta('d')))
if (Tmax > Tmin) { \
    set title sprintf("The same weights serve %s tokens or %s\n%s", thousands(Tmin), \
                      thousands(Tmax), sub) } \
else { set title sprintf("The same weights serve any length (this run: T = %s)\n%s", \
                         thousands(Tmax), sub) }
set logscale xy
set format x '10^{%L}'
set format y '10^{%L}'
set xrange [Tmin / 1.5:Tmax * (SLIDE ? 3 : 30)]
set yrange [0.01:*]
set xlabel 'sequence length T (tokens)'
set ylabel (SLIDE ? 'memory (MiB)' : 'memory allocated (MiB)')
# 10^-2 .. 10^7: labels a factor 1000 apart (100 apart they touched)
if (SLIDE) { set ytics 1e-2, 1000; set mytics 10 }
set key off
# direct labels at the ends of the lines
set label 1 'tiled head' at Tmax * 1.2, tmem / MiB left tc ls 1
set label 2 'plain head' at Pmax * 1.3, pmem / MiB / 1.5 left tc ls 3
if (Tmax > Pmax) set label 3 sprintf("S and A alone at\nT = %s: %.0f GB", thousands(Tmax), \
                                     16.0 * Tmax * Tmax / 1e9) \
    at Tmax / 1.5, 16.0 * Tmax * Tmax / MiB right tc rgb '#8b1a1a'
if (SLIDE) {
    unset title   # the slide's frame title states the claim
    set label 2 at Tmin * 12, 0.02 left     # under its line, clear of it
    set label 1 at Tmax, tmem / MiB right offset 0, -1.8
    # room at the top for the dashed line's label, clear of the plain head's
    # points; the label in the axis's unit (MiB, two figures) and in GB
    set yrange [0.002:1e8]
    mib2(x) = floor(x / 10**(floor(log10(x)) - 1) + 0.5) * 10**(floor(log10(x)) - 1)
    if (Tmax > Pmax) { \
        set label 3 sprintf("dashed: S and A alone, %s MiB\n(%.0f GB) at T = %s", \
                            thousands(mib2(16.0 * Tmax * Tmax / MiB)), 16.0 * Tmax * Tmax / 1e9, \
                            thousands(Tmax)) at graph 0.03, graph 0.92 left }
}
plot sample [x=Pmax:(Tmax > Pmax ? Tmax : Pmax * 1.001)] \
         (Tmax > Pmax ? 16.0 * x * x / MiB : NaN) with lines ls 5 dt 2 lw 1.5, \
     f using (column("T")):(column("plain_counted_bytes") > 0 ? column("plain_counted_bytes") / MiB : NaN) with linespoints ls 3, \
     f using (column("T")):(column("tiled_counted_bytes") / MiB) with linespoints ls 1
