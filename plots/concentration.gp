# concentration.gp - the score of a vector with itself, ||x||^2, grows like d;
# the score with another vector, x.y, only like sqrt(d) (x, y with N(0, 1)
# entries). Log-log axes: Monte Carlo means with 95% CI bars (smaller than
# the symbols) on the exact laws d and sqrt(d) (dashed), each labelled at its
# end; the fitted slopes with their CIs from concentration_fit.csv when the
# run is a sweep.
# Data: concentration.csv (d, draws, norm2_mean, _lo, _hi, ..., dot_rms, _lo, _hi; read by name),
# concentration_fit.csv (the rows norm2_mean and dot_rms, the columns slope and ci_hi; by name).
# size: 6.5,3.6
# slide: 2.9,2.6
f = datadir.'/concentration.csv'
# a column of concentration.csv by its header name (the table has 38 columns;
# the dot product's spread is dot_rms, not norm2_dev2_mean, Var ||x||^2 = 2d)
col(name) = int(system(sprintf("head -n 1 '%s' | tr ',' '\n' | grep -nx '%s' | cut -d: -f1", f, name)))
cN2 = col('norm2_mean'); cDR = col('dot_rms')
g = datadir.'/concentration_fit.csv'
# a column of concentration_fit.csv by its header name, a row by its quantity (0 = the first)
gcol(name) = int(system(sprintf("head -n 1 '%s' | tr ',' '\n' | grep -nx '%s' | cut -d: -f1", g, name)))
grow(q) = int(system(sprintf("cut -d, -f1 '%s' | grep -nx '%s' | cut -d: -f1", g, q))) - 2
havefit = system(sprintf("test -f '%s' && echo 1 || echo 0", g)) eq "1"
stats f skip 1 using 1 name "D" nooutput
dlo = D_min / 1.5; dhi = D_max * 1.5
if (havefit) {
    # the 95% CI's half width, ci_hi - slope (the fit's z se: no z written here)
    cB = gcol('slope'); cH = gcol('ci_hi'); rN = grow('norm2_mean'); rD = grow('dot_rms')
    stats g skip 1 every ::rN::rN using (column(cB)) name "b1" nooutput
    stats g skip 1 every ::rN::rN using (column(cH) - column(cB)) name "s1" nooutput
    stats g skip 1 every ::rD::rD using (column(cB)) name "b3" nooutput
    stats g skip 1 every ::rD::rD using (column(cH) - column(cB)) name "s3" nooutput
    set label 1 sprintf("‖x‖^2: self\nslope %.3f\n± %.3f", b1_mean, s1_mean) at dhi, dhi / 1.5 left offset 0.5,0 font ',9'
    set label 2 sprintf("x·y: other (rms)\nslope %.3f\n± %.3f", b3_mean, s3_mean) at dhi, sqrt(dhi / 1.5) left offset 0.5,0 font ',9'
} else {
    set label 1 "‖x‖^2: self" at dhi, dhi / 1.5 left offset 0.5,0 font ',9'
    set label 2 "x·y: other (rms)" at dhi, sqrt(dhi / 1.5) left offset 0.5,0 font ',9'
}
if (D_records == 1) {
    # a point run (--d 64): each value written beside its point with its 95% CI
    stats f skip 1 using (column(cN2)) name "N2" nooutput; stats f skip 1 using (column(cN2 + 1)) name "N2L" nooutput; stats f skip 1 using (column(cN2 + 2)) name "N2H" nooutput
    stats f skip 1 using (column(cDR)) name "DR" nooutput; stats f skip 1 using (column(cDR + 1)) name "DRL" nooutput; stats f skip 1 using (column(cDR + 2)) name "DRH" nooutput
    set label 5 sprintf("%.3g [%.3g, %.3g]", N2_min, N2L_min, N2H_min) at D_min, N2_min left offset 1, 0 font ',9'
    set label 6 sprintf("%.3g [%.3g, %.3g]", DR_min, DRL_min, DRH_min) at D_min, DR_min left offset 1, 0 font ',9'
    set label 7 "value [95% CI]" at graph 0.03, graph 0.82 left font ',9'
}
set title "Squared norms grow like d, dot products like √d"
set xlabel "width d"
set ylabel "size of the score"
set logscale xy 2
set format x "%g"; set format y "%g"
set xrange [dlo:dhi]
set yrange [dlo > 1 ? sqrt(dlo) / 2 : 0.5:dhi * 2]
set rmargin (SLIDE ? 4.5 : 14)
set label 3 (SLIDE ? "dashed: laws" : "dashed: the exact laws d and √d") at graph 0.03, 0.92 left font ',9'
if (SLIDE) {
    unset title   # the slide's frame title states the claim
    set label 1 "‖x‖^2" at dhi, dhi / 1.5 left offset 0.5,0
    set label 2 "x·y" at dhi, sqrt(dhi / 1.5) left offset 0.5,0
    set xtics 64; set ytics 16
    unset label 3   # the dashed laws lie under the points; the frame says it
    if (D_records == 1) {   # a point run: the values alone, left of their points
        unset label 7
        set label 5 sprintf("%.3g", N2_min) at D_min, N2_min right offset -1, 0
        set label 6 sprintf("%.3g", DR_min) at D_min, DR_min right offset -1, 0
    }
    set lmargin at screen 0.30; set rmargin at screen 0.80
    set bmargin at screen 0.33; set tmargin at screen 0.96
    unset ylabel; set label 8 "score" at screen 0.05, screen 0.64 center rotate by 90   # placed, whatever the tick widths
    set xlabel offset 0, 0.6; set xtics offset 0, 0.4
}
plot x with lines ls 9 lw 1.5 notitle, \
     sqrt(x) with lines ls 9 lw 1.5 notitle, \
     f skip 1 using 1:(column(cN2)):(column(cN2 + 1)):(column(cN2 + 2)) with yerrorbars ls 1 pt 7 ps 0.6 notitle, \
     f skip 1 using 1:(column(cDR)):(column(cDR + 1)):(column(cDR + 2)) with yerrorbars ls 2 pt 5 ps 0.6 notitle
