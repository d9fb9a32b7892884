"""Forward substitution L x = b with a unit-free lower-triangular L, scalar loops as ported
from C (a loop-carried dependence through x). Category: sequential."""
import numpy as np


def kernel(L, b, x):
    n = L.shape[0]
    for i in range(n):
        s = b[i]
        for j in range(i):
            s -= L[i, j] * x[j]
        x[i] = s / L[i, i]
    return x


def make_args(n, rng):
    L = np.tril(rng.random((n, n))) + n * np.eye(n)
    return (L, rng.random(n), np.zeros(n))


SIZES = (5, 17)
BENCH_SIZE = 400
JAX_PORT = None
NUMBA_OK = True
