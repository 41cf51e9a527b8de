#!/bin/sh
# test_layers.sh - lib/ in layers, includes pointing one way:
#   lib/math   (the section's mathematics) includes only lib/math headers;
#   lib/fast   (the fast path: tiled head, vectorized exp) lib/math and lib/fast;
#   lib/run    (the machinery) includes lib/math and lib/run, never lib/claims;
#   lib/claims (helpers for one claim) may include anything in lib/;
#   tools/lib  (the tools' own code) lib/math, lib/run and tools/lib, and no
#              file of lib/ includes it (lib/ is built without -Itools/lib).
# (registry.inc is generated from experiments/registry.tsv, not a layer.)
# And the library is built without ncurses: only the explorer's terminal front
# end (lib/claims/explorer_tui.c, linked into its own program) includes curses.
set -u
pass=0; fail=0
ok() { pass=$((pass + 1)); }
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }
cd "$(dirname "$0")/.." || exit 1
headers_of() { ls "$1"/*.h 2>/dev/null | xargs -n1 basename | tr "\n" " "; }
check_layer() { # folder allowed-folders...
    layer=$1; shift
    allowed=""
    for l in "$@"; do allowed="$allowed $(headers_of $l)"; done
    for f in $layer/*.c $layer/*.h; do
        for inc in $(sed -n 's/^#include "\([^"]*\)".*/\1/p' "$f" | grep -v '^registry\.inc$'); do
            case " $allowed " in *" $inc "*) ok ;; *) bad "$f includes \"$inc\", outside $*" ;; esac
        done
    done
}
check_layer lib/math lib/math
check_layer lib/fast lib/math lib/fast
check_layer lib/run lib/math lib/run
check_layer lib/claims lib/math lib/fast lib/run lib/claims
check_layer tools/lib lib/math lib/run tools/lib
for f in lib/*/*.c lib/*/*.h; do
    [ "$f" = lib/claims/explorer_tui.c ] && continue
    if grep -q '#include <n\?curses' "$f"; then bad "$f includes curses (only explorer_tui.c may)"; else ok; fi
done
# a file in lib/ directly (outside a layer) is not allowed
if ls lib/*.c lib/*.h >/dev/null 2>&1; then bad "files directly in lib/: $(ls lib/*.[ch])"; else ok; fi
echo "test_layers: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
