# hostile: ends the process at import
import sys
sys.exit(0)
