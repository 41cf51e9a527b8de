#!/bin/sh
# test_tqfk_locale.sh - the explorer's printout under a decimal-comma locale.
# The explorer sets the terminal's locale (setlocale(LC_ALL, "")); the
# options it prints must still paste back to the same state. Builds
# de_DE.UTF-8 with localedef into a temporary LOCPATH when the system has no
# decimal-comma locale, then, under it:
#   - the control: printf writes 0.5 as "0,5";
#   - bin/two_queries_four_keys --keys ... prints the same text as under C;
#   - its options line, pasted back (under de_DE), rebuilds the same state;
#   - build/tests/test_tqfk (the formatter's property test) passes.
# Prints "skipped" and exits 0 without localedef and the de_DE source.
set -u
cd "$(dirname "$0")/.."
BIN=${ATT_BIN_DIR:-bin}/two_queries_four_keys
[ -x "$BIN" ] || { echo "test_tqfk_locale: $BIN is missing (make first)" >&2; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/att-locale.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
# de_DE.UTF-8, built once into $BUILD/locale/ if the system has none
. tests/comma_locale.sh
LOC=$COMMA_LOC
if [ -z "$LOC" ]; then
    if ! command -v localedef >/dev/null 2>&1 || [ ! -f /usr/share/i18n/locales/de_DE ]; then
        echo "test_tqfk_locale: skipped (no decimal-comma locale and no localedef/de_DE source: apt-get install locales)"
        exit 0
    fi
    LOC=de_DE.UTF-8    # localedef is there, yet no "0,5": the control below fails
fi
fail=0
ctl=$(env LC_ALL=$LOC printf '%.1f' 0.5)
[ "$ctl" = "0,5" ] || { echo "FAIL control: $LOC writes 0.5 as '$ctl', not '0,5'"; exit 1; }
keys='tl-k]]ttttttlj+jTTh'
LC_ALL=$LOC "$BIN" --q1 0.1,0.5 --keys "$keys" >"$tmp/de.txt" || fail=1
LC_ALL=C "$BIN" --q1 0.1,0.5 --keys "$keys" >"$tmp/c.txt" || fail=1
if ! cmp -s "$tmp/de.txt" "$tmp/c.txt"; then
    echo "FAIL the printout differs under $LOC:"; diff "$tmp/c.txt" "$tmp/de.txt"; fail=1
fi
# the "options: ..." lines (wrapped to 80 columns with " \\" continuations) as one line
OPTS_AWK='/^options: /{ on = 1; sub(/^options: /, "") } on { s = $0; more = sub(/ *\\$/, "", s); sub(/^ +/, "", s); out = out (out == "" ? "" : " ") s; if (!more) { print out; exit } }'
opts=$(awk "$OPTS_AWK" "$tmp/de.txt")
# shellcheck disable=SC2086
LC_ALL=$LOC "$BIN" $opts --keys q >"$tmp/back.txt" || { echo "FAIL the options do not paste back: $opts"; fail=1; }
back=$(awk "$OPTS_AWK" "$tmp/back.txt")
[ "$back" = "$opts" ] || { echo "FAIL pasted back: '$opts' -> '$back'"; fail=1; }
for t in build/tests/test_tqfk; do
    [ -x "$t" ] || continue
    LC_ALL=$LOC "$t" >"$tmp/unit.txt" 2>&1 || { cat "$tmp/unit.txt"; fail=1; }
    grep -q "no decimal-comma locale" "$tmp/unit.txt" && { echo "FAIL $t did not find $LOC"; fail=1; }
done
[ $fail = 0 ] && echo "test_tqfk_locale: under $LOC the explorer prints what it prints under C, and its options paste back: $opts"
exit $fail
