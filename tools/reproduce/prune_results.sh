#!/bin/sh
# prune_results.sh - the output folder of make reproduce (and of make verify
# with VERIFY_OUT=DIR), and its manifest.
#
#   prune_results.sh begin DIR [FORCE]   first: name the folder, refuse a foreign one, create it
#   prune_results.sh open DIR            before the first write (the programs are built by now)
#   prune_results.sh end DIR             after every step succeeded
#   prune_results.sh check DIR [FORCE]   only the refusal test of `begin`
#   prune_results.sh clear DIR           remove every file the manifest names (make verify)
# Environment: ONLY (make reproduce ONLY="ID ..."), DRAWS (make reproduce DRAWS=N): refused
# for results/;
# BUILD (default build): where tools/reproduce/recover.c was built.
#
# DIR/.reproduce-manifest lists every file the last complete reproduce wrote
# into DIR, one line each: "<inode> <size> <path relative to DIR>". It is the
# suite's only licence to remove anything there, and a file counts as the
# suite's only while it still has the inode and size recorded when the suite
# wrote it:
#   - the record is made by the writer itself, at the moment it writes: every
#     program (lib/run/afile.c) and every script step (tools/reproduce/written.sh)
#     appends "<inode> <size> <real path>" to DIR/.reproduce-written (the
#     variable ATT_WRITE_LOG, which make reproduce and make verify export) as
#     it moves a file into place. Nothing scans the folder for "new" files, so
#     a file you save, touch or create in DIR while a reproduce runs is never
#     recorded (and a suite file you replace while it runs is dropped from the
#     record: it is yours now);
#   - `end` writes the new manifest: the records of this run whose file still
#     has that inode and size, plus the previous manifest's handout.pdf,
#     slides.pdf, slides-notes.pdf, instructor.pdf (rebuilt only where TeX is
#     installed), explorer.* (file targets of their own sources, rebuilt only
#     when those change) and bench* (make bench writes them) when not rewritten
#     and unchanged. Then it removes each entry of the previous manifest that
#     this run did not write again (a figure or CSV whose script or experiment
#     is gone) and that is still the file the suite wrote: a regular file, same
#     inode and size, reached from DIR without a symlink (find -P), whose real
#     path (readlink -f) is DIR/<path>. An entry that leads out of DIR or
#     through a symlink is refused and named; one that changed is kept and
#     named. A file that no manifest names is never removed.
#   - `begin` refuses (exit 2) a DIR that exists, is not empty and holds no
#     manifest, unless DIR is results/ of this checkout or FORCE is 1: such
#     a folder is somebody's own, not the suite's. It prints the folder first.
#   - `open` first finishes or undoes what a killed program left in DIR and
#     below (build/tools/recover: roll forward or back, lib/run/afile.h), then
#     gets the manifest ready: created empty for a new folder (results/ of this
#     checkout, the first time: the files git tracks there, the committed
#     output of earlier reproduces; untracked files are never named); an old
#     one of bare paths (before inodes were recorded) takes the files' present
#     inode and size, once; in results/ of this checkout an entry that git
#     tracks and that is unchanged since the commit takes its present inode
#     (a fresh clone has new inodes); the records a killed reproduce left are
#     added when their files are unchanged. Then it starts a new record.
#   - `clear` (make verify with VERIFY_OUT=DIR, before its rerun) removes every
#     file of the manifest by the same rules and empties the manifest.
# Exit status: 0 done, 2 refused or bad usage, 3 an I/O error.
set -u
MANIFEST=.reproduce-manifest
STAMP=.reproduce-start
WRITTEN=.reproduce-written
HEADER="# attention-qkv: files written by the last make reproduce into this folder, as <inode> <size> <path> (tools/reproduce/prune_results.sh)"

