"""Symmetric rank-k update of the lower triangle of C, as a loop of masked outer products (PolyBench syrk). Category: linalg."""
import numpy as np


def kernel(alpha, beta, C, A):
    n = C.shape[0]
    L = np.tril(np.ones((n, n)))
    C *= np.where(L > 0.0, beta, 1.0)
    for k in range(A.shape[1]):
        C += alpha * L * np.outer(A[:, k], A[:, k])


def make_args(n, rng):
    return (1.5, 1.2, rng.random((n, n)), rng.random((n, n // 2 + 3)))


SIZES = (8, 24)
BENCH_SIZE = 300
JAX_PORT = "syrk"
NUMBA_OK = True
