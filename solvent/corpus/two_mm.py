"""Two chained matrix multiplies with in-place alpha/beta update of D (PolyBench 2mm). Category: linalg (dot-dominated)."""
import numpy as np


def kernel(alpha, beta, A, B, C, D):
    tmp = alpha * A @ B
    D *= beta
    D += tmp @ C


def make_args(n, rng):
    return (1.5, 1.2, rng.random((n, n + 1)), rng.random((n + 1, n + 2)),
            rng.random((n + 2, n + 3)), rng.random((n, n + 3)))


SIZES = (8, 24)
BENCH_SIZE = 700
JAX_PORT = "two_mm"
NUMBA_OK = True