usage() { echo "usage: prune_results.sh begin|open|end|check|clear DIR [FORCE]" >&2; exit 2; }
[ $# -ge 2 ] || usage
cmd=$1 dir=$2 force=${3:-0}
[ -n "$dir" ] || { echo "reproduce: OUT is empty: give a folder, e.g. make reproduce OUT=/tmp/run" >&2; exit 2; }
here=$(cd "$(dirname "$0")/../.." && pwd -P)
BUILD=${BUILD:-build}

# is DIR results/ of this checkout? (compared as physical paths)
is_results() {
    [ -d "$1" ] && [ "$(cd "$1" && pwd -P)" = "$here/results" ]
}

check() {
    if [ -e "$dir" ] && [ ! -d "$dir" ]; then
        echo "reproduce: OUT '$dir' is not a folder" >&2; exit 2
    fi
    if [ -n "${ONLY:-}" ] && is_results "$dir"; then
        echo "reproduce: ONLY=\"$ONLY\" is a quick reproduce of a few experiments: give it a private OUT=DIR;" >&2
        echo "reproduce: results/ always gets the whole suite (plain make reproduce)" >&2
        exit 2
    fi
    if [ -n "${DRAWS:-}" ] && is_results "$dir"; then
        echo "reproduce: DRAWS=$DRAWS is a quick reproduce with fewer draws: give it a private OUT=DIR;" >&2
        echo "reproduce: results/ always gets every experiment's default draws (plain make reproduce)" >&2
        exit 2
    fi
    [ -d "$dir" ] || return 0
    [ -f "$dir/$MANIFEST" ] && return 0
    is_results "$dir" && return 0
    [ "$force" = 1 ] && return 0
    [ -z "$(ls -A "$dir" 2>/dev/null)" ] && return 0
    n=$(find "$dir" -type f 2>/dev/null | wc -l)
    {
        echo "reproduce: refusing OUT '$dir': it is not empty ($n files) and holds no $MANIFEST,"
        echo "reproduce: so it is not a folder an earlier make reproduce wrote. Nothing was written or removed."
        echo "reproduce: use a new or empty folder, or FORCE=1 to write into it anyway (the suite then"
        echo "reproduce: replaces only files of its own names and never removes a file it did not write)."
    } >&2
    exit 2
}

# "inode size path" of every regular file reached from DIR without following
# a symlink, but the suite's bookkeeping and run folders; no control characters
listing() {
    (cd "$dir" && find . -path './.att-run.*' -prune -o -type f ! -name "$STAMP" ! -name "$MANIFEST" \
         ! -name "$WRITTEN" ! -name ".$MANIFEST.new.*" -printf '%i %s %P\n') | awk '!/[[:cntrl:]]/'
}

# the manifest's entries (comments dropped), "inode size path"
entries() { [ -f "$1" ] && grep -v '^#' "$1" | grep -E '^[0-9]+ [0-9]+ .'; }

# records LIST: the records of ATT_WRITE_LOG under DIR as "inode size path"
# (relative), the last per path, kept only when LIST (the listing) shows the
# file with that inode and size
records() {
    real=$(cd "$dir" && pwd -P)
    [ -f "$dir/$WRITTEN" ] || return 0
    awk -v pre="$real/" '
        function key(s,  i, j, r) { i = index(s, " "); r = substr(s, i + 1); j = index(r, " "); return i + j }
        FILENAME == ARGV[1] { have[$0] = 1; next }
        { k = key($0); p = substr($0, k + 1); if (index(p, pre) != 1) next
          rel = substr(p, length(pre) + 1); if (rel == "" || rel ~ /[[:cntrl:]]/) next
          id[rel] = substr($0, 1, k - 1); if (!(rel in seen)) { seen[rel] = 1; order[++n] = rel } }
        END { for (i = 1; i <= n; i++) { r = order[i]; e = id[r] " " r; if (e in have) print e } }' \
        "$1" "$dir/$WRITTEN"
}

# write the manifest from "inode size path" lines on stdin (sorted by path)
write_manifest() {
    new="$dir/.$MANIFEST.new.$$"
    { echo "$HEADER"; awk '{ k = index($0, " "); r = substr($0, k + 1); j = index(r, " ")
                             p = substr(r, j + 1); if (!(p in s)) { s[p] = 1; print } }' |
      LC_ALL=C sort -t ' ' -k 3; } >"$new" && mv -f "$new" "$dir/$MANIFEST" || { rm -f "$new"; exit 3; }
}

