# known wrong: 1/sqrt(d_k) in place of the scale it is given
import numpy as np
def fused_self_attention(X, W_qkv, scale):
    Q, K, V = np.split(X @ W_qkv, 3, axis=-1)
    S = Q @ np.swapaxes(K, -1, -2) / np.sqrt(Q.shape[-1])
    A = np.exp(S - S.max(axis=-1, keepdims=True))
    return (A / A.sum(axis=-1, keepdims=True)) @ V
