"""Loop twin of trmm: B = alpha * (I + strict_lower(A)^T) B with the k loop starting at i + 1. Category: linalg."""
from .trmm import make_args  # noqa: F401

TWIN_OF = "trmm"


def kernel(alpha, A, B):
    m, n = B.shape
    for i in range(m):
        for j in range(n):
            for k in range(i + 1, m):
                B[i, j] += A[k, i] * B[k, j]
            B[i, j] = alpha * B[i, j]


SIZES = (4, 7)
BENCH_SIZE = 300
JAX_PORT = None
NUMBA_OK = True
