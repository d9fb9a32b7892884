"""Rank-2 update followed by two matrix-vector products (PolyBench gemver). Category: linalg (dot-dominated)."""
import numpy as np


def kernel(alpha, beta, A, u1, v1, u2, v2, w, x, y, z):
    A += np.outer(u1, v1) + np.outer(u2, v2)
    x += beta * y @ A + z
    w += alpha * A @ x


def make_args(n, rng):
    fn = float(n)
    return (
        1.5,
        1.2,
        rng.random((n, n)),
        rng.random(n),
        rng.random(n) / fn,
        rng.random(n),
        rng.random(n) / fn,
        np.zeros(n),
        np.zeros(n),
        rng.random(n) / fn,
        rng.random(n) / fn,
    )


SIZES = (8, 24)
BENCH_SIZE = 2000
JAX_PORT = "gemver"
NUMBA_OK = True
