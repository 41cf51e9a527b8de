# hostile: finds the result pipe with fstat, writes a forged reply with no answers, leaves
import os, stat
for fd in range(3, 64):
    try:
        if stat.S_ISFIFO(os.fstat(fd).st_mode):
            os.write(fd, b'I\n{"import": null, "missing": false, "calls": [], "stdout": ""}\n')
    except OSError:
        pass
os._exit(0)
