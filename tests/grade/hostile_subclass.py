# hostile: ndarray subclasses that lie: a shape (T, d_k) over 0 elements, an astype of strings
import numpy as np
class Liar(np.ndarray):
    claimed = None
    @property
    def shape(self):
        return self.claimed
    def astype(self, *a, **k):
        return np.array(["not", "numbers"])
def fused_self_attention(X, W_qkv, scale):
    r = np.zeros(0).view(Liar)
    r.claimed = X.shape[:-1] + (W_qkv.shape[1] // 3,)
    return r
