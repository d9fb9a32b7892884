"""Triangular matrix multiply B = alpha * (I + strict_lower(A)^T) B as a row loop with masks (PolyBench trmm). Category: linalg."""
import numpy as np


def kernel(alpha, A, B):
    m = B.shape[0]
    rows = np.arange(m)
    for i in range(m):
        w = np.where(rows > i, A[:, i], 0.0)
        B[i, :] += w @ B
    B *= alpha


def make_args(n, rng):
    return (1.5, rng.random((n, n)) / n, rng.random((n, n + 6)))


SIZES = (8, 24)
BENCH_SIZE = 500
JAX_PORT = "trmm"
NUMBA_OK = True
