"""Jacobi relaxation for Laplace's equation iterated in a data-dependent while loop until converged. Category: stencil."""
import numpy as np


def kernel(u, tol, max_iter):
    err = tol + 1.0
    it = 0
    while err > tol and it < max_iter:
        new = 0.25 * (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:])
        err = np.max(np.abs(new - u[1:-1, 1:-1]))
        u[1:-1, 1:-1] = new
        it += 1
    return it, err


def make_args(n, rng):
    u = rng.random((n, n)) * 0.1
    u[0, :] = 1.0
    return (u, 1e-3, 400)


SIZES = (8, 24)
BENCH_SIZE = 200
JAX_PORT = "laplace_converge"
NUMBA_OK = True
