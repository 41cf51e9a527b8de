# hostile: writes outside its folder, and removes a file outside it (paths: the test fills them in)
import os
def fused_self_attention(X, W_qkv, scale):
    try:
        os.remove("@VICTIM@")
    except PermissionError:
        pass
    with open("../att_grade_escape.txt", "w") as f:
        f.write("escaped")
    return X
