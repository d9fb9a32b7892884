"""Gauss-Seidel sweeps for a 1-D Poisson problem, in place (each update reads the value the
same sweep just wrote). Category: sequential."""
import numpy as np


def kernel(sweeps, u, f, h):
    n = u.shape[0]
    for s in range(sweeps):
        for i in range(1, n - 1):
            u[i] = 0.5 * (u[i - 1] + u[i + 1] + h * h * f[i])
    return u


def make_args(n, rng):
    return (20, np.zeros(n), rng.random(n), 1.0 / n)


SIZES = (8, 33)
BENCH_SIZE = 2000
JAX_PORT = None
NUMBA_OK = True
