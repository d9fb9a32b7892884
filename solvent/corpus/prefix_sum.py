"""Prefix sums: np.cumsum of a vector and an in-place column-by-column scan of a matrix. Category: reduction."""
import numpy as np


def kernel(x, Y):
    c = np.cumsum(x)
    for j in range(1, Y.shape[1]):
        Y[:, j] += Y[:, j - 1]
    return c, c[-1] - Y[-1, -1]


def make_args(n, rng):
    return (rng.random(n * n), rng.random((n, n)))


SIZES = (8, 24)
BENCH_SIZE = 1500
JAX_PORT = "prefix_sum"
NUMBA_OK = True
