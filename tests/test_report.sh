#!/bin/sh
# test_report.sh - the report re-derives every outcome from the stored numbers
# and rule, and refuses (exit 3, naming the file and the row) a verdict row
# that was edited: its outcome, a number so that the rule no longer holds,
# its rule's text, its bound, a kind that does not exist.
set -u
BUILD=${BUILD:-build}
report="$BUILD/tools/report"
pass=0; fail=0
ok() { pass=$((pass + 1)); }
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }
tmp=$(mktemp -d /tmp/attn-report-test.XXXXXX)
trap 'rm -rf "$tmp"' EXIT INT TERM
H="id,kind,quantity,expected,measured,ci_low,ci_high,tolerance,draws,seed,verdict,rule,bound_lo,bound_hi,rule_text,macro,run_dependent,headline,nature"
good() {
    printf '%s\n' "$H" \
      'demo,identity,rows identical,0,3e-16,,,1e-12,10,7,PASS,at_most,,1e-12,<= 1e-12,demoRows,0,0,rounding' \
      'demo,claim,"T times the mean, T = 4",1,1.01,0.99,1.03,,1000,7,PASS,ci_within,0.95,1.05,"95% CI inside [0.95, 1.05]",demoT,0,1,mc' \
      'demo,claim,few draws,1,1.0,0.9,1.1,,10,7,INCONCLUSIVE,ci_within,0.95,1.05,"95% CI inside [0.95, 1.05]",demoFew,0,0,mc' \
      'demo,control,sigmoid weights,,0.2,,,,10,7,PASS,at_least,0.001,,>= 0.001,demoCtl,0,0,computed' \
      'demo,reported,time (ms),,3.5,3.1,4.2,,5,7,REPORTED,none,,,"reported, no rule",demoTime,1,0,run'
}
expect_ok() { # what
    if "$report" --out "$tmp" --check demo >"$tmp/out" 2>&1; then ok; else bad "$1: refused: $(cat "$tmp/out")"; fi
}
expect_refused() { # what pattern
    "$report" --out "$tmp" --check demo >"$tmp/out" 2>&1; st=$?
    if [ $st -eq 3 ] && grep -q "demo.verdicts.csv row $2" "$tmp/out"; then ok
    else bad "$1: want exit 3 naming row $2, got $st: $(cat "$tmp/out")"; fi
}
good > "$tmp/demo.verdicts.csv"; expect_ok "the rows as written"
# the stored outcome edited
good | sed '2s/,PASS,at_most/,FAIL,at_most/' > "$tmp/demo.verdicts.csv"; expect_refused "outcome PASS -> FAIL" 2
good | sed '4s/,INCONCLUSIVE,/,PASS,/' > "$tmp/demo.verdicts.csv"; expect_refused "INCONCLUSIVE -> PASS" 4
# a number edited so that the rule no longer holds
good | sed '2s/,3e-16,/,3e-11,/' > "$tmp/demo.verdicts.csv"; expect_refused "identity residual above its tolerance" 2
good | sed '3s/,0.99,1.03,/,0.97,1.07,/' > "$tmp/demo.verdicts.csv"; expect_refused "CI moved across a bound" 3
good | sed '5s/,0.2,/,0.0001,/' > "$tmp/demo.verdicts.csv"; expect_refused "control below its bound" 5
# the rule loosened in one place only (its bound, or its text)
good | sed '2s/,,1e-12,<= 1e-12,/,,1e-10,<= 1e-12,/' > "$tmp/demo.verdicts.csv"; expect_refused "bound loosened, text kept" 2
good | sed '3s/inside \[0.95, 1.05\]/inside [0.9, 1.1]/' > "$tmp/demo.verdicts.csv"; expect_refused "rule text edited" 3
# a kind or rule that does not exist, a reported row with a rule
good | sed '5s/^demo,control,/demo,negative,/' > "$tmp/demo.verdicts.csv"; expect_refused "unknown kind" 5
good | sed '6s/,REPORTED,none,,,"reported, no rule",/,REPORTED,at_most,,1,<= 1,/' > "$tmp/demo.verdicts.csv"; expect_refused "reported with a rule" 6
# a row of another experiment in this file
good | sed '2s/^demo,/other,/' > "$tmp/demo.verdicts.csv"; expect_refused "foreign id" 2
# the report itself writes nothing when it refuses
good | sed '2s/,PASS,at_most/,FAIL,at_most/' > "$tmp/demo.verdicts.csv"
"$report" --out "$tmp" demo >/dev/null 2>&1
if [ -e "$tmp/claims.csv" ] || [ -e "$tmp/claims.md" ] || [ -e "$tmp/claims.tex" ]; then bad "a refused report wrote files"; else ok; fi
# and a good one writes them, counting by kind
good > "$tmp/demo.verdicts.csv"
if "$report" --out "$tmp" demo >/dev/null 2>&1 && grep -q '0 of 1 claims reproduced' "$tmp/claims.md" \
   && grep -q '2 claim checks (1 PASS, 0 FAIL, 1 INCONCLUSIVE), 1 identities' "$tmp/claims.md" \
   && grep -q 'newcommand{\\demoT}{1.010}' "$tmp/claims.tex" && grep -q 'newcommand{\\demoTCI}{\[0.990, 1.030\]}' "$tmp/claims.tex"; then ok
else bad "report of good rows: $(head -3 "$tmp/claims.md")"; fi
echo "test_report: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
