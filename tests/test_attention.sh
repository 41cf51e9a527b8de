#!/bin/sh
# test_attention.sh - bin/attention end to end, against an independent NumPy
# implementation of the head (python3-numpy).
# purpose: bin/attention on your own matrices (fused W_QKV, batch, causal) against NumPy
#
#   1. the worked example ("the cat sat"): A and O equal the closed forms
#      e^3/(e^3+2) and 1/(e^3+2) to 1e-15, and the --print table shows them;
#   2. random inputs with biases, a scale, with and without RoPE, self- and
#      cross-attention: Q, K, V, S, A, O agree with NumPy to 1e-12 (relative
#      to the largest entry), and every gradient agrees with central finite
#      differences of L = sum(G .* O) computed in NumPy (relative 1e-6);
#   3. what bin/attention writes reads back as its own input, bit for bit
#      (O.csv given back as --x reproduces the same Q);
#   4. --wqkv (split Q | K | V, --dk/--dv, --torch-layout) equals NumPy's split
#      of X W_QKV and the three separate files digit for digit; --batch B runs
#      each stacked sequence alone (with --causal: weights on later keys are
#      exactly 0; with --grad: dW_V sums over sequences); nn.Linear's layout
#      without --torch-layout, a split that does not fit, rows not a multiple
#      of B are refused naming the mistake; --features heads O's columns;
#      --help's exit-status text says "never 1" and nothing contrary.
# Run from anywhere: sh tests/test_attention.sh   (BIN=bin-x for another build)
set -u
cd "$(dirname "$0")/.." || exit 2
BIN=${BIN:-bin}
A="$BIN/attention"
[ -x "$A" ] || { echo "test_attention: $A not found: build it first (make all)" >&2; exit 1; }
# an interpreter with NumPy (a python3 first on PATH may lack it while
# Debian's /usr/bin/python3 has python3-numpy): tools/python.sh finds it
PY=$(sh tools/python.sh numpy) ||
    { echo "test_attention: NumPy is needed (sh tools/deps.sh installs python3-numpy)" >&2; exit 1; }
echo "test_attention: NumPy from $PY"
T=$(mktemp -d "${TMPDIR:-/tmp}/att-cli.XXXXXX") || exit 2
trap 'rm -rf "$T"' EXIT

"$PY" - "$A" "$T" <<'EOF'
import os, subprocess, sys
import numpy as np

exe, tmp = sys.argv[1], sys.argv[2]
fails, checks = [], 0

def check(ok, what):
    global checks
    checks += 1
    if not ok:
        fails.append(what)
        print("FAIL  " + what)

def read(path):
    rows = [l for l in open(path) if l.strip() and not l.lstrip().startswith("#")]
    return np.array([[float(c) for c in l.split(",")] for l in rows])

def write(path, M):
    with open(path, "w") as f:
        f.write("# written by test_attention.sh\n")
        for row in np.atleast_2d(M):
            f.write(",".join(repr(float(x)) for x in row) + "\n")

def run(args, out=None):
    cmd = [exe] + args + (["--out", out, "--quiet"] if out else [])
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        fails.append("exit %d: %s\n    %s" % (p.returncode, " ".join(cmd), p.stderr.strip()))
        print("FAIL  " + fails[-1])
    return p

# ---- the reference head (NumPy, written from head.h and rope.h) -----------

