#!/bin/sh
# autograder.sh - build Gradescope's autograder zip (make autograder).
#
#   sh tools/make/autograder.sh BUILD ZIP
#
# The zip holds, at its top (Gradescope's /autograder/source): setup.sh, run_autograder,
# build.sh (exercises/autograder/), exercises/grade.py, config.sh (the options below) and
# src/: the C sources bin/shapes and bin/attention need, found from the linker's map of
# the two programs against BUILD/libtools.a and BUILD/libattn.a (tools/lib/ and lib/), with
# the libraries' headers and the generated
# registry.inc. No solutions: the script fails if a file of exercises/solutions/ or
# anything naming it is in the zip.
# Options (environment; make passes them): AUTOGRADER_SEED=N a secret seed (written to
# the zip's seed file, never printed in results), AUTOGRADER_HIDE="TEST ..." tests shown
# only after the due date, AUTOGRADER_TRUSTED=1 grade without a sandbox where none can be
# made (see README: only on a platform that runs each submission in its own container).
# CC, CFLAGS_ALL and LIBS: the compiler, flags and libraries the Makefile uses.
set -eu
BUILD=$1 ZIP=$2
CC=${CC:-cc}
stage=$BUILD/autograder
rm -rf "$stage" && mkdir -p "$stage/src/gen" "$stage/src/experiments" "$stage/src/tools" "$stage/exercises"
# the library members the two programs link (the linker's map; compiled at -O0, after the
# Makefile's -O2, as the program is thrown away: the same members, half the compiler's CPU)
members=""
for src in experiments/shapes.c tools/attention.c; do
    # shellcheck disable=SC2086
    $CC $CFLAGS_ALL -O0 -Itools/lib "$src" -o "$stage/a.out" "$BUILD/libtools.a" "$BUILD/libattn.a" $LIBS -Wl,-Map="$stage/map.txt"
    members="$members $(grep -o 'lib\(attn\|tools\)\.a([A-Za-z0-9_]*\.o)' "$stage/map.txt" | sed 's/.*(\(.*\)\.o)/\1/')"
done
rm -f "$stage/a.out" "$stage/map.txt"
: >"$stage/src/lib.list"
for m in $(echo "$members" | tr ' ' '\n' | sort -u); do
    c=$(ls lib/*/"$m".c tools/lib/"$m".c 2>/dev/null | head -1)
    [ -n "$c" ] || { echo "autograder: no source for library member $m.o" >&2; exit 1; }
    echo "$c" >>"$stage/src/lib.list"
done
# (one cp for all: GNU cp --parents makes each file's folders; a cp per file was 0.25 s of CPU)
# shellcheck disable=SC2046
cp --parents $(cat "$stage/src/lib.list") lib/*/*.h tools/lib/*.h "$stage/src/"
cp "$BUILD/registry.inc" "$stage/src/gen/"
cp experiments/shapes.c "$stage/src/experiments/"
cp tools/attention.c "$stage/src/tools/"
cp exercises/grade.py "$stage/exercises/"
cp exercises/autograder/setup.sh exercises/autograder/run_autograder exercises/autograder/build.sh "$stage/"
{
    echo "# config.sh - the grader's options, chosen when the zip was made (make autograder)"
    if [ -n "${AUTOGRADER_SEED:-}" ]; then
        printf '%s\n' "$AUTOGRADER_SEED" >"$stage/seed"
        echo 'ARGS+=(--seed-file /autograder/source/seed)'
    fi
    for t in ${AUTOGRADER_HIDE:-}; do echo "ARGS+=(--hide $t)"; done
    [ "${AUTOGRADER_TRUSTED:-0}" = 1 ] && echo 'ARGS+=(--trusted)'
    true
} >"$stage/config.sh"
mkdir -p "$(dirname "$ZIP")"
rm -f "$ZIP"
python3 - "$stage" "$ZIP" <<'PY'
import os, sys, zipfile
stage, out = sys.argv[1], sys.argv[2]
sol = open("exercises/solutions/section_4_2.py", "rb").read()
names = []
with zipfile.ZipFile(out + ".tmp", "w", zipfile.ZIP_DEFLATED) as z:
    for top, dirs, files in os.walk(stage):
        dirs.sort()
        for f in sorted(files):
            p = os.path.join(top, f)
            rel = os.path.relpath(p, stage)
            data = open(p, "rb").read()
            if "solutions" in rel or data == sol or b"exercises/solutions" in data and rel != "exercises/grade.py":
                sys.exit("autograder: %s is or names a solution: not zipped" % rel)
            z.write(p, rel)
            names.append(rel)
os.replace(out + ".tmp", out)
print("autograder: wrote %s (%d files: setup.sh, run_autograder, the grader, %d C sources; "
      "no solutions)" % (out, len(names), sum(n.endswith(".c") for n in names)))
PY
