#!/bin/sh
# prune_results.sh DIR - after make reproduce: remove the files in DIR that
# this reproduce did not write (a figure or CSV whose script or experiment is
# gone), so that results/ holds exactly what the code produces. Kept: the
# benchmark table (make bench writes it), the explorer page and its screenshot
# (file targets of their own sources) and, without TeX, the handout and the
# slides of the last run with TeX.
set -eu
dir=$1
stamp="$dir/.reproduce-start"
[ -f "$stamp" ] || exit 0
find "$dir" -type f ! -newer "$stamp" ! -name '.reproduce-start' ! -name 'bench*' \
     ! -name handout.pdf ! -name slides.pdf ! -name 'explorer*' -print | while read -r f; do
    echo "reproduce: removing $f (no longer produced)"; rm -f "$f"
done
rm -f "$stamp"
