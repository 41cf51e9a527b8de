# hostile: writes outside its folder at import (os.open, absolute path)
import os
fd = os.open("/tmp/att_grade_escape.txt", os.O_WRONLY | os.O_CREAT, 0o644)
os.write(fd, b"escaped")
