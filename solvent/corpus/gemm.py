"""General matrix multiply with in-place alpha/beta update of C (PolyBench gemm). Category: linalg (dot-dominated)."""
import numpy as np


def kernel(alpha, beta, C, A, B):
    C *= beta
    C += alpha * A @ B


def make_args(n, rng):
    return (1.5, 1.2, rng.random((n, n + 3)), rng.random((n, n + 5)), rng.random((n + 5, n + 3)))


SIZES = (8, 24)
BENCH_SIZE = 1000
JAX_PORT = "gemm"
NUMBA_OK = True
