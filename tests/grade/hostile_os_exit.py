# hostile: leaves without a word from inside the function
import os
def fused_self_attention(X, W_qkv, scale):
    os._exit(0)
