#!/bin/sh
# figures.sh DIR ID... - re-render the figures of the runs found in DIR (make
# figures): every plot of every experiment whose verdicts are in DIR, from its
# data; nothing is rerun. A plot belongs to experiment ID when its name is ID
# or ID_<part> (plots/ and plots/checks/), or when it says "# experiment: ID"
# (a figure named for what it shows, such as asymmetric_sentence).
# A figure whose files are all newer than its run (DIR/ID.verdicts.csv, which a
# run writes last), its script, plots/style.gnuplot and render.sh is up to date
# and not drawn again (one line says how many); FORCE=1 redraws every one.
set -u
dir=$1; shift
# a killed run's half-released files in DIR are finished or undone first (lib/run/afile.h)
if [ -x "${BUILD:-build}/tools/recover" ]; then "${BUILD:-build}/tools/recover" "$dir" || exit 3; fi
found=0
failed=
current=0
# fresh SCRIPT DIR NAME RUN: every file render.sh makes for NAME exists and is newer than the
# run, the script, the style and render.sh ([ -nt ]: a tie in time counts as not newer)
fresh() {
    case "$1" in */checks/*) fd="$2/figures/checks"; files="$fd/$3.pdf $fd/$3.png $fd/$3.svg" ;;
        *) fd="$2/figures"; files="$fd/$3.pdf $fd/$3.png $fd/$3.svg"
           grep -q '^# slide:' "$1" && [ "${ATT_NO_SLIDES:-0}" != 1 ] &&
               files="$files $fd/slides/$3.pdf $fd/slides/$3.png" ;;
    esac
    for f in $files; do
        for src in "$4" "$1" plots/style.gnuplot tools/report/render.sh; do
            [ "$f" -nt "$src" ] || return 1
        done
    done
}
# every plot's "PATH|OWNER|NEEDS", read once by one awk (not seven processes per plot and
# experiment: 0.4 s of each make figures): OWNER from its first "# experiment: ID" line, NEEDS
# its first "# needs: TABLE.csv ... (why)" line without the "(why)"
plots=""
for p in plots/*.gp plots/checks/*.gp; do [ -f "$p" ] && plots="$plots $p"; done
# shellcheck disable=SC2086
rows=$([ -z "$plots" ] || awk 'function flush() { if (f != "") print f "|" o "|" n }
    FNR == 1 { flush(); f = FILENAME; o = ""; n = ""; ho = 0; hn = 0 }
    !ho && /^# experiment: */ { ho = 1; s = $0; sub(/^# experiment: */, "", s)
                                 match(s, /^[a-z_]*/); o = substr(s, 1, RLENGTH) }
    !hn && /^# needs: */ { hn = 1; s = $0; sub(/^# needs: */, "", s); sub(/ \(.*/, "", s); n = s }
    END { flush() }' $plots)
nl='
'
for id in "$@"; do
    [ -f "$dir/$id.verdicts.csv" ] || continue
    IFS=$nl
    for row in $rows; do
        IFS=" 	$nl"
        p=${row%%|*} rest=${row#*|}
        owner=${rest%%|*} needs=${rest#*|}
        name=${p##*/} name=${name%.gp}
        case "$name" in "$id"|"$id"_*) [ -z "$owner" ] && owner=$id ;; esac
        [ "$owner" = "$id" ] || continue
        found=1
        # "# needs: TABLE.csv ..." : a figure of tables that only some runs write
        # (the full sweep, not a point run) is left out, and an older copy of
        # it, drawn from another run's tables, removed: no placeholder figure
        lacking=""
        for t in $needs; do [ -f "$dir/$t" ] || lacking="$lacking $t"; done
        if [ -n "$lacking" ]; then
            case "$p" in */checks/*) fd="$dir/figures/checks" ;; *) fd="$dir/figures" ;; esac
            rm -f "$fd/$name.pdf" "$fd/$name.png" "$fd/$name.svg" "$fd/slides/$name.pdf" "$fd/slides/$name.png"
            echo "figure $name: not drawn, this run has no$lacking (the full run has them)"
            continue
        fi
        if [ "${FORCE:-0}" != 1 ] && fresh "$p" "$dir" "$name" "$dir/$id.verdicts.csv"; then
            current=$((current + 1)); continue
        fi
        sh tools/report/render.sh "$p" "$dir" "$name" || failed="$failed $name"
    done
done
[ "$current" -eq 0 ] || echo "figures: $current up to date, not drawn again (FORCE=1 redraws them)"
[ $found = 1 ] || { echo "figures: no run found in $dir/ (run bin/<ID> first; it writes into out/)" >&2; exit 2; }
# one figure that cannot be drawn (a table this run did not write) does not
# stop the others; it is named, and the exit status says so
[ -z "$failed" ] || { echo "figures: not drawn:$failed (see the messages above)" >&2; exit 1; }
