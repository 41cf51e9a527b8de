#!/bin/sh
# test_bad_inputs.sh - the table of bad inputs, run against the real binaries.
# purpose: bad options and inputs; a run leaves its folder exactly as before on any failure
#
# Every case runs a binary of $BIN (default bin/) and checks
#   - the exit code (2 usage/input, 3 runtime; never a crash or an abort),
#   - that stderr names the problem (an extended regex, case-insensitive),
#   - that the --out directory of earlier results is unchanged (checksums of
#     every file in it, hidden files too, before and after).
# Sections:
#   1. options, for EVERY bin/<ID>: bad numbers, zero and overflowing sizes,
#      nan, unknown options, missing values, --out that is a file, lies under
#      a file, or cannot be created; sizes beyond --max-memory;
#   2. bin/attention's input files: missing, a directory, empty, only comments,
#      ragged, non-numeric, NaN/inf, overflow, long lines, binary, too large,
#      shapes that do not conform, bad option combinations;
#   3. the softmax policy on extreme scores, through bin/attention;
#   4. a run's files appear together or not at all, for every binary: after
#      SIGINT/SIGTERM/SIGHUP/SIGKILL mid-run (4a), a --max-memory refusal
#      (4b), a full disk (4c, a tmpfs in a private mount namespace) and on a
#      filesystem without O_TMPFILE (4d, an LD_PRELOAD shim), and with a
#      directory where a file goes (4e), the whole --out folder is exactly
#      as before: every prior file byte-identical, no new file, no temporary;
#   7. --draws 1 and 2 on every experiment: INCONCLUSIVE rows or a usage
#      error before writing, never exit 3;
#   8. --max-memory counts the Monte Carlo plan (huge --draws, --d, --dk:
#      exit 2 naming the budget), --draws <= 2^53, provenance from inside
#      another git repository, hexadecimal options, a repeated option, a
#      named pipe with no writer, the CSV reader's fixed cap;
#   5. GSL_RNG_TYPE / GSL_RNG_SEED are never read;
#   6. results/ of the source tree is unchanged by all of the above.
# Run from anywhere: sh tests/test_bad_inputs.sh   (VERBOSE=1 lists passes)
set -u
cd "$(dirname "$0")/.." || exit 2
BIN=${BIN:-bin}
case "$BIN" in /*) ;; *) BIN="$PWD/$BIN" ;; esac
W="$PWD/examples/worked"

ids=""
for b in "$BIN"/*; do [ -f "$b" ] && [ -x "$b" ] && ids="$ids $(basename "$b")"; done
if [ -z "$ids" ] || [ ! -x "$BIN/attention" ]; then
    echo "test_bad_inputs: no binaries in $BIN/ (or no $BIN/attention): build them first" >&2
    exit 1
fi

T=$(mktemp -d "${TMPDIR:-/tmp}/att-bad.XXXXXX") || exit 2
trap 'rm -rf "$T"' EXIT
trap 'exit 130' INT TERM
npass=0
nfail=0

fail() {
    nfail=$((nfail + 1))
    printf 'FAIL  %s\n' "$1"
    shift
    for line in "$@"; do printf '      %s\n' "$line"; done
}
pass() {
    npass=$((npass + 1))
    [ -z "${VERBOSE:-}" ] || printf 'ok    %s\n' "$1"
}

# Every entry of a folder (hidden ones and folders too) with the bytes of
# every file: two folders with the same state hold the same files.
folder_state() {
    (cd "$1" && find . -mindepth 1 \( -type f -exec sha256sum {} + \) -o -printf 'entry %y %p\n' | LC_ALL=C sort)
}
# A checksum of a directory (its folder_state) or of a file.
tree_sum() {
    if [ -d "$1" ]; then
        folder_state "$1" | sha256sum
    elif [ -e "$1" ]; then
        sha256sum <"$1"
    else
        echo absent
    fi
}

# expect DESC CODE REGEX WATCH CMD...: CMD exits CODE, its stderr matches
# REGEX, holds no sanitizer report, and WATCH (a directory or file) is unchanged.
expect() {
    desc=$1 code=$2 pat=$3 watch=$4
    shift 4
    before=$(tree_sum "$watch")
    timeout 60 "$@" >"$T/stdout" 2>"$T/stderr"
    rc=$?
    after=$(tree_sum "$watch")
    msg=$(head -c 300 "$T/stderr" | tr '\n' ' ')
    if [ "$rc" -ne "$code" ]; then
        fail "$desc" "exit $rc, expected $code" "stderr: $msg"
    elif [ -n "$pat" ] && ! grep -qiE -- "$pat" "$T/stderr"; then
        fail "$desc" "the message does not match /$pat/" "stderr: $msg"
    elif grep -qE 'runtime error:|Sanitizer' "$T/stderr"; then
        fail "$desc" "sanitizer report" "stderr: $msg"
    elif grep -qF '(null)' "$T/stderr"; then
        fail "$desc" "the message says '(null)' where a name belongs" "stderr: $msg"
    elif [ "$before" != "$after" ]; then
        fail "$desc" "$watch changed"
    else
        pass "$desc"
    fi
}

results_before=$(tree_sum results)

# Earlier results that no failing run may touch: a file of each name the
# binaries write, with content no run would produce.
R="$T/results"
mkdir -p "$R"
for id in $ids; do
    printf 'earlier,result\n1,2\n' >"$R/$id.csv"
    printf 'id,verdict\n%s,PASS\n' "$id" >"$R/$id.verdicts.csv"
    printf 'earlier provenance\n' >"$R/$id.meta"
done
for m in Q K V S A O dX dW_Q dW_K dW_V db_Q db_K db_V; do printf '# earlier\n1\n' >"$R/$m.csv"; done
F="$T/afile"
printf 'a file, not a directory\n' >"$F"

[ -z "${VERBOSE:-}" ] || echo "== section 1 $(date +%T)"
# ---- 1. options, for every binary ------------------------------------------

# name|regex|arguments after --out $R (word-split; no spaces inside an argument)
cat >"$T/option_cases" <<'EOF'
seed-garbage|--seed|--seed 12abc
seed-negative|--seed|--seed -1
seed-plus|--seed|--seed +5
seed-overflow|--seed|--seed 18446744073709551616
seed-float|--seed|--seed 1.5
draws-zero|--draws|--draws 0
draws-exponent|--draws|--draws 1e3
draws-negative|--draws|--draws -100
T-zero|--T|--T 0
T-overflow|--T|--T 99999999999999999999
T-nan|--T|--T nan
d-empty|--d|--d=
scale-nan|--scale|--scale nan
scale-inf|--scale|--scale inf
scale-overflow|--scale|--scale 1e400
scale-garbage|--scale|--scale 1.0x
rng-unknown|--rng|--rng bogus
max-memory-garbage|--max-memory|--max-memory 12Q
max-memory-zero|--max-memory|--max-memory 0
max-memory-overflow|--max-memory|--max-memory 99999999999999999999G
unknown-option|--bogus-option|--bogus-option
misspelt-option|did you mean --quiet\?|--quiett
misspelt-option-prefix|did you mean --max-memory\?|--max-mem 64M
flag-with-value|--quiet|--quiet=yes
stray-argument|stray-argument|stray-argument
single-dash|-seed|-seed 1
missing-value|--seed|--seed
EOF

for id in $ids; do
    b="$BIN/$id"
    while IFS='|' read -r name pat args; do
        # shellcheck disable=SC2086
        expect "$id: $name ($args)" 2 "$pat" "$R" "$b" --out "$R" $args
    done <"$T/option_cases"
    expect "$id: --out is a file" 2 "not a directory" "$F" "$b" --out "$F"
    expect "$id: --out under a file" 2 "$F/sub" "$F" "$b" --out "$F/sub"
    expect "$id: --out cannot be created" 2 "/proc/att-no-such/out" "$R" "$b" --out /proc/att-no-such/out
    expect "$id: --out empty" 2 "--out" "$R" "$b" --out=
    expect "$id: --help" 0 "" "$R" "$b" --help
    grep -q -- '--out' "$T/stdout" || fail "$id: --help does not document --out"
    if grep -q -- '--draws N' "$T/stdout"; then
        expect "$id: misspelt --drwas 10" 2 "did you mean --draws\?" "$R" "$b" --out "$R" --drwas 10
    fi
    # "--draws N ... (default N)" is a promise: every point of the committed full run has N
    # draws (a program whose counts vary says what its default does instead, opts.h)
    n=$(sed -n 's/^  --draws N .*(default \([0-9]*\))$/\1/p' "$T/stdout")
    if [ -n "$n" ] && [ -f "results/$id.csv" ]; then
        other=$(awk -F, -v n="$n" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "draws") c = i; next }
                c && $c != n { print $c; exit }' "results/$id.csv")
        if [ -z "$other" ]; then pass "$id: --help's default of --draws, $n, is every point's count"
        else fail "$id: --help says --draws defaults to $n, but results/$id.csv has a point with $other draws"; fi
    fi

    # --help: each sweep option reads plainly, offers a list exactly when the
    # program takes one (--X 2,4 is refused before --help otherwise), and names
    # the file that declares the default grid
    "$b" --help >"$T/help" 2>/dev/null
    sweep=0
    for ax in "T|sequence length|T" "d|model width|d" "dk|query/key width|d_k" "dv|value width|d_v"; do
        o=${ax%%|*} rest=${ax#*|}; noun=${rest%|*} sym=${rest#*|}
        grep -qE -- "^  --$o N +$noun" "$T/help" || continue
        # a program's own option of that name (shapes: --d N ... (default 768)) states its default
        grep -qE -- "^  --$o N .*\\(default [^)]+\\)\$" "$T/help" && continue
        sweep=1
        if "$b" --"$o" 2,4 --help >/dev/null 2>&1; then
            line="--$o N +$noun\\(s\\) $sym: one value, a list 4,8,16 or a range 2\\.\\.256 \\(doubling\\)\$"
        else
            line="--$o N +$noun $sym: one value\$"
        fi
        if grep -qE -- "$line" "$T/help"; then pass "$id: --help --$o reads plainly"
        else fail "$id: --help --$o" "expected /$line/" "got: $(grep -- "--$o N" "$T/help")"; fi
    done
    if [ $sweep = 1 ]; then
        if grep -qE "(none given: the full sweep, as declared in|not given: the value set in) experiments/$id\\.c" "$T/help" &&
            [ -f "experiments/$id.c" ]; then
            pass "$id: --help names experiments/$id.c for the default sweep"
        else
            fail "$id: --help does not name experiments/$id.c (the default sweep)"
        fi
    fi

    # a size beyond --max-memory is refused before allocating, or refused as
    # outside the option's range (naming --T), or, if the experiment needs no
    # memory for it, accepted: never a crash or exit 3
    if "$b" --help | grep -q -- '--T N'; then
        mkdir -p "$T/mem-$id"
        timeout 60 "$b" --out "$T/mem-$id" --quiet --T 99999999999 --max-memory 64M \
            >"$T/stdout" 2>"$T/stderr"
        rc=$?
        if [ "$rc" -eq 2 ] && grep -qiE 'memory|overflow|too large|--T 99999999999:' "$T/stderr"; then
            pass "$id: --T 99999999999 --max-memory 64M refused"
        elif [ "$rc" -le 1 ]; then
            pass "$id: --T 99999999999 runs within 64M"
        else
            fail "$id: --T 99999999999 --max-memory 64M" "exit $rc" \
                "stderr: $(head -c 300 "$T/stderr" | tr '\n' ' ')"
        fi
    fi
done

[ -z "${VERBOSE:-}" ] || echo "== section 2 $(date +%T)"
# ---- 2. bin/attention's input files ----------------------------------------

A="$BIN/attention"
I="$T/in"
mkdir -p "$I"
printf '' >"$I/empty.csv"
printf '# only a comment\n\n' >"$I/comments.csv"
printf '1,0,0,0\n0,1,0\n0,0,1,0\n' >"$I/ragged.csv"
printf '1,0,0,0\n0,1,abc,1\n0,0,1,0\n' >"$I/nonnum.csv"
printf '1,0,0,0\n0,1,nan,1\n0,0,1,0\n' >"$I/nan.csv"
printf '1,0,0,0\n0,1,0,inf\n0,0,1,0\n' >"$I/inf.csv"
printf '1,0,0,0\n0,1,0,1e999\n0,0,1,0\n' >"$I/overflow.csv"
printf '1,0,,0\n' >"$I/emptycell.csv"
printf '1;0;0;0\n' >"$I/semicolon.csv"
printf '1,0,0,0\n0,1,0\0001\n' >"$I/nul.csv"
printf '\377\376\061\000,\000\060\000\n\000' >"$I/utf16.csv"
printf '\037\213\010\000\000\000\000\000' >"$I/gzip.csv"
head -c 1100000 /dev/zero | tr '\0' '7' >"$I/longline.csv"
: >"$I/huge.csv"
truncate -s 65M "$I/huge.csv"
printf '1,0\n0,1\n' >"$I/X_d2.csv"
printf '0,1,2\n3,4,5\n6,7,8\n9,10,11\n' >"$I/W_dk3.csv"
printf '0\n1\n2\n3\n' >"$I/W_dk1.csv"
printf '1,2,3\n' >"$I/b3.csv"
printf '1,2\n3,4\n' >"$I/b2x2.csv"
printf '1,2\n' >"$I/G_1x2.csv"
awk 'BEGIN { for (i = 0; i < 5000; i++) print i % 7 }' >"$I/X_long.csv"
printf '1\n' >"$I/W_1x1.csv"
cp "$W/X.csv" "$I/X.csv"
mkdir -p "$I/adir"

base="--wq $W/W_Q.csv --wk $W/W_K.csv --wv $W/W_V.csv"
# name|code|regex|arguments after --out $R (the base weights are added unless
# the arguments give their own --wq)
cat >"$T/file_cases" <<EOF
missing file|2|--x $I/nope.csv: cannot open: no such file|--x $I/nope.csv
a directory|2|is a directory|--x $I/adir
empty file|2|empty.csv: the file is empty|--x $I/empty.csv
only comments|2|comments.csv: no numbers|--x $I/comments.csv
ragged rows|2|ragged.csv, line 2: 3 columns.*ragged|--x $I/ragged.csv
non-numeric cell|2|nonnum.csv, line 2, column 3: 'abc' is not a number|--x $I/nonnum.csv
NaN value|2|nan.csv, line 2, column 3: 'nan' is not a finite number|--x $I/nan.csv
infinite value|2|inf.csv, line 2, column 4: 'inf' is not a finite number|--x $I/inf.csv
overflowing value|2|overflow.csv, line 2, column 4: '1e999' is too large|--x $I/overflow.csv
empty cell|2|emptycell.csv, line 1, column 3: empty cell|--x $I/emptycell.csv
semicolons|2|semicolon.csv, line 1, column 1: .* is not a number|--x $I/semicolon.csv
NUL byte|2|nul.csv, line 2, byte 6: a NUL byte: this is not a text file|--x $I/nul.csv
UTF-16 file|2|utf16.csv, line 1, byte [0-9]+: .*not a text file|--x $I/utf16.csv
gzip file|2|gzip.csv, line 1, byte 4: a NUL byte: this is not a text file|--x $I/gzip.csv
an executable|2|not a text file|--x $A
very long line|2|longline.csv, line 1: the line is longer than the limit of 1048576 bytes|--x $I/longline.csv
file over the size limit|2|huge.csv: 68157440 bytes, more than the limit of 67108864|--x $I/huge.csv
bad weight file|2|--wq .*nonnum.csv, line 2, column 3|--x $I/X.csv --wq $I/nonnum.csv --wk $W/W_K.csv --wv $W/W_V.csv
W_Q rows != d|2|shapes do not conform: X \(--x .*X_d2.csv\) is 2 x 2 and W_Q \(--wq .*\) is 4 x 2|--x $I/X_d2.csv
W_K columns != W_Q columns|2|W_Q \(--wq .*\) is 4 x 2 and W_K \(--wk .*\) is 4 x 3.*d_k = 2|--x $I/X.csv --wq $W/W_Q.csv --wk $I/W_dk3.csv --wv $W/W_V.csv
W_V rows != d|2|X \(--x .*\) is 3 x 4 and W_V \(--wv .*\) is 2 x 2|--x $I/X.csv --wq $W/W_Q.csv --wk $W/W_K.csv --wv $I/X_d2.csv
X_q and X_kv widths|2|X_q \(--xq .*\) is 3 x 4 and X_kv \(--xkv .*\) is 2 x 2|--xq $I/X.csv --xkv $I/X_d2.csv
bias of the wrong length|2|the bias \(--bq .*b3.csv\) is 1 x 3 and W_Q is 4 x 2|--x $I/X.csv --bq $I/b3.csv
bias of two rows|2|the bias \(--bv .*b2x2.csv\) is 2 x 2|--x $I/X.csv --bv $I/b2x2.csv
gradient of the wrong shape|2|G \(--grad .*G_1x2.csv\) is 1 x 2 and O = A V is 3 x 2|--x $I/X.csv --grad $I/G_1x2.csv
RoPE with odd d_k|2|d_k must be even|--x $I/X.csv --wq $I/W_dk1.csv --wk $I/W_dk1.csv --wv $W/W_V.csv --rope
tokens count|2|--tokens gives 2 names, but X .* has 3 rows|--x $I/X.csv --tokens the,cat --print
empty token|2|--tokens: name 2 is empty|--x $I/X.csv --tokens the,,sat --print
key-tokens without cross|2|--key-tokens|--x $I/X.csv --key-tokens a,b,c
both --x and --xq|2|not both|--x $I/X.csv --xq $I/X.csv --xkv $I/X.csv
--xq without --xkv|2|--xkv is missing|--xq $I/X.csv
no input|2|no input|--print
missing --wv|2|--wv is missing|--x $I/X.csv --wq $W/W_Q.csv --wk $W/W_K.csv
rope base zero|2|--rope-base|--x $I/X.csv --rope --rope-base 0
memory of S beyond --max-memory|2|needs .* --max-memory|--x $I/X_long.csv --wq $I/W_1x1.csv --wk $I/W_1x1.csv --wv $I/W_1x1.csv --max-memory 64M
inputs beyond --max-memory|2|more than [0-9]+ numbers, the limit|--x $I/X.csv --max-memory 64
EOF
while IFS='|' read -r name code pat args; do
    case "$args" in *--wq*) extra="" ;; *) extra=$base ;; esac
    # shellcheck disable=SC2086
    expect "attention: $name" "$code" "$pat" "$R" "$A" --out "$R" $args $extra
done <"$T/file_cases"
if [ "$(id -u)" -ne 0 ]; then
    cp "$W/X.csv" "$I/noread.csv" && chmod 000 "$I/noread.csv"
    # shellcheck disable=SC2086
    expect "attention: unreadable file" 2 "noread.csv: cannot open: permission denied" "$R" \
        "$A" --out "$R" --x "$I/noread.csv" $base
fi
# without --out or --print there is nothing to do (and nothing is created)
mkdir -p "$T/cwd"
# shellcheck disable=SC2086
expect "attention: neither --out nor --print" 2 "nothing to do" "$T/cwd" \
    sh -c 'cd "$1" && shift && exec "$@"' sh "$T/cwd" "$A" --x "$W/X.csv" $base
# --print alone writes nothing anywhere
# shellcheck disable=SC2086
expect "attention: --print writes no file" 0 "" "$T/cwd" \
    sh -c 'cd "$1" && shift && exec "$@"' sh "$T/cwd" "$A" --x "$W/X.csv" $base --print

[ -z "${VERBOSE:-}" ] || echo "== section 3 $(date +%T)"
# ---- 3. the softmax policy on extreme scores ---------------------------------

# A.csv row i (1-based, after the comment line), as the numbers printed with %.6g
arow() { awk -F, -v r="$2" '!/^#/ { n++; if (n == r) { for (i = 1; i <= NF; i++) printf "%s%.6g", (i > 1 ? " " : ""), $i; print "" } }' "$1/A.csv"; }

# the worked example at scale c: S rows "the" (0,0,0), "cat" (3c,0,0), "sat" (0,3c,0)
for c in 1e300 1e308 -1e300 -1e308; do
    o="$T/extreme$c"
    # shellcheck disable=SC2086
    if "$A" --x "$W/X.csv" $base --scale "$c" --grad "$W/G.csv" --out "$o" --quiet 2>"$T/stderr"; then
        case "$c" in -*) want2="0 0.5 0.5" want3="0.5 0 0.5" ;; *) want2="1 0 0" want3="0 1 0" ;; esac
        got1=$(arow "$o" 1) got2=$(arow "$o" 2) got3=$(arow "$o" 3)
        if [ "$got1" = "0.333333 0.333333 0.333333" ] && [ "$got2" = "$want2" ] && [ "$got3" = "$want3" ]; then
            pass "attention: softmax at scale $c"
        else
            fail "attention: softmax at scale $c" "A rows: '$got1' '$got2' '$got3', want uniform, '$want2', '$want3'"
        fi
    else
        fail "attention: softmax at scale $c" "exit $?: $(head -c 300 "$T/stderr")"
    fi
done
# S.csv keeps the overflowed score as inf at scale 1e308
grep -q '^inf,0,0$' "$T/extreme1e308/S.csv" && pass "attention: S.csv holds inf" ||
    fail "attention: S.csv at scale 1e308 should hold the row inf,0,0"
# one token whose only score overflows to -inf: a fully masked row, exit 2
printf '1e200\n' >"$I/big.csv"
printf -- '-1e200\n' >"$I/nbig.csv"
printf '1\n' >"$I/one.csv"
expect "attention: a row of only -inf" 2 "fully masked" "$R" "$A" --out "$R" \
    --x "$I/one.csv" --wq "$I/big.csv" --wk "$I/nbig.csv" --wv "$I/one.csv"
# +inf on two keys: they share the weight
printf '1\n1\n' >"$I/two.csv"
if "$A" --x "$I/two.csv" --wq "$I/big.csv" --wk "$I/big.csv" --wv "$I/one.csv" --out "$T/inf2" --quiet 2>/dev/null &&
    [ "$(arow "$T/inf2" 1)" = "0.5 0.5" ]; then
    pass "attention: two +inf scores share the row"
else
    fail "attention: two +inf scores share the row" "A row 1: '$(arow "$T/inf2" 1)'"
fi
# Q itself overflows: a runtime error that names Q, exit 3
expect "attention: Q overflows" 3 "Q \(1 x 1\) has the non-finite entry inf" "$R" "$A" --out "$R" \
    --x "$I/big.csv" --wq "$I/big.csv" --wk "$I/one.csv" --wv "$I/one.csv"

# ---- 4. a run's files appear together or not at all --------------------------
# Every table below checks the WHOLE --out folder (folder_state: every entry,
# hidden ones and folders too, and the bytes of every file): after a failed
# or interrupted run it must be exactly the earlier folder (every prior file
# byte-identical, no new file, no temporary, no run folder .att-run.PID).

# the small arguments that make a run of each experiment take well under 5 s
small_args() {
    case "$1" in
    # (no timing: its times differ from run to run, and a run signalled in its release is
    # compared byte for byte with an uninterrupted one)
    any_length) echo "--max-T 500 --timing-max-T 200 --max-plain-T 200 --timing-budget 0" ;;
    fused_qkv) echo "--no-timing" ;;
    learned_previous_token) echo "--draws 20 --steps 32 --seeds 2" ;;
    naive_self_attention) echo "--draws 20 --T 4 --d 8" ;;
    *) "$BIN/$1" --help 2>/dev/null | grep -q -- '--draws N' && echo "--draws 20" ;;
    esac
}
# a folder of earlier files for experiment ID (its own names and a stranger)
prior_folder() {
    rm -rf "$2"
    mkdir -p "$2"
    if [ "$1" = attention ]; then
        for m in Q K V S A O; do printf '# earlier\n1\n' >"$2/$m.csv"; done
        printf 'earlier provenance\n' >"$2/attention.meta"
    else
        cp "$R/$1.csv" "$R/$1.verdicts.csv" "$R/$1.meta" "$2/"
    fi
    printf 'a file of the user\n' >"$2/notes.txt"
}
# state_check DESC DIR WANT_STATE_FILE: DIR is exactly as the state says
state_check() {
    folder_state "$2" >"$T/state.now"
    if cmp -s "$3" "$T/state.now"; then return 0; fi
    fail "$1" "the folder changed:" "$(diff "$3" "$T/state.now" | grep '^[<>]' | head -6 | tr '\n' ' ')"
    return 1
}
attention_small="--x $W/X.csv --wq $W/W_Q.csv --wk $W/W_K.csv --wv $W/W_V.csv --grad $W/G.csv --quiet"

[ -z "${VERBOSE:-}" ] || echo "== section 4a (signals) $(date +%T)"
# ---- 4a. SIGINT, SIGTERM, SIGHUP, SIGKILL in the middle of a run --------------

# inputs big enough that writing S.csv and A.csv takes a while
awk 'BEGIN { srand(7); for (i = 0; i < 1000; i++) { for (j = 0; j < 8; j++) printf "%s%.6f", (j ? "," : ""), rand() - 0.5; print "" } }' >"$I/Xbig.csv"
awk 'BEGIN { srand(8); for (i = 0; i < 8; i++) { for (j = 0; j < 8; j++) printf "%s%.6f", (j ? "," : ""), rand() - 0.5; print "" } }' >"$I/W8.csv"
big="--x $I/Xbig.csv --wq $I/W8.csv --wk $I/W8.csv --wv $I/W8.csv --quiet"
# the old results (scale 1) and the time of a complete new run (scale 0.5)
# shellcheck disable=SC2086
"$A" $big --out "$T/old" || fail "attention: big reference run"
folder_state "$T/old" >"$T/old.state"
t0=$(date +%s%N)
# shellcheck disable=SC2086
"$A" $big --scale 0.5 --out "$T/new" || fail "attention: big reference run"
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
folder_state "$T/new" >"$T/new.state"

# meta_now DIR: every .meta of DIR without its timing_spent_cpu line (the one that
# differs between two runs), each line prefixed by its file's name
meta_now() {
    for m in "$1"/*.meta; do
        [ -f "$m" ] && grep -v '^timing_spent_cpu:' "$m" | sed "s|^|${m##*/}: |"
    done
    return 0
}
# without_times STATE META: STATE (folder_state's lines) with the hashes of timing CSVs and
# .meta files taken out, then META (meta_now's lines): the comparison of two runs' files
without_times() {
    sed -E 's/^[0-9a-f]{64}  (.*(_timing\.csv|\.meta))$/run-dependent  \1/' "$1" | LC_ALL=C sort && cat "$2"
}
# sig_run DESC SIGNAL DELAY_S DIR STATE CMD...: CMD killed by SIGNAL after
# DELAY_S leaves DIR as STATE says; if CMD finished first, says so (pass)
sig_run() {
    desc=$1 sig=$2 delay=$3 dir=$4 state=$5
    shift 5
    # default signal dispositions, as in a terminal (a background job of a
    # script would otherwise ignore SIGINT, and a run under nohup SIGHUP)
    env --default-signal=INT,HUP,TERM "$@" >/dev/null 2>"$T/sig.err" &
    pid=$!
    sleep "$delay"
    early=0
    if ! kill -0 "$pid" 2>/dev/null; then
        wait "$pid"
        rc=$?
        early=$rc
        if [ "$rc" -ge 2 ]; then
            # refused (e.g. the draws exceed --max-memory): nothing written
            state_check "$desc (refused, exit $rc)" "$dir" "$state" &&
                pass "$desc: refused at once (exit $rc), the folder exactly as before"
        else
            pass "$desc: finished within $delay s (exit $rc): nothing to interrupt"
        fi
        return
    fi
    kill -s "$sig" "$pid"
    wait "$pid" 2>/dev/null
    rc=$?
    if [ "$rc" -ge 2 ] && [ "$rc" -lt 128 ]; then
        # it exited on its own as the signal came (a refusal ending near DELAY_S, kill -0
        # still seeing it as it tore down): refused, so nothing may be written
        early=$rc
        state_check "$desc (refused as signalled, exit $rc)" "$dir" "$state" &&
            pass "$desc: refused as the signal came (exit $rc), the folder exactly as before"
        return
    fi
    case "$sig" in HUP) want=129 ;; INT) want=130 ;; KILL) want=137 ;; TERM) want=143 ;; esac
    if [ "$sig" = KILL ] && [ -n "$(find "$dir" -name '.att-run.*' -o -name '.*.tmp.*')" ]; then
        # killed between the links and the renames of the release, or without
        # O_TMPFILE: the run folder is left; the next run writing there removes it
        "$@" >/dev/null 2>&1
        if [ -n "$(find "$dir" -name '.att-run.*' -o -name '.*.tmp.*')" ]; then
            fail "$desc" "the next run did not remove the temporaries: $(find "$dir" -name '.att-run.*' -o -name '.*.tmp.*')"
        else
            pass "$desc: killed in the release; the next run removed its run folder"
        fi
        return
    fi
    # exit 0 (or 1, some verdict FAIL: a result): the signal came as the run ended
    # (after its release, while it exited)
    if [ "$rc" -ne "$want" ] && [ "$rc" -gt 1 ]; then
        fail "$desc" "exit $rc, expected $want (killed by SIG$sig)" "$(head -c 200 "$T/sig.err")"
        return
    fi
    folder_state "$dir" >"$T/sig.after"
    if [ "$rc" -eq "$want" ] && cmp -s "$state" "$T/sig.after"; then
        pass "$desc: the folder is exactly as before"
        return
    fi
    if [ "$rc" -le 1 ] && cmp -s "$state" "$T/sig.after"; then
        fail "$desc" "exit $rc, yet the folder is as before: the run wrote nothing"
        return
    fi
    # The signal came during the release (deferred until the renames ended) or after it
    # (exit 130 or so, or 0 if the run was already ending): then the folder must hold the
    # whole new set, exactly what the same run, uninterrupted, leaves there (its .meta names
    # the same command and folder); a mix of old and new fails, and so does an exit 0 that
    # left the old folder.
    # (times differ from run to run: a timing CSV is compared by name, a .meta without its
    # CPU-spent line)
    meta_now "$dir" >"$T/sig.after.meta"
    timeout 300 "$@" >/dev/null 2>&1
    folder_state "$dir" >"$T/sig.complete"
    meta_now "$dir" >"$T/sig.complete.meta"
    if cmp -s "$T/sig.after" "$T/sig.complete" ||
        { without_times "$T/sig.after" "$T/sig.after.meta" >"$T/sig.after.n" &&
          without_times "$T/sig.complete" "$T/sig.complete.meta" >"$T/sig.complete.n" &&
          cmp -s "$T/sig.after.n" "$T/sig.complete.n"; }; then
        pass "$desc: signalled in or after the release: the whole new set, as an uninterrupted run leaves it"
    else
        fail "$desc" "the folder is neither as before nor the whole new set:" \
            "$(diff "$state" "$T/sig.after" | grep '^[<>]' | head -6 | tr '\n' ' ')"
    fi
}

