"""Loop twin of three_mm: G = (A B)(C D) with scalar accumulators, the inputs read through
flat C-style offsets (row * ncols + col) into their ravelled storage. Category: linalg."""
import numpy as np

from .three_mm import make_args  # noqa: F401

TWIN_OF = "three_mm"


def kernel(A, B, C, D):
    ni, nk = A.shape
    nj = B.shape[1]
    nm = D.shape[0]
    nl = D.shape[1]
    a = A.ravel()
    b = B.ravel()
    c = C.ravel()
    d = D.ravel()
    E = np.zeros((ni, nj))
    for i in range(ni):
        for j in range(nj):
            s = 0.0
            for k in range(nk):
                s += a[i * nk + k] * b[k * nj + j]
            E[i, j] = s
    F = np.zeros((nj, nl))
    for i in range(nj):
        for j in range(nl):
            s = 0.0
            for k in range(nm):
                s += c[i * nm + k] * d[k * nl + j]
            F[i, j] = s
    G = np.zeros((ni, nl))
    for i in range(ni):
        for j in range(nl):
            s = 0.0
            for k in range(nj):
                s += E[i, k] * F[k, j]
            G[i, j] = s
    return G


SIZES = (4, 7)
BENCH_SIZE = 250
JAX_PORT = None
NUMBA_OK = True
