"""Cholesky factorisation in place, written as in textbooks: each entry subtracts the dot
product of a row prefix and a column prefix whose length follows the loop variable
(A[i, :j] @ A[:j, j]: run-time slice lengths). The factor is mirrored into the upper
triangle as it is computed, so the column prefix A[:j, j] reads row j of L (on A itself the
column would read the untouched upper triangle: NaN for large n). Category: sequential."""
import numpy as np


def kernel(A):
    n = A.shape[0]
    for i in range(n):
        for j in range(i):
            A[i, j] -= A[i, :j] @ A[:j, j]
            A[i, j] /= A[j, j]
            A[j, i] = A[i, j]
        A[i, i] -= A[i, :i] @ A[i, :i]
        A[i, i] = np.sqrt(A[i, i])
    return A


def make_args(n, rng):
    M = rng.random((n, n))
    return (M @ M.T + n * np.eye(n),)


SIZES = (8, 24)
BENCH_SIZE = 400
JAX_PORT = None  # the JAX port returns L alone; this kernel keeps A's upper triangle
NUMBA_OK = True
