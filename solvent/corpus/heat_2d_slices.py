"""The issue's heat example: explicit diffusion along axis 0 written with slices, ping-ponging A and B. Category: stencil."""
import numpy as np


def kernel(TSTEPS, A, B):
    for t in range(TSTEPS):
        B[1:-1, 1:-1] = 0.125 * (A[2:, 1:-1] - 2.0 * A[1:-1, 1:-1] + A[:-2, 1:-1]) + A[1:-1, 1:-1]
        A[1:-1, 1:-1] = 0.125 * (B[2:, 1:-1] - 2.0 * B[1:-1, 1:-1] + B[:-2, 1:-1]) + B[1:-1, 1:-1]
    return A


def make_args(n, rng):
    return (20, rng.random((n, n)), rng.random((n, n)))


SIZES = (8, 24)
BENCH_SIZE = 500
JAX_PORT = "heat_2d_slices"
NUMBA_OK = True
