"""Loop twin of cholesky: Cholesky-Crout with scalar dot-product loops whose bounds follow the
column index. Category: linalg."""
import math

import numpy as np

from .cholesky import make_args  # noqa: F401

TWIN_OF = "cholesky"


def kernel(A):
    n = A.shape[0]
    L = np.zeros_like(A)
    for j in range(n):
        s = A[j, j]
        for k in range(j):
            s -= L[j, k] * L[j, k]
        L[j, j] = math.sqrt(s)
        for i in range(j + 1, n):
            s = A[i, j]
            for k in range(j):
                s -= L[i, k] * L[j, k]
            L[i, j] = s / L[j, j]
    return L


SIZES = (3, 6)
BENCH_SIZE = 400
JAX_PORT = None
NUMBA_OK = True