half=$(awk -v m="$ms" 'BEGIN { printf "%.3f", m / 2000 }')
# a shim that slows every fsync (ATT_SHIM_FSYNC_MS): a run's write phase then
# lasts long enough to be interrupted in the middle
cat >"$T/slowfsync.c" <<'CEOF'
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <time.h>
int fsync(int fd)
{
    const char *m = getenv("ATT_SHIM_FSYNC_MS");
    struct timespec ts = {0, (m ? atol(m) : 0) * 1000000L};
    if (ts.tv_nsec >= 1000000000L) { ts.tv_sec = ts.tv_nsec / 1000000000L; ts.tv_nsec %= 1000000000L; }
    nanosleep(&ts, NULL);
    int (*real)(int) = (int (*)(int))dlsym(RTLD_NEXT, "fsync");
    return real(fd);
}
CEOF
${CC:-cc} -shared -fPIC -O1 -o "$T/slowfsync.so" "$T/slowfsync.c" -ldl 2>/dev/null ||
    fail "section 4a: cannot build the slow-fsync shim"
# under ASan (make sanitize) a preloaded shim comes before the sanitizer's
# runtime, which then refuses to start unless told that is fine
ASANOK="ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"
for sig in INT TERM HUP KILL; do
    D="$T/interrupted-$sig"
    rm -rf "$D"
    cp -a "$T/old" "$D"
    # shellcheck disable=SC2086
    sig_run "attention: SIG$sig at $half s of a ${ms} ms run" "$sig" "$half" "$D" "$T/old.state" \
        "$A" $big --scale 0.5 --out "$D"
