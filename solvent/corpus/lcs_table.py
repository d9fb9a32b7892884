"""Longest common subsequence length: a DP table with `max` of the neighbours, int32.
Category: sequential."""
import numpy as np


def kernel(a, b, T):
    for i in range(1, a.shape[0] + 1):
        for j in range(1, b.shape[0] + 1):
            if a[i - 1] == b[j - 1]:
                T[i, j] = T[i - 1, j - 1] + 1
            else:
                T[i, j] = max(T[i - 1, j], T[i, j - 1])
    return T[a.shape[0], b.shape[0]]


def make_args(n, rng):
    return (rng.integers(0, 3, n, dtype=np.int8), rng.integers(0, 3, n + 2, dtype=np.int8),
            np.zeros((n + 1, n + 3), dtype=np.int32))


SIZES = (6, 21)
BENCH_SIZE = 400
JAX_PORT = None
NUMBA_OK = True
