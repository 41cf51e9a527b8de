#!/bin/sh
# python.sh MODULE... - print the path of a Python 3 interpreter that imports
# every MODULE (e.g. numpy, torch), for the tests that compare with NumPy or
# PyTorch. A python3 first on PATH (a virtualenv, conda) may lack both while
# Debian's /usr/bin/python3 has python3-numpy and python3-torch, so the
# candidates are, in order: $PYTHON if set, python3 on PATH, /usr/bin/python3,
# /usr/local/bin/python3. Exit 1 (and a line on stderr naming the candidates
# tried and the Debian packages) when none has them.
set -u
mods=$*
[ -n "$mods" ] || { echo "usage: python.sh MODULE..." >&2; exit 2; }
# each module is looked up (importlib.util.find_spec), not imported: importing torch to ask
# costs about 1 s of CPU, and the caller imports it anyway (a module found but broken fails
# there, with its own error)
probe="import importlib.util, sys; sys.exit(0 if all(importlib.util.find_spec(m) for m in sys.argv[1:]) else 1)"
tried=""
for py in ${PYTHON:-} "$(command -v python3 2>/dev/null)" /usr/bin/python3 /usr/local/bin/python3; do
    [ -n "$py" ] && [ -x "$py" ] || continue
    case " $tried " in *" $py "*) continue ;; esac
    tried="$tried $py"
    # shellcheck disable=SC2086
    if "$py" -c "$probe" $mods >/dev/null 2>&1; then
        echo "$py"
        exit 0
    fi
done
pkgs=$(for m in $mods; do printf ' python3-%s' "$m"; done)
echo "python.sh: no Python 3 with $mods (tried:${tried:- none}); install:$pkgs (sh tools/deps.sh, as root)" >&2
exit 1
