"""A chain of matrix-vector products y = A (B (C x)) with a transposed step, float64. Category: linalg (dot-dominated)."""
import numpy as np


def kernel(A, B, C, x):
    t = C @ x
    u = B.T @ t
    return A @ u


def make_args(n, rng):
    return (rng.standard_normal((n, n + 2)), rng.standard_normal((n + 3, n + 2)),
            rng.standard_normal((n + 3, n + 1)), rng.standard_normal(n + 1))


SIZES = (8, 24)
BENCH_SIZE = 3000
JAX_PORT = None
NUMBA_OK = True
