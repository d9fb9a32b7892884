"""Loop twin of atax: y = A^T (A x) with a scalar tmp per row, as PolyBench's C. Category: linalg."""
import numpy as np

from .atax import make_args  # noqa: F401

TWIN_OF = "atax"


def kernel(A, x):
    m, n = A.shape
    y = np.zeros(n)
    for i in range(m):
        tmp = 0.0
        for j in range(n):
            tmp += A[i, j] * x[j]
        for j in range(n):
            y[j] = y[j] + A[i, j] * tmp
    return y


SIZES = (4, 9)
BENCH_SIZE = 2000
JAX_PORT = None
NUMBA_OK = True
