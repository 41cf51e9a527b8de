"""test_torch.py - framework conventions, checked against PyTorch (issue 12.4).

Run by tests/test_torch.sh with the path of bin/attention. Every check feeds
the SAME weights to PyTorch (float64) and to the project's head (bin/attention,
lib/math/head.h) and compares to rounding: a projection entry is an inner
product of length d, so two computations differ by at most about
2 d eps max|x| max|w|; attention outputs get a few times that. Checks:
  1. nn.Linear(d, n) stores its weight as (out, in) = (n, d): y = x W^T + b.
  2. one nn.Linear(d, 2 d_k + d_v) split into three column blocks equals the
     project's fused product X W_QKV with W_QKV = weight^T = [W_Q | W_K | W_V]
     (lib/math/fused.h), with and without bias: Q, K, V of bin/attention.
  3. nn.MultiheadAttention with one head (embed_dim d, so d_k = d_v = d, the
     output projection set to the identity) gives the project's head output
     O and weights A, once bin/attention is run with --scale 1/sqrt(d_k)
     (the section's head has scale 1; PyTorch always scales).
Exit 0 when every check passes, 1 otherwise (each failure is printed).
"""
import os
import subprocess
import sys
import tempfile

import numpy as np
import torch

EPS = np.finfo(np.float64).eps
failures = []


def check(name, err, tol):
    ok = err <= tol
    print(f"  {'ok  ' if ok else 'FAIL'} {name}: max |diff| {err:.3g} (tolerance {tol:.3g})")
    if not ok:
        failures.append(name)


def write(path, M):
    M = np.atleast_2d(M)
    np.savetxt(path, M, delimiter=",", fmt="%.17g")
    return path


def read(path):
    return np.loadtxt(path, delimiter=",", comments="#", ndmin=2)


def run_head(tool, tmp, X, W_Q, W_K, W_V, b=None, scale=None):
    """Q, K, V, A, O of the project's head on these matrices."""
    args = [tool, "--x", write(os.path.join(tmp, "X.csv"), X),
            "--wq", write(os.path.join(tmp, "WQ.csv"), W_Q),
            "--wk", write(os.path.join(tmp, "WK.csv"), W_K),
            "--wv", write(os.path.join(tmp, "WV.csv"), W_V), "--out", tmp]
    if b is not None:
        for name, v in zip(("bq", "bk", "bv"), b):
            args += ["--" + name, write(os.path.join(tmp, name + ".csv"), v)]
    if scale is not None:
        args += ["--scale", repr(scale)]
    r = subprocess.run(args, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"test_torch: {' '.join(args)} failed ({r.returncode}): {r.stderr}")
    return {m: read(os.path.join(tmp, m + ".csv")) for m in ("Q", "K", "V", "A", "O")}


def main():
    tool = sys.argv[1]
    torch.manual_seed(20261129)
    rng = np.random.default_rng(20261129)
    T, d, d_k, d_v = 7, 12, 4, 5
    n = 2 * d_k + d_v
    X = rng.standard_normal((T, d))
    Xt = torch.tensor(X, dtype=torch.float64)

    print("1. nn.Linear stores its weight as (out, in)")
    lin = torch.nn.Linear(d, n, bias=True, dtype=torch.float64)
    shape_ok = tuple(lin.weight.shape) == (n, d)
    print(f"  {'ok  ' if shape_ok else 'FAIL'} nn.Linear({d}, {n}).weight.shape = {tuple(lin.weight.shape)}, "
          f"(out, in) = ({n}, {d})")
    if not shape_ok:
        failures.append("weight shape")
    Wt = lin.weight.detach().numpy()        # (n, d) = W_QKV^T
    bias = lin.bias.detach().numpy()
    y = lin(Xt).detach().numpy()
    scale_xw = np.abs(X).max() * np.abs(Wt).max() * d
    check("y = x W^T + b (by hand in NumPy)", np.abs(y - (X @ Wt.T + bias)).max(), 4 * d * EPS * scale_xw)

    print("2. one nn.Linear(d, 2 d_k + d_v) split = the project's fused W_QKV")
    W_QKV = Wt.T                            # (d, n) = [W_Q | W_K | W_V]
    W_Q, W_K, W_V = W_QKV[:, :d_k], W_QKV[:, d_k:2 * d_k], W_QKV[:, 2 * d_k:]
    b_Q, b_K, b_V = bias[:d_k], bias[d_k:2 * d_k], bias[2 * d_k:]
    tq, tk, tv = torch.split(lin(Xt), [d_k, d_k, d_v], dim=-1)
    with tempfile.TemporaryDirectory() as tmp:
        for with_bias in (False, True):
            out = run_head(tool, tmp, X, W_Q, W_K, W_V, (b_Q, b_K, b_V) if with_bias else None)
            ref = [t.detach().numpy() - (0 if with_bias else b) for t, b in ((tq, b_Q), (tk, b_K), (tv, b_V))]
            err = max(np.abs(out[m] - r).max() for m, r in zip("QKV", ref))
            check(f"Q, K, V of bin/attention vs the split nn.Linear ({'with' if with_bias else 'no'} bias)",
                  err, 4 * d * EPS * scale_xw)

        print("3. nn.MultiheadAttention, one head, vs the project's head with --scale 1/sqrt(d_k)")
        mha = torch.nn.MultiheadAttention(d, 1, bias=False, batch_first=True, dtype=torch.float64)
        with torch.no_grad():
            mha.out_proj.weight.copy_(torch.eye(d, dtype=torch.float64))   # O itself, no W_O
        W_in = mha.in_proj_weight.detach().numpy()                         # (3d, d) = [W_Q^T; W_K^T; W_V^T]
        MQ, MK, MV = (W_in[i * d:(i + 1) * d].T for i in range(3))          # each (d, d): d_k = d_v = d
        O_t, A_t = mha(Xt[None], Xt[None], Xt[None], need_weights=True)
        O_t, A_t = O_t[0].detach().numpy(), A_t[0].detach().numpy()
        out = run_head(tool, tmp, X, MQ, MK, MV, scale=1.0 / np.sqrt(d))
        wscale = np.abs(X).max() * np.abs(W_in).max() * d
        check("A (attention weights)", np.abs(out["A"] - A_t).max(), 64 * d * EPS * wscale)
        check("O (head output)", np.abs(out["O"] - O_t).max(), 64 * d * EPS * wscale * max(1.0, np.abs(O_t).max()))
        # the control: without the scale the outputs differ (the check can tell)
        out1 = run_head(tool, tmp, X, MQ, MK, MV)
        diff = np.abs(out1["O"] - O_t).max()
        ok = diff > 1e3 * 64 * d * EPS * wscale
        print(f"  {'ok  ' if ok else 'FAIL'} control: with scale 1 instead the outputs differ by {diff:.3g}")
        if not ok:
            failures.append("control")

    if failures:
        print("test_torch: FAILED:", ", ".join(failures))
        return 1
    print("test_torch: all PyTorch checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
