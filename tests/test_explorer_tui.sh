#!/bin/sh
# test_explorer_tui.sh - bin/two_queries_four_keys --interactive in a real
# terminal (a private tmux server, 80 x 24), under a decimal-comma locale
# when one can be had (de_DE.UTF-8, built with localedef if missing):
#   - the screen shows both planes' legends and the outputs as [o1] [o2];
#   - keys typed into it (Tab, arrows, ], +, q) end in the state that
#     --keys with the same letters prints, and the options it prints on exit
#     are the same text (a '.' in every number) and paste back;
#   - it writes no file and creates no folder.
# Prints "skipped" and exits 0 without tmux.
set -u
cd "$(dirname "$0")/.."
BIN=$(pwd)/${ATT_BIN_DIR:-bin}/two_queries_four_keys
[ -x "$BIN" ] || { echo "test_explorer_tui: $BIN is missing (make first)" >&2; exit 1; }
# without a terminal: exit 2, and the message says both ends must be one and
# which is not (under script(1), a pty, each end in turn)
tty_fail=0
tty_check() {   # $1 = expected phrase, $2 = shell command
    msg=$(sh -c "$2" 2>&1 </dev/null)
    case $msg in *"both stdin (the keys) and stdout (the screen)"*"but $1"*) ;;
        *) echo "FAIL --interactive ($2) should say both ends must be a terminal, $1: $msg"; tty_fail=1 ;; esac
}
tty_check "neither is one" "'$BIN' --interactive </dev/null >/dev/null"
if command -v script >/dev/null 2>&1; then
    tty_check "stdout is not one" "script -qec \"'$BIN' --interactive >/dev/null\" /dev/null"
    tty_check "stdin is not one" "script -qec \"'$BIN' --interactive </dev/null\" /dev/null"
fi
[ $tty_fail = 0 ] || exit 1
command -v tmux >/dev/null 2>&1 || { echo "test_explorer_tui: skipped (no tmux; apt-get install tmux)"; exit 0; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/att-tui.XXXXXX") || exit 1
sock="att-tui-$$"
cleanup() { tmux -L "$sock" kill-server >/dev/null 2>&1; rm -rf "$tmp"; }
trap cleanup EXIT INT TERM
# de_DE.UTF-8 (built once into $BUILD/locale/ if the system has none), else C.UTF-8
. tests/comma_locale.sh
LOC=${COMMA_LOC:-C.UTF-8}
fail=0
mkdir "$tmp/cwd"
cd "$tmp/cwd" || exit 1
tmux -L "$sock" -f /dev/null new-session -d -x 80 -y 24 \
    "env TERM=xterm LC_ALL=$LOC ${LOCPATH:+LOCPATH=$LOCPATH} '$BIN' --interactive; echo EXIT=\$?; sleep 60"
wait_for() {   # wait_for TEXT: until the pane shows it (5 s at most)
    n=0
    while [ $n -lt 50 ]; do
        tmux -L "$sock" capture-pane -p -J -S - -t 0 >"$tmp/pane" 2>/dev/null
        grep -qF -- "$1" "$tmp/pane" && return 0
        sleep 0.1; n=$((n + 1))
    done
    return 1
}
wait_for "q :::: query" || { echo "FAIL the screen has no query/key legend:"; cat "$tmp/pane"; fail=1; }
grep -qF "[o] output" "$tmp/pane" || { echo "FAIL the screen has no output legend"; fail=1; }
grep -qF "[o1]" "$tmp/pane" && grep -qF "[o2]" "$tmp/pane" || { echo "FAIL no [o1] [o2] markers"; fail=1; }
# t l k ] + l q, typed as Tab Right Up ] + Right q
for k in Tab Right Up ']' '+' Right; do tmux -L "$sock" send-keys -t 0 "$k"; sleep 0.1; done
tmux -L "$sock" send-keys -t 0 q
wait_for "EXIT=" || { echo "FAIL the explorer did not quit:"; cat "$tmp/pane"; fail=1; }
grep -q "^EXIT=0" "$tmp/pane" || { echo "FAIL exit status: $(grep EXIT= "$tmp/pane")"; fail=1; }
# the "options: ..." lines (wrapped to 80 columns with " \\" continuations) as one line
OPTS_AWK='/^options: /{ on = 1; sub(/^options: /, "") } on { s = $0; more = sub(/ *\\$/, "", s); sub(/^ +/, "", s); out = out (out == "" ? "" : " ") s; if (!more) { print out; exit } }'
got=$(awk "$OPTS_AWK" "$tmp/pane")
want=$(LC_ALL=C "$BIN" --keys 'tlk]+lq' | awk "$OPTS_AWK")
wide=$(awk '/^options: /{ on = 1 } on && length($0) > 79 { print length($0) ": " $0 } on && !/\\$/ { on = 0 }' "$tmp/pane")
[ -z "$wide" ] || { echo "FAIL the options lines do not fit 80 columns: $wide"; fail=1; }
[ -n "$got" ] && [ "$got" = "$want" ] || { echo "FAIL options on exit under $LOC: '$got', --keys gives '$want'"; fail=1; }
# shellcheck disable=SC2086
back=$(LC_ALL=C "$BIN" $got --keys q 2>&1 | awk "$OPTS_AWK")
[ "$back" = "$got" ] || { echo "FAIL the options do not paste back: '$got' -> '$back'"; fail=1; }
[ -z "$(ls -A "$tmp/cwd")" ] || { echo "FAIL --interactive created: $(ls -A "$tmp/cwd")"; fail=1; }
[ $fail = 0 ] && echo "test_explorer_tui: under $LOC, typed keys end where --keys ends; legends and [o] markers shown; no folder; options on exit paste back"
exit $fail
