#!/bin/sh
# registry.sh - read the claims registry (experiments/registry.tsv), the one
# place where each claim's words live, and write what others restate.
#
#   sh tools/registry.sh ids [section|extension]  the claim IDs, in registry order
#   sh tools/registry.sh get ID COLUMN            one field (id origin subheading
#                                                 claim figures headline code note)
#   sh tools/registry.sh claims-code              markdown "claim -> code" table
#                                                 (the section's claims first,
#                                                 extensions marked)
#   sh tools/registry.sh layout                   markdown table of experiments/
#                                                 and the file where each claim's
#                                                 mathematics is
#   sh tools/registry.sh readme FILE              rewrite, in FILE, every block
#       <!-- registry:NAME --> ... <!-- /registry:NAME -->  (NAME = claims-code
#       or layout) with the table above; the rest of FILE is kept byte for byte
#   sh tools/registry.sh check                    every ID has experiments/ID.c,
#                                                 every figure plots/NAME.gp,
#                                                 every code file:function exists
# Exit 0, 1 when check finds a problem, 2 on bad usage or input.
set -u
here=$(dirname "$0")
REG=${REGISTRY:-$here/../experiments/registry.tsv}
[ -r "$REG" ] || { echo "registry.sh: cannot read $REG" >&2; exit 2; }

rows() { grep -v '^#' "$REG" | tail -n +2; }

usage() { sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }

claims_code() {
    echo "| claim | from the section's subheading | experiment | where the mathematics is |"
    echo "|---|---|---|---|"
    for origin in section extension; do
        rows | awk -F'\t' -v o="$origin" '$2 == o {
            split($7, c, ":"); gsub(/\|/, "\\|", $4)
            mark = o == "extension" ? " *(extension)*" : ""
            note = $8 != "-" ? " (" $8 ")" : ""
            printf "| %s%s%s | %s | [`%s`](experiments/%s.c) | [`%s`](%s) in `%s` |\n", \
                $4, mark, note, $3, $1, $1, c[2], c[1], c[1]
        }'
    done
}

layout() {
    echo "| experiment | claim | figures | mathematics |"
    echo "|---|---|---|---|"
    rows | awk -F'\t' '{
        gsub(/\|/, "\\|", $4)
        figs = $5 == "-" ? "(table)" : $5
        printf "| `experiments/%s.c` | %s | %s | `%s` |\n", $1, $4, figs, $7
    }'
}

block() {
    case "$1" in
        claims-code) claims_code ;;
        layout) layout ;;
        *) echo "registry.sh: unknown block '$1' (claims-code, layout)" >&2; return 2 ;;
    esac
}

readme() {
    f=$1
    [ -f "$f" ] || { echo "registry.sh: no file $f" >&2; exit 2; }
    tmp=$(mktemp "$f.XXXXXX") || exit 3
    cc=$(mktemp) lay=$(mktemp)
    claims_code >"$cc"; layout >"$lay"
    awk -v cc="$cc" -v lay="$lay" '
        /^<!-- registry:[a-z-]+ -->$/ {
            print; name = $0; sub(/^<!-- registry:/, "", name); sub(/ -->$/, "", name)
            file = name == "claims-code" ? cc : name == "layout" ? lay : ""
            if (file == "") { print "registry.sh: unknown block " name > "/dev/stderr"; bad = 1 }
            else while ((getline line < file) > 0) print line
            skip = 1; next
        }
        /^<!-- \/registry:[a-z-]+ -->$/ { skip = 0 }
        !skip { print }
        END { exit bad }' "$f" >"$tmp" || { rm -f "$tmp" "$cc" "$lay"; exit 2; }
    rm -f "$cc" "$lay"
    if cmp -s "$tmp" "$f"; then rm -f "$tmp"; else mv "$tmp" "$f"; echo "registry.sh: updated $f"; fi
}

check() {
    bad=0
    root=$here/..
    rows | {
        while IFS='	' read -r id origin sub claim figs head code note; do
            [ -f "$root/experiments/$id.c" ] || { echo "registry: $id: no experiments/$id.c"; bad=1; }
            case "$origin" in section|extension) ;; *) echo "registry: $id: origin '$origin'"; bad=1 ;; esac
            for g in $figs; do
                [ "$g" = - ] || [ -f "$root/plots/$g.gp" ] || { echo "registry: $id: no plots/$g.gp"; bad=1; }
            done
            file=${code%%:*} fn=${code#*:}
            grep -q "$fn" "$root/$file" 2>/dev/null || { echo "registry: $id: no $fn in $file"; bad=1; }
            printf '%s' "$head" | grep -Eq '^[A-Za-z]+$' || { echo "registry: $id: headline macro '$head'"; bad=1; }
        done
        exit $bad
    }
}

[ $# -ge 1 ] || usage
case "$1" in
    ids) if [ $# -ge 2 ]; then rows | awk -F'\t' -v o="$2" '$2 == o { print $1 }'; else rows | cut -f1; fi ;;
    get) [ $# -eq 3 ] || usage
         col=$(grep -v '^#' "$REG" | head -1 | tr '\t' '\n' | grep -nx "$3" | cut -d: -f1)
         [ -n "$col" ] || { echo "registry.sh: no column '$3'" >&2; exit 2; }
         v=$(rows | awk -F'\t' -v id="$2" -v c="$col" '$1 == id { print $c; found = 1 } END { exit !found }') ||
             { echo "registry.sh: no claim '$2'" >&2; exit 2; }
         printf '%s\n' "$v" ;;
    claims-code) claims_code ;;
    layout) layout ;;
    readme) [ $# -eq 2 ] || usage; readme "$2" ;;
    check) check ;;
    *) usage ;;
esac
