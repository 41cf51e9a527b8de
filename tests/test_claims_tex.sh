#!/bin/sh
# test_claims_tex.sh - results/claims.tex reads in a sentence (tools/report/report.c).
# purpose: claims.tex macros read in a sentence (xspace, grouping, percent, intervals, count names)
# Runs the report on verdict rows written here, with the numbers that went
# wrong before (a value of 14818 beside 24,576, an interval with a missing
# end, a count of seeds called draws, a fraction without a percent form), and
# checks the macros it writes: as text, and, where pdflatex is installed, in
# a typeset sentence ("\synWidth on" must read "14,818 on").
# Then the same text checks on the report of the committed results/.
set -u
BUILD=${BUILD:-build}
report=$BUILD/tools/report
[ -x "$report" ] || { echo "test_claims_tex: $report is missing (make all builds it)" >&2; exit 1; }
tmp=$(mktemp -d /tmp/attn-claimstex.XXXXXX)
trap 'rm -rf "$tmp"' EXIT INT TERM
fail=0
no() { printf "FAIL test_claims_tex: %s\n" "$*" >&2; fail=1; }

# the verdict header this report reads (it names it when refusing a file)
mkdir -p "$tmp/probe"; echo x >"$tmp/probe/p.verdicts.csv"
header=$("$report" --out "$tmp/probe" --check p 2>&1 | sed -n 's/^  //p' | head -n 1)
[ -n "$header" ] || { echo "test_claims_tex: cannot learn the verdict header from $report" >&2; exit 1; }
stale=0; [ "$(head -n 1 results/concentration.verdicts.csv)" = "$header" ] || stale=1
# verdict rows with a last "nature" column (how make verify compares a number)
# get one: mc for an estimate with a CI, exact otherwise
case "$header" in *,nature) nat=1 ;; *) nat=0 ;; esac
row() { # the row without its nature; its nature
    if [ $nat = 1 ]; then printf '%s,%s\n' "$1" "$2"; else printf '%s\n' "$1"; fi
}
mkdir -p "$tmp/syn"
{
    echo "$header"
    # id,kind,quantity,expected,measured,ci_low,ci_high,tolerance,draws,seed,verdict,rule,bound_lo,bound_hi,rule_text,macro,run_dependent,headline
    row 'synthetic,reported,a crossing T,,14818.396,206.76,36488.82,,4096,7,REPORTED,none,,,"reported, no rule",synWidth,0,1' mc
    row 'synthetic,reported,a crossing beyond the grid,,6706.88,3.5933,,,4096,7,REPORTED,none,,,"reported, no rule",synOpen,0,0' mc
    row 'synthetic,reported,held-out accuracy over 10 seeds,,0.9995,0.99874,1,,10,7,REPORTED,none,,,"reported, no rule",synAcc,0,0' mc
    row 'synthetic,reported,max error over 5 cases,,1.11e-15,,,,5,7,REPORTED,none,,,"reported, no rule",synErr,0,0' exact
    row 'synthetic,reported,draws of a plain mean,,24576,,,,24576,7,REPORTED,none,,,"reported, no rule",synCount,0,0' exact
    row 'synthetic,claim,longest T,100000,100000,,,,1,7,PASS,at_least,100000,,>= 100000,synLong,0,0' exact
} >"$tmp/syn/synthetic.verdicts.csv"
if ! "$report" --out "$tmp/syn" synthetic >"$tmp/out" 2>&1; then
    cat "$tmp/out" >&2; no "report refused the synthetic rows"
fi
tex=$tmp/syn/claims.tex
want() { grep -qF -- "$1" "$tex" || no "claims.tex lacks: $1"; }
want '\newcommand{\synWidth}{14{,}818\xspace}'
want '\newcommand{\synWidthCI}{[207, 36{,}489]\xspace}'
want '\newcommand{\synWidthLec}{15{,}000\xspace}'   # its CI supports 2 digits at most
want '\newcommand{\synOpenCI}{[3.593, \ensuremath{\infty})\xspace}'
want '\newcommand{\synAccPct}{99.95\%\xspace}'
want '\newcommand{\synAccSeeds}{10\xspace}'
want '\newcommand{\synErrCases}{5\xspace}'
want '\newcommand{\synCount}{24{,}576\xspace}'
want '\newcommand{\synWidthRule}{reported, no rule\xspace}'
want '\newcommand{\synWidthOutcome}{REPORTED\xspace}'
want '\newcommand{\synLongRule}{\ensuremath{\ge} 100{,}000\xspace}'
grep -q 'synAccDraws' "$tex" && no "a count of seeds is still called Draws"

