# hostile: opens network sockets (out to the internet, and a Unix socket)
import socket
def fused_self_attention(X, W_qkv, scale):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.connect(("1.1.1.1", 80))
    return X
