"""Three matrix multiplies G = (A B)(C D) using np.dot, np.matmul and @ (PolyBench 3mm). Category: linalg (dot-dominated)."""
import numpy as np


def kernel(A, B, C, D):
    E = np.dot(A, B)
    F = np.matmul(C, D)
    G = E @ F
    return G


def make_args(n, rng):
    return (rng.random((n, n + 2)), rng.random((n + 2, n + 1)),
            rng.random((n + 1, n + 4)), rng.random((n + 4, n + 3)))


SIZES = (8, 24)
BENCH_SIZE = 700
JAX_PORT = "three_mm"
NUMBA_OK = False  # numba: np.matmul (function form) is unsupported
