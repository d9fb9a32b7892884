"""Forward substitution L x = b with NumPy slices: x[i] subtracts the dot product of the row
prefix L[i, :i] with the solved part x[:i] (run-time slice lengths). Category: sequential."""
import numpy as np


def kernel(L, b):
    n = b.shape[0]
    x = np.zeros(n)
    for i in range(n):
        x[i] = (b[i] - L[i, :i] @ x[:i]) / L[i, i]
    return x


def make_args(n, rng):
    L = np.tril(rng.random((n, n))) + n * np.eye(n)
    return (L, rng.random(n))


SIZES = (6, 40)
BENCH_SIZE = 2000
JAX_PORT = None
NUMBA_OK = True
