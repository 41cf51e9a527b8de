#!/bin/sh
# test_figures_named.sh - figures read named numbers, never a verdict's wording.
# purpose: rewording every verdict quantity leaves every figure identical
#
# From the committed runs (results/ and results/long/, read only) copied into a
# private folder twice: in the second copy every verdict row's quantity text
# (the quantity column, found by its header) is replaced by a sentence that
# names nothing ("reworded quantity N, with a comma"). Every figure script
# that opens a verdict file (plots/*.gp and plots/checks/*.gp naming
# "verdicts") is rendered from both copies; the SVGs must be byte-identical, so
# a figure that found a number by grepping a verdict sentence (plots/
# long_sequences.gp did) fails here. Every other figure script is checked to
# name no verdict file at all (it cannot read one), so the rewording cannot
# reach it. A third check: the reworded file still has every row and every
# other cell.
set -u
cd "$(dirname "$0")/.." || exit 2
for tool in gnuplot pdftocairo; do
    command -v $tool >/dev/null 2>&1 || { echo "skip  $tool is missing (make deps)"; exit 0; }
done
T=$(mktemp -d "${TMPDIR:-/tmp}/att-figures-named.XXXXXX") || exit 2
trap 'rm -rf "$T"' EXIT
trap 'exit 130' INT TERM
npass=0 nfail=0
pass() { npass=$((npass + 1)); echo "ok    $1"; }
fail() { nfail=$((nfail + 1)); echo "FAIL  $1"; shift; for l in "$@"; do echo "      $l"; done; }

# reword IN OUT: OUT is the verdict file IN with its quantity cells replaced
# (RFC 4180 cells: a quoted cell may hold commas and doubled quotes)
reword() {
    LC_ALL=C awk '
        function parse(s,   n, i, c, v) {
            n = 0
            while (1) {
                n++
                if (substr(s, 1, 1) == "\"") {
                    v = "\""; i = 2
                    while (i <= length(s)) {
                        c = substr(s, i, 1)
                        if (c == "\"" && substr(s, i + 1, 1) == "\"") { v = v "\"\""; i += 2; continue }
                        v = v c; i++
                        if (c == "\"") break
                    }
                    cell[n] = v; s = substr(s, i)
                } else {
                    i = index(s, ",")
                    if (i == 0) { cell[n] = s; s = "" } else { cell[n] = substr(s, 1, i - 1); s = substr(s, i) }
                }
                if (substr(s, 1, 1) != ",") return n
                s = substr(s, 2)
            }
        }
        NR == 1 { n = parse($0); for (k = 1; k <= n; k++) if (cell[k] == "quantity") q = k; print; next }
        {
            n = parse($0)
            if (q) cell[q] = "\"reworded quantity " NR ", with a comma\""
            line = cell[1]
            for (k = 2; k <= n; k++) line = line "," cell[k]
            print line
        }' "$1" > "$2"
}

# READERS: the figure scripts that open a verdict file; the others must name none
READERS=""
for gp in plots/*.gp plots/checks/*.gp; do
    if grep -q 'verdicts' "$gp"; then READERS="$READERS $gp"; fi
done
nother=0
for gp in plots/*.gp plots/checks/*.gp; do
    case " $READERS " in *" $gp "*) ;; *) nother=$((nother + 1)) ;; esac
done
[ -n "$READERS" ] || fail "no figure script reads a verdict file: the rendering half of this test checks nothing"
pass "$nother figure scripts name no verdict file; rendered under rewording:$READERS"

# id_of GP: the experiment whose run a figure script draws (plots/ID[_part].gp)
id_of() {
    b=$(basename "$1" .gp)
    for id in $(sh tools/make/registry.sh ids); do
        case "$b" in "$id" | "$id"_*) echo "$id"; return ;; esac
    done
}

# figures DIR: render every verdict-reading figure whose experiment DIR holds into DIR/figures
figures() {
    for gp in $READERS; do
        id=$(id_of "$gp")
        [ -n "$id" ] && [ -f "$1/$id.verdicts.csv" ] || continue
        ATT_NO_SLIDES=1 sh tools/report/render.sh "$gp" "$1" "$(basename "$gp" .gp)" >/dev/null 2>"$1.err" ||
            { fail "$gp does not render from $1" "$(tail -n 3 "$1.err")"; continue; }
    done
}

for src in results results/long; do
    [ -f "$src/long_sequences.verdicts.csv" ] || continue
    a="$T/$(echo "$src" | tr / _)_plain"
    b="$T/$(echo "$src" | tr / _)_reworded"
    mkdir -p "$a/figures/checks" "$b/figures/checks"
    # the files (not the folders) of $src, into both copies: one cp each (a cp per file was a
    # fifth of this suite's CPU)
    find "$src" -maxdepth 1 -type f -exec cp -t "$a" {} + -exec cp -t "$b" {} + || exit 2
    for v in "$b"/*.verdicts.csv; do
        reword "$a/$(basename "$v")" "$v"
        nq=$(grep -c 'reworded quantity' "$v")
        nr=$(($(wc -l < "$a/$(basename "$v")") - 1))
        if [ "$nq" -eq "$nr" ] && [ "$nq" -gt 0 ] && ! cmp -s "$v" "$a/$(basename "$v")" &&
           [ "$(wc -l < "$v")" -eq "$(wc -l < "$a/$(basename "$v")")" ]; then
            pass "$src/$(basename "$v"): all $nr quantities reworded"
        else
            fail "$src/$(basename "$v"): $nq of $nr quantities reworded"
        fi
    done
    figures "$a"
    figures "$b"
    n=0
    for s in "$a"/figures/*.svg "$a"/figures/checks/*.svg; do
        [ -f "$s" ] || continue
        n=$((n + 1))
        r="$b/${s#"$a"/}"
        if cmp -s "$s" "$r"; then pass "$src: ${s#"$a"/} identical with every verdict reworded"
        else fail "$src: ${s#"$a"/} changes when the verdict quantities are reworded"; fi
    done
    [ "$n" -gt 0 ] || fail "$src: no figure rendered"
done
echo "test_figures_named: $npass passed, $nfail failed"
[ "$nfail" -eq 0 ]
