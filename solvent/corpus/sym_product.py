"""Symmetric rank-2k product S = A^T B + B^T A, then scaled and shifted. Category: linalg (dot-dominated)."""
import numpy as np


def kernel(alpha, A, B):
    S = A.T @ B + B.T @ A
    return alpha * S + np.eye(A.shape[1])


def make_args(n, rng):
    return (0.5, rng.standard_normal((2 * n, n)), rng.standard_normal((2 * n, n)))


SIZES = (8, 24)
BENCH_SIZE = 600
JAX_PORT = None
NUMBA_OK = True
