# known wrong, two mistakes at once: the split order K, Q, V and the scale ignored
# (no single known mistake reproduces it: the grader says so and names what to check)
import numpy as np
def fused_self_attention(X, W_qkv, scale):
    K, Q, V = np.split(X @ W_qkv, 3, axis=-1)
    S = Q @ np.swapaxes(K, -1, -2)
    A = np.exp(S - S.max(axis=-1, keepdims=True))
    return (A / A.sum(axis=-1, keepdims=True)) @ V
