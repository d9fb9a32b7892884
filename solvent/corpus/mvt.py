"""Matrix-vector product and transpose, one half as a scalar-indexed row loop (PolyBench mvt). Category: linalg (dot-dominated)."""
import numpy as np


def kernel(x1, x2, y_1, y_2, A):
    for i in range(A.shape[0]):
        x1[i] += np.dot(A[i, :], y_1)
    x2 += A.T @ y_2


def make_args(n, rng):
    return (rng.random(n), rng.random(n), rng.random(n), rng.random(n), rng.random((n, n)))


SIZES = (8, 24)
BENCH_SIZE = 3000
JAX_PORT = "mvt"
NUMBA_OK = True
