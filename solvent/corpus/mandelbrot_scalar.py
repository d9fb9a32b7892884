"""Escape-time Mandelbrot with a scalar while loop per pixel over a small grid. Category: scalar-loop."""
import numpy as np


def kernel(xs, ys, maxiter):
    out = np.zeros((ys.shape[0], xs.shape[0]), dtype=np.int64)
    for i in range(ys.shape[0]):
        for j in range(xs.shape[0]):
            cr = xs[j]
            ci = ys[i]
            zr = 0.0
            zi = 0.0
            k = 0
            while k < maxiter and zr * zr + zi * zi <= 4.0:
                t = zr * zr - zi * zi + cr
                zi = 2.0 * zr * zi + ci
                zr = t
                k += 1
            out[i, j] = k
    return out


def make_args(n, rng):
    return (np.linspace(-2.0, 0.6, n), np.linspace(-1.2, 1.2, n), 50)


SIZES = (8, 24)
BENCH_SIZE = 60
JAX_PORT = "mandelbrot_scalar"
NUMBA_OK = True
