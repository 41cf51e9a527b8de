# broken: returns NaN of the right shape
import numpy as np
def fused_self_attention(X, W_qkv, scale):
    return np.full(X.shape[:-1] + (W_qkv.shape[1] // 3,), np.nan)
