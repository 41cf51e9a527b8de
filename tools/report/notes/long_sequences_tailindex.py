#!/usr/bin/env python3
"""long_sequences_tailindex.py - why long_sequences' tilted rows failed at c = 1 (long_sequences.md,
the note beside this script, cites its numbers).

The tilted law q1 (lib/claims/longseq.h) draws x ~ N(0, ((I - M)(I - M)^T)^{-1}), M = W_Q W_K^T,
and weights a row by w = p/q1 = e^{-(s - sigma^2/2)} / |det(I - M)|. Its moments are
E_q1[w^j] = E_p[w^{j-1}] ∝ E_p[exp(-(j-1) x^T B x)], 2B = I - (I - M)(I - M)^T, finite iff
I + (j-1) 2B is positive definite, i.e. j < 1 + 1/(lambda_max - 1), lambda_max the largest
eigenvalue of (I - M)(I - M)^T. So w has a power tail of index k = 1 + 1/(lambda_max - 1)
(given W): infinite variance when lambda_max > 2 (k < 2). I - 2B = (I - M)(I - M)^T itself is
always positive definite, so q1 is a proper law: the failure is the tail, not impropriety.
Prints, per configuration, the distribution of lambda_max and k over W draws.
usage: long_sequences_tailindex.py [draws] [seed]     (python3 with numpy: tools/python.sh numpy)
"""
import sys
import numpy as np

draws = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
seed = int(sys.argv[2]) if len(sys.argv) > 2 else 20261201
rng = np.random.default_rng(seed)
print(f"seed {seed}, {draws} W draws per configuration (d = 256: draws / 4)")
print("d  d_k  c^2   P(lambda_max > 2)  median lambda_max  median k  k at lambda_max's 95% quantile")
for d, dk, c2 in [(64, 16, 1.0), (64, 16, 0.5), (64, 4, 1.0), (256, 16, 0.5)]:
    n = draws if d == 64 else max(draws // 4, 1)
    lam = np.empty(n)
    for i in range(n):
        Q = rng.normal(0, np.sqrt(c2 / d), (d, dk))
        K = rng.normal(0, np.sqrt(c2 / d), (d, dk))
        lam[i] = np.linalg.svd(np.eye(d) - Q @ K.T, compute_uv=False)[0] ** 2
    k = 1 + 1 / (lam - 1)
    print(f"{d:<3} {dk:<4} {c2:<5} {np.mean(lam > 2):<18.4f} {np.median(lam):<18.3f} {np.median(k):<9.3f} "
          f"{1 + 1 / (np.quantile(lam, 0.95) - 1):.3f}")
