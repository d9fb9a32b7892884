"""Loop twin of mandelbrot_vec: per pixel, the grid point by linspace's formula and the escape
iteration as a complex `while` loop (a pixel's z stops changing once |z| >= 2). Category: misc."""
import numpy as np

from .mandelbrot_vec import make_args  # noqa: F401

TWIN_OF = "mandelbrot_vec"


def kernel(xmin, xmax, ymin, ymax, xn, yn, maxiter):
    N = np.zeros((yn, xn), dtype=np.int64)
    A = np.empty((yn, xn))
    dx = (xmax - xmin) / (xn - 1)
    dy = (ymax - ymin) / (yn - 1)
    for i in range(yn):
        ci = i * dy + ymin
        if i == yn - 1:
            ci = ymax
        for j in range(xn):
            cr = j * dx + xmin
            if j == xn - 1:
                cr = xmax
            c = cr + 1j * ci
            z = 0j
            k = 0
            while k < maxiter and abs(z) < 2.0:
                z = z * z + c
                k += 1
            N[i, j] = k
            A[i, j] = abs(z)
    return N, A


SIZES = (3, 6)
BENCH_SIZE = 600
JAX_PORT = None
NUMBA_OK = True