done

# experiments: a signal during the computation leaves the earlier folder as it was
k=0
for id in $ids; do
    [ "$id" = attention ] && continue
    b="$BIN/$id"
    D="$T/sig-$id"
    prior_folder "$id" "$D"
    folder_state "$D" >"$T/sig-$id.state"
    k=$((k + 1))
    case $((k % 3)) in 0) sig=INT ;; 1) sig=TERM ;; 2) sig=HUP ;; esac
    if "$b" --help | grep -q -- '--draws N'; then
        # as many draws as the memory budget allows (a refusal is checked too)
        for n in 100000000 1000000 100000; do
            sig_run "$id: SIG$sig during the computation (--draws $n)" "$sig" 0.3 "$D" "$T/sig-$id.state" \
                "$b" --out "$D" --quiet --draws "$n"
            [ "$early" -ge 2 ] || break
        done
    else
        # shellcheck disable=SC2046
        sig_run "$id: SIG$sig during a run" "$sig" 0.3 "$D" "$T/sig-$id.state" \
            "$b" --out "$D" --quiet
    fi
    # and in the write phase: slow it (every fsync sleeps 60 ms, an
    # LD_PRELOAD shim) and signal half-way through a slowed small run
    if [ "$early" -le 1 ]; then
        [ -f "$T/slowfsync.so" ] || continue
        mkdir -p "$T/slow-$id"
        t0=$(date +%s%N)
        # shellcheck disable=SC2046
        env LD_PRELOAD="$T/slowfsync.so" ATT_SHIM_FSYNC_MS=60 "$ASANOK" "$b" --out "$T/slow-$id" --quiet \
            $(small_args "$id") >/dev/null 2>"$T/slow.err"
        src=$?
        sms=$(( ($(date +%s%N) - t0) / 1000000 ))
        # the slowed run itself must work, or the signal below interrupts nothing
        if [ "$src" -gt 1 ]; then
            fail "$id: a run with a slowed write phase" "exit $src" "$(head -c 200 "$T/slow.err")"
            continue
        fi
        shalf=$(awk -v m="$sms" 'BEGIN { printf "%.3f", m / 2000 }')
        prior_folder "$id" "$D"
        # shellcheck disable=SC2046
        sig_run "$id: SIG$sig at $shalf s of a ${sms} ms run with a slowed write phase" "$sig" "$shalf" \
            "$D" "$T/sig-$id.state" env LD_PRELOAD="$T/slowfsync.so" ATT_SHIM_FSYNC_MS=60 "$ASANOK" \
            "$b" --out "$D" --quiet $(small_args "$id")
    fi