def rope(M, base):
    """Row t, pair (2i, 2i+1) rotated by t * base^(-2i/d_k)."""
    T, dk = M.shape
    Y = M.copy()
    for t in range(T):
        for i in range(dk // 2):
            a = t * base ** (-2.0 * i / dk)
            c, s = np.cos(a), np.sin(a)
            x0, x1 = M[t, 2 * i], M[t, 2 * i + 1]
            Y[t, 2 * i], Y[t, 2 * i + 1] = x0 * c - x1 * s, x0 * s + x1 * c
    return Y

def forward(p):
    Q = p["Xq"] @ p["WQ"] + p["bq"]
    K = p["Xkv"] @ p["WK"] + p["bk"]
    V = p["Xkv"] @ p["WV"] + p["bv"]
    if p["rope"]:
        Q, K = rope(Q, 10000.0), rope(K, 10000.0)
    S = p["scale"] * Q @ K.T
    E = np.exp(S - S.max(axis=1, keepdims=True))
    A = E / E.sum(axis=1, keepdims=True)
    return dict(Q=Q, K=K, V=V, S=S, A=A, O=A @ V)

def loss(p, G):
    return float(np.sum(G * forward(p)["O"]))

def fd_grad(p, G, key, tie=None):
    """Central differences of L with respect to p[key] (and p[tie], the
    same matrix, for self-attention's X)."""
    X = p[key]
    g = np.zeros_like(X)
    for idx in np.ndindex(X.shape):
        h = 1e-6 * max(1.0, abs(X[idx]))
        vals = []
        for s in (+1, -1):
            q = {k: (v.copy() if isinstance(v, np.ndarray) else v) for k, v in p.items()}
            q[key][idx] += s * h
            if tie:
                q[tie] = q[key]
            vals.append(loss(q, G))
        g[idx] = (vals[0] - vals[1]) / (2 * h)
    return g

def rel(a, b):
    return np.max(np.abs(a - b)) / max(np.max(np.abs(b)), 1e-300)

# ---- 1. the worked example --------------------------------------------------

W = "examples/worked"
wd = os.path.join(tmp, "worked")
run(["--x", W + "/X.csv", "--wq", W + "/W_Q.csv", "--wk", W + "/W_K.csv",
     "--wv", W + "/W_V.csv"], wd)
e3 = np.exp(3.0)
hi, lo = e3 / (e3 + 2), 1 / (e3 + 2)
A_want = np.array([[1 / 3, 1 / 3, 1 / 3], [hi, lo, lo], [lo, hi, lo]])
O_want = np.array([[1 / 3, 1 / 3], [lo, hi], [hi, lo]])
check(np.max(np.abs(read(wd + "/A.csv") - A_want)) <= 1e-15, "worked example: A = closed form")
check(np.max(np.abs(read(wd + "/O.csv") - O_want)) <= 1e-15, "worked example: O = closed form")
p = run(["--x", W + "/X.csv", "--wq", W + "/W_Q.csv", "--wk", W + "/W_K.csv",
         "--wv", W + "/W_V.csv", "--tokens", "the,cat,sat", "--print"])
lines = p.stdout.splitlines()
check(any(l.split() == ["cat", "0.909443", "0.0452785", "0.0452785"] for l in lines),
      "worked example: --print shows cat's row of A")
check(any(l.split() == ["sat", "0.909443", "0.0452785"] for l in lines),
      "worked example: --print shows sat's output")

# ---- 2. random heads against NumPy -----------------------------------------

rng = np.random.default_rng(20261129)
for case, (cross, use_rope, Tq, Tk, d, dk, dv) in enumerate([
        (False, False, 5, 5, 4, 2, 3), (False, True, 4, 4, 3, 4, 2),
        (True, False, 3, 6, 4, 2, 2), (True, True, 4, 3, 5, 2, 3)]):
    name = "case %d (%s%s)" % (case, "cross" if cross else "self", ", RoPE" if use_rope else "")
    cd = os.path.join(tmp, "c%d" % case)
    os.makedirs(cd)
    Xq = rng.normal(size=(Tq, d))
    Xkv = rng.normal(size=(Tk, d)) if cross else Xq
    p = dict(Xq=Xq, Xkv=Xkv, WQ=rng.normal(size=(d, dk)), WK=rng.normal(size=(d, dk)),
             WV=rng.normal(size=(d, dv)), bq=rng.normal(size=dk), bk=rng.normal(size=dk),
             bv=rng.normal(size=dv), scale=0.7, rope=use_rope)
    G = rng.normal(size=(Tq, dv))
    for k in ("Xq", "Xkv", "WQ", "WK", "WV", "bq", "bk", "bv"):
        write(os.path.join(cd, k + ".in.csv"), p[k])
    write(os.path.join(cd, "G.in.csv"), G)
    f = lambda k: os.path.join(cd, k + ".in.csv")
    args = (["--xq", f("Xq"), "--xkv", f("Xkv")] if cross else ["--x", f("Xq")]) + [
        "--wq", f("WQ"), "--wk", f("WK"), "--wv", f("WV"), "--bq", f("bq"), "--bk", f("bk"),
        "--bv", f("bv"), "--scale", "0.7", "--grad", f("G")] + (["--rope"] if use_rope else [])
    out = os.path.join(cd, "out")
    run(args, out)
    ref = forward(p)
    for m in ("Q", "K", "V", "S", "A", "O"):
        got = read(os.path.join(out, m + ".csv"))
        check(got.shape == ref[m].shape and rel(got, ref[m]) <= 1e-12,
              "%s: %s agrees with NumPy (rel %.2g)" % (name, m, rel(got, ref[m]) if got.shape == ref[m].shape else -1))
    pairs = [("dW_Q", "WQ"), ("dW_K", "WK"), ("dW_V", "WV"), ("db_Q", "bq"), ("db_K", "bk"), ("db_V", "bv")]
    if cross:
        pairs += [("dXq", "Xq"), ("dXkv", "Xkv")]
    for fname, key in pairs:
        got = read(os.path.join(out, fname + ".csv")).reshape(p[key].shape)
        want = fd_grad(p, G, key)
        err = np.max(np.abs(got - want)) / max(np.max(np.abs(want)), 1.0)
        check(err <= 1e-6, "%s: %s matches finite differences (err %.2g)" % (name, fname, err))
    if not cross:
        got = read(os.path.join(out, "dX.csv"))
        want = fd_grad(p, G, "Xq", tie="Xkv")
        err = np.max(np.abs(got - want)) / max(np.max(np.abs(want)), 1.0)
        check(err <= 1e-6, "%s: dX (both paths) matches finite differences (err %.2g)" % (name, err))
    if not use_rope:
        dbk = read(os.path.join(out, "db_K.csv"))
        check(np.max(np.abs(dbk)) <= 1e-12 * max(1.0, np.max(np.abs(read(os.path.join(out, "db_Q.csv"))))),
              "%s: db_K is zero without RoPE" % name)

# ---- 3. outputs read back exactly ------------------------------------------

# O.csv of the worked example as X (3 x 2) with W = I (2 x 2): Q = X exactly
write(os.path.join(tmp, "I2.csv"), np.eye(2))
I2 = os.path.join(tmp, "I2.csv")
run(["--x", wd + "/O.csv", "--wq", I2, "--wk", I2, "--wv", I2], os.path.join(tmp, "again"))
orig = open(wd + "/O.csv").read().splitlines()[1:]
back = open(os.path.join(tmp, "again", "Q.csv")).read().splitlines()[1:]
check(orig == back, "O.csv read back as input gives the same digits in Q.csv")

# ---- 4. --wqkv, --torch-layout, --causal, --batch, --features --------------

def attend(Xq, Xkv, WQ, WK, WV, scale, causal=False):
    """The section's head on one sequence (NumPy); causal: s_ij = -inf, j > i."""
    Q, K, V = Xq @ WQ, Xkv @ WK, Xkv @ WV
    S = scale * Q @ K.T
    if causal:
        S = np.where(np.tril(np.ones(S.shape, dtype=bool)), S, -np.inf)
    E = np.exp(S - S.max(axis=1, keepdims=True))
    A = E / E.sum(axis=1, keepdims=True)
    return dict(S=S, A=A, O=A @ V)

fd = os.path.join(tmp, "fused")
os.makedirs(fd)
B, T, d, dk, dv = 3, 4, 5, 2, 3
X = rng.normal(size=(B, T, d))
WQ, WK, WV = rng.normal(size=(d, dk)), rng.normal(size=(d, dk)), rng.normal(size=(d, dv))
Wqkv = np.concatenate([WQ, WK, WV], axis=1)              # (d, 2 d_k + d_v)
write(fd + "/X.csv", X.reshape(B * T, d))
write(fd + "/X1.csv", X[0])
write(fd + "/Wqkv.csv", Wqkv)
write(fd + "/WqkvT.csv", Wqkv.T)                          # nn.Linear's (out, in)
for m, W_ in (("WQ", WQ), ("WK", WK), ("WV", WV)):
    write(fd + "/" + m + ".csv", W_)
ref1 = attend(X[0], X[0], WQ, WK, WV, 0.6)
for label, extra in (("--wqkv", ["--wqkv", fd + "/Wqkv.csv"]),
                     ("--wqkv --torch-layout", ["--wqkv", fd + "/WqkvT.csv", "--torch-layout"])):
    out = os.path.join(fd, label.replace(" ", "").replace("-", ""))
    run(["--x", fd + "/X1.csv", "--dk", str(dk), "--dv", str(dv), "--scale", "0.6"] + extra, out)
    check(rel(read(out + "/O.csv"), ref1["O"]) <= 1e-12, "%s (d_k %d, d_v %d): O agrees with NumPy's "
          "split of X W_QKV" % (label, dk, dv))
# --dk alone gives d_v = cols - 2 d_k
out = os.path.join(fd, "dkonly")
run(["--x", fd + "/X1.csv", "--wqkv", fd + "/Wqkv.csv", "--dk", str(dk), "--scale", "0.6"], out)
check(rel(read(out + "/O.csv"), ref1["O"]) <= 1e-12, "--wqkv --dk alone: d_v = columns - 2 d_k")
# the same split equals the three files, bit for bit
run(["--x", fd + "/X1.csv", "--wq", fd + "/WQ.csv", "--wk", fd + "/WK.csv", "--wv", fd + "/WV.csv",
     "--scale", "0.6"], os.path.join(fd, "sep"))
check(open(os.path.join(fd, "sep", "O.csv")).read().splitlines()[1:] ==
      open(os.path.join(fd, "wqkv", "O.csv")).read().splitlines()[1:],
      "--wqkv gives the same digits as --wq --wk --wv")
# --batch: each sequence attends within itself; outputs stacked
for causal in (False, True):
    out = os.path.join(fd, "batch%d" % causal)
    run(["--x", fd + "/X.csv", "--wqkv", fd + "/Wqkv.csv", "--dk", str(dk), "--dv", str(dv),
         "--scale", "0.6", "--batch", str(B)] + (["--causal"] if causal else []), out)
    O = np.concatenate([attend(X[b], X[b], WQ, WK, WV, 0.6, causal)["O"] for b in range(B)])
    A = np.concatenate([attend(X[b], X[b], WQ, WK, WV, 0.6, causal)["A"] for b in range(B)])
    got_O, got_A = read(out + "/O.csv"), read(out + "/A.csv")
    check(got_O.shape == (B * T, dv) and rel(got_O, O) <= 1e-12,
          "--batch %d%s: O (B T, d_v) agrees with NumPy per sequence" % (B, " --causal" if causal else ""))
    check(got_A.shape == (B * T, T) and rel(got_A, A) <= 1e-12,
          "--batch %d%s: A (B T, T) agrees with NumPy" % (B, " --causal" if causal else ""))
    if causal:
        upper = np.triu(np.ones((T, T), dtype=bool), 1)
        check(all(np.all(got_A[b * T:(b + 1) * T][upper] == 0.0) for b in range(B)),
              "--causal: every weight on a later key is exactly 0")
# --batch with --grad: weight gradients are the sums over the sequences
G = rng.normal(size=(B * T, dv))
write(fd + "/G.csv", G)
out = os.path.join(fd, "bgrad")
run(["--x", fd + "/X.csv", "--wq", fd + "/WQ.csv", "--wk", fd + "/WK.csv", "--wv", fd + "/WV.csv",
     "--batch", str(B), "--grad", fd + "/G.csv"], out)
dWV = sum(X[b].T @ (attend(X[b], X[b], WQ, WK, WV, 1.0)["A"].T @ G[b * T:(b + 1) * T]) for b in range(B))
check(rel(read(out + "/dW_V.csv"), dWV) <= 1e-12, "--batch --grad: dW_V = sum_b X_b^T A_b^T G_b")
# mistakes named: nn.Linear's layout without --torch-layout, a split that does not fit, rows not B T
def refused(args, words, what):
    p = subprocess.run([exe] + args + ["--print"], capture_output=True, text=True)
    check(p.returncode == 2 and all(w in p.stderr for w in words),
          "%s: exit 2 naming %s (got %d: %s)" % (what, ", ".join(words), p.returncode, p.stderr.strip()[:200]))
refused(["--x", fd + "/X1.csv", "--wqkv", fd + "/WqkvT.csv"], ["nn.Linear", "--torch-layout"],
        "a (2 d_k + d_v, d) weight without --torch-layout")
refused(["--x", fd + "/X1.csv", "--wqkv", fd + "/Wqkv.csv", "--torch-layout"], ["drop --torch-layout"],
        "--torch-layout on a (d, 2 d_k + d_v) weight")
refused(["--x", fd + "/X1.csv", "--wqkv", fd + "/Wqkv.csv"], ["not 3 d_k", "--dk"],
        "7 columns without --dk/--dv")
refused(["--x", fd + "/X1.csv", "--wqkv", fd + "/Wqkv.csv", "--dk", "3", "--dv", "3"], ["2 d_k + d_v"],
        "--dk 3 --dv 3 on 7 columns")
refused(["--x", fd + "/X.csv", "--wqkv", fd + "/Wqkv.csv", "--dk", "2", "--batch", "5"], ["--batch 5", "12 rows"],
        "--batch 5 on 12 rows")
refused(["--x", fd + "/X1.csv", "--wqkv", fd + "/Wqkv.csv", "--wq", fd + "/WQ.csv"], ["either --wqkv"],
        "--wqkv with --wq")
refused(["--x", fd + "/X1.csv", "--wq", fd + "/WQ.csv", "--wk", fd + "/WK.csv", "--wv", fd + "/WV.csv",
         "--torch-layout"], ["needs --wqkv"], "--torch-layout without --wqkv")
# --scale takes an expression, evaluated in double as written: the same doubles as NumPy's
sep3 = ["--x", fd + "/X1.csv", "--wq", fd + "/WQ.csv", "--wk", fd + "/WK.csv", "--wv", fd + "/WV.csv"]
for expr, value in (("1/sqrt(2)", 1 / np.sqrt(2)), ("2 * (1 + 0.5) - 1/4", 2 * (1 + 0.5) - 1 / 4),
                    ("-sqrt(3)/-2", -np.sqrt(3) / -2), ("1/sqrt(2)/sqrt(2)", 1 / np.sqrt(2) / np.sqrt(2))):
    a_dir, b_dir = os.path.join(fd, "expr"), os.path.join(fd, "num")
    run(sep3 + ["--scale", expr], a_dir)
    run(sep3 + ["--scale", "%.17g" % value], b_dir)
    same = all(open(os.path.join(a_dir, f)).read().splitlines()[1:] ==
               open(os.path.join(b_dir, f)).read().splitlines()[1:] for f in ("S.csv", "A.csv", "O.csv"))
    ref = attend(X[0], X[0], WQ, WK, WV, value)
    check(same and rel(read(a_dir + "/S.csv"), ref["S"]) <= 1e-12,
          "--scale '%s' gives the digits of --scale %.17g (NumPy's value) and NumPy's S" % (expr, value))
for expr, words in (("1/0", ["'1/0'", "character 2", "division by zero"]),
                    ("sqrt(-2)", ["square root of a negative number"]),
                    ("1/sqrt(2", ["at its end", "expected ')'"]),
                    ("0,7", ["character 2", "decimal point"]),
                    ("2^3", ["character 2", "expected + - * / or the end"]),
                    ("exp(1)", ["character 1", "expected a number"]),
                    ("(" * 70 + "1" + ")" * 70, ["more than 64 nested parentheses"]),
                    ("1e999", ["not finite"])):
    refused(sep3 + ["--scale", expr], ["--scale"] + words, "--scale '%s'" % expr[:20])
# --features names the value columns of --print
p = run(["--x", W + "/X.csv", "--wq", W + "/W_Q.csv", "--wk", W + "/W_K.csv", "--wv", W + "/W_V.csv",
         "--tokens", "the,cat,sat", "--features", "animal,determiner", "--print"])
lines = p.stdout.splitlines()
i = lines.index("O = A V   (3 x 2)") if "O = A V   (3 x 2)" in lines else -1
check(i >= 0 and lines[i + 1].split() == ["animal", "determiner"] and
      lines[i + 4].split() == ["sat", "0.909443", "0.0452785"],
      "--features animal,determiner heads O's columns")
refused(["--x", W + "/X.csv", "--wq", W + "/W_Q.csv", "--wk", W + "/W_K.csv", "--wv", W + "/W_V.csv",
         "--features", "animal"], ["--features gives 1 name", "2 row"], "--features with 1 name for d_v = 2")
# --help: the exit-status text does not contradict itself
h = subprocess.run([exe, "--help"], capture_output=True, text=True).stdout
check("1 some verdict FAIL" not in h and "never 1" in h, "--help: exit status says never 1, nothing else")

print("test_attention: %d checks, %d failed" % (checks, len(fails)))
sys.exit(1 if fails else 0)
EOF
