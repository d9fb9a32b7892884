"""Loop twin of syrk: lower-triangular C = beta*C + alpha*A A^T with the inner bound j <= i. Category: linalg."""
from .syrk import make_args  # noqa: F401

TWIN_OF = "syrk"


def kernel(alpha, beta, C, A):
    n = C.shape[0]
    m = A.shape[1]
    for i in range(n):
        for j in range(i + 1):
            C[i, j] *= beta
        for k in range(m):
            for j in range(i + 1):
                C[i, j] += alpha * A[i, k] * A[j, k]


SIZES = (4, 7)
BENCH_SIZE = 300
JAX_PORT = None
NUMBA_OK = True
