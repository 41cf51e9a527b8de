#!/bin/sh
# readme_sync.sh OUTDIR [README] - refresh the generated blocks of the README
# and of doc/layout.md (make reproduce runs it after the report):
#   README.md  <!-- claims:begin --> ... <!-- claims:end -->
#              OUTDIR/claims_summary.md, written by tools/report/report.c (the
#              section's claims, then the extensions, from the verdicts and
#              experiments/registry.tsv)
#   README.md, doc/layout.md  <!-- registry:NAME --> ... <!-- /registry:NAME -->
#              `sh tools/make/registry.sh NAME` (claims-code, layout), from
#              experiments/registry.tsv (when that script exists); in doc/ the
#              relative links get a leading ../
# Only for the committed results (OUTDIR = results), unless README is given:
# `sh tools/report/readme_sync.sh /tmp/x /tmp/x/README.md` tries it on a copy.
# Everything outside the blocks is kept byte for byte; each file is replaced
# in one rename, and only when something changed.
set -eu
out=${1:-results}
readme=${2:-}
if [ -z "$readme" ]; then
    [ "$out" = results ] || exit 0
    readme=README.md
fi
[ -f "$readme" ] || exit 0

# fill FILE BEGIN END CONTENT: the lines between the marker lines BEGIN and
# END of FILE become the file CONTENT
fill() {
    grep -qxF "$2" "$1" || return 0
    awk -v b="$2" -v e="$3" -v c="$4" '
      $0 == b { print; while ((getline l < c) > 0) print l; skip = 1; next }
      $0 == e { skip = 0 }
      !skip' "$1" > "$1.tmp.$$"
    if cmp -s "$1.tmp.$$" "$1"; then rm -f "$1.tmp.$$"; else mv "$1.tmp.$$" "$1"; fi
}

[ ! -f "$out/claims_summary.md" ] ||
    fill "$readme" '<!-- claims:begin -->' '<!-- claims:end -->' "$out/claims_summary.md"

if [ -f tools/make/registry.sh ]; then
    tmp=$(mktemp) || exit 3
    for name in claims-code layout; do
        for f in "$readme" doc/layout.md; do
            [ -f "$f" ] || continue
            sh tools/make/registry.sh "$name" > "$tmp"
            case "$f" in
                doc/*) sed 's#](\([^):/]*/\)#](../\1#g' "$tmp" > "$tmp.doc" && mv "$tmp.doc" "$tmp" ;;
            esac
            fill "$f" "<!-- registry:$name -->" "<!-- /registry:$name -->" "$tmp"
        done
    done
    rm -f "$tmp"
fi
exit 0
