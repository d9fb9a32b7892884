"""Least-squares normal equations in float32: the Gram matrix with a ridge and the right-hand side. Category: linalg (dot-dominated)."""
import numpy as np


def kernel(X, y, lam):
    G = X.T @ X
    G += lam * np.eye(X.shape[1], dtype=np.float32)
    b = X.T @ y
    return G, b


def make_args(n, rng):
    # positive data: every entry of G and b is a sum of positive terms, so float32 results
    # of different summation orders (BLAS kernels, XLA) agree to a few ulps
    return (rng.random((6 * n, n)).astype(np.float32),
            rng.random(6 * n).astype(np.float32), 0.1)


SIZES = (8, 24)
BENCH_SIZE = 500
JAX_PORT = None
NUMBA_OK = True
