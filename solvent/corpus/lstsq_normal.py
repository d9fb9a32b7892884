"""Ridge least squares via normal equations with np.linalg.cholesky/solve/inv/norm. Category: linalg."""
import numpy as np


def kernel(X, y, lam):
    G = X.T @ X + lam * np.eye(X.shape[1])
    L = np.linalg.cholesky(G)
    b = X.T @ y
    z = np.linalg.solve(L, b)
    w = np.linalg.solve(L.T, z)
    Ginv = np.linalg.inv(G)
    resid = y - X @ w
    return w, np.linalg.norm(resid), Ginv


def make_args(n, rng):
    return (rng.random((2 * n, n)), rng.random(2 * n), 0.1)


SIZES = (8, 24)
BENCH_SIZE = 700
JAX_PORT = "lstsq_normal"
NUMBA_OK = True
