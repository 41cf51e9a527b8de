#!/bin/sh
# written.sh FILE ... - record files a script step of make reproduce (or make
# verify) has just moved into place: appends "<inode> <size> <real path>" per
# FILE to $ATT_WRITE_LOG, the record tools/reproduce/prune_results.sh builds the
# manifest from (the programs record their own files: lib/run/afile.c). Does
# nothing when ATT_WRITE_LOG is unset (a run by hand). Each line is one
# append (O_APPEND), so parallel steps do not mix their lines.
[ -n "${ATT_WRITE_LOG:-}" ] || exit 0
for f in "$@"; do
    [ -f "$f" ] && [ ! -L "$f" ] || continue
    d=$(cd "$(dirname -- "$f")" && pwd -P) || continue
    id=$(stat -c '%i %s' -- "$f") || continue
    printf '%s %s/%s\n' "$id" "$d" "$(basename -- "$f")" >>"$ATT_WRITE_LOG"
done
exit 0
