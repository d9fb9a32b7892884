"""LU factorisation without pivoting (Doolittle, in place) with NumPy slices: row i of U
and column i of L each subtract a vector-matrix product whose lengths follow the loop
variable (A[i, :i] @ A[:i, i:], A[i + 1:, :i] @ A[:i, i]). Category: sequential."""
import numpy as np


def kernel(A):
    n = A.shape[0]
    for i in range(n):
        A[i, i:] -= A[i, :i] @ A[:i, i:]
        A[i + 1:, i] = (A[i + 1:, i] - A[i + 1:, :i] @ A[:i, i]) / A[i, i]
    return A


def make_args(n, rng):
    return (rng.random((n, n)) + n * np.eye(n),)


SIZES = (6, 24)
BENCH_SIZE = 400
JAX_PORT = None
NUMBA_OK = True
