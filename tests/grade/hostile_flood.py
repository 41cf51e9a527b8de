# hostile: floods stdout and stderr
import sys
def fused_self_attention(X, W_qkv, scale):
    while True:
        sys.stdout.write("x" * 65536)
        sys.stderr.write("y" * 65536)