done

[ -z "${VERBOSE:-}" ] || echo "== section 4b (memory refusals) $(date +%T)"
# ---- 4b. --max-memory refusals: before any write, the folder as before --------

for id in $ids; do
    b="$BIN/$id"
    D="$T/mem-$id"
    for budget in 1K 64K 1M; do
        prior_folder "$id" "$D"
        folder_state "$D" >"$T/mem.state"
        if [ "$id" = attention ]; then args=$attention_small; else args=$(small_args "$id"); fi
        # shellcheck disable=SC2086
        timeout 120 "$b" --out "$D" $args --max-memory "$budget" >/dev/null 2>"$T/mem.err"
        rc=$?
        desc="$id: --max-memory $budget"
        if [ "$rc" -eq 2 ]; then
            if ! grep -q -- '--max-memory' "$T/mem.err"; then
                fail "$desc" "exit 2 without naming --max-memory" "$(head -c 200 "$T/mem.err")"
            elif state_check "$desc" "$D" "$T/mem.state"; then
                pass "$desc: refused, the folder exactly as before"
            fi
        elif [ "$rc" -le 1 ]; then
            [ -z "$(find "$D" -name '.att-run.*' -o -name '.*.tmp.*')" ] && pass "$desc: runs within the budget" ||
                fail "$desc" "temporaries left after a complete run"
        else
            fail "$desc" "exit $rc (a refusal is exit 2 naming the budget)" "$(head -c 200 "$T/mem.err")"
        fi
    done
