"""Section 4.2, "Queries, keys and values": reference solutions.

These pass exercises/grade.py with full marks (tests/test_grade.sh checks
it). Students: the starter is exercises/section_4_2.py; try it first.
"""
import numpy as np


def attention_shapes(B, T_q, T_k, d, d_k, d_v):
    """Every shape of one head for B sequences, and the projection weights."""
    return {
        "X_q": (B, T_q, d), "X_kv": (B, T_k, d),
        # the weights have no T: one set serves any length
        "W_Q": (d, d_k), "W_K": (d, d_k), "W_V": (d, d_v),
        "Q": (B, T_q, d_k), "K": (B, T_k, d_k), "V": (B, T_k, d_v),
        # one row per query, one column per key
        "S": (B, T_q, T_k), "A": (B, T_q, T_k),
        # one row per query, the value width: T_k disappears
        "O": (B, T_q, d_v),
        # W_Q, W_K (d, d_k) and W_V (d, d_v): d (2 d_k + d_v)
        "params": d * (2 * d_k + d_v),
    }


def previous_token_head(n_vocab, T):
    """Exercise 4.2b: keys read the position, values read the token.

    x_t = [e_token(t) ; e_t]. Key k_j = e_j (the position part of x_j);
    query q_t = c e_(t-1) for t >= 1 (position t asks for position t - 1),
    q_0 = 0; value v_j = e_token(j) (the token part). Row t then scores c on
    key t - 1 and 0 on the other T - 1 keys, so
        a(t, t-1) = e^c / (e^c + T - 1),
    and c = ln(999 (T - 1)) puts 0.999 on the previous position for any T.
    """
    d = n_vocab + T
    c = np.log(999.0 * max(T - 1, 1))
    W_Q = np.zeros((d, T)); W_K = np.zeros((d, T)); W_V = np.zeros((d, n_vocab))
    for t in range(1, T):
        W_Q[n_vocab + t, t - 1] = c       # position t's query asks for t - 1
    for j in range(T):
        W_K[n_vocab + j, j] = 1.0         # key j = position j
    for v in range(n_vocab):
        W_V[v, v] = 1.0                   # value j = token j
    return W_Q, W_K, W_V


def fused_self_attention(X, W_qkv, scale):
    """QKV = X W_qkv, split along the last axis; O = softmax(scale Q K^T) V.

    X (T, d) or (B, T, d); W_qkv (d, 3 d_k); O (T, d_k) or (B, T, d_k).
    """
    QKV = X @ W_qkv                                  # (..., T, 3 d_k): one matmul
    Q, K, V = np.split(QKV, 3, axis=-1)              # each (..., T, d_k)
    S = scale * Q @ np.swapaxes(K, -1, -2)           # (..., T, T)
    S = S - S.max(axis=-1, keepdims=True)            # softmax is shift invariant
    A = np.exp(S)
    A = A / A.sum(axis=-1, keepdims=True)
    return A @ V                                     # (..., T, d_k)
