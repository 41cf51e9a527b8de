# broken: an exception deep in the function
import numpy as np
def fused_self_attention(X, W_qkv, scale):
    Q, K = np.split(X @ W_qkv, 2, axis=-1)
    return Q
