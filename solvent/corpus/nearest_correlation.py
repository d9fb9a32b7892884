"""Nearest correlation matrix by alternating projections (Higham 2002): an eigendecomposition
inside the iteration loop projects onto the positive semidefinite cone, then the diagonal is
reset to one (Dykstra's correction kept in dS). Category: linalg."""
import numpy as np


def kernel(A, iters):
    Y = A.copy()
    dS = np.zeros_like(A)
    for it in range(iters):
        R = Y - dS
        w, V = np.linalg.eigh(R)
        X = (V * np.maximum(w, 0.0)) @ V.T
        dS = X - R
        Y = X.copy()
        for i in range(Y.shape[0]):
            Y[i, i] = 1.0
    return Y


def make_args(n, rng):
    B = rng.uniform(-1.0, 1.0, (n, n))
    A = 0.5 * (B + B.T)
    for i in range(n):
        A[i, i] = 1.0
    return (A, 20)


SIZES = (4, 12)
BENCH_SIZE = 200
JAX_PORT = None
NUMBA_OK = False
