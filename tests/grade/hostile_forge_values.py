# hostile: forges one answer per case: an array that claims a shape over no numbers, and strings
import os, stat
bad = {"value": {"type": "ndarray", "shape": [7, 2], "dtype": "float64", "data": []}}
reply = '{"import": null, "missing": false, "calls": [%s, "a", "b", "c"]}' % str(bad).replace("'", '"')
for fd in range(3, 64):
    try:
        if stat.S_ISFIFO(os.fstat(fd).st_mode):
            os.write(fd, b"I\n" + reply.encode() + b"\n")
    except OSError:
        pass
os._exit(0)
