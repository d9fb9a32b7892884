"""Least-squares normal equations in float32: the Gram matrix with a ridge and the right-hand side. Category: linalg (dot-dominated)."""
import numpy as np


def kernel(X, y, lam):
    G = X.T @ X
    G += lam * np.eye(X.shape[1], dtype=np.float32)
    b = X.T @ y
    return G, b


def make_args(n, rng):
    return (rng.standard_normal((6 * n, n)).astype(np.float32),
            rng.standard_normal(6 * n).astype(np.float32), 0.1)


SIZES = (8, 24)
BENCH_SIZE = 500
JAX_PORT = None
NUMBA_OK = True
