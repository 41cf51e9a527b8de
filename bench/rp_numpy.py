"""rp_numpy.py - random_projections' Monte Carlo, vectorised with NumPy: what a
user would write instead of the C engine. The same per-draw computation as
lib/claims/selfweight.h (main sweep, no control):

    X (T, d) ~ N(0, 1);  W_Q, W_K (d, d_k) ~ N(0, 1/d)
    S = (X W_Q)(X W_K)^T          (T, T), no 1/sqrt(d_k)
    A = row softmax(S)            (max subtracted)
    per draw: mean_i a_ii, fraction of rows whose strict argmax is i,
              mean_i s_ii^2, mean_{i != j} s_ij^2

Draws are processed in chunks (batched matmul over the chunk). Prints
"key value" lines: draws/s, seconds, and T * mean self-weight with its 95% CI
(a sanity check: about 1, as the C run gives).

    /usr/bin/python3 bench/rp_numpy.py [--T 8] [--d 64] [--dk 16]
        [--draws 200000] [--bitgen PCG64|MT19937] [--seed 1] [--chunk 4096]
"""
import argparse
import time

import numpy as np


def run(draws, T, d, dk, bitgen, seed, chunk):
    rng = np.random.Generator(getattr(np.random, bitgen)(seed))
    sw = 1.0 / np.sqrt(d)
    idx = np.arange(T)
    total = np.zeros(4)
    total_sq = np.zeros(4)
    done = 0
    while done < draws:
        n = min(chunk, draws - done)
        X = rng.standard_normal((n, T, d))
        WQ = rng.standard_normal((n, d, dk)) * sw
        WK = rng.standard_normal((n, d, dk)) * sw
        S = (X @ WQ) @ (X @ WK).transpose(0, 2, 1)        # (n, T, T)
        E = np.exp(S - S.max(axis=2, keepdims=True))
        A_diag = E[:, idx, idx] / E.sum(axis=2)            # a_ii, (n, T)
        s_diag = S[:, idx, idx]
        S_off = S.copy()
        S_off[:, idx, idx] = -np.inf
        stats = np.stack([
            A_diag.mean(axis=1),
            (s_diag > S_off.max(axis=2)).mean(axis=1),
            (s_diag ** 2).mean(axis=1),
            ((S ** 2).sum(axis=(1, 2)) - (s_diag ** 2).sum(axis=1)) / (T * (T - 1)),
        ], axis=1)
        total += stats.sum(axis=0)
        total_sq += (stats ** 2).sum(axis=0)
        done += n
    mean = total / draws
    var = (total_sq - draws * mean ** 2) / (draws - 1)
    return mean, np.sqrt(np.maximum(var, 0) / draws)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--T", type=int, default=8)
    ap.add_argument("--d", type=int, default=64)
    ap.add_argument("--dk", type=int, default=16)
    ap.add_argument("--draws", type=int, default=200000)
    ap.add_argument("--bitgen", default="PCG64", choices=["PCG64", "MT19937"])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--chunk", type=int, default=4096)
    a = ap.parse_args()
    t0 = time.perf_counter()
    mean, se = run(a.draws, a.T, a.d, a.dk, a.bitgen, a.seed, a.chunk)
    t = time.perf_counter() - t0
    print("numpy_version", np.__version__)
    print("numpy_bitgen", a.bitgen)
    print("numpy_seconds %.6g" % t)
    print("numpy_draws_per_s %.6g" % (a.draws / t))
    print("numpy_T_self %.6g" % (a.T * mean[0]))
    print("numpy_T_self_ci %.6g %.6g" % (a.T * (mean[0] - 1.96 * se[0]),
                                          a.T * (mean[0] + 1.96 * se[0])))


if __name__ == "__main__":
    main()
