"""Back substitution U x = b with NumPy slices, bottom row first: x[i] subtracts the row
suffix U[i, i + 1:] dotted with x[i + 1:] (run-time slice lengths). Category: sequential."""
import numpy as np


def kernel(U, b):
    n = b.shape[0]
    x = np.zeros(n)
    for i in range(n - 1, -1, -1):
        x[i] = (b[i] - U[i, i + 1:] @ x[i + 1:]) / U[i, i]
    return x


def make_args(n, rng):
    U = np.triu(rng.random((n, n))) + n * np.eye(n)
    return (U, rng.random(n))


SIZES = (6, 40)
BENCH_SIZE = 2000
JAX_PORT = None
NUMBA_OK = True
