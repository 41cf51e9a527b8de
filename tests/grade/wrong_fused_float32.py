# known wrong: computed in float32
import numpy as np
def fused_self_attention(X, W_qkv, scale):
    X = X.astype(np.float32); W_qkv = W_qkv.astype(np.float32)
    Q, K, V = np.split(X @ W_qkv, 3, axis=-1)
    S = np.float32(scale) * Q @ np.swapaxes(K, -1, -2)
    A = np.exp(S - S.max(axis=-1, keepdims=True))
    return (A / A.sum(axis=-1, keepdims=True)) @ V
