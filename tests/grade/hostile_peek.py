# hostile (folder mode): looks for the other submissions and the grades (the test writes @SUBS@
# and @GRADES@), and reports what it sees in its error message
import os
def fused_self_attention(X, W_qkv, scale):
    seen = {}
    for d in ("@SUBS@", "@GRADES@", "..", "/", "/box"):
        try:
            seen[d] = sorted(os.listdir(d))
        except OSError as e:
            seen[d] = type(e).__name__
    try:
        seen["alice"] = open("@SUBS@/alice_secret.py").read()[:40]
    except OSError as e:
        seen["alice"] = type(e).__name__
    raise RuntimeError("seen: %r" % seen)
