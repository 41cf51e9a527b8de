#!/bin/sh
# deps.sh - make sure the Debian packages the project needs are installed.
# As root: installs what is missing. Otherwise: names the exact command and fails.
#   deps.sh            what make check / make reproduce need
#   deps.sh valgrind   ... and valgrind (make valgrind)
#   deps.sh fuzz       ... and clang with its sanitizer runtimes (make fuzz)
#   deps.sh bench      ... and NumPy (make bench)
#   deps.sh torch      ... and PyTorch (tests/test_torch.sh; it skips without)
set -u
PKGS="libgsl-dev gnuplot-nox check pkg-config libopenblas-dev libncurses-dev"
missing=""
for extra in "$@"; do
    case "$extra" in
    valgrind) command -v valgrind >/dev/null 2>&1 || missing="$missing valgrind" ;;
    fuzz) { command -v clang >/dev/null 2>&1 && ls /usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a >/dev/null 2>&1; } ||
              missing="$missing clang libclang-rt-14-dev" ;;
    bench) /usr/bin/python3 -c 'import numpy' >/dev/null 2>&1 || missing="$missing python3-numpy" ;;
    torch) /usr/bin/python3 -c 'import torch' >/dev/null 2>&1 || missing="$missing python3-torch" ;;
    esac
done
have_pc() { command -v pkg-config >/dev/null 2>&1 && pkg-config --exists "$1" 2>/dev/null; }
have_pc gsl       || missing="$missing libgsl-dev"
have_pc check     || missing="$missing check"
have_pc openblas  || missing="$missing libopenblas-dev"
have_pc ncursesw  || missing="$missing libncurses-dev"
command -v pkg-config >/dev/null 2>&1 || missing="$missing pkg-config"
command -v gnuplot >/dev/null 2>&1    || missing="$missing gnuplot-nox"
command -v pdftoppm >/dev/null 2>&1   || missing="$missing poppler-utils"
[ -f /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf ] || missing="$missing fonts-dejavu-core"
command -v cc >/dev/null 2>&1         || missing="$missing gcc"
command -v make >/dev/null 2>&1       || missing="$missing make"
[ -z "$missing" ] && exit 0
echo "deps: missing Debian packages:$missing"
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "deps: installing them (apt-get update && apt-get install -y$missing)"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq && apt-get install -y -qq $missing >/dev/null || {
        echo "deps: apt-get failed; run: apt-get update && apt-get install -y$missing" >&2; exit 1; }
    exit 0
fi
echo "deps: please run (as root):  apt-get update && apt-get install -y$missing" >&2
echo "deps: then run this make command again." >&2
exit 1
