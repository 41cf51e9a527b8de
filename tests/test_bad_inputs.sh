#!/bin/sh
# test_bad_inputs.sh - the table of bad inputs, run against the real binaries.
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
#   4. SIGINT and SIGKILL in the middle of a run: earlier files intact (each
#      file is the old or the complete new version), no temporaries left;
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

# A checksum of a directory (every file, hidden ones too) or of a file.
tree_sum() {
    if [ -d "$1" ]; then
        (cd "$1" && find . -type f -exec sha256sum {} + | LC_ALL=C sort | sha256sum)
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
memory of S beyond --max-memory|2|needs [0-9]+ bytes, more than --max-memory|--x $I/X_long.csv --wq $I/W_1x1.csv --wk $I/W_1x1.csv --wv $I/W_1x1.csv --max-memory 64M
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

[ -z "${VERBOSE:-}" ] || echo "== section 4 $(date +%T)"
# ---- 4. SIGINT and SIGKILL in the middle of a run ----------------------------

# inputs big enough that writing S.csv and A.csv takes a while
awk 'BEGIN { srand(7); for (i = 0; i < 1000; i++) { for (j = 0; j < 8; j++) printf "%s%.6f", (j ? "," : ""), rand() - 0.5; print "" } }' >"$I/Xbig.csv"
awk 'BEGIN { srand(8); for (i = 0; i < 8; i++) { for (j = 0; j < 8; j++) printf "%s%.6f", (j ? "," : ""), rand() - 0.5; print "" } }' >"$I/W8.csv"
big="--x $I/Xbig.csv --wq $I/W8.csv --wk $I/W8.csv --wv $I/W8.csv --quiet"
names="Q.csv K.csv V.csv S.csv A.csv O.csv"

# file_sums DIR: "name sum" lines for the six result files
file_sums() { for n in $names; do printf '%s %s\n' "$n" "$(tree_sum "$1/$n")"; done; }

# the old results (scale 1) and what a complete new run (scale 0.5) writes
# shellcheck disable=SC2086
"$A" $big --out "$T/old" && "$A" $big --scale 0.5 --out "$T/new" || fail "attention: big reference runs"
file_sums "$T/old" >"$T/old.sums"
file_sums "$T/new" >"$T/new.sums"

for sig in INT KILL; do
    D="$T/interrupted-$sig"
    rm -rf "$D"
    cp -r "$T/old" "$D"
    # default signal dispositions, as in a terminal (a background job of a
    # script would otherwise ignore SIGINT)
    # shellcheck disable=SC2086
    env --default-signal=INT "$A" $big --scale 0.5 --out "$D" &
    pid=$!
    # wait until the first file (Q.csv) is replaced (a new inode: renamed
    # into place); S.csv and A.csv are then being written
    ino=$(stat -c %i "$D/Q.csv")
    n=0
    while [ "$(stat -c %i "$D/Q.csv")" = "$ino" ] && kill -0 "$pid" 2>/dev/null && [ $n -lt 3000 ]; do
        sleep 0.005
        n=$((n + 1))
    done
    if kill -0 "$pid" 2>/dev/null; then
        kill -s "$sig" "$pid"
        wait "$pid" 2>/dev/null
        rc=$?
        when="mid-write"
    else
        wait "$pid" 2>/dev/null
        rc=$?
        when="after the run (it finished first)"
    fi
    bad=""
    nnew=0
    for n in $names; do
        s=$(tree_sum "$D/$n")
        if grep -qx "$n $s" "$T/new.sums" && ! grep -qx "$n $s" "$T/old.sums"; then nnew=$((nnew + 1))
        elif ! grep -qx "$n $s" "$T/old.sums"; then bad="$bad $n"; fi
    done
    tmps=$(find "$D" -name '.*.tmp.*' | wc -l)
    if [ "$sig" = KILL ] && [ "$tmps" -ne 0 ]; then
        # killed between link and rename: the next run removes the leftover
        # shellcheck disable=SC2086
        "$A" $big --scale 0.5 --out "$D" >/dev/null 2>&1
        tmps=$(find "$D" -name '.*.tmp.*' | wc -l)
    fi
    case "$sig" in INT) want=130 ;; KILL) want=137 ;; esac
    if [ -n "$bad" ]; then
        fail "attention: SIG$sig $when" "files neither old nor complete new:$bad"
    elif [ "$tmps" -ne 0 ]; then
        fail "attention: SIG$sig $when" "temporary files left: $(find "$D" -name '.*.tmp.*')"
    elif [ "$when" = mid-write ] && [ "$rc" -ne "$want" ]; then
        fail "attention: SIG$sig $when" "exit $rc, expected $want (killed by the signal)"
    else
        pass "attention: SIG$sig $when: every file old or complete ($nnew of 6 new), no temporaries"
    fi
