"""Loop twin of bicg: s = r^T A and q = A p in one fused double loop (PolyBench's C). Category: linalg."""
import numpy as np

from .bicg import make_args  # noqa: F401

TWIN_OF = "bicg"


def kernel(A, p, r):
    m, n = A.shape
    s = np.zeros(n)
    q = np.zeros(m)
    for i in range(m):
        for j in range(n):
            s[j] = s[j] + r[i] * A[i, j]
            q[i] = q[i] + A[i, j] * p[j]
    return s, q


SIZES = (4, 9)
BENCH_SIZE = 2000
JAX_PORT = None
NUMBA_OK = True
