"""Loop twin of gemm: C = beta*C + alpha*A@B as PolyBench's C triple loop (i, k, j order). Category: linalg."""
from .gemm import make_args  # noqa: F401  (the twin takes gemm's arguments)

TWIN_OF = "gemm"


def kernel(alpha, beta, C, A, B):
    ni, nj = C.shape
    nk = A.shape[1]
    for i in range(ni):
        for j in range(nj):
            C[i, j] *= beta
        for k in range(nk):
            for j in range(nj):
                C[i, j] += alpha * A[i, k] * B[k, j]


SIZES = (4, 7)
BENCH_SIZE = 300
JAX_PORT = None
NUMBA_OK = True