# remove DIR/PATH if it is still the suite's file "INODE SIZE PATH" ($1),
# given the listing in $2; say why not otherwise
remove_entry() {
    entry=$1 list=$2
    f=${entry#* }; f=${f#* }
    case "$f" in /*|../*|*/../*|..) echo "reproduce: not removing '$f' (listed in $dir/$MANIFEST): it is outside $dir"; return ;; esac
    if grep -qxF -- "$entry" "$list"; then
        r=$(readlink -f -- "$dir/$f")
        if [ "$r" = "$real/$f" ]; then
            echo "reproduce: removing $dir/$f (written by the previous run, no longer produced)"
            rm -f -- "$r"
        else
            echo "reproduce: not removing $dir/$f: its real path $r is not $real/$f (a symlink)"
        fi
    elif [ -L "$dir/$f" ] || [ -e "$dir/$f" ]; then
        r=$(readlink -f -- "$dir/$f")
        case "$r" in
        "$real/$f") echo "reproduce: keeping $dir/$f: it changed since the suite wrote it (it is yours now)" ;;
        "$real"/*) echo "reproduce: not removing $dir/$f: it passes through a symlink (to $r)" ;;
        *) echo "reproduce: not removing $dir/$f: its real path $r is outside $dir" ;;
        esac
    fi
}

case "$cmd" in
check)
    check
    ;;
begin)
    echo "reproduce: writing into $dir"
    check
    mkdir -p "$dir" || exit 3
    ;;
open)
    [ -d "$dir" ] || { echo "reproduce: no folder '$dir' (prune_results.sh begin first)" >&2; exit 2; }
    if [ -x "$BUILD/tools/recover" ]; then
        "$BUILD/tools/recover" "$dir" || exit 3
    else
        echo "reproduce: $BUILD/tools/recover is not built: a killed run's files in $dir are not recovered" >&2
    fi
    real=$(cd "$dir" && pwd -P)
    list="$dir/.$MANIFEST.new.list.$$"
    trap 'rm -f "$list"' EXIT
    listing >"$list" || exit 3
    {
        if [ -f "$dir/$MANIFEST" ]; then
            # entries with their inode; bare paths (an older manifest) take the present one
            grep -v '^#' "$dir/$MANIFEST" | awk '
                function key(s,  i, j, r) { i = index(s, " "); r = substr(s, i + 1); j = index(r, " "); return i + j }
                FILENAME == ARGV[1] { now[substr($0, key($0) + 1)] = substr($0, 1, key($0) - 1); next }
                /^[0-9]+ [0-9]+ ./ { print; next }
                $0 != "" && ($0 in now) { print now[$0] " " $0 }' "$list" -
        elif is_results "$dir" && command -v git >/dev/null 2>&1; then
            # results/ before its first manifest: what the suite wrote there
            # before is what git tracks there (committed reproduce output)
            git -C "$here" ls-files -- results 2>/dev/null | sed -n 's|^results/||p' |
                awk 'FILENAME == ARGV[1] { i = index($0, " "); r = substr($0, i + 1); j = index(r, " ")
                                       now[substr(r, j + 1)] = substr($0, 1, i + j - 1); next }
                     ($0 in now) { print now[$0] " " $0 }' "$list" -
        fi
        # what a killed reproduce recorded (its files, unchanged since)
        records "$list"
    } >"$dir/.$MANIFEST.entries.$$" || exit 3
    if is_results "$dir" && command -v git >/dev/null 2>&1; then
        # a fresh clone: the tracked files unchanged since the commit are the
        # suite's, whatever inode the checkout gave them
        git -C "$here" ls-files -- results 2>/dev/null | sed -n 's|^results/||p' >"$dir/.$MANIFEST.tracked.$$"
        git -C "$here" diff --name-only -- results 2>/dev/null | sed -n 's|^results/||p' >"$dir/.$MANIFEST.changed.$$"
        awk 'function key(s,  i, j, r) { i = index(s, " "); r = substr(s, i + 1); j = index(r, " "); return i + j }
             FILENAME == ARGV[1] { t[$0] = 1; next }
             FILENAME == ARGV[2] { c[$0] = 1; next }
             FILENAME == ARGV[3] { now[substr($0, key($0) + 1)] = substr($0, 1, key($0) - 1); next }
             { p = substr($0, key($0) + 1)
               if ((p in t) && !(p in c) && (p in now)) print now[p] " " p; else print }' \
            "$dir/.$MANIFEST.tracked.$$" "$dir/.$MANIFEST.changed.$$" "$list" "$dir/.$MANIFEST.entries.$$" \
            >"$dir/.$MANIFEST.entries2.$$" && mv -f "$dir/.$MANIFEST.entries2.$$" "$dir/.$MANIFEST.entries.$$"
        rm -f "$dir/.$MANIFEST.tracked.$$" "$dir/.$MANIFEST.changed.$$"
    fi
    # the last record of a path wins (a killed run's records come last)
    tac "$dir/.$MANIFEST.entries.$$" | write_manifest
    rm -f "$dir/.$MANIFEST.entries.$$"
    : >"$dir/$WRITTEN" || exit 3
    date +%s >"$dir/$STAMP" || exit 3
    ;;
end|clear)
    [ "$cmd" = clear ] || [ -f "$dir/$STAMP" ] || { echo "reproduce: no $STAMP in '$dir' (prune_results.sh open first)" >&2; exit 2; }
    real=$(cd "$dir" && pwd -P)
    old="$dir/$MANIFEST"
    list="$dir/.$MANIFEST.new.list.$$"
    keep="$dir/.$MANIFEST.new.keep.$$"
    trap 'rm -f "$list" "$keep"' EXIT
    trap 'exit 130' INT TERM HUP
    listing >"$list" || exit 3
    if [ "$cmd" = end ]; then
        {
            records "$list"
            # earlier files carried over when this run did not rebuild them (and unchanged)
            entries "$old" | while IFS= read -r e; do
                f=${e#* }; f=${f#* }
                case "$(basename "$f")" in
                handout.pdf|slides.pdf|slides-notes.pdf|instructor.pdf|explorer.*|bench*)
                    grep -qxF -- "$e" "$list" && echo "$e" ;;
                esac
            done
        } >"$keep" || exit 3
    else
        : >"$keep"
    fi
    # the previous manifest's files that this run did not write again
    entries "$old" | awk 'function path(s,  k, r, j) { k = index(s, " "); r = substr(s, k + 1)
                                                         j = index(r, " "); return substr(r, j + 1) }
                          FILENAME == ARGV[1] { kept[path($0)] = 1; next }
                          !(path($0) in kept)' "$keep" - |
    while IFS= read -r e; do
        remove_entry "$e" "$list"
    done
    write_manifest <"$keep"
    [ "$cmd" = clear ] && exit 0
    start=$(head -n 1 "$dir/$STAMP" 2>/dev/null)
    rm -f "$dir/$STAMP" "$dir/$WRITTEN"
    case "$start" in
    ''|*[!0-9]*) ;;
    *) echo "reproduce: done in $(( $(date +%s) - start )) s: $(( $(wc -l <"$old") - 1 )) files in $dir (listed in $dir/$MANIFEST)" ;;
    esac
    ;;
*) usage ;;
esac
exit 0
