#!/bin/sh
# test_sizes.sh - sizes that cannot overflow, and inputs that cannot hang (issue 29).
# purpose: every size option of every program refuses huge and boundary values (exit 2, one line naming it); a FIFO never hangs
#
# 1. Every size option of every bin/<ID> (found, not listed: an option whose value 0 is
#    refused as "must be >= 1" before --help is read) gets 2^64-1, 2^63, 2^53+1, 0, -1 and
#    2^32: each must exit 2 with ONE line on stderr that names the option, no sanitizer
#    report, no signal. 2^32 is a legal value of a few options that feed no buffer (time
#    only: TIME_ONLY below, skipped with the reason) and of bin/shapes, whose table is
#    symbolic: it must count 2^32 x 1024 x 768 elements exactly (no wrap-around, no 0).
#    make check gives every option 2^64-1 and 2^32 and all six values to the first size
#    option of each program (every option reads its value through the same parser);
#    make check-all (ATT_CHECK_ALL=1) gives all six to every option.
# 2. Just above the memory budget (--max-memory 1M): a size whose row of doubles needs
#    1 MiB + 8 bytes, and the products T*T, T*vocab, reps*16, T*256 of single programs,
#    each refused naming the option; shapes' element counts beyond 2^64 refused.
# 3. A named pipe with no writer, and one whose writer stalls, is refused within seconds
#    (ATT_TEST_FIFO_WAIT_MS=300); one with a writer that closes is read.
# Run from anywhere: sh tests/test_sizes.sh   (VERBOSE=1 lists passes; BIN=bin-san for ASan)
set -u
cd "$(dirname "$0")/.." || exit 2
BIN=${BIN:-${ATT_BIN_DIR:-bin}}
case "$BIN" in /*) ;; *) BIN="$PWD/$BIN" ;; esac
[ -x "$BIN/attention" ] || { echo "test_sizes: no $BIN/attention: build first (make)" >&2; exit 1; }
T=$(mktemp -d "${TMPDIR:-/tmp}/att-sizes.XXXXXX") || exit 2
trap 'rm -rf "$T"' EXIT
trap 'exit 130' INT TERM
W="$PWD/examples/worked"
WEIGHTS="--wq $W/W_Q.csv --wk $W/W_K.csv --wv $W/W_V.csv"
npass=0 nfail=0
fail() { nfail=$((nfail + 1)); printf 'FAIL  %s\n' "$1"; shift; for l in "$@"; do printf '      %s\n' "$l"; done; }
pass() { npass=$((npass + 1)); [ -z "${VERBOSE:-}" ] || printf 'ok    %s\n' "$1"; }

# options that feed no buffer, only time (a loop count): 2^32 is a legal, long run
TIME_ONLY="any_length:timing-max-T learned_previous_token:steps learned_previous_token:draws two_queries_four_keys:draws"

# refused DESC OPTION CMD...: exit 2, one line of stderr naming --OPTION, no sanitizer report
# (the stderr judged by the shell, not wc, grep and head for each of some 200 cases: a third of
# this suite's CPU was those processes)
refused() {
    desc=$1 opt=$2
    shift 2
    timeout "${CASE_TIMEOUT:-20}" "$@" >"$T/out" 2>"$T/err"
    rc=$?
    # why the stderr is wrong (sanitizer report, not one line, --OPTION not named), or nothing
    # (read by the shell itself: an awk per case was a fifth of this suite's CPU)
    nl=0 san=0 named=0 why=
    while IFS= read -r l || [ -n "$l" ]; do
        nl=$((nl + 1))
        case "$l" in *"runtime error:"*|*Sanitizer*) san=1 ;; esac
        case "$l" in *"--$opt"*) named=1 ;; esac
    done <"$T/err"
    if [ "$san" = 1 ]; then why="sanitizer report"
    elif [ "$nl" -ne 1 ]; then why="$nl lines on stderr, expected one"
    elif [ "$named" = 0 ]; then why="the message does not name --$opt"; fi
    msg() { head -c 300 "$T/err" | tr '\n' ' '; }
    if [ "$rc" -ne 2 ]; then
        fail "$desc" "exit $rc, expected 2" "stderr: $(msg)"
    elif [ -n "$why" ]; then
        fail "$desc" "$why" "stderr: $(msg)"
    elif [ -n "${VERBOSE:-}" ]; then
        pass "$desc: $(msg)"
    else
        pass "$desc"
    fi
}

# the arguments a program needs besides the size (bin/attention: an input)
needs() {
    case "$1" in
    attention) echo "--x $W/X.csv $WEIGHTS --print" ;;
    *) echo "--out $T/o" ;;
    esac
}

[ -z "${VERBOSE:-}" ] || echo "== 1. every size option $(date +%T)"
nopts=0 first=
for b in "$BIN"/*; do
    [ -f "$b" ] && [ -x "$b" ] || continue
    id=$(basename "$b")
    # every option of --help; a size option refuses 0 before --help is read
    for opt in $("$b" --help 2>/dev/null | sed -n 's/^  --\([A-Za-z][A-Za-z-]*\) [A-Z].*/\1/p'); do
        [ "$opt" = max-memory ] && continue
        "$b" --"$opt" 0 --help >/dev/null 2>"$T/err"
        # (its first line, read by the shell: no process per option)
        line=""; IFS= read -r line <"$T/err" || :
        case "$line" in *"--$opt: must be >= 1"*) ;; *) continue ;; esac
        nopts=$((nopts + 1))
        # all six values: make check-all, and the first size option of each program
        vals="18446744073709551615 9223372036854775808 9007199254740993 0 -1"
        [ "${ATT_CHECK_ALL:-0}" = 1 ] || [ "$first" != "$id" ] || vals=18446744073709551615
        first=$id
        # shellcheck disable=SC2046
        for v in $vals; do
            refused "$id --$opt $v" "$opt" "$b" --quiet --"$opt" "$v" $(needs "$id")
        done
        case " $TIME_ONLY " in
        *" $id:$opt "*) pass "$id --$opt 4294967296: skipped (time only, feeds no buffer)"; continue ;;
        esac
        if [ "$id" = shapes ]; then
            # symbolic sizes: 2^32 is legal and counted exactly, or (S is T_q x T_k = 2^64)
            # refused as beyond 2^64 elements, naming the option (--sizes-only: the table
            # alone, without the GPT-2 head runs, 0.2 CPU s each, that test_experiments makes)
            rm -rf "$T/o"
            "$b" --quiet --sizes-only --out "$T/o" --"$opt" 4294967296 >/dev/null 2>"$T/err"
            rc=$?
            if [ "$rc" -eq 2 ] && grep -q -- "--$opt 4294967296.*more than 2^64 elements" "$T/err"; then
                pass "shapes --$opt 4294967296: refused, $(head -c 200 "$T/err")"
            elif [ "$rc" -gt 1 ] || ! [ -f "$T/o/shapes_sizes.csv" ]; then
                fail "shapes --$opt 4294967296" "exit $rc" "$(head -c 200 "$T/err")"
            elif awk -F, 'NR > 1 && ($NF == 0 || $NF ~ /e/) { bad = 1 } END { exit !bad }' "$T/o/shapes_sizes.csv"; then
                fail "shapes --$opt 4294967296: an element count is 0 or inexact" "$(cat "$T/o/shapes_sizes.csv")"
            else
                pass "shapes --$opt 4294967296: exit $rc, every element count exact"
            fi
            continue
        fi
        # shellcheck disable=SC2046
        refused "$id --$opt 4294967296" "$opt" "$b" --quiet --"$opt" 4294967296 $(needs "$id")
    done
