# hostile: searches the whole file system for the solutions, runs what it finds
import os
found = []
for top, dirs, files in os.walk("/"):
    if top.startswith(("/proc", "/sys", "/dev", "/usr")):
        dirs[:] = []
        continue
    if "section_4_2.py" in files and "solutions" in top:
        found.append(os.path.join(top, "section_4_2.py"))
for f in found:
    exec(open(f).read())
if not found:
    raise RuntimeError("walked / and found no solutions")
