#!/usr/bin/env bash
# setup.sh - Gradescope runs this once, as root, when it builds the autograder's image
# (Ubuntu; this folder is /autograder/source). It installs what is missing (a C compiler,
# GSL, OpenBLAS, Python with NumPy, bubblewrap: the grader's sandbox), then compiles
# bin/shapes and bin/attention, the C head the grader compares with.
set -u
cd "$(dirname "$0")" || exit 1
missing=""
command -v cc >/dev/null 2>&1 || missing="$missing gcc"
command -v make >/dev/null 2>&1 || missing="$missing make"
command -v pkg-config >/dev/null 2>&1 || missing="$missing pkg-config"
pkg-config --exists gsl 2>/dev/null || missing="$missing libgsl-dev"
pkg-config --exists openblas 2>/dev/null || missing="$missing libopenblas-dev"
python3 -c "import numpy" >/dev/null 2>&1 || missing="$missing python3 python3-numpy"
command -v bwrap >/dev/null 2>&1 || missing="$missing bubblewrap"
if [ -n "$missing" ]; then
    echo "setup.sh: installing$missing"
    export DEBIAN_FRONTEND=noninteractive
    # shellcheck disable=SC2086
    apt-get update -qq && apt-get install -y -qq $missing || { echo "setup.sh: apt-get failed" >&2; exit 1; }
fi
sh ./build.sh || exit 1
# the grader's self-check: the sandbox runs here (or the results will say why not)
python3 exercises/grade.py --help >/dev/null || exit 1
echo "setup.sh: ready (bin/shapes, bin/attention built)"
