# hostile: never returns
def fused_self_attention(X, W_qkv, scale):
    while True:
        pass
