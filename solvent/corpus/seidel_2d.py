"""Gauss-Seidel 2-D 9-point sweep: row-slice update plus a scalar in-place recurrence (PolyBench seidel-2d). Category: stencil."""
import numpy as np


def kernel(TSTEPS, A):
    N = A.shape[0]
    for t in range(0, TSTEPS - 1):
        for i in range(1, N - 1):
            A[i, 1:-1] += (A[i - 1, :-2] + A[i - 1, 1:-1] + A[i - 1, 2:] + A[i, 2:]
                           + A[i + 1, :-2] + A[i + 1, 1:-1] + A[i + 1, 2:])
            for j in range(1, N - 1):
                A[i, j] += A[i, j - 1]
                A[i, j] /= 9.0


def make_args(n, rng):
    return (6, rng.random((n, n)))


SIZES = (8, 24)
BENCH_SIZE = 100
JAX_PORT = "seidel_2d"
NUMBA_OK = True
