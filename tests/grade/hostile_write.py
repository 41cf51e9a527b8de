# hostile: writes outside its folder, and removes a file outside it
import os
def fused_self_attention(X, W_qkv, scale):
    try:
        os.remove("/tmp/att_grade_victim.txt")
    except PermissionError:
        pass
    with open("../att_grade_escape.txt", "w") as f:
        f.write("escaped")
    return X
