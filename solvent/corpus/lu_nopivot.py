"""LU factorization without pivoting, in place, Doolittle order with scalar loops (the
triangular loop bounds follow the outer index). Category: sequential."""
import numpy as np


def kernel(A):
    n = A.shape[0]
    for k in range(n):
        for i in range(k + 1, n):
            A[i, k] = A[i, k] / A[k, k]
            for j in range(k + 1, n):
                A[i, j] -= A[i, k] * A[k, j]


def make_args(n, rng):
    return (rng.random((n, n)) + n * np.eye(n),)


SIZES = (4, 13)
BENCH_SIZE = 200
JAX_PORT = None
NUMBA_OK = True
