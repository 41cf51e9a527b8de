"""Section 4.2, "Queries, keys and values": the three exercises (starter file).

Copy this file first, so that the starter stays as it is, then fill in the
three functions of your copy, using NumPy only, and check them (from the top
of the checkout, as the README shows):

    mkdir -p mine && cp exercises/section_4_2.py mine/
    python3 exercises/grade.py mine/section_4_2.py     (or: make grade FILE=mine/section_4_2.py)

The grader imports your one file alone, in a separate process with a folder
of its own: nothing else is graded, so everything must be in this file (an
import of a helper module of your own fails with ModuleNotFoundError; NumPy
and the standard library are there). It calls your functions on random inputs
(from a seed it prints) and compares what they return with the suite's C head
(bin/shapes and bin/attention). Every failed test says what was expected,
what came back, and the command that replays it.

Reference solutions exist, in exercises/solutions/section_4_2.py. They are
kept in their own folder so that you can choose not to look before you have
tried.

Conventions (the section's): tokens are rows; a head computes
    Q = X_q W_Q,  K = X_kv W_K,  V = X_kv W_V,
    S = scale * Q K^T,  A = softmax(S) row by row,  O = A V.
Do not print anything: the grader treats output on stdout as an error.
"""
import numpy as np


def attention_shapes(B, T_q, T_k, d, d_k, d_v):
    """The shape of every matrix of one attention head, and its weight count.

    B sequences; each has T_q queries and T_k keys and values; tokens have
    width d; queries and keys have width d_k, values width d_v.

    Return a dict with these keys:
      "X_q", "X_kv"        the two inputs (queries come from X_q, keys and
                           values from X_kv)
      "W_Q", "W_K", "W_V"  the three projection matrices
      "Q", "K", "V"        the projections
      "S", "A"             the scores and the attention weights
      "O"                  the output
    each mapped to a tuple of ints: (B, rows, columns) for the inputs, the
    projections, S, A and O (the batch axis first), (rows, columns) for the
    weights; and
      "params"             an int: how many numbers W_Q, W_K and W_V hold
                           together (no biases, no output projection).
    """
    raise NotImplementedError("attention_shapes is not written yet")


def previous_token_head(n_vocab, T):
    """Exercise 4.2b: the weights of a previous-token head.

    The input row of position t (t = 0 .. T-1) is x_t = [one-hot of token t
    (n_vocab numbers) ; one-hot of position t (T numbers)], so d = n_vocab + T
    and X is (T, d). Return (W_Q, W_K, W_V), NumPy arrays of shapes (d, T),
    (d, T) and (d, n_vocab), such that the head run with scale 1 and no mask
    (S = Q K^T, A = softmax(S) row by row, O = A V) makes every position
    t >= 1 put most of its weight (more than half) on position t - 1, and
    makes its output o_t largest at the entry of token t - 1, whatever the
    tokens are. Position 0 has no previous token: what it does is free.
    The grader checks this for n_vocab and T from small (2, 3) to large
    (200, 128), on random token sequences.

    Hint from the section: the key should read the position part of x_j,
    the value the token part.
    """
    d = n_vocab + T
    W_Q = np.zeros((d, T)); W_K = np.zeros((d, T)); W_V = np.zeros((d, n_vocab))
    return W_Q, W_K, W_V      # placeholder: all-zero weights attend uniformly


def fused_self_attention(X, W_qkv, scale):
    """One self-attention head computed with a single projection matmul.

    X is (T, d) for one sequence or (B, T, d) for a batch of B sequences.
    W_qkv is (d, 3 d_k): the three weight matrices side by side,
    W_qkv = [W_Q | W_K | W_V] (here d_v = d_k). Multiply once, split the
    result along the last axis into Q, K and V (in that order), and return
    O = softmax(scale * Q K^T) V, of shape (T, d_k), or (B, T, d_k) for a
    batch (each sequence attends within itself; no mask).

    Note: PyTorch's nn.Linear stores the same weight as (3 d_k, d), the
    transpose of W_qkv; this function takes the section's (d, 3 d_k).
    The result must agree with the C head to within rounding (float64).
    """
    raise NotImplementedError("fused_self_attention is not written yet")
