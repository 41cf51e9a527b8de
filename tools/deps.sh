#!/bin/sh
# deps.sh - make sure the Debian packages the project needs are installed.
# As root: installs what is missing. Otherwise: names the exact command and fails.
#   deps.sh            what make check / make reproduce need
#   deps.sh valgrind   ... and valgrind (make valgrind)
#   deps.sh fuzz       ... and clang with its sanitizer runtimes (make fuzz)
#   deps.sh bench      ... and NumPy (make bench)
#   deps.sh browser    ... and Chromium (the browser explorer's test and its
#                      screenshot; without it both say "skipped") and the
#                      locales data and tmux (the decimal-comma locale test
#                      and the terminal explorer's test in a real terminal)
#   deps.sh tex        ... and TeX Live with beamer (make handout, make slides)
#   deps.sh torch      ... and PyTorch (tests/test_torch.sh; it skips without)
#   deps.sh mpi        ... and Open MPI: mpicc, mpirun (make mpi)
set -u
PKGS="libgsl-dev gnuplot-nox check pkg-config libopenblas-dev libncurses-dev"
missing=""
for extra in "$@"; do
    case "$extra" in
    valgrind) command -v valgrind >/dev/null 2>&1 || missing="$missing valgrind" ;;
    fuzz) { command -v clang >/dev/null 2>&1 && ls /usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a >/dev/null 2>&1; } ||
              missing="$missing clang libclang-rt-14-dev" ;;
    mpi) { command -v mpicc >/dev/null 2>&1 && command -v mpirun >/dev/null 2>&1; } ||
              missing="$missing openmpi-bin libopenmpi-dev" ;;
    bench) /usr/bin/python3 -c 'import numpy' >/dev/null 2>&1 || missing="$missing python3-numpy" ;;
    browser) { command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1; } ||
              missing="$missing chromium"
             command -v python3 >/dev/null 2>&1 || missing="$missing python3"
             [ -f /usr/share/i18n/locales/de_DE ] || missing="$missing locales"
             command -v tmux >/dev/null 2>&1 || missing="$missing tmux" ;;
    tex) { command -v pdflatex >/dev/null 2>&1 && kpsewhich beamer.cls >/dev/null 2>&1 && kpsewhich lmodern.sty >/dev/null 2>&1; } ||
              missing="$missing texlive-latex-base texlive-latex-recommended texlive-fonts-recommended lmodern" ;;
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
