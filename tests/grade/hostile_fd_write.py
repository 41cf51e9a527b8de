# hostile: writes straight to file descriptor 1, bypassing print
import os
os.write(1, b'{"import": null, "missing": false, "calls": []}')
