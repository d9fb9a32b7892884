"""Loop twin of mvt: x1 += A y_1 and x2 += A^T y_2 as two scalar double loops. Category: linalg."""
from .mvt import make_args  # noqa: F401

TWIN_OF = "mvt"


def kernel(x1, x2, y_1, y_2, A):
    n = A.shape[0]
    for i in range(n):
        for j in range(n):
            x1[i] = x1[i] + A[i, j] * y_1[j]
    for i in range(n):
        for j in range(n):
            x2[i] = x2[i] + A[j, i] * y_2[j]


SIZES = (4, 9)
BENCH_SIZE = 2000
JAX_PORT = None
NUMBA_OK = True
