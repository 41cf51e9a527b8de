# hostile: writes outside its folder at import (os.open, absolute path) (paths: the test fills them in)
import os
fd = os.open("@ESCAPE@", os.O_WRONLY | os.O_CREAT, 0o644)
os.write(fd, b"escaped")
