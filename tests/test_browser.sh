#!/bin/sh
# test_browser.sh - the browser explorer (web/explorer.html, copied to
# results/explorer.html) against bin/two_queries_four_keys, in headless
# Chromium from file://: its default state, drags by pointer events (mouse
# and touch, also at phone width), the terminal explorer's keys, the slider,
# and >= 100 random configurations whose weights, scores and outputs must
# agree with the C program to 1e-6 (tests/browser_explorer.py).
# Prints "skipped" and exits 0 when Chromium or python3 is missing.
# Replay a run: ATT_TEST_SEED=<seed it printed> sh tests/test_browser.sh
# purpose: the browser explorer against the C program; lecture-hall layout, presets, hostile URLs
set -u
cd "$(dirname "$0")/.."
BIN_DIR=${ATT_BIN_DIR:-bin}
CHROMIUM=${CHROMIUM:-}
if [ -z "$CHROMIUM" ]; then
    for c in chromium chromium-browser google-chrome; do
        if command -v "$c" >/dev/null 2>&1; then CHROMIUM=$(command -v "$c"); break; fi
    done
fi
if [ -z "$CHROMIUM" ]; then
    echo "test_browser: skipped (no chromium; apt-get install chromium, or set CHROMIUM=/path)"
    exit 0
fi
if ! command -v python3 >/dev/null 2>&1; then
    echo "test_browser: skipped (no python3)"
    exit 0
fi
if [ ! -x "$BIN_DIR/two_queries_four_keys" ]; then
    echo "test_browser: $BIN_DIR/two_queries_four_keys is missing (make first)" >&2
    exit 1
fi
exec python3 tests/browser_explorer.py --bin "$BIN_DIR/two_queries_four_keys" \
    --html web/explorer.html --chromium "$CHROMIUM" --cases "${ATT_BROWSER_CASES:-120}" \
    --seed "${ATT_TEST_SEED:-20261201}"
