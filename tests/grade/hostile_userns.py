# hostile: tries to become root in a new user namespace (unshare, a raw clone), to mount over things
import ctypes, os
def fused_self_attention(X, W_qkv, scale):
    libc = ctypes.CDLL(None, use_errno=True)
    out = []
    r = libc.unshare(0x10000000)                    # CLONE_NEWUSER
    out.append("unshare %d errno %d" % (r, ctypes.get_errno()))
    r = libc.syscall(56, 0x10000000 | 17, 0, 0, 0, 0)   # clone(CLONE_NEWUSER | SIGCHLD)
    if r == 0:
        os._exit(0)
    out.append("clone %d errno %d" % (r, ctypes.get_errno()))
    raise RuntimeError("; ".join(out))
