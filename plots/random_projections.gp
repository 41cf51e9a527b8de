# random_projections.gp - with independent random projections W_Q, W_K the
# weight a token keeps for itself is about 1/T: T times the mean self-weight
# against T (95% CI error bars), at 1 for "no preference for itself". For
# contrast, the raw head's self-weight at the same T and width is about T
# times larger (it is 1 at d = 64: the raw panel of the heatmap figure).
# The print figure (not the slide) shades the claim's pass band, 95% CI
# inside [0.95, 1.05] (experiments/random_projections.c), so that a run whose
# CI leaves it looks failed; a point run (--T 32) draws its one value with
# its CI, beside it the value and "inside/outside the pass band" (the rule's
# outcome on the CSV's numbers), away from the other labels. A run of several
# T (the full sweep, --T 8,64) draws each measured T's CI as an error bar,
# nothing between them, coloured by that T's outcome (PASS, FAIL or
# INCONCLUSIVE, the word beside a T that did not pass), with a key entry per
# outcome and its count, and the headline (the T farthest from 1) labelled
# with its value and 95% CI.
# Data: random_projections.csv (main sweep; columns by name: T, draws, T_self_mean,
# T_self_lo, T_self_hi), random_projections.meta (d, d_k).
# size: 6.5,3.4
# slide: 5.6,2.4
f = datadir.'/random_projections.csv'
meta_id = 'random_projections'
set datafile columnheaders   # columns by name (sweep.h: T, ..., draws, T_self_mean, _lo, _hi, ...)
stats f using "T" name "TT" nooutput
stats f using "draws" name "N" nooutput
set title "With two random projections, a token keeps only about 1/T for itself" offset -3,0
set lmargin 9
set xlabel "sequence length T"
set ylabel (SLIDE ? "T × self-weight" : "T × mean self-weight")
set logscale x 2
one = (TT_records == 1)          # a point run (--T 32): one labelled value with its CI
lo = one ? TT_min / 4 : TT_min / 1.3; hi = one ? TT_max * 6 : TT_max * 1.3   # a point run: room on its right for its label
set xrange [lo:hi]
set xtics ("2" 2, "4" 4, "8" 8, "16" 16, "32" 32, "64" 64, "128" 128, "256" 256, "512" 512, "1024" 1024, \
           "2048" 2048, "4096" 4096)
set yrange [*<0.9:1.1<*]   # at least 0.9 .. 1.1, wider when a run with few draws needs it
set ytics 0.9, (SLIDE ? 0.1 : 0.05), 1.1
set format y "%.2f"
set arrow 1 from lo, 1 to hi, 1 nohead ls 9
set label 1 (SLIDE ? "exactly 1/T" : "1 = exactly 1/T") at hi, 1 right offset -0.5,-0.8 font ',9'
# the claim's rule (random_projections.c: verdict_rule_ci_within(0.95, 1.05))
BAND_LO = 0.95; BAND_HI = 1.05
# its outcome (verdict.c, RULE_CI_WITHIN): 0 PASS, CI inside; 1 FAIL, CI wholly outside
# (or no CI); 2 INCONCLUSIVE, CI across a band edge (more draws would decide)
outcome(l, h) = (l != l || h != h) ? 1 : (l >= BAND_LO && h <= BAND_HI) ? 0 : (h < BAND_LO || l > BAND_HI) ? 1 : 2
OUTWORD(k) = k == 0 ? "PASS" : k == 1 ? "FAIL" : "INCONCLUSIVE"
OUTTEXT(k) = k == 0 ? "CI inside the band: PASS" : k == 1 ? "CI outside the band: FAIL" : \
             "CI across a band edge: INCONCLUSIVE"
