"""Sample covariance (Gram matrix of centred columns) in float32. Category: linalg (dot-dominated)."""
import numpy as np


def kernel(X):
    Xc = X - X.mean(axis=0)
    return (Xc.T @ Xc) / np.float32(X.shape[0] - 1)


def make_args(n, rng):
    return (rng.standard_normal((4 * n, n)).astype(np.float32),)


SIZES = (8, 24)
BENCH_SIZE = 500
JAX_PORT = None
NUMBA_OK = False  # numba: X.mean(axis=0) is unsupported
