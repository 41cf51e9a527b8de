#!/bin/sh
# build.sh - compile bin/shapes and bin/attention from src/ (the C sources they need:
# src/lib.list names the library files; the rest of the suite is not in the zip)
set -eu
cd "$(dirname "$0")"
# (a test hook: tests/test_autograder.sh sets ATT_AUTOGRADER_PREBUILT=1 when it has put into bin/
# the two programs this script built before from the same sources, compiler and flags; they are
# then checked, not compiled again)
if [ "${ATT_AUTOGRADER_PREBUILT:-0}" = 1 ] && [ -x bin/shapes ] && [ -x bin/attention ]; then
    bin/shapes --help >/dev/null && bin/attention --help >/dev/null
    exit
fi
CC=${CC:-cc}
GSL_CFLAGS=$(pkg-config --cflags gsl)
GSL_LIBS=$(pkg-config --libs gsl | sed 's/-lgslcblas//')
BLAS=$(pkg-config --exists openblas && pkg-config --libs openblas || echo -lgslcblas)
INC="-Isrc/lib/math -Isrc/lib/fast -Isrc/lib/run -Isrc/lib/claims -Isrc/tools/lib -Isrc/gen"
CFLAGS="-std=c11 ${OPT:--O2} -D_GNU_SOURCE -fopenmp $INC $GSL_CFLAGS"
mkdir -p obj bin
objs=""
for c in $(cat src/lib.list); do
    o=obj/$(basename "$c" .c).o
    # shellcheck disable=SC2086
    $CC $CFLAGS -c "src/$c" -o "$o"
    objs="$objs $o"
done
for t in experiments/shapes tools/attention; do
    # shellcheck disable=SC2086
    $CC $CFLAGS "src/$t.c" $objs -o "bin/$(basename "$t")" -fopenmp $GSL_LIBS $BLAS -lm
done
bin/shapes --help >/dev/null && bin/attention --help >/dev/null
