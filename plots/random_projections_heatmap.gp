# random_projections_heatmap.gp - one sentence, two heads: the same random
# token vectors (X with N(0, 1) entries, named by the section's opening
# sentence in GPT-2's 12 tokens), attended to with raw scores S = X X^T (left:
# every token looks at itself, the bright diagonal) and with two random
# projections S = (X W_Q)(X W_K)^T (right: the diagonal is nothing special).
# Each panel states this one draw's mean diagonal weight; under them, the
# run's mean self-weight over all its draws at this T beside 1/T (the uniform
# weight), so that one draw's 0.00 or 0.60 at T = 4 is not read as the mean.
# The slide version has a colour bar instead.
# T is the run's (meta heatmap_T: 12 tokens named by the sentence by default, up to 32
# with --T, those beyond the 12th named t13, t14, ...; numbered ticks beyond 16).
# Data, columns by their header names: random_projections_A.csv (panel, i, j,
#       a, query, key), random_projections.csv (T, T_self_mean, draws);
#       random_projections.meta (d, d_k, heatmap_T).
# size: 6.5,4.6
# slide: 5.6,2.4
f = datadir.'/random_projections_A.csv'
meta_id = 'random_projections'
T = meta('heatmap_T')
# the diagonal a_ii of panel p, or 1/0 off it
diag(p) = (strcol("panel") eq p && column("i") == column("j")) ? column("a") : 1/0
stats f using (diag('raw')) name "RAW" nooutput
stats f using (diag('projected')) name "PRJ" nooutput
cell(p) = (strcol("panel") eq p) ? column("j") : 1/0
# the token names on the ticks, from the first query row of the raw panel
tics = system(sprintf("awk -F, 'NR == 1 { for (k = 1; k <= NF; k++) c[$k] = k; next } $c[\"i\"] == 1 && $c[\"panel\"] == \"raw\" {printf \"%%s\\\"%%s\\\" %%d\", (n++ ? \", \" : \"\"), $c[\"key\"], $c[\"j\"]}' '%s'", f))
if (!SLIDE) { eval sprintf("set xtics (%s); set ytics (%s)", tics, tics) }
if (SLIDE) {
# slide: the two maps of attention weights A (not scores) side by side across
# the frame (about 40 mm each), without token names (twelve rows do not fit
# at 11 pt) but with their axes named, one colour bar for both (0 to 1; the
# frame's text says the colour is the weight a_ij)
set multiplot layout 1, 2 margins 0.14, 0.84, 0.13, 0.80 spacing 0.04, 0
set size ratio -1
set xrange [0.5:T + 0.5]
set yrange [T + 0.5:0.5]
unset xtics; unset ytics
set grid noxtics noytics
set cbrange [0:1]
set style fill solid 1.0 noborder
unset colorbox
# the axes named by labels placed on the page (the maps have no ticks)
set label 31 "queries" at screen 0.115, screen 0.50 center rotate by 90 font ',9'
set label 32 "keys" at screen 0.30, screen 0.06 center font ',9'
set label 33 "keys" at screen 0.67, screen 0.06 center font ',9'
set title "raw" font ',9'
plot f using (cell('raw')):"i":(column("j") - 0.5):(column("j") + 0.5) \
         :(column("i") - 0.5):(column("i") + 0.5):"a" \
     with boxxyerror fc palette
unset label 31; unset label 32; unset label 33
set title "projected" font ',9'
set colorbox user origin 0.845, 0.20 size 0.018, 0.60
set cbtics ('0' 0, '1' 1) font ',9' scale 0
plot f using (cell('projected')):"i":(column("j") - 0.5):(column("j") + 0.5) \
         :(column("i") - 0.5):(column("i") + 0.5):"a" \
     with boxxyerror fc palette
unset multiplot
} else {
# one draw's mean diagonal varies from draw to draw (at small T it may be
# near 0 or near 1): said as one draw's, beside the run's mean over all its
# draws at this T when the main sweep has it (random_projections.csv)
m = datadir.'/random_projections.csv'
# "mean draws" of the row T (columns by name), or "" when the run has no such T
run = system(sprintf("awk -F, 'NR == 1 { for (k = 1; k <= NF; k++) c[$k] = k; next } $c[\"T\"] == %d { print $c[\"T_self_mean\"] / %d, $c[\"draws\"] }' '%s' 2>/dev/null", T, T, m))
runline = (words(run) == 2) ? \
    sprintf("projected, over all %d draws at T = %d: mean a_{ii} %.4f, 1/T = %.4f", int(word(run, 2)), T, real(word(run, 1)), 1.0 / T) : \
    sprintf("projected, over many draws: mean a_{ii} about 1/T = %.3g (the main figure)", 1.0 / T)
w3(x) = (x >= 0.001 || x == 0) ? sprintf("%.3f", x) : sprintf("%.1e", x)
set multiplot layout 1, 2 margins 0.19, 0.90, 0.25, 0.72 spacing 0.07, 0 \
    title main(sprintf("The raw head attends to itself, the projected one does not\n{/*0.8 one draw of random token vectors, d = %d, d_k = %d; projected: Q = X W_Q, K = X W_K}\n{/*0.8 %s}", meta('d'), meta('d_k'), runline))
set size ratio -1
set xrange [0.5:T + 0.5]
set yrange [T + 0.5:0.5]
set xtics rotate by 90 right scale 0 font ',8' offset 0,0.3
set ytics scale 0 font ',8'
if (T > 16) { set xtics 1, int(T / 8) norotate; set ytics 1, int(T / 8) }   # too many tokens to name
set grid noxtics noytics
set xlabel "keys" offset 0,(T > 16 ? 0.5 : 1.2)   # numbered ticks (T > 16) are short, names are not
set cbrange [0:1]
set style fill solid 1.0 noborder
unset colorbox
set title sprintf("raw: Q = K = X\nthis draw: mean a_{ii} %s", w3(RAW_mean)) font ',9'
set ylabel "queries" offset 1.5,0
plot f using (cell('raw')):"i":(column("j") - 0.5):(column("j") + 0.5) \
         :(column("i") - 0.5):(column("i") + 0.5):"a" \
     with boxxyerror fc palette
set title sprintf("projected by two random W\nthis draw: mean a_{ii} %s", w3(PRJ_mean)) font ',9'
unset ylabel
unset ytics     # the rows are the left panel's
set colorbox user origin 0.92, 0.3 size 0.015, 0.4
set cbtics ('0' 0, '1' 1) font ',9'
plot f using (cell('projected')):"i":(column("j") - 0.5):(column("j") + 0.5) \
         :(column("i") - 0.5):(column("i") + 0.5):"a" \
     with boxxyerror fc palette
unset multiplot
}