done

# experiments: a signal during the computation leaves the earlier files as they were
for id in $ids; do
    [ "$id" = attention ] && continue
    b="$BIN/$id"
    "$b" --help | grep -q -- '--draws N' || continue
    D="$T/sig-$id"
    rm -rf "$D"
    cp -r "$R" "$D"
    before=$(tree_sum "$D")
    env --default-signal=INT "$b" --out "$D" --quiet --draws 100000000 >/dev/null 2>&1 &
    pid=$!
    sleep 0.3
    if kill -0 "$pid" 2>/dev/null; then
        kill -s INT "$pid"
        wait "$pid" 2>/dev/null
        rc=$?
        tmps=$(find "$D" -name '.*.tmp.*' | wc -l)
        if [ "$(tree_sum "$D")" != "$before" ]; then
            changed=""
            for f in "$D"/*; do cmp -s "$f" "$R/$(basename "$f")" || changed="$changed $(basename "$f")"; done
            # a file replaced before the signal must be complete (end in a newline)
            for f in $changed; do
                [ "$(tail -c 1 "$D/$f" | od -An -c | tr -d ' ')" = '\n' ] || { fail "$id: SIGINT" "$f is truncated"; continue 2; }
            done
            pass "$id: SIGINT: replaced files complete:$changed"
        elif [ "$tmps" -ne 0 ]; then
            fail "$id: SIGINT" "temporary files left"
        elif [ "$rc" -ne 130 ]; then
            fail "$id: SIGINT" "exit $rc, expected 130"
        else
            pass "$id: SIGINT during the computation leaves the earlier files"
        fi
    else
        wait "$pid" 2>/dev/null
        rc=$?
        if [ "$rc" -ge 2 ] && [ "$(tree_sum "$D")" != "$before" ]; then
            fail "$id: --draws 100000000" "exit $rc, and the --out directory changed"
        else
            pass "$id: SIGINT (done within 0.3 s, exit $rc: nothing to interrupt)"
        fi
    fi
done

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
    # a short run: few draws, or one small T for the experiments without draws
    help=$("$b" --help)
    if echo "$help" | grep -q -- '--draws N'; then set -- --draws 50
    elif echo "$help" | grep -q -- '--T N'; then set -- --T 64
    else set --; fi
    for k in 1 2 3; do mkdir -p "$T/env$k-$id"; done
    "$b" --out "$T/env1-$id" --quiet "$@" >/dev/null 2>&1
    "$b" --out "$T/env2-$id" --quiet "$@" >/dev/null 2>&1
    GSL_RNG_TYPE=garbage GSL_RNG_SEED=not-a-number \
        "$b" --out "$T/env3-$id" --quiet "$@" >/dev/null 2>"$T/stderr"
    rc=$?
    csvs() { (cd "$1" && find . -name '*.csv' -type f -exec sha256sum {} + | LC_ALL=C sort); }
    if [ "$rc" -ge 2 ]; then
        fail "$id: GSL_RNG_TYPE=garbage" "exit $rc: $(head -c 300 "$T/stderr")"
    elif [ "$(csvs "$T/env1-$id")" != "$(csvs "$T/env2-$id")" ]; then
        pass "$id: GSL environment (not compared: two clean runs differ, e.g. timings)"
    elif [ "$(csvs "$T/env1-$id")" != "$(csvs "$T/env3-$id")" ]; then
        fail "$id: GSL_RNG_TYPE=garbage GSL_RNG_SEED=not-a-number changed the output"
    else
        pass "$id: GSL_RNG_TYPE / GSL_RNG_SEED garbage changes nothing"
    fi
done

[ -z "${VERBOSE:-}" ] || echo "== section 6 $(date +%T)"
# ---- 6. the source tree's results/ --------------------------------------------

[ "$(tree_sum results)" = "$results_before" ] && pass "results/ unchanged" ||
    fail "results/ of the source tree changed during the test"

echo "test_bad_inputs: $npass passed, $nfail failed"
[ "$nfail" -eq 0 ]
