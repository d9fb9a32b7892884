"""A^T (A x) written as a PolyBench-style loop over rows with whole-row operations. Category: linalg (dot-dominated)."""
import numpy as np


def kernel(A, x):
    y = np.zeros(A.shape[1])
    for i in range(A.shape[0]):
        tmp = A[i, :] @ x
        y += tmp * A[i, :]
    return y


def make_args(n, rng):
    return (rng.random((n + 7, n)), rng.random(n))


SIZES = (8, 24)
BENCH_SIZE = 3000
JAX_PORT = "atax"
NUMBA_OK = True