done
# the cases of issue 20: a refusal after the first tables were computed
for c in "naive_self_attention --T 4 --d 8 --draws 64 --max-memory 1K" \
         "random_projections --T 12 --d 2 --dk 1 --draws 64 --max-memory 2K"; do   # the 12 x 12 heatmap, after the sweep
    set -- $c
    id=$1
    shift
    [ -x "$BIN/$id" ] || continue
    D="$T/mem2-$id"
    prior_folder "$id" "$D"
    folder_state "$D" >"$T/mem.state"
    "$BIN/$id" --out "$D" --quiet "$@" >/dev/null 2>"$T/mem.err"
    rc=$?
    if [ "$rc" -ne 2 ]; then fail "$c" "exit $rc, expected 2" "$(head -c 200 "$T/mem.err")"
    elif state_check "$c" "$D" "$T/mem.state"; then pass "$c: refused, the folder exactly as before"; fi
done

[ -z "${VERBOSE:-}" ] || echo "== section 4c (disk full) $(date +%T)"
# ---- 4c. disk full: a small tmpfs in a private mount namespace ----------------
# Each program runs once into a folder of the prior files on a tmpfs with
# room for about half of what its run writes: it must fail with exit 3 naming
# the file, and leave the folder exactly as before.

if unshare -rm sh -c 'mount -t tmpfs -o size=64k tmpfs "$1"' sh "$T" 2>/dev/null; then
    for id in $ids; do
        b="$BIN/$id"
        if [ "$id" = attention ]; then args=$attention_small; else args=$(small_args "$id"); fi
        ref="$T/dfref-$id"
        mkdir -p "$ref"
        # shellcheck disable=SC2086
        timeout 120 "$b" --out "$ref" $args --quiet >/dev/null 2>&1
        pages=$(find "$ref" -type f -printf '%s\n' | awk '{ p += int(($1 + 4095) / 4096) } END { print p + 0 }')
        P="$T/dfprior-$id"
        prior_folder "$id" "$P"
        folder_state "$P" >"$T/df-$id.want"
        ppages=$(find "$P" -type f | wc -l)
        MNT="$T/dfmnt-$id"
        mkdir -p "$MNT"
        kb=$(( 4 * (ppages + pages / 2) ))
        # shellcheck disable=SC2016,SC2086
        unshare -rm sh -c '
            M=$1 kb=$2 P=$3 out=$4
            shift 4
            mount -t tmpfs -o "size=${kb}k" tmpfs "$M" || exit 99
            cp -a "$P/." "$M/"
            timeout 120 "$@" --out "$M" >/dev/null 2>"$out.err"
            echo $? >"$out.rc"
            (cd "$M" && find . -mindepth 1 \( -type f -exec sha256sum {} + \) -o -printf "entry %y %p\n" | LC_ALL=C sort) >"$out.state"
        ' sh "$MNT" "$kb" "$P" "$T/df-$id" "$b" $args --quiet
        rc=$(cat "$T/df-$id.rc" 2>/dev/null || echo none)
        desc="$id: disk full ($kb KiB tmpfs, the run writes $pages pages)"
        if [ "$rc" != 3 ]; then
            fail "$desc" "exit $rc, expected 3" "$(head -c 200 "$T/df-$id.err")"
        elif ! grep -q "'$MNT/[^']*'" "$T/df-$id.err" || grep -qF '(null)' "$T/df-$id.err"; then
            fail "$desc" "the message names no file" "$(head -c 200 "$T/df-$id.err")"
        elif ! cmp -s "$T/df-$id.want" "$T/df-$id.state"; then
            fail "$desc" "the folder changed:" "$(diff "$T/df-$id.want" "$T/df-$id.state" | grep '^[<>]' | head -6 | tr '\n' ' ')"
        else
            pass "$desc: exit 3 naming the file, the folder exactly as before"
        fi
    done
