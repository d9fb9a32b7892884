"""Levenshtein edit distance between two integer sequences: a dynamic-programming table
filled with `min` of three neighbours, row after row. Category: sequential."""
import numpy as np


def kernel(s, t, D):
    n, m = s.shape[0], t.shape[0]
    for i in range(n + 1):
        D[i, 0] = i
    for j in range(m + 1):
        D[0, j] = j
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            cost = 0 if s[i - 1] == t[j - 1] else 1
            D[i, j] = min(D[i - 1, j] + 1, D[i, j - 1] + 1, D[i - 1, j - 1] + cost)
    return D[n, m]


def make_args(n, rng):
    return (rng.integers(0, 4, n), rng.integers(0, 4, n + 3),
            np.zeros((n + 1, n + 4), dtype=np.int64))


SIZES = (5, 19)
BENCH_SIZE = 400
JAX_PORT = None
NUMBA_OK = True
