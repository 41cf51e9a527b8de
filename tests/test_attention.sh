#!/bin/sh
# test_attention.sh - bin/attention end to end, against an independent NumPy
# implementation of the head (python3-numpy).
#
#   1. the worked example ("the cat sat"): A and O equal the closed forms
#      e^3/(e^3+2) and 1/(e^3+2) to 1e-15, and the --print table shows them;
#   2. random inputs with biases, a scale, with and without RoPE, self- and
#      cross-attention: Q, K, V, S, A, O agree with NumPy to 1e-12 (relative
#      to the largest entry), and every gradient agrees with central finite
#      differences of L = sum(G .* O) computed in NumPy (relative 1e-6);
#   3. what bin/attention writes reads back as its own input, bit for bit
#      (O.csv given back as --x reproduces the same Q).
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

print("test_attention: %d checks, %d failed" % (checks, len(fails)))
sys.exit(1 if fails else 0)
EOF