else
    echo "test_bad_inputs: section 4c (disk full) skipped: no private mount namespace here (unshare -rm)"
fi

[ -z "${VERBOSE:-}" ] || echo "== section 4d (no O_TMPFILE) $(date +%T)"
# ---- 4d. a filesystem without O_TMPFILE (NFS, vfat): the run folder ----------
# An LD_PRELOAD shim makes open(O_TMPFILE) fail with EOPNOTSUPP: every held
# file is then a named temporary in DIR/.att-run.PID/, which a signal removes
# and, after a SIGKILL, the next run writing into DIR removes.
cat >"$T/notmpfile.c" <<'CEOF'
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
static int pass_on(const char *name, const char *p, int flags, va_list ap)
{
    mode_t mode = (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE ? (mode_t)va_arg(ap, int) : 0;
    if ((flags & O_TMPFILE) == O_TMPFILE) { errno = EOPNOTSUPP; return -1; }
    int (*real)(const char *, int, ...) = (int (*)(const char *, int, ...))dlsym(RTLD_NEXT, name);
    return real(p, flags, mode);
}
int open(const char *p, int flags, ...) { va_list ap; va_start(ap, flags); int r = pass_on("open", p, flags, ap); va_end(ap); return r; }
int open64(const char *p, int flags, ...) { va_list ap; va_start(ap, flags); int r = pass_on("open64", p, flags, ap); va_end(ap); return r; }
CEOF
if ${CC:-cc} -shared -fPIC -O1 -o "$T/notmpfile.so" "$T/notmpfile.c" -ldl 2>"$T/cc.err"; then
    NOTMP="LD_PRELOAD=$T/notmpfile.so"
    D="$T/notmp"
    rm -rf "$D"; cp -a "$T/old" "$D"
    # shellcheck disable=SC2086
    env "$NOTMP" "$ASANOK" "$A" $big --scale 0.5 --out "$D" 2>"$T/notmp.err"
    rc=$?
    # (attention.meta records the command, which names the folder: not compared)
    folder_state "$D" | grep -v attention.meta >"$T/notmp.state"
    grep -v attention.meta "$T/new.state" >"$T/new.data"
    if [ "$rc" -eq 0 ] && cmp -s "$T/notmp.state" "$T/new.data"; then
        pass "attention without O_TMPFILE: the complete new set, no run folder left"
    else
        fail "attention without O_TMPFILE" "exit $rc; the folder differs from a complete run" "$(head -c 200 "$T/notmp.err")"
    fi
    for sig in INT TERM KILL; do
        D="$T/notmp-$sig"
        rm -rf "$D"; cp -a "$T/old" "$D"
        # shellcheck disable=SC2086
        sig_run "attention without O_TMPFILE: SIG$sig at $half s" "$sig" "$half" "$D" "$T/old.state" \
            env "$NOTMP" "$ASANOK" "$A" $big --scale 0.5 --out "$D"
    done
    # a SIGKILL leaves DIR/.att-run.PID/ (planted here as a dead process's);
    # the next run removes it and leaves no temporary of its own
    D="$T/notmp-stale"
    rm -rf "$D"; cp -a "$T/old" "$D"
    mkdir -p "$D/.att-run.999999999"
    printf 'half a file' >"$D/.att-run.999999999/1.S.csv"
    # shellcheck disable=SC2086
    env "$NOTMP" "$ASANOK" "$A" $big --scale 0.5 --out "$D" >/dev/null 2>&1
    folder_state "$D" | grep -v attention.meta >"$T/notmp.state"
    cmp -s "$T/notmp.state" "$T/new.data" && pass "a dead run's folder .att-run.PID is removed by the next run" ||
        fail "a stale run folder" "$(diff "$T/new.state" "$T/notmp.state" | head -4 | tr '\n' ' ')"
    id=$(echo $ids | tr ' ' '\n' | grep -vx attention | head -n 1)
    D="$T/notmp-$id"
    prior_folder "$id" "$D"
    # shellcheck disable=SC2046
    env "$NOTMP" "$ASANOK" "$BIN/$id" --out "$D" --quiet $(small_args "$id") >/dev/null 2>&1
    rc=$?
    if [ "$rc" -le 1 ] && [ -f "$D/$id.verdicts.csv" ] && [ -z "$(find "$D" -name '.att-run.*')" ]; then
        pass "$id without O_TMPFILE: written, no run folder left"
    else
        fail "$id without O_TMPFILE" "exit $rc, or a run folder left"
    fi
else
    fail "section 4d: cannot build the O_TMPFILE shim" "$(head -c 200 "$T/cc.err")"
fi

[ -z "${VERBOSE:-}" ] || echo "== section 4e (a directory in the way) $(date +%T)"
# ---- 4e. a directory where a file goes: refused before anything moves --------
D="$T/dir-in-the-way"
rm -rf "$D"; cp -a "$T/old" "$D"
rm -f "$D/S.csv"; mkdir "$D/S.csv"
folder_state "$D" >"$T/dir.state"
# shellcheck disable=SC2086
"$A" $big --scale 0.5 --out "$D" 2>"$T/dir.err"
rc=$?
if [ "$rc" -ne 3 ] || ! grep -q "$D/S.csv': it is a directory" "$T/dir.err"; then
    fail "attention: a directory where S.csv goes" "exit $rc" "$(head -c 200 "$T/dir.err")"
elif state_check "attention: a directory where S.csv goes" "$D" "$T/dir.state"; then
    pass "attention: a directory where S.csv goes: exit 3 naming it, the folder exactly as before"
fi

# a rename that fails half-way through the release (S.csv is a mount point
# in a private mount namespace: rename onto it is EBUSY, after Q, K, V have
# been renamed): the renamed files are put back, the folder is as before
D="$T/rename-fails"
rm -rf "$D"; cp -a "$T/old" "$D"
folder_state "$D" >"$T/rf.want"
printf 'the file mounted over S.csv\n' >"$T/rf.cover"
# shellcheck disable=SC2016,SC2086
if unshare -rm sh -c 'mount --bind "$1" "$2/S.csv"' sh "$T/rf.cover" "$D" 2>/dev/null; then
    # shellcheck disable=SC2016,SC2086
    unshare -rm sh -c '
        cover=$1 D=$2 out=$3
        shift 3
        mount --bind "$cover" "$D/S.csv" || exit 99
        "$@" --out "$D" >/dev/null 2>"$out.err"
        echo $? >"$out.rc"
        umount "$D/S.csv"
    ' sh "$T/rf.cover" "$D" "$T/rf" "$A" $big --scale 0.5
    rc=$(cat "$T/rf.rc" 2>/dev/null || echo none)
    if [ "$rc" != 3 ] || ! grep -q "cannot rename into '$D/S.csv'" "$T/rf.err"; then
        fail "attention: a rename that fails half-way" "exit $rc" "$(head -c 200 "$T/rf.err")"
    elif state_check "attention: a rename that fails half-way" "$D" "$T/rf.want"; then
        pass "attention: a rename that fails half-way (EBUSY on S.csv): Q, K, V put back, the folder exactly as before"
    fi
else
    echo "test_bad_inputs: the half-way rename case skipped: no private mount namespace here"
fi

[ -z "${VERBOSE:-}" ] || echo "== section 5 $(date +%T)"
# ---- 5. GSL_RNG_TYPE / GSL_RNG_SEED are never read ---------------------------

# GSL reads them only in gsl_rng_env_setup(): no binary may call it
for id in $ids; do
    if { nm -D "$BIN/$id" 2>/dev/null; nm "$BIN/$id" 2>/dev/null; } | grep -q gsl_rng_env_setup; then
        fail "$id: calls gsl_rng_env_setup (reads GSL_RNG_TYPE / GSL_RNG_SEED)"
    else
        pass "$id: never calls gsl_rng_env_setup"
    fi
done
# and garbage in them changes no output of a deterministic run
for id in $ids; do
    b="$BIN/$id"
    [ "$id" = attention ] && continue
    # a short run (section 4's small arguments)
    # shellcheck disable=SC2046
    set -- $(small_args "$id")
    for k in 1 2 3; do mkdir -p "$T/env$k-$id"; done
    # a clean run (section 4c's reference run of the same arguments, if any)
    if [ -f "$T/dfref-$id/$id.verdicts.csv" ]; then cp -a "$T/dfref-$id/." "$T/env1-$id/"
    else "$b" --out "$T/env1-$id" --quiet "$@" >/dev/null 2>&1; fi
    GSL_RNG_TYPE=garbage GSL_RNG_SEED=not-a-number \
        "$b" --out "$T/env3-$id" --quiet "$@" >/dev/null 2>"$T/stderr"
    rc=$?
    csvs() { (cd "$1" && find . -name '*.csv' -type f -exec sha256sum {} + | LC_ALL=C sort); }
    if [ "$rc" -ge 2 ]; then
        fail "$id: GSL_RNG_TYPE=garbage" "exit $rc: $(head -c 300 "$T/stderr")"
    elif [ "$(csvs "$T/env1-$id")" = "$(csvs "$T/env3-$id")" ]; then
        pass "$id: GSL_RNG_TYPE / GSL_RNG_SEED garbage changes nothing"
    else
        # they differ: is it the environment, or do two clean runs differ too (timings)?
        "$b" --out "$T/env2-$id" --quiet "$@" >/dev/null 2>&1
        if [ "$(csvs "$T/env1-$id")" != "$(csvs "$T/env2-$id")" ]; then
            pass "$id: GSL environment (not compared: two clean runs differ, e.g. timings)"
        else
            fail "$id: GSL_RNG_TYPE=garbage GSL_RNG_SEED=not-a-number changed the output"
        fi
    fi
done

[ -z "${VERBOSE:-}" ] || echo "== section 7 $(date +%T)"
# ---- 7. --draws 1 and --draws 2 on every experiment ---------------------------
# One draw has no confidence interval: a CI rule is INCONCLUSIVE (exit 0 or
# 1), or the experiment refuses the count before writing (exit 2 naming
# --draws, the folder as before); never exit 3.
# rows with a CI rule, fewer than 2 draws and an outcome other than INCONCLUSIVE
CSVCOL=${BUILD:-build}/tools/csvcol
undecidable() {
    "$CSVCOL" "$1" draws verdict rule macro | awk -F"\t" '$1 < 2 && $3 ~ /^(ci_within|ci_above|ci_below|precision)$/ && $2 != "INCONCLUSIVE"'
}
[ -x "$CSVCOL" ] || fail "section 7 needs $CSVCOL (make all builds it)"
for id in $ids; do
    b="$BIN/$id"
    [ "$id" = attention ] && continue
    if ! "$b" --help | grep -q -- '--draws N'; then
        pass "$id: takes no --draws (refused as an unknown option in section 1)"
        continue
    fi
    extra=$(small_args "$id" | sed 's/--draws [0-9]*//')
    for n in 1 2; do
        D="$T/draws$n-$id"
        prior_folder "$id" "$D"
        folder_state "$D" >"$T/draws.state"
        # shellcheck disable=SC2086
        timeout 120 "$b" --out "$D" --quiet $extra --draws "$n" >/dev/null 2>"$T/draws.err"
        rc=$?
        desc="$id --draws $n"
        if [ "$rc" -le 1 ]; then
            if [ ! -f "$D/$id.verdicts.csv" ] || cmp -s "$D/$id.verdicts.csv" "$R/$id.verdicts.csv"; then
                fail "$desc" "exit $rc but no new verdict file"
            elif [ -n "$(undecidable "$D/$id.verdicts.csv")" ]; then
                fail "$desc" "a CI rule decided from fewer than 2 draws:" "$(undecidable "$D/$id.verdicts.csv" | head -2)"
            else
                pass "$desc: exit $rc, $(grep -c ',INCONCLUSIVE,' "$D/$id.verdicts.csv") INCONCLUSIVE rows"
            fi
        elif [ "$rc" -eq 2 ] && grep -q -- '--draws' "$T/draws.err"; then
            state_check "$desc" "$D" "$T/draws.state" && pass "$desc: refused before writing: $(head -c 80 "$T/draws.err")"
        else
            fail "$desc" "exit $rc" "$(head -c 200 "$T/draws.err")"
        fi
    done
done

[ -z "${VERBOSE:-}" ] || echo "== section 8 $(date +%T)"
# ---- 8. memory budgets, provenance, options and inputs (issue 20 items 6, 7, 9)

# the Monte Carlo plan and tables count against --max-memory: refused (exit 2
# naming the budget or --draws) at once, never exit 3 or a long run
for c in "random_projections --T 2 --d 2 --dk 1 --draws 2000000000 --max-memory 64M" \
         "random_projections --dk 4294967297" "random_projections --d 4294967297" \
         "long_sequences --dk 4294967297" "long_sequences --max-memory 64K" \
         "learned_previous_token --draws 18446744073709551615"; do
    set -- $c
    id=$1
    shift
    [ -x "$BIN/$id" ] || continue
    expect "$c" 2 "--max-memory|--draws|--dk|--d|too large" "$R" timeout 20 "$BIN/$id" --out "$R" --quiet "$@"
done
for id in $ids; do
    "$BIN/$id" --help 2>/dev/null | grep -q -- '--draws N' || continue
    # (learned_previous_token's --draws counts held-out sequences, evaluated
    # one at a time: it needs no memory per draw, only time)
    [ "$id" = learned_previous_token ] ||
    expect "$id --draws 2^53 --max-memory 64M" 2 "--max-memory|--draws|overflows" "$R" \
        timeout 20 "$BIN/$id" --out "$R" --quiet --draws 9007199254740992 --max-memory 64M
    expect "$id --draws 2^53 + 1" 2 "--draws 9007199254740993: at most 2\^53" "$R" \
        "$BIN/$id" --out "$R" --quiet --draws 9007199254740993
done

# provenance names the project's commit, not that of the repository the run is in
if command -v git >/dev/null 2>&1 && git rev-parse --short=12 HEAD >/dev/null 2>&1; then
    G="$T/other-repo"
    mkdir -p "$G"
    (cd "$G" && git init -q && git -c user.email=t@t -c user.name=t commit -q --allow-empty -m other) 2>/dev/null
    other=$(cd "$G" && git rev-parse --short=12 HEAD)
    ours=$(git rev-parse --short=12 HEAD)
    id=$(echo $ids | tr ' ' '\n' | grep -vx attention | head -n 1)
    # shellcheck disable=SC2046
    (cd "$G" && "$BIN/$id" --out o --quiet $(small_args "$id") >/dev/null 2>&1)
    got=$(sed -n 's/^git: //p' "$G/o/$id.meta")
    case "$got" in
    "$ours"*) pass "provenance from inside another repository: the project's commit $got" ;;
    *) fail "provenance from inside another repository" "git: '$got', expected $ours (that repository's is $other)" ;;
    esac
