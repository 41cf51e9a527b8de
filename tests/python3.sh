# shellcheck shell=sh
# python3.sh - sourced by the suites that start Python many times: PY is the interpreter
# `python3` on PATH runs, by its own path (sys.executable), so that each start skips a
# launcher in front of it (a pyenv shim, a bash script, costs 0.2 to 0.4 s of CPU per start:
# more than the Python it starts); /usr/bin/python3 when there is no python3 on PATH.
#   . tests/python3.sh
PY=$(python3 -c 'import sys; print(sys.executable)' 2>/dev/null) && [ -x "$PY" ] || PY=/usr/bin/python3
