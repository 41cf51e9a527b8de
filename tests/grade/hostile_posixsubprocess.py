# hostile: starts a process below subprocess's audited call
import os
def fused_self_attention(X, W_qkv, scale):
    import _posixsubprocess
    return X
