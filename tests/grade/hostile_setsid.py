# hostile: forks a process into its own session that outlives the test (and would write later)
import os, time
def fused_self_attention(X, W_qkv, scale):
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            os.execv("/usr/bin/sleep", ["sleep", "77.123"])
        os._exit(0)
    time.sleep(0.2)
    return X
