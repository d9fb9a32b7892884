"""A batch of small matrix products with a bias and tanh (np.matmul broadcasting over the batch). Category: linalg (dot-dominated)."""
import numpy as np


def kernel(A, B, c):
    return np.tanh(np.matmul(A, B) + c)


def make_args(n, rng):
    return (rng.standard_normal((4 * n, 16, 32)), rng.standard_normal((4 * n, 32, 16)),
            rng.standard_normal(16))


SIZES = (2, 5)
BENCH_SIZE = 2000
JAX_PORT = None
NUMBA_OK = False  # numba: np.matmul on 3-d arrays is unsupported
