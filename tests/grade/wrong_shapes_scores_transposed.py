# known wrong: S and A with one row per key
def attention_shapes(B, T_q, T_k, d, d_k, d_v):
    return {"X_q": (B, T_q, d), "X_kv": (B, T_k, d),
            "W_Q": (d, d_k), "W_K": (d, d_k), "W_V": (d, d_v),
            "Q": (B, T_q, d_k), "K": (B, T_k, d_k), "V": (B, T_k, d_v),
            "S": (B, T_k, T_q), "A": (B, T_k, T_q), "O": (B, T_q, d_v),
            "params": d * (2 * d_k + d_v)}
