#!/bin/sh
# test_torch.sh - the project's head and fused projection against PyTorch
# (Debian's python3-torch; tests/test_torch.py does the work). On a machine
# without torch it says so and passes (make deps / tools/deps.sh torch
# installs it; CI installs it). Run from anywhere: sh tests/test_torch.sh
set -u
cd "$(dirname "$0")/.." || exit 2
BIN=${ATT_BIN_DIR:-${BIN:-bin}}
A="$BIN/attention"
[ -x "$A" ] || { echo "test_torch: $A not found: build it first (make all)" >&2; exit 1; }
# an interpreter with PyTorch and NumPy (a python3 first on PATH may lack
# them while Debian's /usr/bin/python3 has them): tools/python.sh finds it
if ! PY=$(sh tools/python.sh torch numpy 2>/dev/null); then
    echo "test_torch: SKIPPED: no Python 3 with PyTorch (sh tools/deps.sh torch installs python3-torch)"
    exit 0
fi
echo "test_torch: PyTorch from $PY"
exec "$PY" tests/test_torch.py "$A"