# the same rules on the committed results: every macro ends in \xspace, no
# interval has a missing end, no number of 1,000 or more is left ungrouped
check_file() {
    f=$1
    # the macro lines, without their comments (an unescaped %)
    bodies=$(grep '^\\newcommand' "$f" | grep -v -e 'Seed}' -e 'claimsTexFormat' | sed 's/\([^\\]\)%.*/\1/')
    bad=$(printf "%s\n" "$bodies" | grep -v '\\xspace}$' | head -n 1)
    [ -n "$bad" ] && no "$f: a macro without \\xspace: $bad"
    printf "%s\n" "$bodies" | grep -E '\[--|--\]|, \]|\[, ' >/dev/null && no "$f: an interval with a missing end: $(printf "%s\n" "$bodies" | grep -E '\[--|--\]|, \]|\[, ' | head -n 1)"
    printf "%s\n" "$bodies" | sed 's/\^{[^}]*}//g; s/^\\newcommand{\\[A-Za-z]*}//' | grep -E '(^|[^0-9.])[0-9]{4}' >/dev/null &&
        no "$f: a number of 1,000 or more without grouping: $(printf "%s\n" "$bodies" | sed 's/\^{[^}]*}//g; s/^\\newcommand{\\[A-Za-z]*}//' | grep -E '(^|[^0-9.])[0-9]{4}' | head -n 1)"
    return 0
}
check_file "$tex"
if [ $stale = 1 ]; then
    echo "test_claims_tex: results/ was written with another verdict format (make reproduce rewrites it): its report is not checked"
else
mkdir -p "$tmp/res"
cp results/*.verdicts.csv "$tmp/res/"
ids=$(cd "$tmp/res" && ls *.verdicts.csv | sed 's/\.verdicts\.csv$//')
# shellcheck disable=SC2086
if "$report" --out "$tmp/res" $ids >"$tmp/out" 2>&1; then check_file "$tmp/res/claims.tex"
else cat "$tmp/out" >&2; no "report refused the committed verdict rows"; fi
fi

# in a sentence, typeset
if command -v pdflatex >/dev/null 2>&1 && command -v pdftotext >/dev/null 2>&1; then
    cat >"$tmp/syn/s.tex" <<'EOF'
\documentclass{article}
\input{claims.tex}
\begin{document}
\noindent A: \synWidth on the grid, CI \synWidthCI here.\\
B: \synAccPct of predictions over \synAccSeeds seeds.\\
C: up to \synOpenCI. D: \synCount{} draws; \synCount, then.\\
E: rule \synLongRule, \synLongOutcome.
\end{document}
EOF
    if (cd "$tmp/syn" && pdflatex -interaction=nonstopmode -halt-on-error s.tex >/dev/null 2>&1); then
        text=$(pdftotext -layout "$tmp/syn/s.pdf" - | tr -s ' ')
        for w in 'A: 14,818 on the grid, CI [207, 36,489] here.' 'B: 99.95% of predictions over 10 seeds.' \
                 'C: up to [3.593, ∞). D: 24,576 draws; 24,576, then.' \
                 'E: rule ≥ 100,000, PASS.'; do
            echo "$text" | grep -qF -- "$w" || no "typeset sentence is not '$w' (got: $(echo "$text" | tr '\n' '|'))"
        done
    else
        no "pdflatex failed on a sentence using claims.tex (see $tmp/syn/s.log)"; cat "$tmp/syn/s.log" | grep -A3 '^!' >&2
    fi
else
    echo "test_claims_tex: pdflatex or pdftotext missing: the typeset sentence is skipped"
fi
[ $fail = 0 ] && echo "PASS test_claims_tex"
exit $fail
