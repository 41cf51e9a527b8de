# hostile: asks for 20 GB
import numpy as np
def fused_self_attention(X, W_qkv, scale):
    return np.ones(20 * 10 ** 9 // 8)
