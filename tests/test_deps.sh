#!/bin/sh
# test_deps.sh - the fresh machine: every package a test or target needs is
# installed by tools/deps.sh, CI installs only through it, and the tests that
# need NumPy/PyTorch find an interpreter that has them (tools/python.sh).
# Nothing is installed: deps.sh runs with DEPS_DRY_RUN=1 and a fake PATH.
# purpose: deps.sh names every package a target needs (fake PATH); CI installs only through it
set -u
cd "$(dirname "$0")/.." || exit 2
T=$(mktemp -d "${TMPDIR:-/tmp}/att-deps.XXXXXX") || exit 2
trap 'rm -rf "$T"' EXIT
npass=0 nfail=0
pass() { npass=$((npass + 1)); echo "ok    $1"; }
fail() { nfail=$((nfail + 1)); echo "FAIL  $1"; shift; for l in "$@"; do echo "      $l"; done; }

# a machine with nothing but a shell and text tools: no compiler, no TeX, no
# Python, and a dpkg that knows no package
F="$T/bin"
mkdir -p "$F"
for t in sh grep awk tr ls id cat sed sort; do ln -s "$(command -v "$t")" "$F/$t"; done
printf '#!/bin/sh\necho "unknown ok not-installed"\n' >"$F/dpkg-query"
chmod +x "$F/dpkg-query"
env -i PATH="$F" DEPS_DRY_RUN=1 DEPS_SYSTEM_PYTHON="$T/no-python" sh tools/deps.sh all >"$T/out" 2>&1
rc=$?
got=$(sed -n 's/^deps: missing Debian packages: *//p' "$T/out" | tr ' ' '\n' | LC_ALL=C sort -u)
want=$(sh tools/deps.sh --list all | LC_ALL=C sort -u)
# packages recognised by a file this machine has (they cannot be faked away)
[ -f /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf ] && want=$(echo "$want" | grep -vx fonts-dejavu-core)
[ -f /usr/share/i18n/locales/de_DE ] && want=$(echo "$want" | grep -vx locales)
if [ "$rc" -eq 0 ] && [ "$got" = "$want" ]; then
    pass "an empty machine: deps.sh all names every package of its list ($(echo "$want" | wc -l) packages)"
else
    fail "an empty machine: deps.sh all" "exit $rc" "missing but not named: $(echo "$want" | grep -vxF "$got" | tr '\n' ' ')" \
        "named but not listed: $(echo "$got" | grep -vxF "$want" | tr '\n' ' ')"
fi
grep -q 'dry run: would run apt-get update && apt-get install -y' "$T/out" && pass "the dry run names the command, installs nothing" ||
    fail "dry run output" "$(cat "$T/out")"

# what the targets need is in the lists
for p in python3-numpy bubblewrap; do
    sh tools/deps.sh --list | grep -qx "$p" && pass "make check's packages include $p (tests/test_attention.sh, the grader's sandbox)" ||
        fail "deps.sh (make check) does not install $p"
done
for p in texlive-latex-base texlive-latex-recommended texlive-pictures lmodern python3-pdfminer; do
    sh tools/deps.sh --list tex | grep -qx "$p" && pass "deps.sh tex installs $p" || fail "deps.sh tex lacks $p"
done
sh tools/deps.sh --list torch | grep -qx python3-torch && pass "deps.sh torch installs python3-torch" ||
    fail "deps.sh torch lacks python3-torch"
sh tools/deps.sh bogus >/dev/null 2>&1; [ $? -eq 2 ] && pass "an unknown target is refused (exit 2)" ||
    fail "deps.sh bogus should exit 2"

# CI installs only through tools/deps.sh
if grep -vE '^\s*#' .ci/run | grep -qE 'apt-get|apt install|pip install'; then
    fail ".ci/run installs packages by itself" "$(grep -nE 'apt-get|apt install|pip install' .ci/run)"
else
    pass ".ci/run has no package list of its own"
fi
grep -qE '^sh tools/deps.sh all$' .ci/run && pass ".ci/run installs with tools/deps.sh all" ||
    fail ".ci/run does not call tools/deps.sh all"
# every deps.sh target a Makefile recipe calls exists
for t in $(grep -o 'tools/deps.sh [a-z]*' Makefile | awk '{ print $2 }' | sort -u); do
    sh tools/deps.sh --list "$t" >/dev/null 2>&1 && pass "make calls deps.sh $t: a known target" ||
        fail "make calls deps.sh $t, which deps.sh does not know"
done

# the interpreter: a python3 first on PATH without NumPy is passed over
P="$T/venv"
mkdir -p "$P"
printf '#!/bin/sh\nexit 1\n' >"$P/python3"
chmod +x "$P/python3"
if [ -x /usr/bin/python3 ] && /usr/bin/python3 -c 'import numpy' 2>/dev/null; then
    got=$(PATH="$P:$PATH" sh tools/python.sh numpy)
    [ "$got" = /usr/bin/python3 ] && pass "python.sh numpy skips a python3 without NumPy first on PATH: $got" ||
        fail "python.sh numpy" "got '$got'"
fi
PATH="$P:/usr/bin:/bin" PYTHON="$P/python3" sh tools/python.sh no_such_module_xyz >/dev/null 2>"$T/err"
[ $? -eq 1 ] && grep -q "python3-no_such_module_xyz" "$T/err" && pass "python.sh names the Debian package when no interpreter has the module" ||
    fail "python.sh with a missing module" "$(cat "$T/err")"
for t in tests/test_attention.sh tests/test_torch.sh; do
    [ -f "$t" ] || continue
    grep -q 'tools/python.sh' "$t" && pass "$t finds its interpreter with tools/python.sh" ||
        fail "$t does not use tools/python.sh (a python3 first on PATH may lack NumPy/PyTorch)"
done

echo "test_deps: $npass passed, $nfail failed"
[ "$nfail" -eq 0 ]
