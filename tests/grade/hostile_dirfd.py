# hostile: writes outside its folder through dir_fd, and makes a FIFO and a device node there (paths: the test fills them in)
import os
def fused_self_attention(X, W_qkv, scale):
    hits = []
    for d in ("/", "/tmp", "/usr", "/box/..", "/proc/self/cwd/..", "@ESCDIR@"):
        try:
            fd = os.open(d, os.O_RDONLY)
            f = os.open("att_grade_escape.txt", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd)
            os.write(f, b"escaped")
            hits.append(d)
        except OSError:
            pass
        for make in (lambda: os.mkfifo("att_grade_fifo", dir_fd=fd),
                     lambda: os.mknod("att_grade_node", dir_fd=fd)):
            try:
                make()
                hits.append(d + " (node)")
            except OSError:
                pass
    raise RuntimeError("wrote outside: %s" % hits)
