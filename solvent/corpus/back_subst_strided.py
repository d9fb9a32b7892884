"""Back substitution U x = b on an upper-triangular U, walking rows backwards
(range with a negative step) as ported from Fortran. Category: sequential."""
import numpy as np


def kernel(U, b):
    n = U.shape[0]
    x = np.zeros(n)
    for i in range(n - 1, -1, -1):
        s = b[i]
        for j in range(i + 1, n):
            s -= U[i, j] * x[j]
        x[i] = s / U[i, i]
    return x


def make_args(n, rng):
    return (np.triu(rng.random((n, n))) + n * np.eye(n), rng.random(n))


SIZES = (5, 16)
BENCH_SIZE = 400
JAX_PORT = None
NUMBA_OK = True
