"""Vectorised complex Mandelbrot over a fixed number of iterations using np.where masks (no while). Category: misc."""
import numpy as np


def kernel(xmin, xmax, ymin, ymax, xn, yn, maxiter):
    X = np.linspace(xmin, xmax, xn)
    Y = np.linspace(ymin, ymax, yn)
    C = X[np.newaxis, :] + 1j * Y[:, np.newaxis]
    Z = np.zeros_like(C)
    N = np.zeros(C.shape, dtype=np.int64)
    for n in range(maxiter):
        inside = np.abs(Z) < 2.0
        N = np.where(inside, n + 1, N)
        Z = np.where(inside, Z * Z + C, Z)
    return N, np.abs(Z)


def make_args(n, rng):
    return (-2.0, 0.6, -1.2, 1.2, n, n + 1, 20)


SIZES = (8, 24)
BENCH_SIZE = 600
JAX_PORT = "mandelbrot_vec"
NUMBA_OK = True
