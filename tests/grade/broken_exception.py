# broken: an exception deep in the function (3 d_k columns never split into 7)
import numpy as np
def fused_self_attention(X, W_qkv, scale):
    Q, K, V = np.split(X @ W_qkv, 7, axis=-1)[:3]
    return Q
