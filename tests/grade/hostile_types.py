# broken: wrong types everywhere
def attention_shapes(B, T_q, T_k, d, d_k, d_v):
    return [("Q", "B, T_q, d_k")]
def previous_token_head(n_vocab, T):
    return "W_Q, W_K, W_V"
def fused_self_attention(X, W_qkv, scale):
    return X.tolist()
