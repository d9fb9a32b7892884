"""BiCG sub-kernel: s = r^T A and q = A p (PolyBench bicg). Category: linalg (dot-dominated)."""
import numpy as np


def kernel(A, p, r):
    s = r @ A
    q = A @ p
    return s, q


def make_args(n, rng):
    return (rng.random((n + 4, n)), rng.random(n), rng.random(n + 4))


SIZES = (8, 24)
BENCH_SIZE = 3500
JAX_PORT = "bicg"
NUMBA_OK = True
