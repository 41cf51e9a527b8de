# fused_qkv.gp - one fused product X W_QKV gives the three projections: the
# same numbers to rounding (largest difference over the checked cases, from
# fused_qkv.csv), and on this CPU the time of three separate products over
# one fused one (fused_qkv_speedup_timing.csv): median / median of 3 to
# --reps runs each (as many as the median's spread needed) with min-max bars, GPT-2 widths (d = 768, d_k = d_v = 64), 1 and 12 heads. The
# section's speed claim is about GPUs; this is a CPU, measured, and it moves
# from run to run (the bars). Columns read by name.
# size: 6.5,4
meta_id = 'fused_qkv'
f = datadir.'/fused_qkv_speedup_timing.csv'
g = datadir.'/fused_qkv.csv'
set datafile columnheaders   # columns by name
stats g using ((strcol("check") eq 'fused_vs_separate') ? column("max_abs_err") : NaN) nooutput
maxerr = STATS_max
# runs per median: "3 to 9" (reps_min, reps_max); a .meta from before the rule: its fixed reps
runs = strlen(metas('reps_min')) ? metas('reps_min').' to '.metas('reps_max') : metas('reps')
has_timing = system(sprintf("test -s '%s' && echo 1 || echo 0", f)) + 0
set title sprintf("One fused product = three projections\n{/*0.85 the same Q, K, V to rounding (largest difference %.1e)}\n{/*0.85 time of 3 products / 1 fused, this CPU: median, min–max of %s runs}", \
    maxerr, runs, int(meta('d')), int(meta('d_k')))
set logscale x 2
set xrange [45:6000]
set xtics (64, 256, 1024, 4096)
set xlabel 'tokens T'
set ylabel "time ratio: 3 products / 1 fused"
set logscale y
set yrange [*:*]
set ytics (0.25, 0.5, 1, 2, 4, 8, 16)
if (!has_timing) {
    set label 1 'no timing in this run (--no-timing)' at graph 0.5, 0.6 center
    set yrange [0.25:4]
    plot 1 with lines ls 9
} else {
    sel(h) = (column("heads") == h && strcol("versus") eq 'separate')
    set key top right
    plot 1 with lines ls 9 title 'no gain', \
         f using (sel(1) ? column("T") : NaN):"speedup_median":"speedup_low":"speedup_high" \
           with yerrorbars ls 1 title '1 head', \
         f using (sel(12) ? column("T") * 1.1 : NaN):"speedup_median":"speedup_low":"speedup_high" \
           with yerrorbars ls 3 title '12 heads'
}
