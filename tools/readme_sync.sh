#!/bin/sh
# readme_sync.sh OUTDIR [README] - refresh the generated blocks of the README
# (make reproduce runs it after the report):
#   <!-- claims:begin --> ... <!-- claims:end -->   OUTDIR/claims_summary.md
#       (written by tools/report.c: the section's claims, then the extensions)
#   <!-- registry:NAME --> ... <!-- /registry:NAME -->   tools/registry.sh,
#       from experiments/registry.tsv (when that script exists)
# Only for the committed results (OUTDIR = results), unless README is given:
# `sh tools/readme_sync.sh /tmp/x /tmp/x/README.md` tries it on a copy.
# Everything outside the blocks is kept byte for byte; the file is replaced
# in one rename.
set -eu
out=${1:-results}
readme=${2:-}
if [ -z "$readme" ]; then
    [ "$out" = results ] || exit 0
    readme=README.md
fi
[ -f "$readme" ] || exit 0
if [ -f "$out/claims_summary.md" ] && grep -q '<!-- claims:begin -->' "$readme"; then
    awk -v table="$out/claims_summary.md" '
      /<!-- claims:begin -->/ { print; while ((getline l < table) > 0) print l; skip = 1; next }
      /<!-- claims:end -->/   { skip = 0 }
      !skip' "$readme" > "$readme.tmp.$$" && mv "$readme.tmp.$$" "$readme"
fi
if [ -f tools/registry.sh ] && grep -q '<!-- registry:' "$readme"; then
    sh tools/registry.sh readme "$readme"
fi
