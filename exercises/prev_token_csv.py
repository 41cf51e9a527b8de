#!/usr/bin/env python3
"""prev_token_csv.py - write your Exercise 4.2b head as CSV files for bin/attention.

    python3 exercises/prev_token_csv.py MY_FILE.py --words "the cat sat on the mat" [--out DIR]

Imports previous_token_head from MY_FILE.py (your own code: it runs here, not
in the grader's sandbox), takes the word types of --words in order of first
appearance as the vocabulary (n_vocab of them) and T = the number of words,
and writes into DIR (default mine/prev_token/, apart from the files of
README.md's "your own matrices" step in mine/):
    X.csv    (T, n_vocab + T)   row t = [one-hot of word t ; one-hot of position t]
    W_Q.csv, W_K.csv (n_vocab + T, T), W_V.csv (n_vocab + T, n_vocab)
then prints the bin/attention command that shows the weights A and the
outputs O. A previous-token head puts most of row t's weight on t - 1, and
row t of O is largest in the column of word t - 1.

Needs NumPy; when this python3 has none, it reruns itself with the first
interpreter that has it (as exercises/grade.py does).
"""
import argparse
import os
import sys


def main():
    ap = argparse.ArgumentParser(description="Write an Exercise 4.2b head and its input as CSV.")
    ap.add_argument("file", help="your Python file with previous_token_head(n_vocab, T)")
    ap.add_argument("--words", default="the cat sat on the mat", help="the sequence (default: %(default)s)")
    ap.add_argument("--out", default="mine/prev_token", help="folder for the CSV files (default mine/prev_token/)")
    a = ap.parse_args()
    try:
        import numpy as np
    except ImportError:
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        import grade
        python = grade.find_python()[0]
        if os.path.realpath(python) == os.path.realpath(sys.executable):
            sys.exit("prev_token_csv.py: no Python with NumPy found")
        os.execv(python, [python, os.path.abspath(__file__)] + sys.argv[1:])
    import importlib.util
    spec = importlib.util.spec_from_file_location("student", a.file)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    words = a.words.split()
    if not words:
        sys.exit("prev_token_csv.py: --words is empty")
    vocab = list(dict.fromkeys(words))
    n_vocab, T = len(vocab), len(words)
    W = [np.asarray(w, dtype=float) for w in mod.previous_token_head(n_vocab, T)]
    d = n_vocab + T
    X = np.zeros((T, d))
    X[np.arange(T), [vocab.index(w) for w in words]] = 1.0   # one-hot word
    X[np.arange(T), n_vocab + np.arange(T)] = 1.0            # one-hot position
    os.makedirs(a.out, exist_ok=True)
    for name, M in [("X", X), ("W_Q", W[0]), ("W_K", W[1]), ("W_V", W[2])]:
        with open(os.path.join(a.out, name + ".csv"), "w") as f:
            f.write("# %s (%d x %d), Exercise 4.2b, n_vocab %d, T %d\n" % ((name,) + M.shape + (n_vocab, T)))
            for row in np.atleast_2d(M):
                f.write(",".join(repr(float(x)) for x in row) + "\n")
    o = a.out
    print("wrote %s/X.csv W_Q.csv W_K.csv W_V.csv (n_vocab %d, T %d, d %d); now run:" % (o, n_vocab, T, d))
    print("bin/attention --x %s/X.csv --wq %s/W_Q.csv --wk %s/W_K.csv --wv %s/W_V.csv --tokens %s "
          "--features %s --print" % (o, o, o, o, ",".join(words), ",".join(vocab)))


if __name__ == "__main__":
    main()
