# hostile: empties the runner's list of cases (the old grader then gave full marks)
import __main__
try:
    __main__.req["calls"].clear()
except Exception:
    pass
def fused_self_attention(X, W_qkv, scale):
    return X