fi

# options: hexadecimal numbers are refused (the rule of CSV cells); --help
# says that an option given twice takes its last value
expect "attention: --scale 0x1p-1 (hexadecimal)" 2 "--scale: '0x1p-1' is a hexadecimal number" "$R" \
    "$A" --out "$R" --x "$W/X.csv" $base --scale 0x1p-1
"$A" --help | grep -q 'given twice takes its last value' && pass "--help: a repeated option takes its last value" ||
    fail "--help does not say what a repeated option does"
if [ -x "$BIN/fused_qkv" ]; then
    expect "fused_qkv --no-timing --T 8" 2 "--T 8 with --no-timing" "$R" "$BIN/fused_qkv" --out "$R" --no-timing --T 8
fi
# a named pipe without a writer is refused after a bounded wait (here 0.3 s)
mkfifo "$I/fifo.csv"
expect "attention: a named pipe with no writer" 2 "fifo.csv: a named pipe with no writer" "$R" \
    env ATT_TEST_FIFO_WAIT_MS=300 "$A" --out "$R" --x "$I/fifo.csv" $base
# ... and one with a writer is read
(cat "$W/X.csv" >"$I/fifo.csv" &)
# shellcheck disable=SC2086
"$A" --x "$I/fifo.csv" $base --print >/dev/null 2>"$T/stderr" && pass "attention: a named pipe with a writer is read" ||
    fail "attention: a named pipe with a writer" "$(head -c 200 "$T/stderr")"
# the CSV reader's fixed cap says it is fixed (raising --max-memory does not help)
awk 'BEGIN { for (i = 0; i < 8200; i++) { s = "0"; for (j = 1; j < 1024; j++) s = s ",0"; print s } }' >"$I/cells.csv"
expect "attention: more than 8 Mi numbers" 2 "more than 8388608 numbers, the limit of the CSV reader .*fixed cap" "$R" \
    "$A" --out "$R" --x "$I/cells.csv" $base

[ -z "${VERBOSE:-}" ] || echo "== section 6 $(date +%T)"
# ---- 6. the source tree's results/ --------------------------------------------

[ "$(tree_sum results)" = "$results_before" ] && pass "results/ unchanged" ||
    fail "results/ of the source tree changed during the test"

echo "test_bad_inputs: $npass passed, $nfail failed"
[ "$nfail" -eq 0 ]