done
# the discovery found the options (a --help format change must not empty this test)
if [ "$nopts" -ge 40 ]; then pass "$nopts size options found"; else fail "only $nopts size options found in --help"; fi

[ -z "${VERBOSE:-}" ] || echo "== 2. just above the budget $(date +%T)"
# one row of doubles: 8 x 131073 = 1 MiB + 8 bytes
for b in "$BIN"/*; do
    id=$(basename "$b")
    # (bin/shapes allocates nothing for its sizes, and its GPT-2 cases alone need more than 1M)
    [ "$id" = shapes ] && continue
    for opt in T d dk dv; do
        "$b" --help 2>/dev/null | grep -qE -- "^  --$opt N +(sequence length|model width|query/key width|value width)" || continue
        refused "$id --$opt 131073 --max-memory 1M" "$opt" "$b" --quiet --out "$T/o" --max-memory 1M --"$opt" 131073
    done
done
# products: T*T*8 = 1054152 > 1 MiB at T = 363; T*vocab*8 at vocab 16385; reps*16; the tiled head's T*256
refused "naive_self_attention --T 363 (T*T*8 > 1M)" T "$BIN/naive_self_attention" --quiet --out "$T/o" \
    --max-memory 1M --T 363 --d 2
refused "key_bias --T 363 (T*T*8 > 1M)" T "$BIN/key_bias" --quiet --out "$T/o" --max-memory 1M --T 363
refused "learned_previous_token --vocab 16385 (T*vocab*8 > 1M)" vocab "$BIN/learned_previous_token" --quiet \
    --out "$T/o" --max-memory 1M --vocab 16385
refused "fused_qkv --reps 65537 (reps*16 > 1M)" reps "$BIN/fused_qkv" --quiet --out "$T/o" --max-memory 1M \
    --reps 65537
refused "any_length --max-T 513 (T*256 > 1M)" max-T "$BIN/any_length" --quiet --out "$T/o" --max-memory 1M \
    --max-T 513
refused "shapes --B 2^53 --Tq 2^53 (elements beyond 2^64)" Tq "$BIN/shapes" --quiet --out "$T/o" \
    --B 9007199254740992 --Tq 9007199254740992
refused "learned_previous_token --draws 2^53 --T 4096 (H (T - 1) predictions)" draws \
    "$BIN/learned_previous_token" --quiet --out "$T/o" --draws 9007199254740992 --T 4096

[ -z "${VERBOSE:-}" ] || echo "== 3. named pipes $(date +%T)"
A="$BIN/attention"
mkfifo "$T/nowriter.csv" "$T/stall.csv" "$T/ok.csv"
# seconds a command took (wall), to one decimal
timed() {
    s=$(date +%s.%N); "$@"; r=$?; e=$(date +%s.%N)
    el=$(awk -v a="$s" -v b="$e" 'BEGIN { printf "%.1f", b - a }')
    return $r
}
# shellcheck disable=SC2086
timed refused "attention: a named pipe with no writer" x env ATT_TEST_FIFO_WAIT_MS=300 "$A" --x "$T/nowriter.csv" $WEIGHTS --print
grep -q "a named pipe with no writer" "$T/err" || fail "no writer: the message does not say so" "$(cat "$T/err")"
case "$el" in [0-4].*|[0-4]) pass "no writer: refused in $el s" ;; *) fail "no writer: refused after $el s (more than 5)" ;; esac
# a writer that has sent one row, then stalls: this shell holds the pipe open for writing
# (read-write, so the open does not wait) with the row already in it, so nothing depends
# on when a background writer gets the CPU
exec 3<>"$T/stall.csv"
printf '1,0,0,0\n' >&3
# shellcheck disable=SC2086
timed refused "attention: a named pipe whose writer stalls" x env ATT_TEST_FIFO_WAIT_MS=300 "$A" --x "$T/stall.csv" $WEIGHTS --print
exec 3>&-
grep -q "writer stalls" "$T/err" || fail "stalled writer: the message does not say so" "$(cat "$T/err")"
case "$el" in [0-4].*|[0-4]) pass "stalled writer: refused in $el s" ;; *) fail "stalled writer: refused after $el s" ;; esac
(cat "$W/X.csv" >"$T/ok.csv" &)
# shellcheck disable=SC2086
if timeout 20 "$A" --x "$T/ok.csv" $WEIGHTS --print >/dev/null 2>"$T/err"; then pass "a named pipe with a writer is read"
else fail "a named pipe with a writer" "$(head -c 200 "$T/err")"; fi

echo "test_sizes: $npass passed, $nfail failed"
[ "$nfail" -eq 0 ]
