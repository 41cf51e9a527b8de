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
# Debian's python3 has python3-torch; another python3 first in PATH may not
PY=${PYTHON:-/usr/bin/python3}
[ -x "$PY" ] || PY=python3
if ! "$PY" -c 'import torch, numpy' 2>/dev/null; then
    echo "test_torch: SKIPPED: no PyTorch for $PY (apt-get install python3-torch, or sh tools/deps.sh torch)"
    exit 0
fi
exec "$PY" tests/test_torch.py "$A"
