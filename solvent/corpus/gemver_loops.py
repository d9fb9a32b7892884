"""Loop twin of gemver: rank-2 update of A, then x and w by matrix-vector loops (PolyBench's C). Category: linalg."""
from .gemver import make_args  # noqa: F401

TWIN_OF = "gemver"


def kernel(alpha, beta, A, u1, v1, u2, v2, w, x, y, z):
    n = A.shape[0]
    for i in range(n):
        for j in range(n):
            A[i, j] += u1[i] * v1[j] + u2[i] * v2[j]
    for i in range(n):
        for j in range(n):
            x[i] = x[i] + beta * y[j] * A[j, i]
    for i in range(n):
        x[i] = x[i] + z[i]
    for i in range(n):
        for j in range(n):
            w[i] = w[i] + alpha * A[i, j] * x[j]


SIZES = (4, 9)
BENCH_SIZE = 1500
JAX_PORT = None
NUMBA_OK = True
