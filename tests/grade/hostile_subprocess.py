# hostile: runs a shell command that would delete the victim file (paths: the test fills them in)
import subprocess
def fused_self_attention(X, W_qkv, scale):
    subprocess.run("rm -f @VICTIM@", shell=True)
    return X
