# hostile: asks for 80 GB
import numpy as np
def fused_self_attention(X, W_qkv, scale):
    return np.ones(10 ** 10)
