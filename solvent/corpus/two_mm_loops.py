"""Loop twin of two_mm: tmp = alpha*A@B, then D = beta*D + tmp@C, as PolyBench's C loops. Category: linalg."""
import numpy as np

from .two_mm import make_args  # noqa: F401

TWIN_OF = "two_mm"


def kernel(alpha, beta, A, B, C, D):
    ni, nk = A.shape
    nj = B.shape[1]
    nl = C.shape[1]
    tmp = np.empty((ni, nj))
    for i in range(ni):
        for j in range(nj):
            tmp[i, j] = 0.0
            for k in range(nk):
                tmp[i, j] += alpha * A[i, k] * B[k, j]
    for i in range(ni):
        for j in range(nl):
            D[i, j] *= beta
            for k in range(nj):
                D[i, j] += tmp[i, k] * C[k, j]


SIZES = (4, 7)
BENCH_SIZE = 250
JAX_PORT = None
NUMBA_OK = True
