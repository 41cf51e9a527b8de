# broken: every call takes a second (the grader's budget per submission runs out)
import time
def attention_shapes(B, T_q, T_k, d, d_k, d_v):
    time.sleep(1)
def previous_token_head(n_vocab, T):
    time.sleep(1)
def fused_self_attention(X, W_qkv, scale):
    time.sleep(1)