OUTTEXT2(k) = k == 2 ? "CI across a band edge:\nINCONCLUSIVE" : OUTTEXT(k)   # two lines beside a point
OUTCOLOUR(k) = k == 0 ? 0x1f4e9c : k == 1 ? 0x8b1a1a : 0xa86500
if (!SLIDE) {
    set object 1 rectangle from lo, BAND_LO to hi, BAND_HI behind fc rgb '#e4e4e4' fs solid 1.0 noborder
    set label 4 "pass band [0.95, 1.05]" at hi, BAND_LO right offset -0.5,0.7 font ',9'
}
if (!SLIDE) {
    # draws per T: one count, or the range the CI targets chose (the pilot, random_projections.c)
    ndraws = (N_min == N_max) ? sprintf("%d draws per T", N_max) : sprintf("%d to %d draws per T", N_min, N_max)
    info = sprintf("d = %d, d_k = %d, %s, 95%% CI", meta('d'), meta('d_k'), ndraws)
    if (one) {
        # a point run: the run's parameters under the title, clear of the data
        set title sprintf("With two random projections, a token keeps only about 1/T for itself\n{/*0.8 %s}", info) offset -3,0
    } else {
        set label 2 info at graph 0.03, 0.92 left font ',9'
    }
}
if (one) {
    stats f using "T_self_mean" name "M" nooutput
    stats f using "T_self_lo" name "L" nooutput
    stats f using "T_self_hi" name "H" nooutput
    k1 = outcome(L_min, H_min)
    verdict = SLIDE ? "" : "\n".OUTTEXT2(k1)
    # beside the marker (to its right, at its height): never on it
    # (the slide, narrower: the value and its CI only)
    txt = SLIDE ? sprintf("%.3f\n[%.3f, %.3f]", M_min, L_min, H_min) : \
                  sprintf("T = %d: %.3f\n95%% CI [%.3f, %.3f]%s", TT_min, M_min, L_min, H_min, verdict)
    set label 3 txt at TT_min * (SLIDE ? 1.15 : 1.3), M_min left front boxed font ",10"
    set style textbox opaque noborder
    ylo = (L_min - 0.03 < 0.9 ? L_min - 0.03 : 0.9); yhi = (H_min + 0.03 > 1.1 ? H_min + 0.03 : 1.1)
    set yrange [ylo:yhi]
    if (yhi - ylo > 0.4) { set ytics autofreq }
    set label 1 at lo, (1 + BAND_LO) / 2 left offset 0.5,0
    if (!SLIDE) { set label 4 at lo, (1 + BAND_HI) / 2 left offset 0.5,0 }
}
if (SLIDE) { unset title }   # the slide's frame title states the claim
if (one) {
    pc = SLIDE ? OUTCOLOUR(0) : OUTCOLOUR(k1)
    plot f using "T":"T_self_mean":"T_self_lo":"T_self_hi" with yerrorbars lc rgb pc dt 1 pt 7 ps 1.0 lw 2 notitle
} else {
    # several T: each measured T its own 95% CI bar (nothing drawn between the grid's T),
    # coloured by the rule's outcome on its CSV numbers, the word beside a T that did not
    # pass, and a key entry per outcome present with its count (the slide has no band)
    out_at(dummy) = SLIDE ? 0 : outcome(column("T_self_lo"), column("T_self_hi"))
    stats f using (out_at(0) == 0) name "N0" nooutput
    stats f using (out_at(0) == 1) name "N1" nooutput
    n0 = int(N0_sum); n1 = int(N1_sum); n2 = TT_records - n0 - n1
    keytitle(k, n) = (SLIDE || n == 0) ? "" : sprintf("%s (%d of %d T)", OUTTEXT(k), n, TT_records)
    # the band and the line at 1 named in the key, not beside the last T (its bar may cross there)
    # one key row per entry under the band: the band, the line, each outcome present
    nkeys = 2 + (n0 > 0) + (n1 > 0) + (n2 > 0)
    if (!SLIDE) {
        unset label 1; unset label 4
        ybot = 0.85 - 0.035 * (nkeys - 3)
        set yrange [*<ybot:1.1<*]
    }
    # the headline: the T farthest from 1 (random_projections.c's rpTMeanWorst, the same rule on
    # the CSV's numbers), its value and 95% CI
    stats f using (abs(column("T_self_mean") - 1)) name "DEV" nooutput
    iw = int(DEV_index_max)
    stats f every ::iw::iw using "T" name "WT" nooutput
    stats f every ::iw::iw using "T_self_mean" name "WM" nooutput
    stats f every ::iw::iw using "T_self_lo" name "WL" nooutput
    stats f every ::iw::iw using "T_self_hi" name "WH" nooutput
    # (the print figure: a second title line, clear of every label in the plot; the slide, which
    # has no title and no words beside its points: at the top left)
    if (SLIDE) {
        set label 5 sprintf("farthest from 1: T = %d, %.3f", WT_min, WM_min) at graph 0.03, graph 0.9 \
            left font ',9' front
    } else {
        set title sprintf("With two random projections, a token keeps only about 1/T for itself\n"\
                          ."{/*0.8 farthest from 1: T = %d, %.3f, 95%% CI [%.3f, %.3f]}", \
                          WT_min, WM_min, WL_min, WH_min) offset -3,0
    }
    set key bottom center Left reverse samplen 1.2 font ',9' width -1 maxrows nkeys
    set offsets 0, 0, 0.01, 0.01     # an error bar's end clear of the frame
    ptword(dummy) = out_at(0) == 0 ? "" : OUTWORD(out_at(0))
    plot f using "T":"T_self_mean":"T_self_lo":"T_self_hi":(OUTCOLOUR(out_at(0))) \
           with yerrorbars lc rgb variable pt 7 ps 0.7 lw 1.5 notitle, \
         f using "T":"T_self_mean":(column("T") < TT_max ? ptword(0) : ""):(OUTCOLOUR(out_at(0))) \
           with labels left offset 0.6,0 tc rgb variable font ',8' notitle, \
         f using "T":"T_self_mean":(column("T") < TT_max ? "" : ptword(0)):(OUTCOLOUR(out_at(0))) \
           with labels right offset -0.6,0 tc rgb variable font ',8' notitle, \
         keyentry with boxes fc rgb '#e4e4e4' fs solid 1.0 noborder title (SLIDE ? "" : "pass band [0.95, 1.05]"), \
         keyentry with lines ls 9 title (SLIDE ? "" : "1 = exactly 1/T"), \
         keyentry with points lc rgb OUTCOLOUR(0) pt 7 ps 0.7 title keytitle(0, n0), \
         keyentry with points lc rgb OUTCOLOUR(1) pt 7 ps 0.7 title keytitle(1, n1), \
         keyentry with points lc rgb OUTCOLOUR(2) pt 7 ps 0.7 title keytitle(2, n2)
}
