# hostile: right on the first case only, and patches the runner's json.dumps so that only
# the first answer goes back (the old grader zipped cases with answers)
import json
import numpy as np
_dumps = json.dumps
def _first(o, *a, **k):
    if isinstance(o, dict) and isinstance(o.get("calls"), list):
        o = dict(o, calls=o["calls"][:1])
        o.pop("stdout", None)
    return _dumps(o, *a, **k)
json.dumps = _first
n = [0]
def fused_self_attention(X, W_qkv, scale):
    n[0] += 1
    if n[0] > 1:
        return np.zeros(X.shape[:-1] + (W_qkv.shape[1] // 3,))
    Q, K, V = np.split(X @ W_qkv, 3, axis=-1)
    S = scale * Q @ np.swapaxes(K, -1, -2)
    A = np.exp(S - S.max(axis=-1, keepdims=True))
    return (A / A.sum(axis=-1, keepdims=True)) @ V
