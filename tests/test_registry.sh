#!/bin/sh
# purpose: the claims registry is whole (every claim's experiment, figures and code exist) and its generators work
# tests/test_registry.sh - experiments/registry.tsv against the tree, and
# tools/make/registry.sh's outputs: one row per experiments/*.c (the Makefile's IDS come from it),
# every figure and file:function it names exists, the README blocks are
# rewritten in place and nothing else moves.
set -u
fail=0
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }
sh tools/make/registry.sh check || bad "tools/make/registry.sh check"
ids=$(ls experiments/*.c | sed 's|experiments/||; s|\.c$||' | sort)
reg=$(sh tools/make/registry.sh ids | sort)
[ "$ids" = "$reg" ] || bad "registry IDs differ from experiments/*.c: $(echo "$ids" | tr '\n' ' ') / $(echo "$reg" | tr '\n' ' ')"
[ "$(sh tools/make/registry.sh ids extension | sort | tr '\n' ' ')" = "learned_previous_token long_sequences " ] ||
    bad "the extensions are not exactly long_sequences and learned_previous_token"
listed=$(grep -v '^#' experiments/registry.tsv | tail -n +2 | cut -f5 | tr ' ' '\n' | grep -v '^-$' | sort)
[ "$listed" = "$(ls plots/*.gp | sed 's|plots/||; s|\.gp$||' | sort)" ] ||
    bad "the registry's figures are not exactly plots/*.gp, each once"
n=$(sh tools/make/registry.sh claims-code | grep -c '^| [^-]')
[ "$n" -eq $(($(echo "$reg" | wc -l) + 1)) ] || bad "claims-code table has $n rows"
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
printf 'top\n<!-- registry:layout -->\nstale\n<!-- /registry:layout -->\nbottom\n' >"$t/r.md"
sh tools/make/registry.sh readme "$t/r.md" >/dev/null || bad "readme rewrite failed"
grep -q stale "$t/r.md" && bad "readme rewrite kept the stale block"
[ "$(head -1 "$t/r.md")" = top ] && [ "$(tail -1 "$t/r.md")" = bottom ] || bad "readme rewrite moved the text around the block"
grep -q 'experiments/concentration.c' "$t/r.md" || bad "the layout block is missing a row"
cp "$t/r.md" "$t/r2.md"; sh tools/make/registry.sh readme "$t/r2.md" >/dev/null; cmp -s "$t/r.md" "$t/r2.md" || bad "readme rewrite is not idempotent"
sh tools/make/registry.sh get nope claim 2>/dev/null && bad "get of an unknown claim succeeded"
[ "$(sh tools/make/registry.sh get concentration headline)" = concNormSlope ] || bad "get concentration headline"
# make reproduce runs the experiments that time themselves alone (the registry's run = timed, the
# Makefile's TIMED): every experiment whose committed results have a *_timing.csv must be one, and
# the Makefile must take its list from the registry
timed=$(sh tools/make/registry.sh with run timed | tr '\n' ' ')
grep -q '^TIMED := $(shell sh tools/make/registry.sh with run timed)$' Makefile ||
    bad "the Makefile's TIMED is not the registry's run = timed"
[ "$(make -s --no-print-directory -f Makefile -p -n help 2>/dev/null | sed -n 's/^TIMED := //p' | head -n 1)" != "" ] ||
    bad "make does not expand TIMED"
sh tools/make/registry.sh with run nope | grep -q . && bad "with run nope lists claims"
sh tools/make/registry.sh with nope x 2>/dev/null && bad "with of an unknown column succeeded"

# the figures: each lecture figure's rule depends on the run of the claim the registry gives it
# (asymmetric_sentence is score_asymmetry's), and a figure moved to another row moves its rule
figdep() {  # REGISTRY FIGURE: the verdicts file its png depends on
    REGISTRY=$1 make -s --no-print-directory -p -n OUT=/tmp/att-regfig help 2>/dev/null |
        sed -n "s|^/tmp/att-regfig/figures/$2\.png: *||p" | tr ' ' '\n' | grep 'verdicts\.csv$' | head -n 1
}
[ "$(figdep experiments/registry.tsv asymmetric_sentence)" = /tmp/att-regfig/score_asymmetry.verdicts.csv ] ||
    bad "asymmetric_sentence does not depend on score_asymmetry's run"
moved=$(mktemp); trap 'rm -f "$moved"' EXIT
awk -F'\t' -v OFS='\t' '$1 == "score_asymmetry" { $5 = "score_asymmetry" }
    $1 == "shapes" { $5 = $5 " asymmetric_sentence" } { print }' experiments/registry.tsv > "$moved"
[ "$(figdep "$moved" asymmetric_sentence)" = /tmp/att-regfig/shapes.verdicts.csv ] ||
    bad "the Makefile's figure rules do not follow the registry's figures column"

for f in results/*_timing.csv; do
    [ -f "$f" ] || continue
    id=$(for i in $reg; do case $(basename "$f") in "$i"_*) echo "$i" ;; esac; done | head -n 1)
    case " $timed " in *" $id "*) ;; *) bad "$f: $id times itself but its registry run is not timed ($timed)" ;; esac
done
[ $fail -eq 0 ] && echo "test_registry: ok" || { echo "test_registry: $fail failure(s)"; exit 1; }
