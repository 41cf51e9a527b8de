#!/bin/sh
# readme_sync.sh OUTDIR - put OUTDIR/claims_summary.md into README.md between
# the markers <!-- claims:begin --> and <!-- claims:end -->. Only for the
# committed results (OUTDIR = results).
set -eu
out=${1:-results}
[ "$out" = results ] || exit 0
[ -f "$out/claims_summary.md" ] && [ -f README.md ] || exit 0
grep -q '<!-- claims:begin -->' README.md || exit 0
awk -v table="$out/claims_summary.md" '
  /<!-- claims:begin -->/ { print; while ((getline l < table) > 0) print l; skip = 1; next }
  /<!-- claims:end -->/   { skip = 0 }
  !skip' README.md > README.md.tmp.$$ && mv README.md.tmp.$$ README.md
