#!/bin/sh
# screenshot.sh HTML PNG [WIDTH,HEIGHT] - a PNG of a page's default state,
# taken by headless Chromium from file:// (the browser tests/test_browser.sh
# uses). Without Chromium it says so, writes nothing and exits 0, so that
# make reproduce works on a machine without a browser.
set -u
[ $# -ge 2 ] || { echo "usage: $0 HTML PNG [WIDTH,HEIGHT]" >&2; exit 2; }
html=$1; png=$2; size=${3:-1280,800}
CHROMIUM=${CHROMIUM:-}
if [ -z "$CHROMIUM" ]; then
    for c in chromium chromium-browser google-chrome; do
        if command -v "$c" >/dev/null 2>&1; then CHROMIUM=$(command -v "$c"); break; fi
    done
fi
if [ -z "$CHROMIUM" ]; then
    echo "$png: skipped (no chromium to take the screenshot; apt-get install chromium)" >&2
    exit 0
fi
case "$html" in /*) url="file://$html" ;; *) url="file://$(pwd)/$html" ;; esac
prof=$(mktemp -d "${TMPDIR:-/tmp}/att-chromium.XXXXXX") || exit 3
trap 'rm -rf "$prof"' EXIT INT TERM
tmp="$png.tmp.$$.png"
"$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --hide-scrollbars --user-data-dir="$prof" --window-size="$size" \
    --screenshot="$(cd "$(dirname "$tmp")" && pwd)/$(basename "$tmp")" "$url" >/dev/null 2>&1
if [ ! -s "$tmp" ]; then
    rm -f "$tmp"; echo "$png: chromium made no screenshot" >&2; exit 3
fi
mv "$tmp" "$png"
sh "$(dirname "$0")/../tools/reproduce/written.sh" "$png"
