"""1-D Jacobi stencil with a time loop and ping-pong slice updates (PolyBench jacobi-1d). Category: stencil."""
import numpy as np


def kernel(TSTEPS, A, B):
    for t in range(1, TSTEPS):
        B[1:-1] = 0.33333 * (A[:-2] + A[1:-1] + A[2:])
        A[1:-1] = 0.33333 * (B[:-2] + B[1:-1] + B[2:])


def make_args(n, rng):
    return (50, rng.random(n), rng.random(n))


SIZES = (8, 24)
BENCH_SIZE = 400000
JAX_PORT = "jacobi_1d"
NUMBA_OK = True
