#!/bin/sh
# deps.sh - make sure the Debian packages the project needs are installed.
# As root: installs what is missing. Otherwise: names the exact command and fails.
#   deps.sh            what make check / make reproduce need (with NumPy:
#                      tests/test_attention.sh compares with it; bubblewrap:
#                      the sandbox exercises/grade.py runs submissions in)
#   deps.sh valgrind   ... and valgrind (make valgrind)
#   deps.sh fuzz       ... and clang with its sanitizer runtimes (make fuzz)
#   deps.sh bench      ... and NumPy (make bench)
#   deps.sh browser    ... and Chromium (the browser explorer's test and its
#                      screenshot; without it both say "skipped") and the
#                      locales data and tmux (the decimal-comma locale test
#                      and the terminal explorer's test in a real terminal)
#   deps.sh tex        ... and TeX Live: beamer, listings (recommended),
#                      pgf/TikZ (texlive-pictures), Latin Modern (make handout,
#                      make slides, make docs), and pdfminer (the deck's glyph
#                      sizes: tests/test_glyphs.sh)
#   deps.sh torch      ... and PyTorch (tests/test_torch.sh; it skips without)
#   deps.sh mpi        ... and Open MPI: mpicc, mpirun (make mpi)
#   deps.sh all        every extra above (what CI installs: .ci/run)
#   deps.sh --list [EXTRA...]   print the Debian packages of those targets
#                               (installed or not), one per line, and exit
#   deps.sh --say [EXTRA...]    (make deps) the same check, and when nothing
#                               is missing a line naming what it checked
# DEPS_DRY_RUN=1: name what is missing and what would be installed, install
# nothing, exit 0. (Tests use it with a fake PATH; DEPS_SYSTEM_PYTHON
# replaces /usr/bin/python3, the interpreter Debian's python3-* packages serve.)
set -u
SYSPY=${DEPS_SYSTEM_PYTHON:-/usr/bin/python3}
list=0
if [ "${1:-}" = --list ]; then list=1; shift; fi
say=0
if [ "${1:-}" = --say ]; then say=1; shift; fi
extras=$*
case " $extras " in *" all "*) extras="valgrind fuzz mpi bench browser tex torch" ;; esac

# the packages of each target, and how to tell they are there
BASE="gcc make pkg-config libgsl-dev libopenblas-dev check libncurses-dev gnuplot-nox poppler-utils fonts-dejavu-core python3 python3-numpy bubblewrap"
# the Debian packages of every file pdflatex reads for the four documents
# (dpkg -S of pdflatex -recorder's list; tools/report/latex.sh needs no latexmk)
TEX="texlive-latex-base texlive-latex-recommended texlive-pictures lmodern python3-pdfminer"
pkgs_of() {
    case "$1" in
    base) echo "$BASE" ;;
    valgrind) echo valgrind ;;
    fuzz) echo "clang libclang-rt-14-dev" ;;
    mpi) echo "openmpi-bin libopenmpi-dev" ;;
    bench) echo "python3 python3-numpy" ;;
    browser) echo "chromium python3 locales tmux" ;;
    tex) echo "$TEX" ;;
    torch) echo "python3 python3-torch" ;;
    *) echo "deps: unknown target '$1' (valgrind fuzz mpi bench browser tex torch all)" >&2; return 1 ;;
    esac
}
if [ "$list" = 1 ]; then
    for t in base $extras; do pkgs_of "$t" || exit 2; done | tr ' ' '\n' | awk 'NF && !seen[$0]++'
    exit 0
fi
for t in $extras; do pkgs_of "$t" >/dev/null || exit 2; done

missing=""
need() { case " $missing " in *" $1 "*) ;; *) missing="$missing $1" ;; esac; }
have_pc() { command -v pkg-config >/dev/null 2>&1 && pkg-config --exists "$1" 2>/dev/null; }
have_tex() { command -v kpsewhich >/dev/null 2>&1 && [ -n "$(kpsewhich "$1" 2>/dev/null)" ]; }
# installed according to dpkg (a machine without dpkg: assume the file checks suffice)
deb_has() { ! command -v dpkg-query >/dev/null 2>&1 ||
            dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'; }
py_has() { [ -x "$SYSPY" ] && "$SYSPY" -c "import $1" >/dev/null 2>&1; }

# base: make check, make reproduce
command -v cc >/dev/null 2>&1         || need gcc
command -v make >/dev/null 2>&1       || need make
command -v pkg-config >/dev/null 2>&1 || need pkg-config
have_pc gsl       || need libgsl-dev
have_pc openblas  || need libopenblas-dev
have_pc check     || need check
have_pc ncursesw  || need libncurses-dev
command -v gnuplot >/dev/null 2>&1    || need gnuplot-nox
command -v pdftoppm >/dev/null 2>&1   || need poppler-utils
[ -f /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf ] || need fonts-dejavu-core
[ -x "$SYSPY" ] || need python3
py_has numpy || need python3-numpy
command -v bwrap >/dev/null 2>&1      || need bubblewrap
for extra in $extras; do
    case "$extra" in
    valgrind) command -v valgrind >/dev/null 2>&1 || need valgrind ;;
    fuzz) { command -v clang >/dev/null 2>&1 && ls /usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a >/dev/null 2>&1; } ||
              { need clang; need libclang-rt-14-dev; } ;;
    mpi) { command -v mpicc >/dev/null 2>&1 && command -v mpirun >/dev/null 2>&1; } ||
              { need openmpi-bin; need libopenmpi-dev; } ;;
    bench) py_has numpy || need python3-numpy ;;
    browser) { command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1; } || need chromium
             [ -f /usr/share/i18n/locales/de_DE ] || need locales
             command -v tmux >/dev/null 2>&1 || need tmux ;;
    tex) # the files the documents read, then each package by its Debian status
         command -v pdflatex >/dev/null 2>&1 || need texlive-latex-base
         have_tex beamer.cls    || need texlive-latex-recommended
         have_tex listings.sty  || need texlive-latex-recommended
         have_tex xspace.sty    || need texlive-latex-base
         have_tex pgfmath.sty   || need texlive-pictures
         have_tex lmodern.sty   || need lmodern
         py_has pdfminer        || need python3-pdfminer
         for p in $TEX; do deb_has "$p" || need "$p"; done ;;
    torch) py_has torch || need python3-torch ;;
    esac
done
if [ -z "$missing" ]; then
    if [ "$say" = 1 ]; then
        n=$(for t in base $extras; do pkgs_of "$t"; done | tr ' ' '\n' | awk 'NF && !seen[$0]++' | wc -l)
        echo "deps: checked $n Debian packages (make check, make reproduce${extras:+, $extras}): none missing"
        echo "deps: the list: sh tools/deps.sh --list; the optional ones too: sh tools/deps.sh --list all"
    fi
    exit 0
fi
echo "deps: missing Debian packages:$missing"
if [ "${DEPS_DRY_RUN:-0}" = 1 ]; then
    echo "deps: dry run: would run apt-get update && apt-get install -y$missing"
    exit 0
fi
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "deps: installing them (apt-get update && apt-get install -y$missing)"
    export DEBIAN_FRONTEND=noninteractive
    # shellcheck disable=SC2086
    apt-get update -qq && apt-get install -y -qq $missing >/dev/null || {
        echo "deps: apt-get failed; run: apt-get update && apt-get install -y$missing" >&2; exit 1; }
    exit 0
fi
echo "deps: please run (as root):  apt-get update && apt-get install -y$missing" >&2
echo "deps: then run this make command again." >&2
exit 1
