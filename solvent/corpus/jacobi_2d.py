"""2-D five-point Jacobi stencil with a time loop (PolyBench jacobi-2d). Category: stencil."""
import numpy as np


def kernel(TSTEPS, A, B):
    for t in range(1, TSTEPS):
        B[1:-1, 1:-1] = 0.2 * (A[1:-1, 1:-1] + A[1:-1, :-2] + A[1:-1, 2:] + A[2:, 1:-1] + A[:-2, 1:-1])
        A[1:-1, 1:-1] = 0.2 * (B[1:-1, 1:-1] + B[1:-1, :-2] + B[1:-1, 2:] + B[2:, 1:-1] + B[:-2, 1:-1])


def make_args(n, rng):
    return (20, rng.random((n, n)), rng.random((n, n)))


SIZES = (8, 24)
BENCH_SIZE = 400
JAX_PORT = "jacobi_2d"
NUMBA_OK = True
