#!/bin/sh
# test_notes_numbers.sh - a CI quoted in a note is the CI of the row it cites.
# purpose: the notes (tools/report/notes/ID.md, written by hand, printed in results/claims.md) quote
# "(LOW to HIGH, `\macro`)"; each LOW and HIGH must equal that macro's ci_low / ci_high in
# results/claims.csv to the note's own digits (one unit of its last digit apart at most),
# so a rerun that moves a number cannot leave a stale copy in the prose (a reader found
# rpExcessSmallD quoted as 0.098 to 0.126 against the row's 0.107 to 0.137).
set -u
cd "$(dirname "$0")/.." || exit 2
command -v python3 >/dev/null 2>&1 || { echo "skip  python3 is missing (make deps)"; exit 0; }
exec python3 - "$@" <<'PY'
import csv, glob, re, sys
rows = {}
for path in ("results/claims.csv",):
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            if r["macro"]:
                rows[r["macro"]] = r
# "(95% CI 1.008 to 1.025, `\rpTMeanWorst`" or "(Wilson CI 99.88 to 99.93%, `\naiveArgmaxSelf`"
pat = re.compile(r"\((?:[^()]*?CI )?(-?\d[\d.]*(?:e-?\d+)?)(%?) to (-?\d[\d.]*(?:e-?\d+)?)(%?), `\\(\w+)`")
def close(note, value):
    # the note's number, to its own digits: one unit of the last digit apart at most
    m = re.match(r"-?\d+(?:\.(\d+))?(?:e(-?\d+))?$", note)
    digits = len(m.group(1) or "")
    exp10 = int(m.group(2) or 0)
    unit = 10.0 ** (exp10 - digits)
    return abs(float(note) - value) <= 1.0001 * unit
npass = nfail = 0
for path in sorted(glob.glob("tools/report/notes/*.md")):
    text = open(path).read()
    for m in pat.finditer(text):
        lo, pct1, hi, pct2, macro = m.groups()
        where = "%s: (%s to %s, \\%s)" % (path, lo, hi, macro)
        r = rows.get(macro)
        if r is None:
            print("FAIL  %s: no row with that macro in results/claims.csv" % where); nfail += 1; continue
        scale = 100.0 if (pct1 or pct2) else 1.0
        try:
            clo, chi = float(r["ci_low"]) * scale, float(r["ci_high"]) * scale
        except ValueError:
            print("FAIL  %s: the row has no CI" % where); nfail += 1; continue
        if close(lo, clo) and close(hi, chi):
            print("ok    %s" % where); npass += 1
        else:
            print("FAIL  %s: the row says %.6g to %.6g" % (where, clo, chi)); nfail += 1
if npass + nfail == 0:
    print("FAIL  no quoted CI found in tools/report/notes/*.md: the pattern no longer matches"); nfail += 1
print("test_notes_numbers: %d passed, %d failed" % (npass, nfail))
sys.exit(1 if nfail else 0)
PY
