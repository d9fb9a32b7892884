"""Cholesky factorisation as a column loop with whole-column operations and masks. Category: linalg."""
import numpy as np


def kernel(A):
    n = A.shape[0]
    L = np.zeros_like(A)
    rows = np.arange(n)
    for j in range(n):
        d = np.sqrt(A[j, j] - np.dot(L[j, :], L[j, :]))
        L[j, j] = d
        col = (A[:, j] - L @ L[j, :]) / d
        L[:, j] = np.where(rows > j, col, L[:, j])
    return L


def make_args(n, rng):
    M = rng.random((n, n))
    return (M @ M.T + n * np.eye(n),)


SIZES = (8, 24)
BENCH_SIZE = 600
JAX_PORT = "cholesky"
NUMBA_OK = True
