#!/bin/sh
# prune_results.sh - the output folder of make reproduce, and its manifest.
#
#   prune_results.sh begin DIR [FORCE]   before a reproduce writes anything
#   prune_results.sh end DIR             after every step succeeded
#   prune_results.sh check DIR [FORCE]   only the refusal test of `begin`
# Environment: ONLY (make reproduce ONLY="ID ..."): refused for results/.
#
# DIR/.reproduce-manifest lists (one path per line, relative to DIR) every
# file the last complete reproduce wrote into DIR. It is the suite's only
# licence to remove anything there:
#   - `end` writes the new manifest (the files written since `begin`) and
#     removes the entries of the previous manifest that this run did not
#     write again (a figure or CSV whose script or experiment is gone). A
#     file that no manifest names is never removed, whatever its age or name.
#     Carried over, not removed, when not rewritten: handout.pdf,
#     slides.pdf, slides-notes.pdf and instructor.pdf (rebuilt only where TeX
#     is installed), explorer.* (file targets of their own sources, rebuilt
#     only when those change) and bench* (make bench writes them).
#   - `begin` refuses (exit 2) a DIR that exists, is not empty and holds no
#     manifest, unless DIR is results/ of this checkout or FORCE is 1: such
#     a folder is somebody's own, not the suite's. An empty or new DIR gets
#     an empty manifest at once, so a reproduce that fails half-way leaves
#     a folder the next reproduce accepts; results/ of this checkout, the
#     first time, gets the files git tracks there (the committed output of
#     earlier reproduces; untracked files are never named). `begin` prints
#     the folder first.
# Exit status: 0 done, 2 refused or bad usage, 3 an I/O error.
set -u
MANIFEST=.reproduce-manifest
STAMP=.reproduce-start
HEADER="# attention-qkv: files written by the last make reproduce into this folder (tools/prune_results.sh)"

usage() { echo "usage: prune_results.sh begin|end|check DIR [FORCE]" >&2; exit 2; }
[ $# -ge 2 ] || usage
cmd=$1 dir=$2 force=${3:-0}
[ -n "$dir" ] || { echo "reproduce: OUT is empty: give a folder, e.g. make reproduce OUT=/tmp/run" >&2; exit 2; }
here=$(cd "$(dirname "$0")/.." && pwd -P)

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

# "inode mtime path" of every file in DIR but the suite's bookkeeping
snapshot() {
    (cd "$dir" && find . -type f ! -name "$STAMP" ! -name "$MANIFEST" ! -name ".$MANIFEST.new.*" \
         -printf '%i %T@ %P\n') | awk '!/[[:cntrl:]]/'
}

case "$cmd" in
check)
    check
    ;;
begin)
    echo "reproduce: writing into $dir"
    check
    mkdir -p "$dir" || exit 3
    if [ ! -f "$dir/$MANIFEST" ]; then
        {
            echo "$HEADER"
            # results/ of this checkout before its first manifest: what the
            # suite wrote there before is what git tracks there (committed
            # reproduce output); untracked files are never touched
            if is_results "$dir" && command -v git >/dev/null 2>&1; then
                git -C "$here" ls-files -- results 2>/dev/null | sed -n 's|^results/||p' | awk '!/[[:cntrl:]]/'
            fi
        } >"$dir/$MANIFEST" || exit 3
    fi
    # the start time, then every file already there (inode, mtime, path): a
    # file this run writes is one that is new or whose inode or mtime changed
    { date +%s; snapshot; } >"$dir/$STAMP" || exit 3
    ;;
end)
    [ -f "$dir/$STAMP" ] || { echo "reproduce: no $STAMP in '$dir' (prune_results.sh begin first)" >&2; exit 2; }
    old="$dir/$MANIFEST"
    new="$dir/.$MANIFEST.new.$$"
    trap 'rm -f "$new"' EXIT
    trap 'exit 130' INT TERM HUP
    {
        echo "$HEADER"
        # what this run wrote: new files, and files whose inode or mtime changed
        snapshot | awk 'NR == FNR { if (FNR > 1) was[$0] = 1; next }
                        !($0 in was) { sub(/^[^ ]+ [^ ]+ /, ""); print }' "$dir/$STAMP" - | LC_ALL=C sort
        # earlier files carried over when this run did not rebuild them
        [ -f "$old" ] && grep -v '^#' "$old" | while IFS= read -r f; do
            case "$(basename "$f")" in
            handout.pdf|slides.pdf|slides-notes.pdf|instructor.pdf|explorer.*|bench*) [ -f "$dir/$f" ] && echo "$f" ;;
            esac
        done
    } | awk 'NR == 1 || !seen[$0]++' >"$new" || exit 3
    if [ -f "$old" ]; then
        grep -v '^#' "$old" | while IFS= read -r f; do
            [ -n "$f" ] || continue
            case "$f" in /*|../*|*/../*) continue ;; esac      # never outside DIR
            grep -qxF -- "$f" "$new" && continue
            if [ -f "$dir/$f" ] && [ ! -L "$dir/$f" ]; then
                echo "reproduce: removing $dir/$f (written by the previous reproduce, no longer produced)"
                rm -f "$dir/$f"
            fi
        done
    fi
    mv -f "$new" "$old" || exit 3
    trap - EXIT
    start=$(head -n 1 "$dir/$STAMP" 2>/dev/null)
    rm -f "$dir/$STAMP"
    case "$start" in
    ''|*[!0-9]*) ;;
    *) echo "reproduce: done in $(( $(date +%s) - start )) s: $(( $(wc -l <"$old") - 1 )) files in $dir (listed in $dir/$MANIFEST)" ;;
    esac
    ;;
*) usage ;;
esac
exit 0
